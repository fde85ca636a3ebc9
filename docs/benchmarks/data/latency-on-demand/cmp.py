import gzip,csv,collections,statistics as st,sys
d=collections.defaultdict(list)
for r in csv.DictReader(gzip.open(sys.argv[1], "rt")):
    if r['metric'] not in ('time','p50','p99'): continue
    d[(r['workload'],r['metric'],r['p'],r['variant'],r['executor'],r['phase'],r['round'])].append(int(r['ns']))
res=collections.defaultdict(dict)
for (w,mt,p,v,e,ph,rd),xs in d.items():
    val = sum(xs) if ph=='short' else st.median(xs)
    res[(w,mt,p,v,e,ph)][rd]=val
rows=sorted(set((w,mt,p,ph) for (w,mt,p,v,e,ph) in res))
for (w,mt,p,ph) in rows:
    try:
        H=res[(w,mt,p,'head','gmp',ph)]; N=res[(w,mt,p,'new','gmp',ph)]
        FH=res[(w,mt,p,'head','fjp',ph)]; FN=res[(w,mt,p,'new','fjp',ph)]
    except KeyError: continue
    rr=sorted(H)
    per=[N[r]/H[r] for r in rr if r in N]
    rh=st.median([H[r]/FH[r] for r in rr]); rn=st.median([N[r]/FN[r] for r in rr])
    print(f"{w:11s} {mt:4s} p={p} {ph:6s} new/head gmp med {st.median(per):.2f} ({min(per):.2f}-{max(per):.2f})  gmp/fjp head {rh:.2f} new {rn:.2f}")
