# srvsum.py FILES: per server, the per-round ratios new / old of the medians of seconds 4-10
# (rate, p99, CPU per request) and of the summed rates of seconds 1-3.
import re,sys,statistics as st,collections
rows=collections.defaultdict(list)
for f in sys.argv[1:]:
  for line in open(f):
    m=re.match(r'r(\d+) (\S+) (\S+) \S+ p=\d+ clients=\d+ \S+: (\d+) req/s p50 (\d+) us p99 (\d+) us .* cpu/req ([\d.]+)',line)
    r,l,s,rate,p50,p99,cpu=m.groups(); rows[(s,f+r,l)].append((float(rate),float(p99),float(cpu)))
for s in ('jdk','jetty'):
    rounds=sorted({k[1] for k in rows if k[0]==s})
    for i,name in ((0,'rate'),(1,'p99'),(2,'cpu')):
        rs=[st.median([x[i] for x in rows[(s,r,'new')][3:]])/st.median([x[i] for x in rows[(s,r,'old')][3:]]) for r in rounds]
        print(s,name,'new/old s4-10 per round',' '.join(f'{x:.2f}' for x in rs),' median',f'{st.median(rs):.2f}')
    rs=[sum(x[0] for x in rows[(s,r,'new')][:3])/sum(x[0] for x in rows[(s,r,'old')][:3]) for r in rounds]
    print(s,'rate s1-3 new/old',' '.join(f'{x:.2f}' for x in rs),' median',f'{st.median(rs):.2f}')
