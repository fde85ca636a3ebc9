#!/bin/bash
# usage: jmhrounds.sh OUTDIR ROUNDS "label|jar|jmh args" ...
out=$1; rounds=$2; shift 2
mkdir -p $out
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
for r in $(seq 1 $rounds); do
  for v in "$@"; do
    label=${v%%|*}; rest=${v#*|}; jar=${rest%%|*}; args=${rest#*|}
    echo "[$(date -u +%H:%M:%S)] round $r $label (load $(cut -d' ' -f1 /proc/loadavg))"
    $J -XX:+IgnoreUnrecognizedVMOptions --sun-misc-unsafe-memory-access=allow -jar $jar -foe true -jvmArgs "-Xms1g -Xmx1g -XX:+IgnoreUnrecognizedVMOptions --sun-misc-unsafe-memory-access=allow" $args -f 1 -rf json -rff $out/$label-r$r.json > $out/$label-r$r.log 2>&1 || { echo FAILED; tail -20 $out/$label-r$r.log; }
  done
done
