#!/bin/bash
# Interleaved fresh JVMs of InvokeAllRuns: two gmp-core jars (old, new) and ForkJoinPool.
# usage: run.sh OLD_CORE_JAR NEW_CORE_JAR ROUNDS > out.txt; then python3 summarize.py out.txt
# Each line: round from p leaf-work executor ops-1-30-ns warm-median-ns.
# Beside a CPU burner: java -cp BENCH_JAR dev.gmp.bench.ShortRuns burn 2 < <(sleep 600) &
set -eu
here=$(cd "$(dirname "$0")/../../../.." && pwd)
bench=$here/gmp-bench/target/benchmarks.jar
old=$1 new=$2 rounds=$3
for r in $(seq 1 "$rounds"); do
  for from in out in; do for work in 0 2000; do for p in 1 2 4; do
    for ex in old new fjp; do
      case $ex in
        old) cp="$old:$bench" e=gmp ;;
        new) cp="$new:$bench" e=gmp ;;
        fjp) cp="$bench" e=fjp ;;
      esac
      echo "$r $from $p $work $ex $(java -cp "$cp" dev.gmp.bench.InvokeAllRuns $e $p $from $work)"
    done
  done; done; done
done
