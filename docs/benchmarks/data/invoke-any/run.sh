#!/bin/bash
# invokeAny from a task: the run in place (OLD core) vs the marked wait (NEW core), ForkJoinPool beside;
# 3 JVMs each, interleaved. usage: run.sh OLD_CORE_JAR NEW_CORE_JAR  (AnyLoop compiled in .)
O=$1; N=$2
for round in 1 2 3; do
  for p in 1 2; do
    for mode in fast hedged; do
      for k in old new fjp; do
        jar=$O; [ $k = new ] && jar=$N; ex=gmp; [ $k = fjp ] && ex=fjp
        java -Xms1g -Xmx1g -cp $jar:. AnyLoop $ex $p $mode | sed "s/^/$k round=$round /"
      done
    done
  done
done
