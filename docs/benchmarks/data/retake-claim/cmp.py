import json,glob,gzip,statistics,collections,sys
d=collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(sum([glob.glob(d+'/*-[0-9].json*') for d in (sys.argv[1:] or ['.'])], [])):
    v=f.split('/')[-1].split('-')[0]
    try:
        rows=json.load(gzip.open(f) if f.endswith('.gz') else open(f))
    except Exception:
        continue
    for r in rows:
        name=r['benchmark'].split('.')[-1]; p=r['params']['parallelism']
        forks=[statistics.mean(x) for x in r['primaryMetric']['rawData']]
        d[(name,p)][v]+=forks
print(f"{'benchmark':24s} p  old(us)  new(us)  new/old  [fork range old | new]")
ratios=[]
for k in sorted(d):
    o=d[k]['old']; n=d[k]['new']
    if not o or not n: continue
    mo=statistics.median(o); mn=statistics.median(n); ratios.append(mn/mo)
    print(f"{k[0]:24s} {k[1]}  {mo:7.1f}  {mn:7.1f}  {mn/mo:6.3f}  [{min(o):.0f}-{max(o):.0f} | {min(n):.0f}-{max(n):.0f}]")
import math
print('geomean new/old', round(math.exp(sum(map(math.log,ratios))/len(ratios)),3))
