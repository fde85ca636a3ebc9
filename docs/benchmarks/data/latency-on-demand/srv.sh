#!/bin/bash
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
B=/work/main/gmp-bench/target/benchmarks.jar
for r in 1 2 3; do
 for v in head new fjp; do
  if [ $v = fjp ]; then J=/tmp/s7/new.jar; E=fjp; else J=/tmp/s7/$v.jar; E=gmp; fi
  for srv in jdk jetty; do
   s=$(java -cp $J:$B org.openjdk.jmh.Main HttpServerBench -p executor=$E -p clients=16 -p handler=tiny -p server=$srv -f 1 -wi 3 -w 1s -i 5 -r 1s -foe true 2>&1 | grep "HttpServerBench.httpServer " | awk '{print $(NF-3)}')
   echo "$r $v $srv $s"
  done
 done
done
