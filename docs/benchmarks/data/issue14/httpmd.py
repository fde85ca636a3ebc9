#!/usr/bin/env python3
import json,glob,os,sys,statistics,collections
d=sys.argv[1]
data=collections.defaultdict(list)
for f in glob.glob(d+'/*.json'):
    label=os.path.basename(f).rsplit('-r',1)[0].split('-')[-1]
    for r in json.load(open(f)):
        p=r['params']; key=(p['handler'],int(p['clients']),label)
        for m,v in r.get('secondaryMetrics',{}).items():
            for fork in v['rawData']: data[key+(m,)].extend(fork)
def med(k):
    v=data.get(k); return statistics.median(v) if v else float('nan')
def sp(k):
    v=data.get(k)
    if not v: return float('nan')
    m=statistics.median(v); return (max(v)-min(v))/2/m*100 if m else 0
ex=['gmp','fjp','tpe','cached','vthread','base']
names={'gmp':'gmp','fjp':'ForkJoinPool','tpe':'fixed pool (2)','cached':'cached pool','vthread':'virtual threads','base':'gmp before'}
print("| handler, clients | | " + " | ".join(names[e] for e in ex) + " |")
print("|---|---|" + "--:|"*len(ex))
for h in ('tiny','sleep1'):
  for c in (4,16):
    for m,lab in (('reqPerSec','req/s'),('p50Us','p50 us'),('p99Us','p99 us'),('peakThreads','peak threads'),('cpuUsPerReq','CPU us/req')):
      cells=[]
      for e in ex:
        v=med((h,c,e,m))
        if v!=v: cells.append('-'); continue
        cells.append(("%.0f"%v) + ("" if m=='peakThreads' else " ±%.0f%%"%sp((h,c,e,m))))
      print("| %s, %d | %s | "%(h,c,lab) + " | ".join(cells) + " |")
print()
print("| handler, clients | gmp/ForkJoinPool req/s | p99 | gmp/cached req/s | p99 | gmp after/before req/s | n per cell |")
print("|---|--:|--:|--:|--:|--:|--:|")
for h in ('tiny','sleep1'):
  for c in (4,16):
    g=med((h,c,'gmp','reqPerSec')); f=med((h,c,'fjp','reqPerSec')); ca=med((h,c,'cached','reqPerSec')); b=med((h,c,'base','reqPerSec'))
    gp=med((h,c,'gmp','p99Us')); fp=med((h,c,'fjp','p99Us')); cp=med((h,c,'cached','p99Us'))
    print("| %s, %d | %.2f | %.2f | %.2f | %.2f | %.2f | %d |"%(h,c,g/f,gp/fp,g/ca,gp/cp,g/b,len(data[(h,c,'gmp','reqPerSec')])))
