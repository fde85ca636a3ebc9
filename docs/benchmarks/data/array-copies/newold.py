import csv,sys,math,collections,statistics
f=sys.argv[1]; new,old=sys.argv[2],sys.argv[3]
d=collections.defaultdict(list)
for r in csv.DictReader(open(f)):
    if r['executor']!='gmp': continue
    d[(r['variant'],r['workload'],r['p'],r['round'],r['phase'],r['metric'])].append((int(r['op']),int(r['ns'])))
def views(series, metric):
    short=[ns for op,ns in sorted(series['short'])]
    steady=[ns for op,ns in sorted(series.get('steady',[]))]
    return {'op1':short[0],'sum':sum(short[:30]),'steady':statistics.median(steady) if steady else None}
cells=collections.defaultdict(lambda: collections.defaultdict(dict))
keys=set()
for (v,w,p,rd,ph,m),lst in d.items():
    keys.add((w,p,m,rd))
res=collections.defaultdict(list)
for (w,p,m,rd) in keys:
    out={}
    for v in (new,old):
        s={ph:d.get((v,w,p,rd,ph,m),[]) for ph in ('short','steady')}
        if not s['short']: break
        if m!='time':
            # latency metrics: median of per-op values
            sh=[ns for op,ns in sorted(s['short'])][:30]
            out[v]={'op1':sh[0],'sum':statistics.median(sh),'steady':statistics.median([ns for _,ns in s['steady']]) if s['steady'] else None}
        else: out[v]=views(s,m)
    if len(out)<2: continue
    for k in ('op1','sum','steady'):
        if out[new][k] and out[old][k]:
            res[(w,p,m,k)].append(out[new][k]/out[old][k])
per=collections.defaultdict(list)
for (w,p,m,k),r in sorted(res.items()):
    med=statistics.median(r)
    per[(p,k)].append(med)
    if med>1.25 or med<0.8: print('far',w,p,m,k,[round(x,2) for x in r])
for p in '124':
    print(p,{k:round(math.exp(statistics.mean(map(math.log,per[(p,k)]))),3) for k in ('op1','sum','steady')})
