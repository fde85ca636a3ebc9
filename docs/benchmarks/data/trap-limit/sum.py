import sys, statistics, collections
# raw.txt (run.sh) -> table.md: gmp / ForkJoinPool, medians of per-round ratios (min-max), and each executor's own time without traps over with them (medians).
d = collections.defaultdict(dict)
for l in open(sys.argv[1]):
    w, p, flag, ex, r, s = l.split()
    d[(w, int(p))][(flag, ex, int(r))] = float(s)
def med(v): return statistics.median(v)
print('| workload | p | gmp / FJP, default | gmp / FJP, no traps | gmp: no traps / default | FJP: no traps / default |')
print('|:--|--:|--:|--:|--:|--:|')
for (w, p), c in d.items():
    rounds = sorted({r for (_, _, r) in c})
    def rat(a, b): 
        v = [c[a + (r,)] / c[b + (r,)] for r in rounds if a + (r,) in c and b + (r,) in c]
        return '%.2f (%.2f-%.2f)' % (med(v), min(v), max(v))
    def own(ex):
        a = [c[('notrap', ex, r)] for r in rounds]; b = [c[('default', ex, r)] for r in rounds]
        return '%.2f' % (med(a) / med(b))
    print('| %s | %d | %s | %s | %s | %s |' % (w, p, rat(('default', 'gmp'), ('default', 'fjp')), rat(('notrap', 'gmp'), ('notrap', 'fjp')), own('gmp'), own('fjp')))
