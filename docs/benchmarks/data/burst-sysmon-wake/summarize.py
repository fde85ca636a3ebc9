import csv,sys,collections,statistics as st
d=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    key=(r['variant'] if r['executor']=='gmp' else 'fjp', r['p'], r['round'], r['phase'], r['metric'])
    d[key].append((int(r['op']),int(r['ns'])))
ps=sorted({k[1] for k in d})
for p in ps:
  for m in ('p50','p99'):
    for v in ('head','nowake','fjp'):
        rounds=sorted({k[2] for k in d if k[0]==v and k[1]==p})
        s=[st.median([ns for op,ns in sorted(d[(v,p,rd,'short',m)])][:30])/1e3 for rd in rounds]
        w=[st.median([ns for op,ns in d[(v,p,rd,'steady',m)]])/1e3 for rd in rounds]
        print(f"p={p} {m} {v:7s} ops1-30 median {st.median(s):7.1f} us [{min(s):.0f}-{max(s):.0f}]  warm {st.median(w):7.1f} [{min(w):.0f}-{max(w):.0f}]  ({len(rounds)} JVMs)")
