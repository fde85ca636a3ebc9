#!/usr/bin/env bash
# srv.sh OUT ROUNDS HANDLER LABEL=CORE_JAR...  (run from the repository root, gmp-bench built)
# HttpServerBench on gmp (16 clients, p=2, 10 s), the JDK server and Jetty, each build's core jar
# first on the class path; the order of the builds alternates between rounds. Labels as given;
# srvsum.py compares the labels "new" and "old".
set -u
out=$1; rounds=$2; h=$3; shift 3; vs=("$@")
export PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
bench=gmp-bench/target/benchmarks.jar
for r in $(seq 1 "$rounds"); do for s in jdk jetty; do
  n=${#vs[@]}
  for i in $(seq 0 $((n-1))); do
    v=${vs[$(( (i + r) % n ))]}; label=${v%%=*}; jar=${v#*=}
    timeout 90 java -cp "$jar:$bench" dev.gmp.bench.HttpServerBench gmp 16 "$h" 10 "$s" 2 2>&1 \
      | grep ' req/s' | sed "s/^/r$r $label /" >> "$out"
  done
done; done
