import sys,statistics as st
from collections import defaultdict
d=defaultdict(dict)
for line in open(sys.argv[1]):
    f=line.split()
    if len(f)!=7: continue
    r,mode,p,work,ex,a,b=f
    d[(mode,int(p),int(work),r)][ex]=(int(a),int(b))
keys=sorted(set(k[:3] for k in d))
def fmt(xs): 
    xs=sorted(xs); return '%.2f (%.2f-%.2f)'%(st.median(xs),xs[0],xs[-1])
print('| from | p | leaf work | ops 1-30 new/old | ops 1-30 new/FJP | ops 1-30 old/FJP | warm new/old | warm new/FJP | warm old/FJP |')
print('|:--|--:|--:|--:|--:|--:|--:|--:|--:|')
for k in keys:
    rs=[v for kk,v in d.items() if kk[:3]==k and len(v)==3]
    cols=[]
    for i in (0,1):
        cols.append(fmt([v['new'][i]/v['old'][i] for v in rs]))
        cols.append(fmt([v['new'][i]/v['fjp'][i] for v in rs]))
        cols.append(fmt([v['old'][i]/v['fjp'][i] for v in rs]))
    print('| %s | %d | %s | %s |'%(('outside' if k[0]=='out' else 'a task'),k[1],'none' if k[2]==0 else '2k xor', ' | '.join(cols[:3]+cols[3:])))
print('rounds', len(set(kk[3] for kk in d)))
