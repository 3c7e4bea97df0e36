#!/usr/bin/env python3
"""The first level of node --prof-process's [Bottom up (heavy) profile]: for
each JS function at the leaf, its direct callers, tiers summed, as
"LEAF<TAB>CALLER<TAB>TICKS" (sorted; JS callers only, non-JS ones as
"(other)").  Only the leaves whose callers are all shown (prof-process hides
callers and leaves under 1%): their callers' ticks add up to the leaf's,
and the leaf's rows (one per tier) to its ticks in [JavaScript].  With
ours.py's --callers output the two must be equal line for line."""
import re, sys
text = open(sys.argv[1]).read()
sec = text.split(" [Bottom up (heavy) profile]:\n", 1)[1]
row = re.compile(r'^\s*(\d+)\s+\S+%( +)(.*)$')
def js(name):
    m = re.match(r'(?:JS|LazyCompile|Function|Script|Eval): [~^+*]?"?(.*?)"?$', name)
    if not m:
        return None
    return m.group(1)
flat = {}
js_sec = text.split(" [JavaScript]:\n", 1)[1].split("\n\n", 1)[0]
for line in js_sec.splitlines()[1:]:
    m = re.match(r'\s*(\d+)\s+\S+%\s+\S+%\s+(.*)$', line)
    n = m and js(m.group(2))
    if n:
        flat[n] = flat.get(n, 0) + int(m.group(1))
leaf_ticks, caller_ticks, pairs = {}, {}, {}
leaf = None
for line in sec.splitlines():
    m = row.match(line)
    if not m:
        continue
    ticks, depth, name = int(m.group(1)), (len(m.group(2)) - 2) // 2, m.group(3)
    if depth == 0:
        leaf = js(name)
        if leaf:
            leaf_ticks[leaf] = leaf_ticks.get(leaf, 0) + ticks
    elif depth == 1 and leaf:
        caller_ticks[leaf] = caller_ticks.get(leaf, 0) + ticks
        k = (leaf, js(name) or "(other)")
        pairs[k] = pairs.get(k, 0) + ticks
for (l, c) in sorted(pairs):
    if caller_ticks.get(l) == leaf_ticks[l] == flat.get(l):
        print("%s\t%s\t%d" % (l, c, pairs[(l, c)]))
