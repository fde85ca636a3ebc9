#!/bin/bash
# usage: abl.sh ROUNDS P SECS "variant1" "variant2" ...   (variant = JVM -D options; "fjp" for ForkJoinPool)
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
R=$1; P=$2; S=$3; shift 3
JAR=${JAR:-/tmp/s7/x.jar}; CLS=${CLS:-ChainLoop}
CP=$JAR:/work/main/gmp-bench/target/benchmarks.jar:/tmp/s7
out=$(mktemp)
for r in $(seq $R); do
  for v in "$@"; do
    if [ "$v" = fjp ]; then k=fjp; o=""; else k=gmp; o="$v"; fi
    m=$(java -Xms1g -Xmx1g $o -cp $CP $CLS $k $P $S | head -1 | sed -E 's/.*p50 ([0-9.]+).*/\1/')
    echo "$v|$m" >> $out
  done
done
python3 - "$out" <<'PY'
import sys,collections,statistics as st
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    v,m=l.rstrip('\n').split('|'); d[v].append(float(m))
base=None
for v,xs in d.items():
    med=st.median(xs)
    if base is None: base=med
    print(f"{v or 'base':45s} med {med:.3f}  rel {med/base:.3f}  [{' '.join('%.2f'%x for x in xs)}]")
PY
