# own2.py DIR NEW OLD: gmp's own time NEW / OLD per view and cell (op 1, ops 1-30), and each
# build's gmp / ForkJoinPool, medians over rounds (min-max); raw.csv or raw.csv.gz from ThreeViews.
import csv,sys,statistics as st,math,collections,gzip
d=sys.argv[1]; new=sys.argv[2]; old=sys.argv[3]
import os
f=d+'/raw.csv'
rows=list(csv.DictReader(open(f) if os.path.exists(f) else gzip.open(f+'.gz','rt')))
agg=collections.defaultdict(dict)
for r in rows:
    if r['metric']!='time' or r['phase']!='short': continue
    agg[(r['view'],r['variant'],r['workload'],r['p'],r['round'],r['executor'])][int(r['op'])]=int(r['ns'])
keys=sorted({(k[0],k[2],k[3]) for k in agg})
rounds=sorted({k[4] for k in agg})
print('view workload p | own new/old op1 | own new/old ops1-30 | new/fjp op1 | old/fjp op1 | new/fjp ops1-30 | old/fjp ops1-30')
geo=collections.defaultdict(list)
def med(xs): return st.median(xs) if xs else float('nan')
for v,w,p in keys:
    out=[]
    for sel in (lambda s:s[1], lambda s:sum(s.values())):
        rs=[sel(agg[(v,new,w,p,r,'gmp')])/sel(agg[(v,old,w,p,r,'gmp')]) for r in rounds if (v,new,w,p,r,'gmp') in agg and (v,old,w,p,r,'gmp') in agg]
        out.append((med(rs),min(rs),max(rs)))
    for sel in (lambda s:s[1], lambda s:sum(s.values())):
        for var in (new,old):
            rs=[sel(agg[(v,var,w,p,r,'gmp')])/sel(agg[(v,var,w,p,r,'fjp')]) for r in rounds if (v,var,w,p,r,'fjp') in agg]
            out.append((med(rs),min(rs),max(rs)))
    print(f'{v} {w} {p} | '+' | '.join(f'{a:.2f} ({b:.2f}-{c:.2f})' for a,b,c in out))
    for i,x in enumerate(out): geo[(v,i)].append(x[0])
for v in sorted({k[0] for k in keys}):
    print('geo',v,' '.join(f'{math.exp(sum(map(math.log,geo[(v,i)]))/len(geo[(v,i)])):.2f}' for i in range(6)))
