#!/usr/bin/env python3
"""The [JavaScript] rows of node --prof-process output ("JS: *fib a.js:1:13"),
summed over the tiers (~ ^ + * and none): "NAME LOCATION<TAB>TICKS", sorted.
With --total: the total tick count of the first line; --gc: the Summary's GC
ticks."""
import re, sys
text = open(sys.argv[1]).read()
if sys.argv[2:] == ["--total"]:
    print(re.search(r'\((\d+) ticks,', text).group(1)); sys.exit()
if sys.argv[2:] == ["--gc"]:
    m = re.search(r'\[Summary\]:.*?\n\s+(\d+)\s+\S+%\s+\S+%\s+GC\n', text, re.S)
    print(m.group(1) if m else 0); sys.exit()
sec = text.split(" [JavaScript]:\n", 1)[1].split("\n\n", 1)[0]
tot = {}
for line in sec.splitlines()[1:]:
    # "JS: *name" today; older logs: "LazyCompile: *\"name\"", kept quoted
    m = re.match(r'\s*(\d+)\s+\S+%\s+\S+%\s+(?:JS|LazyCompile|Function|Script|Eval): ([~^+*]?)"?(.*?)"?$', line)
    if not m:
        continue
    name = m.group(3)
    tot[name] = tot.get(name, 0) + int(m.group(1))
for k in sorted(tot):
    print("%s\t%d" % (k, tot[k]))
