#!/usr/bin/env bash
# Issue 12's side-by-side run, as recorded in docs/benchmarks.md (virtual threads): ROUNDS rounds,
# each one JMH invocation with one fork per scheduler, so gmp's fork and the default scheduler's
# run next to each other in time (the 2 shared cores' load drifts between minutes); the summary
# takes each round's gmp/default ratio and reports their median and range.
#   JAR=gmp-bench/target/benchmarks.jar ROUNDS=5 docs/benchmarks/data/vthreads/run.sh OUTDIR
set -euo pipefail
OUT=${1:?output directory}
JAR=${JAR:-gmp-bench/target/benchmarks.jar}
ROUNDS=${ROUNDS:-5}
JAVA=${JAVA_HOME:?set JAVA_HOME to a JDK >= 21}/bin/java
mkdir -p "$OUT"
cp "$JAR" "$OUT/benchmarks.jar.tmp"
trap 'rm -f "$OUT/benchmarks.jar.tmp"' EXIT
FJ="-Xms1g -Xmx1g -XX:+IgnoreUnrecognizedVMOptions --sun-misc-unsafe-memory-access=allow"
jmh() { "$JAVA" -XX:+IgnoreUnrecognizedVMOptions --sun-misc-unsafe-memory-access=allow \
  -Djmh.ignoreLock=true -jar "$OUT/benchmarks.jar.tmp" -foe true -jvmArgs "$FJ" "$@"; }
for r in $(seq 1 "$ROUNDS"); do
  echo "[$(date -u +%H:%M:%S)] round $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
  jmh VirtualThreadCarriers -p parallelism=2 -f 1 -wi 2 -w 1s -i 3 -r 1s \
    -rf json -rff "$OUT/p2-r$r.json" > "$OUT/p2-r$r.log" 2>&1
  jmh 'VirtualThreadCarriers.(parkUnpark|abq)' -p parallelism=1 -f 1 -wi 2 -w 1s -i 3 -r 1s \
    -rf json -rff "$OUT/p1-r$r.json" > "$OUT/p1-r$r.log" 2>&1
done
echo "[$(date -u +%H:%M:%S)] done, load $(cut -d' ' -f1-3 /proc/loadavg)"
