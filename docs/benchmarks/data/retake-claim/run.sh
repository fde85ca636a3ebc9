#!/bin/bash
# gmp's own JMH time, two builds interleaved (bench-old.jar: gmp-core af6d7b4; bench-new.jar: the
# change), 2 rounds x 2 forks each, parallelism 1 and 2, forks pre-touched as bench.sh's.
# JAVA_HOME: a JDK 25. Then: python3 cmp.py [DIR...] prints new / old per benchmark.
B='TokioRt\.(chained_spawn|spawn_many_local|spawn_many_remote_idle|ping_pong|yield_many)$|KotlinActors\.singlePingPong$|ForkJoinTree\.forkJoinTree$'
for r in 1 2; do
  for v in old new; do
    "$JAVA_HOME/bin/java" -jar bench-$v.jar -foe true -jvmArgs "-Xms1g -Xmx1g -XX:+AlwaysPreTouch" "$B" \
      -p executor=gmp -p parallelism=1,2 -f 2 -wi 3 -w 400ms -i 3 -r 700ms -rf json -rff $v-$r.json > $v-$r.log 2>&1
  done
done
