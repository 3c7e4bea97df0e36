#!/usr/bin/env python3
# fold.py FILE: a stackprof profile (JSON) as folded stacks, read on its own
# the way speedscope's importer reads it (cpu: count x interval; wall: the
# samples' time deltas; object: the count; a stack of "(garbage collection)"
# alone on top of the stack before it), with names whole; lines summed and
# sorted bytewise, zero weights left out.
import json, sys
d = json.load(open(sys.argv[1]))
frames, raw, mode = d['frames'], d['raw'], d['mode']
deltas = d.get('raw_timestamp_deltas', [])
out, prev, i, k = {}, [], 0, 0
while i < len(raw):
    h = raw[i]; i += 1
    stack = [frames[str(x)].get('name') or '(unknown)' for x in raw[i:i + h]]; i += h
    n = raw[i]; i += 1
    if len(stack) == 1 and stack[0] == '(garbage collection)':
        stack = prev + stack
    if mode == 'cpu':
        w = n * d['interval']
    elif mode == 'wall':
        w = sum(deltas[k:k + n])
    else:
        w = n
    k += n
    key = ';'.join(s.replace(';', ':') for s in stack)
    out[key] = out.get(key, 0) + w
    prev = stack
for key in sorted(out, key=lambda s: s.encode()):
    if out[key]:
        print(key, out[key])
