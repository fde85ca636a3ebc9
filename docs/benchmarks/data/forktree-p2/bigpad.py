# The "bigpad" diagnostic variant of gmp-core (not shipped): pads the M, P and RunQueue objects
# to 34-67 KB each, so that no two of them share a card-table cache line (a card covers 512
# bytes of heap; a 64-byte line of the card table covers 32 KB). Run from a checkout of ad3349f's
# gmp-core, then build it (mvn -pl gmp-core package -DskipTests).
import re
d = 'gmp-core/src/main/java/dev/gmp/'
N = 4200  # longs per pad: 33.6 KB
pads = lambda prefix: ', '.join('%s%d' % (prefix, i) for i in range(N))
s = open(d + 'RunQueueFields.java').read()
s = re.sub(r'abstract class (RunQueuePad\d) (extends \w+ )?\{\n  long [^;]*;\n\}',
           lambda m: 'abstract class %s %s{\n  long %s;\n}' % (m.group(1), m.group(2) or '', pads('q' + m.group(1)[-1] + '_')), s)
open(d + 'RunQueueFields.java', 'w').write(s)
s = open(d + 'M.java').read()
s = s.replace("  private G curg;\n\n  private long completed;\n", "")
s = s.replace("final class M implements Runnable {", "final class M extends MPad1 implements Runnable {", 1)
open(d + 'M.java', 'w').write(s)
open(d + 'MHot.java', 'w').write("package dev.gmp;\nabstract class MPad0 {\n  long %s;\n}\n"
    "abstract class MHot extends MPad0 {\n  G curg;\n  long completed;\n}\n"
    "abstract class MPad1 extends MHot {\n  long %s;\n}\n" % (pads('a'), pads('b')))
s = open(d + 'P.java').read()
s = re.sub(r'abstract class PPad1 extends PShared \{\n  long [^;]*;\n\}', 'abstract class PPad1 extends PShared {\n  long %s;\n}' % pads('pp'), s)
open(d + 'P.java', 'w').write(s)
