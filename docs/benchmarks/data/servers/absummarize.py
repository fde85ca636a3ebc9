import sys,re,statistics as st,collections
rows=collections.defaultdict(list)
for line in open(sys.argv[1]):
    m=re.match(r'r(\d+) (\S+) (\S+) \S+ p=\d+ clients=\d+ \S+: (\d+) req/s p50 (\d+) us p99 (\d+) us peakThreads (\d+) cpu/req ([\d.]+)',line)
    if not m: continue
    r,label,srv,rate,p50,p99,pk,cpu=m.groups()
    rows[(srv,label,r)].append((float(rate),float(p50),float(p99),float(cpu),int(pk)))
agg=collections.defaultdict(list)
for (srv,label,r),secs in rows.items():
    w=secs[3:]
    agg[(srv,label)].append([st.median([x[i] for x in w]) for i in range(4)]+[max(x[4] for x in secs)])
for k in sorted(agg):
    L=agg[k]
    f=lambda i: f"{st.median([x[i] for x in L]):.0f} ({min(x[i] for x in L):.0f}-{max(x[i] for x in L):.0f})"
    print(k[0],k[1].ljust(8),"n",len(L),"rate",f(0),"p50",f(1),"p99",f(2),"cpu",f(3),"peak",f(4))
