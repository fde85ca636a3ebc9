import sys, re, statistics as st, collections
# line: rN SERVER EXEC p=P clients=16 HANDLER: R req/s p50 X us p99 Y us peakThreads T
rows=collections.defaultdict(list)
for path in sys.argv[1:]:
    for line in open(path):
        m=re.match(r'r(\d+) (\S+) (\S+) p=(\d+) clients=\d+ (\S+): (\d+) req/s p50 (\d+) us p99 (\d+) us peakThreads (\d+)(?: cpu/req ([\d.]+))?',line)
        if not m: continue
        r,srv,ex,p,h,rate,p50,p99,pk,cpu=m.groups()
        rows[(srv,h,p,ex,int(r))].append((float(rate),float(p50),float(p99),int(pk),float(cpu) if cpu else None))
def med(xs): return st.median(xs)
tab=collections.defaultdict(dict)
for (srv,h,p,ex,r),secs in rows.items():
    fresh=secs[0]; warm=secs[3:] if len(secs)>3 else secs[-1:]
    tab[(srv,h,p)].setdefault(ex,[]).append(dict(
        fresh=fresh[0], fp99=fresh[2],
        rate=med([s[0] for s in warm]), p50=med([s[1] for s in warm]), p99=med([s[2] for s in warm]), peak=max(s[3] for s in secs), cpu=(med([s[4] for s in warm]) if warm[0][4] is not None else None)))
def mm(v): return f"{med(v):.0f} ({min(v):.0f}-{max(v):.0f})"
def mk(v): return f"{med(v)/1000:.1f}k ({min(v)/1000:.1f}-{max(v)/1000:.1f})"
for key in sorted(tab):
    srv,h,p=key; d=tab[key]
    print(f"\n#### {srv}, {h}, parallelism {p}, 16 clients ({len(next(iter(d.values())))} fresh JVMs each)\n")
    print("| executor | warm req/s | warm p50 us | warm p99 us | 1st second req/s | 1st second p99 us | peak threads | warm CPU us/req |")
    print("|---|---|---|---|---|---|---|---|")
    for ex in ['gmp','fjp','tpe','cached']:
        if ex not in d: continue
        L=d[ex]
        print(f"| {ex} | {mk([x['rate'] for x in L])} | {mm([x['p50'] for x in L])} | {mm([x['p99'] for x in L])} | {mk([x['fresh'] for x in L])} | {mm([x['fp99'] for x in L])} | {max(x['peak'] for x in L)} | {mm([x['cpu'] for x in L]) if L[0]['cpu'] is not None else '-'} |")
    g=d.get('gmp')
    if g:
        gr=med([x['rate'] for x in g]); gp=med([x['p99'] for x in g]); gf=med([x['fresh'] for x in g])
        out=[]
        for ex in ['fjp','tpe','cached']:
            if ex in d:
                out.append(f"gmp/{ex} warm rate {gr/med([x['rate'] for x in d[ex]]):.2f}, p99 {gp/med([x['p99'] for x in d[ex]]):.2f}, 1st s rate {gf/med([x['fresh'] for x in d[ex]]):.2f}")
        # per-round ratios spread
        print("\n" + "; ".join(out))
