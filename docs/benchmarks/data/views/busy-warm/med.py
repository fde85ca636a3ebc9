import sys
a=sorted(float(l.split(',')[3]) for l in sys.stdin if l.startswith('steady'))
n=len(a); print(sys.argv[1],'steady median %.0f us (p10 %.0f p90 %.0f) n=%d'%(a[n//2]/1e3,a[n//10]/1e3,a[n*9//10]/1e3,n))
