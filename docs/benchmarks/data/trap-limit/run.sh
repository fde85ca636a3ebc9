#!/bin/bash
# What C2's uncommon traps cost in a fresh JVM's first 30 operations: ShortRuns, gmp and
# ForkJoinPool interleaved, each with and without -XX:PerMethodTrapLimit=0 (a diagnostic: C2
# then compiles both sides of every branch instead of trapping on the side profiling never saw).
# usage: run.sh CORE_JAR BENCH_JAR [ROUNDS]   (a JDK >= 21 on PATH)
# Output lines: workload p flag executor round ms(sum of operations 1-30); table: sum.py raw.txt
CORE=$1; BENCH=$2; N=${3:-8}
for w in spawnRemote submitGet spawnLocal chains; do for p in 1 2 4; do
  for i in $(seq 1 $N); do for flag in default notrap; do for ex in gmp fjp; do
    opt=""; [ $flag = notrap ] && opt="-XX:PerMethodTrapLimit=0"
    cp=$BENCH; [ $ex = gmp ] && cp=$CORE:$BENCH
    s=$(java $opt -cp $cp dev.gmp.bench.ShortRuns run $w $ex $p 30 0 0 2>/dev/null |
      awk -F, '/^short/ && $3=="time"{s+=$4} END{printf "%.2f", s/1e6}')
    echo "$w $p $flag $ex $i $s"
  done; done; done
done; done
