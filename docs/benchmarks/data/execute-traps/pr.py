import sys,statistics,collections
# per-round paired ratio new/old of ops1-30 and op1, lines in order: round-major, workload, jar
rows=[l.split() for l in open(sys.argv[1])]
old,new=sys.argv[2],sys.argv[3]
d=collections.defaultdict(lambda: collections.defaultdict(list))
for w,j,a,b,c in rows: d[w][j].append((float(a),float(b)))
for w in d:
    o=d[w][old]; n=d[w][new]
    r1=[y[1]/x[1] for x,y in zip(o,n)]; r0=[y[0]/x[0] for x,y in zip(o,n)]
    print('%-12s ops1-30 %s/%s median %.3f (%.2f-%.2f)  op1 %.3f'%(w,new,old,statistics.median(r1),min(r1),max(r1),statistics.median(r0)))
