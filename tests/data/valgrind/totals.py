#!/usr/bin/env python3
# totals.py SPAA METRIC: the total (inclusive) weight of every frame in
# METRIC, keyed as callgrind_annotate keys its functions, "file:function"
# ("???" for a frame without a source file): the weight of the stacks that
# hold the frame, each stack once; one "WEIGHT KEY" line each, sorted.
# Inlined frames are left out: callgrind_annotate's key of an inlined piece
# also counts the calls made from its lines, which are under the function
# here.
import json, sys
frames, out = {}, {}
for line in open(sys.argv[1], encoding='utf-8'):
    r = json.loads(line)
    if r['type'] == 'frame':
        if not r.get('inlined'):
            frames[r['id']] = (r.get('srcline') or '???') + ':' + r['func']
    elif r['type'] == 'stack':
        w = sum(x['value'] for x in r['weights'] if x['metric'] == sys.argv[2])
        for k in set(frames[f] for f in r['frames'] if f in frames):
            out[k] = out.get(k, 0) + w
for k, v in sorted(out.items()):
    if v:
        print(v, k)
