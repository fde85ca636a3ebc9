#!/usr/bin/env bash
# usage: run.sh BENCHMARKS_JAR  (see README.md)
J=$1
for r in 1 2; do
 for w in spawnLocal chains forkTree futures; do
  for warm in 600 3000; do
   for e in gmp fjp; do
    exec 3> >(java -cp $J dev.gmp.bench.ShortRuns burn 2)
    sleep 0.3
    java -cp $J dev.gmp.bench.ShortRuns run $w $e 2 30 $warm 20 2>/dev/null | python3 "$(dirname "$0")/med.py" "r$r $w warm=$warm $e"
    exec 3>&-
    sleep 0.3
   done
  done
 done
done
