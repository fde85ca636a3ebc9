import csv, sys, statistics as st, collections, gzip
# gmp's own time, variant A / variant B, per round, ops 1-30 (short) and steady
path, a, b = sys.argv[1], sys.argv[2], sys.argv[3]
op = gzip.open if path.endswith('.gz') else open
d = collections.defaultdict(int)
for r in csv.DictReader(op(path, 'rt')):
    if r['executor'] != 'gmp' or r['metric'] not in ('time','p50','p99'): continue
    ph = r['phase']
    if ph == 'short' and int(r['op']) > 30: continue
    d[(r['view'], r['workload'], r['metric'], int(r['p']), ph, r['variant'], int(r['round']))] += int(r['ns'])
keys = sorted({k[:5] for k in d})
for k in keys:
    rs = sorted({kk[6] for kk in d if kk[:5] == k and kk[5] == a})
    ratios = [d[k + (a, r)] / d[k + (b, r)] for r in rs if k + (b, r) in d]
    if ratios:
        print(*k, '%s/%s %.2f (%.2f-%.2f)' % (a, b, st.median(ratios), min(ratios), max(ratios)))
