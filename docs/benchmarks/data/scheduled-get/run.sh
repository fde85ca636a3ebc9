#!/bin/bash
# A task's get() on a scheduled future: the unmarked wait (OLD core) against the declared wait
# (NEW core), ForkJoinPool beside; 3 JVMs each, interleaved.
# usage: run.sh OLD_CORE_JAR NEW_CORE_JAR  (SchedWait compiled in .)
O=$1; N=$2
for round in 1 2 3; do
  for k in old new fjp; do
    jar=$O; [ $k = new ] && jar=$N; ex=gmp; [ $k = fjp ] && ex=fjp
    java -cp $jar:. SchedWait $ex | sed "s/^/$k round=$round /"
  done
done
