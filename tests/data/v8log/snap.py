#!/usr/bin/env python3
"""The JavaScript frames (those with a file) of speedscope's snapshot:
"KEY<TAB>TOTALWEIGHT", sorted."""
import re, sys
text = open(sys.argv[1]).read()
out = []
for m in re.finditer(r'Frame \{(.*?)\}', text, re.S):
    body = m.group(1)
    f = re.search(r'"file": "([^"]*)"', body)
    if not f:
        continue
    key = re.search(r'"key": "([^"]*)"', body).group(1)
    tw = re.search(r'"totalWeight": (\d+)', body).group(1)
    out.append("%s\t%s" % (key, tw))
for l in sorted(out):
    print(l)
