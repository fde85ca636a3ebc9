# gmp new / head per cell of a ThreeViews run with --gmp head=... --gmp new=...: per round, the
# sum of operations 1-30, operation 1, and the median of the steady operations; median (min-max)
# over rounds, then geometric means. Usage: python3 cmp.py DIR [VARIANT [BASE]] (DIR/raw.csv.gz).
import gzip,csv,sys,collections,statistics,math
NEW = sys.argv[2] if len(sys.argv) > 2 else 'new'  # the variant to compare
HEAD = sys.argv[3] if len(sys.argv) > 3 else 'head'  # with this one
d=collections.defaultdict(lambda: collections.defaultdict(float))
for r in csv.DictReader(gzip.open(sys.argv[1] + '/raw.csv.gz', 'rt')):
    if r['executor']=='fjp': continue
    ph=r['phase']; op=int(r['op'])
    key=(r['view'],r['workload'],r['p'],r['metric'])
    v=int(r['ns'])
    if ph=='short':
        if op==1: d[key+('op1',r['round'])][r['variant']]+=v
        d[key+('sum',r['round'])][r['variant']]+=v
    else:
        d[key+('steady',r['round'],op)][r['variant']]=v
# steady: median per round
out=collections.defaultdict(list)
st=collections.defaultdict(lambda: collections.defaultdict(list))
for k,vv in d.items():
    if k[4]=='steady':
        for var,x in vv.items(): st[k[:4]+('steady',k[5])][var].append(x)
    else:
        if NEW in vv and HEAD in vv: out[k[:5]].append(vv[NEW]/vv[HEAD])
for k,vv in st.items():
    out[k[:5]].append(statistics.median(vv[NEW])/statistics.median(vv[HEAD]))
allg=collections.defaultdict(list)
for k in sorted(out):
    xs=sorted(out[k]); m=statistics.median(xs)
    allg[(k[0],k[2],k[4])].append(m)
    print('%-6s %-12s p=%s %-5s %-6s %s/%s %.2f (%.2f-%.2f)'%(k[0],k[1],k[2],k[3],k[4],NEW,HEAD,m,xs[0],xs[-1]))
for k,v in sorted(allg.items()):
    print('geomean',k,'%.2f'%math.exp(sum(map(math.log,v))/len(v)))
