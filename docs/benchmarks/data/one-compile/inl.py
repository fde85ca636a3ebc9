import sys, re
import xml.etree.ElementTree as ET
# extract <task> element text for compile id
fn, cid = sys.argv[1], sys.argv[2]
x = open(fn, errors='replace').read()
i = x.find("<task compile_id='%s'" % cid)
j = x.find("</task>", i)
t = x[i:j+7]
t = re.sub(r"&(?!amp;|lt;|gt;|apos;|quot;)", "&amp;", t)
root = ET.fromstring(t)
methods = {}; klass = {}
for e in root.iter():
    if e.tag == 'klass': klass[e.get('id')] = e.get('name').split('/')[-1]
    if e.tag == 'method': methods[e.get('id')] = (klass.get(e.get('holder'), '?') + '.' + e.get('name'), int(e.get('bytes', 0)))
total = [0]
def walk(parse, depth):
    last = None
    for e in parse:
        if e.tag == 'call': last = e.get('method')
        elif e.tag == 'inline_fail' and last:
            n, b = methods.get(last, ('?', 0)); print('  '*depth + 'X %s (%d) %s' % (n, b, e.get('reason'))); last = None
        elif e.tag == 'intrinsic' and last:
            n, b = methods.get(last, ('?', 0)); print('  '*depth + 'I %s' % n); last=None
        elif e.tag == 'parse':
            n, b = methods.get(e.get('method'), ('?', 0)); total[0] += b
            print('  '*depth + '+ %s (%d)' % (n, b)); walk(e, depth + 1); last = None
for p in root.iter('parse'):
    n, b = methods[p.get('method')]; total[0] += b
    print('ROOT', n, b); walk(p, 1); break
print('inlined bytes total', total[0])
