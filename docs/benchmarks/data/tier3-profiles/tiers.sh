#!/bin/bash
# tiers.sh TIER...: spawnLocal, forkTree and timers at p=1 and 2, gmp and ForkJoinPool, 4 rounds,
# each a fresh JVM stopped at the given JIT tier (3: C1 with profiles; 1: C1 without), heap
# pre-touched; prints the median of operations 3-20 in ms. Run from the repository root after
# mvn install (or BENCH_JAR=...); JAVA defaults to java on PATH (JDK 25 here).
J=${JAVA:-java}
B=${BENCH_JAR:-gmp-bench/target/benchmarks.jar}
for r in 1 2 3 4; do for w in spawnLocal forkTree timers; do for p in 1 2; do for ex in gmp fjp; do for t in "$@"; do
  "$J" -XX:TieredStopAtLevel=$t -XX:+AlwaysPreTouch -Xms1g -Xmx1g -cp "$B" dev.gmp.bench.ShortRuns run $w $ex $p 20 2>/dev/null | python3 -c "
import sys,statistics
v=[int(l.split(',')[3])/1e6 for l in sys.stdin if l.startswith('short')]
print('$w tier$t p$p $ex', round(statistics.median(v[2:]),3))"
done; done; done; done; done
