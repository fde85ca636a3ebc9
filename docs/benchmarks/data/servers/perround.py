"""perround.py FILE BASE [FROM TO]: per server and round, each label's median over seconds
FROM-TO (default 4 to the last) against BASE's in the same round: request rate, p99 and CPU per
request. FILE may be gzipped."""
import sys, re, gzip, statistics as st, collections
rows = collections.defaultdict(list)
for line in (gzip.open if sys.argv[1].endswith('.gz') else open)(sys.argv[1], 'rt'):
    m = re.match(r'r(\d+) (\S+) (\S+) \S+ p=\d+ clients=\d+ \S+: (\d+) req/s p50 (\d+) us p99 (\d+) us'
                 r' peakThreads (\d+) cpu/req ([\d.]+)', line)
    if m:
        r, label, srv, rate, _, p99, _, cpu = m.groups()
        rows[(srv, int(r), label)].append((float(rate), float(p99), float(cpu)))
base = sys.argv[2]
lo = int(sys.argv[3]) if len(sys.argv) > 3 else 4
hi = int(sys.argv[4]) if len(sys.argv) > 4 else 10**9
def win(secs):
    w = secs[lo - 1:hi]
    return [st.median(x[i] for x in w) for i in range(3)]
for srv, label in sorted({(s, l) for s, _, l in rows if l != base}):
    ratios = [[a / b for a, b in zip(win(rows[(s, r, l)]), win(rows[(s, r, base)]))]
              for s, r, l in sorted(rows) if (s, l) == (srv, label) and (s, r, base) in rows]
    cols = [" ".join(f"{x[i]:.2f}" for x in ratios) for i in range(3)]
    med = [st.median(x[i] for x in ratios) for i in range(3)]
    print(f"{srv} {label}/{base}, s {lo}-{hi if hi < 10**9 else 'end'}: rate {cols[0]} (median {med[0]:.2f})"
          f"; p99 {cols[1]} ({med[1]:.2f}); CPU/req {cols[2]} ({med[2]:.2f})")
