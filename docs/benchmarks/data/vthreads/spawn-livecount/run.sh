#!/usr/bin/env bash
# usage: run.sh OUTDIR ROUNDS "P list" BENCH_REGEX label=jar ...  (one lock hold per round and p; README.md)
set -eu
OUT=$1; R=$2; PS=$3; B=$4; shift 4
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; J=$JAVA_HOME/bin/java
mkdir -p $OUT
FJ="-Xms1g -Xmx1g -XX:+AlwaysPreTouch -XX:+IgnoreUnrecognizedVMOptions --sun-misc-unsafe-memory-access=allow"
one() { # label jar p r sched extra
  $J --sun-misc-unsafe-memory-access=allow -Djmh.ignoreLock=true -jar $2 -foe true -jvmArgs "$FJ $6" "$B" -p parallelism=$3 -p scheduler=$5 -f 1 -wi 2 -w 1s -i 4 -r 1s -prof gc -rf json -rff $OUT/$1-p$3-r$4.json > $OUT/$1-p$3-r$4.log 2>&1
}
export -f one; export J FJ B OUT
for r in $(seq 1 $R); do
 for p in $PS; do
  args=""
  for lj in "$@"; do args="$args $lj"; done
  flock -x /tmp/cpu.lock bash -c '
    r=$1; p=$2; shift 2; last=""
    for lj in "$@"; do l=${lj%%=*}; rest=${lj#*=}; jar=${rest%%,*}; extra=""; [ "$rest" != "$jar" ] && extra=${rest#*,}; last=$jar; one $l $jar $p $r gmp "$extra"; done
    one default $last $p $r default ""
    echo "[$(date -u +%H:%M:%S)] round $r p=$p done, load $(cut -d" " -f1 /proc/loadavg)"
  ' _ $r $p "$@"
 done
done
echo done
