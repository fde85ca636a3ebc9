# $1 jar, $2 p, $3 ops, $4 tag
for i in 1 2 3 4 5 6; do
java -XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation -XX:LogFile=lc_$4_$i.xml -cp $1:bench.jar:. OpLog gmp $2 $3 > /dev/null 2>&1
id=$(grep -o "<task compile_id='[0-9]*' method='dev.gmp.GmpExecutor execute[^>]*>" lc_$4_$i.xml | grep -v "level=" | tail -1 | sed "s/.*compile_id='\([0-9]*\)'.*/\1/")
echo "run $i last C2 execute $id: $(python3 inl.py lc_$4_$i.xml $id | grep -E 'X dev.gmp|inlined bytes' | tr '\n' ' ')"
done
