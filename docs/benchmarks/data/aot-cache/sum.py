import sys,collections,statistics as st,math
d=collections.defaultdict(list)
import gzip
for l in (gzip.open(sys.argv[1], "rt") if sys.argv[1].endswith(".gz") else open(sys.argv[1])):
    f=l.strip().split(',')
    if len(f)<8 or f[4]=='phase' or f[4]!='short': continue
    r,w,e,m,ph,op,met,ns=f
    d[(w,met,e,m,r)].append((int(op),int(ns)))
ws=sorted({(k[0],k[1]) for k in d})
print('workload metric | gmp/fjp op1 none, aot | ops1-30 none, aot | gmp aot/none op1, ops1-30 | fjp aot/none op1, ops1-30')
for w,met in ws:
    rounds=sorted({k[4] for k in d if k[0]==w})
    def v(e,m,r,which):
        s=[ns for op,ns in sorted(d[(w,met,e,m,r)])]
        if which=='op1': return s[0]
        return sum(s[:30]) if met=='time' else st.median(s[:30])
    out=[]
    for which in ('op1','sum'):
        for m in ('none','aot'):
            out.append(st.median([v('gmp',m,r,which)/v('fjp',m,r,which) for r in rounds]))
    for e in ('gmp','fjp'):
        for which in ('op1','sum'):
            out.append(st.median([v(e,'aot',r,which)/v(e,'none',r,which) for r in rounds]))
    print(f'{w:12s} {met:5s}', ' '.join(f'{x:5.2f}' for x in out))
