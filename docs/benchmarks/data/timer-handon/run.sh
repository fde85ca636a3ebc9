#!/bin/bash
# A pending timer while tasks that sleep unmarked hold the processors: TimerPair (the tasks are an
# earlier timer's) and TimerThenTask (outside tasks, one per processor). Cores: before the
# hand-on (OLD), with it (NEW), ForkJoinPool and ScheduledThreadPoolExecutor beside.
# usage: run.sh OLD_CORE_JAR NEW_CORE_JAR  (both classes compiled in .)
O=$1; N=$2
for cls in TimerPair TimerThenTask; do
  for p in 1 2 4; do
    for k in old new fjp stpe; do
      jar=$O; [ $k = new ] && jar=$N; ex=gmp; [ $k = fjp ] && ex=fjp; [ $k = stpe ] && ex=stpe
      java -cp $jar:. $cls $ex $p | sed "s/^/$cls $k /"
    done
  done
done
