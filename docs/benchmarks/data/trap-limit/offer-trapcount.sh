#!/bin/bash
# offer-trapcount.sh WORKLOAD P N CORE_JAR... (BENCH_JAR in $BENCH): per core jar and fresh JVM,
# gmp's C2 traps over 30 ShortRuns operations, those at InjectionQueue.offer's limit refresh
# (bci 21), C2 compiles of GmpExecutor.execute and Scheduler.submitExternal, and ops 1-30 in ms.
W=$1; P=$2; N=$3; shift 3
for i in $(seq 1 $N); do for j in "$@"; do
  java -XX:+PrintCompilation -Xlog:deoptimization=debug -cp $j:$BENCH dev.gmp.bench.ShortRuns \
    run $W gmp $P 30 0 0 > tc.out 2>&1
  t=$(grep trap_bci tc.out | grep 'level=4' | grep -c 'dev\.gmp')
  o=$(grep trap_bci tc.out | grep -c 'InjectionQueue.offer(Ldev/gmp/G;)Z trap_bci=21')
  c=$(grep -E '^ *[0-9]+ +[0-9]+ +[%sbn! ]*4 +dev.gmp.(GmpExecutor::execute|Scheduler::submitExternal) ' tc.out | grep -vc 'made not')
  s=$(grep '^short' tc.out | awk -F, '$3=="time"{s+=$4} END{printf "%.1f", s/1e6}')
  echo "$(basename $j) traps=$t offer21=$o c2_execute_submitExternal=$c ops1-30=${s}ms"
done; done
