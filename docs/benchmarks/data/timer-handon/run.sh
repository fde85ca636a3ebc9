#!/bin/bash
# A timer pending while the one before it runs a task that sleeps unmarked: the core before the
# hand-on (OLD) and after (NEW), ForkJoinPool and ScheduledThreadPoolExecutor beside.
# usage: run.sh OLD_CORE_JAR NEW_CORE_JAR  (TimerPair compiled in .)
O=$1; N=$2
for p in 1 2 4; do
  for k in old new fjp stpe; do
    jar=$O; [ $k = new ] && jar=$N; ex=gmp; [ $k = fjp ] && ex=fjp; [ $k = stpe ] && ex=stpe
    java -cp $jar:. TimerPair $ex $p | sed "s/^/$k /"
  done
done
