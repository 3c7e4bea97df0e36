#!/usr/bin/env python3
# selfs.py SPAA METRIC: the own (exclusive) weight of every frame in METRIC,
# keyed as callgrind_annotate keys its functions, "file:function" ("???"
# for a frame without a source file), one "WEIGHT KEY" line each, sorted;
# frames with no own weight left out.
import json, sys
frames, out = {}, {}
metric = sys.argv[2]
for line in open(sys.argv[1], encoding='utf-8'):
    r = json.loads(line)
    if r['type'] == 'frame':
        frames[r['id']] = (r.get('srcline') or '???') + ':' + r['func']
    elif r['type'] == 'stack':
        leaf = r['frames'][0]
        for w in r['weights']:
            if w['metric'] == metric:
                out[frames[leaf]] = out.get(frames[leaf], 0) + w['value']
for k, v in sorted(out.items()):
    if v:
        print(v, k)
