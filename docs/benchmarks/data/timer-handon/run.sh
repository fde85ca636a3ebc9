#!/bin/bash
# A pending timer while tasks that sleep unmarked hold the processors (TimerLateness: pair, where
# the tasks are an earlier timer's; then-task, outside tasks, one per processor). Cores: before
# the hand-on (OLD), with it (NEW), ForkJoinPool and ScheduledThreadPoolExecutor beside.
# usage: run.sh OLD_CORE_JAR NEW_CORE_JAR  (TimerLateness compiled in .)
O=$1; N=$2
for c in pair then-task; do
  for p in 1 2 4; do
    for k in old new fjp stpe; do
      jar=$O; [ $k = new ] && jar=$N; ex=gmp; [ $k = fjp ] && ex=fjp; [ $k = stpe ] && ex=stpe
      java -cp $jar:. TimerLateness $c $ex $p | sed "s/^/$k /"
    done
  done
done
