#!/bin/bash
export PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
B=/work/main/gmp-bench/target/benchmarks.jar
for r in $(seq 1 $1); do for p in 2 4; do
  for v in gmp pop0 fjp; do
    case $v in gmp) e=gmp; o="";; pop0) e=gmp; o="-jvmArgsAppend -Dgmp.lifoPop=false";; fjp) e=fjp; o="";; esac
    java -cp /tmp/jit/N.jar:$B org.openjdk.jmh.Main 'GoMatmult' -p executor=$e -p parallelism=$p -f 1 -wi 3 -w 400ms -i 3 -r 700ms $o -rf json -rff /tmp/mm/$v-p$p-$r.json > /tmp/mm/$v-p$p-$r.log 2>&1
  done
done; echo "round $r done"; done
