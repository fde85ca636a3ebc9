#!/bin/bash
# AOT cache (JDK 25, JEP 483/514/515) vs none: gmp and ForkJoinPool, p=2, self-trained caches.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
# Run from a directory holding b.jar (a copy of gmp-bench/target/benchmarks.jar).
W=${W:-spawnLocal spawnRemote submitGet forkTree chains burst}
P=${P:-2}; R=${R:-3}
J=(-Xms1g -Xmx1g)
for w in $W; do for e in gmp fjp; do
  [ -f $w-$e-$P.aot ] || java "${J[@]}" -XX:AOTCacheOutput=$w-$e-$P.aot -cp b.jar dev.gmp.bench.ShortRuns run $w $e $P 30 > /dev/null 2>&1
done; done
for r in $(seq $R); do for w in $W; do for e in gmp fjp; do for m in none aot; do
  extra=(); [ $m = aot ] && extra=(-XX:AOTCache=$w-$e-$P.aot)
  java "${J[@]}" "${extra[@]}" -cp b.jar dev.gmp.bench.ShortRuns run $w $e $P 30 2>/dev/null | grep -v '^#' | sed "s/^/$r,$w,$e,$m,/"
done; done; done; done > out-p$P.csv
