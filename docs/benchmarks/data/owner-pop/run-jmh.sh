#!/bin/bash
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
R=$1; shift; P=${P:-2}
B=${B:-'TokioRt\.(ping_pong|chained_spawn|yield_many|spawn_many_local|spawn_many_remote_idle)$|ForkJoinTree\.|KotlinActors\.singlePingPong$'}
for r in $(seq ${R0:-1} $R); do for v in "$@"; do
  java -cp /tmp/exp/$v.jar:/work/main/gmp-bench/target/benchmarks.jar org.openjdk.jmh.Main "$B" -p executor=gmp -p parallelism=$P -f 1 -wi 3 -w 400ms -i 3 -r 700ms -rf json -rff ${OUTD:-/tmp/jmh}/$v-p$P-$r.json > ${OUTD:-/tmp/jmh}/$v-p$P-$r.log 2>&1
  echo "$r $v done"
done; done
