import json,re,sys
from datetime import datetime
def dur(s):
    m=re.match(r'PT(?:(\d+)M)?([\d.]+)S',s); return (int(m.group(1) or 0)*60+float(m.group(2)))*1000
def ts(s): return datetime.fromisoformat(s.replace('Z','+00:00')).timestamp()*1000
for f in sys.argv[1:]:
    ev=json.load(open(f))['recording']['events']
    t0=min(ts(e['values']['startTime']) for e in ev)
    l4=[e for e in ev if e['values']['compileLevel']==4]
    core=[e for e in l4 if 'dev/gmp' in e['values']['method']['type']['name'] and 'bench' not in e['values']['method']['type']['name']]
    fj=[e for e in l4 if 'ForkJoin' in e['values']['method']['type']['name'] or 'gmp' in e['values']['method']['type']['name']]
    last=max((ts(e['values']['startTime'])-t0+dur(e['values']['duration'])) for e in fj) if fj else 0
    lam=[ts(e['values']['startTime'])-t0 for e in l4 if 'lambda$fanOut' in e['values']['method']['name']]
    print(f, 'L4 total %.0f ms'%sum(dur(e['values']['duration']) for e in l4), 'core L4 %.0f ms n=%d'%(sum(dur(e['values']['duration']) for e in core),len(core)), 'sched L4 done at %.0f'%last, 'fanOut L4 at', ['%.0f'%x for x in lam], 'L3 %.0f ms'%sum(dur(e['values']['duration']) for e in ev if e['values']['compileLevel']==3))
