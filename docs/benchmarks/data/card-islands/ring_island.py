# Diagnostic variant (not shipped), applied to a checkout of 2525401: each P's ring inside a
# 68 KB array, live slots in the middle (the first step towards CardIsland). Build with
# mvn -pl gmp-core package -DskipTests.
import re
d = 'gmp-core/src/main/java/dev/gmp/'
s = open(d + 'RunQueue.java').read()
s = s.replace("private final G[] ring = new G[SIZE];", "static final int OFF = 8448;\n  private final G[] ring = new G[OFF * 2 + SIZE];")
s = s.replace("ring[Mutations.SIGNED_SLOT ? Math.abs(t % SIZE) : t & MASK]", "ring[OFF + (t & MASK)]")
s = re.sub(r'ring\[\(([^\]]*?)\) & MASK\]', r'ring[OFF + ((\1) & MASK)]', s)
s = s.replace("ring[h & MASK]", "ring[OFF + (h & MASK)]")
s = s.replace("batch[(batchHead + i) & MASK] = ring", "batch[OFF + ((batchHead + i) & MASK)] = ring")
s = s.replace("batch[batchHead & MASK] = next", "batch[OFF + (batchHead & MASK)] = next")
open(d + 'RunQueue.java', 'w').write(s)
