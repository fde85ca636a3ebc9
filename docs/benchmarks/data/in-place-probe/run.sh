#!/bin/bash
# In-place waits without the stack probe: head (65d6180) vs new, ForkJoinPool beside, 3 JVMs each, interleaved.
# usage: run.sh HEAD_CORE_JAR NEW_CORE_JAR  (classes of SubmitGetLoop, FibLoop and ../timed-get's TimedLoop in .)
H=$1; N=$2
for round in 1 2 3; do
  for p in 1 2; do
    for k in head new fjp; do
      jar=$H; [ $k = new ] && jar=$N; ex=gmp; [ $k = fjp ] && ex=fjp
      java -Xms1g -Xmx1g -cp $jar:. SubmitGetLoop $ex $p 3000 | sed "s/^/$k round=$round /"
      java -Xms1g -Xmx1g -cp $jar:. FibLoop $ex $p 3000 20 | sed "s/^/$k round=$round /"
      java -Xms1g -Xmx1g -cp $jar:. TimedLoop $ex $p | tail -2 | head -1 | sed "s/^/$k round=$round /"
    done
  done
done
