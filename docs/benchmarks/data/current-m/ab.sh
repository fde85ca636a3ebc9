#!/bin/bash
# usage: ab.sh ROUNDS P SECS CLS jar1 jar2 ... ("fjp" for ForkJoinPool)
source /tmp/s10env.sh
R=$1; P=$2; S=$3; CLS=$4; shift 4
out=$(mktemp)
for r in $(seq $R); do
  for v in "$@"; do
    if [ "$v" = fjp ]; then k=fjp; j=/tmp/s14/base.jar; else k=gmp; j=/tmp/s14/$v.jar; fi
    m=$(java -Xms1g -Xmx1g -cp $j:/tmp/s14/benchmarks.jar:/tmp/s14 $CLS $k $P $S | head -1 | sed -E 's/.*p50 ([0-9.]+).*/\1/')
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
    print(f"{v:10s} med {med:.3f}  rel {med/base:.3f}  [{' '.join('%.3f'%x for x in xs)}]")
PY
