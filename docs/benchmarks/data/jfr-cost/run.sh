#!/usr/bin/env bash
# JFR cost on the main job's benchmarks (gmp only), variants interleaved, 3 rounds (docs/design.md
# 10.4). Needs two benchmark jars: /tmp/bench-prejfr.jar (built at fb2c0fc, the commit before the JFR
# events) and /tmp/bench-jfr.jar (with them); OUT is the results directory.
set -u
OUT=${OUT:-/tmp/jfrbench}
mkdir -p "$OUT"
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
B='TokioRt\.(chained_spawn|spawn_many_local|spawn_many_remote_idle|ping_pong|yield_many)$'
K='KotlinActors\.singlePingPong$'
F='ForkJoinTree\.forkJoinTree$'
BASE="-Xms1g -Xmx1g -XX:+IgnoreUnrecognizedVMOptions --sun-misc-unsafe-memory-access=allow"
GMP_EVENTS="+dev.gmp.ExecutorStats#enabled=true,+dev.gmp.Steal#enabled=true,+dev.gmp.Handoff#enabled=true,+dev.gmp.Retake#enabled=true,+dev.gmp.ProcState#enabled=true,+dev.gmp.Park#enabled=true,+dev.gmp.Unpark#enabled=true,+dev.gmp.RunnextDemotion#enabled=true"
cd $OUT
for round in 1 2 3; do
  for v in prejfr off rec-default rec-gmp; do
    jar=/tmp/bench-jfr.jar; extra=""
    case $v in
      prejfr) jar=/tmp/bench-prejfr.jar ;;
      rec-default) extra="-XX:StartFlightRecording:filename=$OUT/d-%p.jfr,settings=default" ;;
      rec-gmp) extra="-XX:StartFlightRecording:filename=$OUT/g-%p.jfr,settings=default,$GMP_EVENTS" ;;
    esac
    $J --sun-misc-unsafe-memory-access=allow -jar $jar "$B" "$K" "$F" -p executor=gmp -p parallelism=2 \
      -f 1 -wi 2 -w 400ms -i 3 -r 700ms -foe true -jvmArgs "$BASE $extra" \
      -rf json -rff "r$round-$v.json" > "r$round-$v.log" 2>&1 || echo "FAILED $round $v"
    rm -f $OUT/*.jfr
    echo "done $round $v $(date +%T)"
  done
done
echo ALLDONE
