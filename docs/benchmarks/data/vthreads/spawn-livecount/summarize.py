import json,glob,collections,re,statistics as st,sys
d=collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1]+'/*.json')):
    m=re.match(r'.*/(\w+)-p(\d)-r(\d).json',f); l,p,r=m.groups()
    for b in json.load(open(f)):
        name=b['benchmark'].split('.')[-1]
        d[(name,p,r)][l]=(b['primaryMetric']['score'], b['secondaryMetrics'].get('gc.alloc.rate.norm',{}).get('score',0))
agg=collections.defaultdict(lambda: collections.defaultdict(list))
for (name,p,r),v in sorted(d.items()):
    if len(v)<3: continue
    for l in ('main','new'): agg[(name,p)][l].append(v[l][0]/v['default'][0])
    agg[(name,p)]['pair'].append(v['new'][0]/v['main'][0])
    agg[(name,p)]['Bmain'].append(v['main'][1]/1e5); agg[(name,p)]['Bnew'].append(v['new'][1]/1e5); agg[(name,p)]['Bdef'].append(v['default'][1]/1e5)
for k,v in sorted(agg.items()):
    f=lambda a: '%.2f (%.2f-%.2f)'%(st.median(a),min(a),max(a))
    print(k, 'main/def', f(v['main']), 'new/def', f(v['new']), 'new/main', f(v['pair']), 'B/thread main %.0f new %.0f def %.0f'%(st.median(v['Bmain']),st.median(v['Bnew']),st.median(v['Bdef'])), 'n=%d'%len(v['pair']))
