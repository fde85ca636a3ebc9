#!/usr/bin/env python3
import json,glob,os,sys,statistics,collections
d=sys.argv[1]
data=collections.defaultdict(list)
for f in glob.glob(d+'/*.json'):
    label=os.path.basename(f).rsplit('-r',1)[0].split('-')[-1]
    for r in json.load(open(f)):
        w=r['benchmark'].split('.')[-1]; e=r['params']['executor']
        for fork in r['primaryMetric']['rawData']:
            data[(w,label,e)].extend(fork)
labels=['on','off','before']
ws=sorted(set(k[0] for k in data))
print("| workload | gmp/fjp detector on | gmp/fjp detector off | gmp/fjp before issue 14 | gmp on/off | spread gmp on / off / fjp |")
print("|---|--:|--:|--:|--:|--:|")
import math
g={l:[] for l in labels}; oo=[]
for w in ws:
    row=[]
    for l in labels:
        gm=statistics.median(data[(w,l,'gmp')]); fj=statistics.median(data[(w,l,'fjp')])
        row.append(gm/fj); g[l].append(gm/fj)
    on=statistics.median(data[(w,'on','gmp')]); off=statistics.median(data[(w,'off','gmp')]); oo.append(on/off)
    sp=lambda v: (max(v)-min(v))/2/statistics.median(v)*100
    print("| %s | %.2f | %.2f | %.2f | %.2f | ±%.0f%% / ±%.0f%% / ±%.0f%% |"%(w,row[0],row[1],row[2],on/off,sp(data[(w,'on','gmp')]),sp(data[(w,'off','gmp')]),sp(data[(w,'on','fjp')])))
gm=lambda v: math.exp(sum(math.log(x) for x in v)/len(v))
print("| geometric mean | %.2f | %.2f | %.2f | %.2f | |"%(gm(g['on']),gm(g['off']),gm(g['before']),gm(oo)))
