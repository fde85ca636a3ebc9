#!/usr/bin/env bash
# ab.sh OUT ROUNDS SECS "servers" handler "label=jar:exec"...
# A/B of builds: each "label=JAR:EXECUTOR" runs HttpServerBench from its own benchmarks.jar
# (build each commit, copy its gmp-bench/target/benchmarks.jar aside); absummarize.py OUT
# prints per label the median of the JVMs' seconds 4-SECS (min-max), perround.py OUT BASE the
# per-round ratios. Parallelism 2, or $P.
set -u
out=$1; rounds=$2; secs=$3; servers=$4; h=$5; shift 5; vs=("$@")
export PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
for r in $(seq 1 $rounds); do
  n=${#vs[@]}
  for s in $servers; do for i in $(seq 0 $((n-1))); do
    v=${vs[$(( (i + r) % n ))]}; label=${v%%=*}; rest=${v#*=}; jar=${rest%%:*}; ex=${rest#*:}
    timeout 90 java -cp $jar dev.gmp.bench.HttpServerBench $ex 16 $h $secs $s ${P:-2} 2>&1 | grep ' req/s' | sed "s/^/r$r $label /" >> $out
  done; done
done
