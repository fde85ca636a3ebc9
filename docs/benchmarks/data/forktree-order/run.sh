#!/bin/bash
# Interleaved fresh JVMs of FjOps (data/forktree-p2/FjOps.java, compiled into ./probe); A.jar
# is any gmp-core jar (ForkJoinPool ignores it), VARIANT.jar a gmp-core build of the variant.
# usage: run.sh ROUNDS GCOPT variants...
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
R=$1; GC=$2; shift 2
for r in $(seq $R); do for v in "$@"; do
  if [ $v = fjp ]; then jar=A.jar; e=fjp; else jar=$v.jar; e=gmp; fi
  echo -n "$r $v: "; timeout 40 java $GC -Xms1g -Xmx1g -XX:+AlwaysPreTouch -cp $jar:/work/main/gmp-bench/target/benchmarks.jar:probe FjOps $e 2 300 | head -1
done; done
