#!/usr/bin/env python3
# usage: jmhsum.py DIR [metric...]: medians per label/benchmark/params over all rounds' iterations
import json,glob,os,sys,statistics,collections
d=sys.argv[1]; metrics=sys.argv[2:]
data=collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(d+'/*.json')):
    label=os.path.basename(f).rsplit('-r',1)[0]
    try: runs=json.load(open(f))
    except Exception: continue
    for r in runs:
        key=(r['benchmark'].split('.')[-1], tuple(sorted(r['params'].items())) if r.get('params') else ())
        for fork in r['primaryMetric']['rawData']:
            data[key][(label,'score')].extend(fork)
        for m,v in r.get('secondaryMetrics',{}).items():
            for fork in v['rawData']:
                data[key][(label,m)].extend(fork)
for key in sorted(data):
    print(key[0], ' '.join('%s=%s'%kv for kv in key[1]))
    for (label,m),vals in sorted(data[key].items(), key=lambda x:(x[0][1],x[0][0])):
        if metrics and m not in metrics: continue
        med=statistics.median(vals); sp=(max(vals)-min(vals))/2/med*100 if med else 0
        print("   %-14s %-12s median %10.2f  spread ±%3.0f%%  n=%d"%(label,m,med,sp,len(vals)))
