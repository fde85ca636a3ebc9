#!/usr/bin/env bash
# usage: servers-run.sh OUT P ROUNDS SECONDS "servers" "handlers" "execs"
# servers: jdk, jetty, tomcat (HttpServerBench), grpc (GrpcServerBench)
set -u
out=$1; p=$2; rounds=$3; secs=$4; servers=$5; handlers=$6; execs=($7)
J=${BENCH_JAR:-gmp-bench/target/benchmarks.jar}
export PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
for r in $(seq 1 $rounds); do
  # rotate the executor order each round
  n=${#execs[@]}; ord=(); for i in $(seq 0 $((n-1))); do ord+=(${execs[$(( (i + r) % n ))]}); done
  for s in $servers; do for h in $handlers; do for e in "${ord[@]}"; do
    if [ "$s" = grpc ]; then # gRPC's shaded Netty asks for native access
      cmd=(java --enable-native-access=ALL-UNNAMED -cp $J dev.gmp.bench.GrpcServerBench $e 16 $h $secs $p)
    else
      cmd=(java -cp $J dev.gmp.bench.HttpServerBench $e 16 $h $secs $s $p)
    fi
    flock -x /tmp/cpu.lock timeout 60 "${cmd[@]}" 2>&1 \
      | grep ' req/s' | cut -d" " -f1-18 | sed "s/^/r$r /" >> $out
  done; done; done
done
echo done >> $out.done
