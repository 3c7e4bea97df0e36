#!/usr/bin/env python3
"""Rewrites a processed profile with per-thread tables (version 49, as
unsymbolicated.json) in the layout of the newest processed format (version
70): one profile.shared.stringArray (56), shared stack, frame, func and
resource tables (60), stackTable.prefixOffset instead of prefix (66), the
lib on the frameTable (70), and sample times as timeDeltas (50).  The
figures of the result must be those of the input: tests/gecko2spaa.bats
checks gecko2spaa reads both alike."""
import json, sys

p = json.load(open(sys.argv[1]))
strings, sidx = [], {}
def s(i, arr):
    if i is None:
        return None
    v = arr[i]
    if v not in sidx:
        sidx[v] = len(strings)
        strings.append(v)
    return sidx[v]

shared = {'stackTable': {'frame': [], 'prefixOffset': [], 'length': 0},
          'frameTable': {'func': [], 'address': [], 'line': [], 'column': [], 'inlineDepth': [], 'lib': [], 'length': 0},
          'funcTable': {'name': [], 'resource': [], 'fileName': [], 'lineNumber': [], 'columnNumber': [], 'length': 0},
          'resourceTable': {'name': [], 'type': [], 'length': 0}}
S, F, U, R = (shared[k] for k in ('stackTable', 'frameTable', 'funcTable', 'resourceTable'))
for t in p['threads']:
    arr = t.pop('stringArray')
    st, ft, fn, rt = (t.pop(k) for k in ('stackTable', 'frameTable', 'funcTable', 'resourceTable'))
    rbase, ubase, fbase, sbase = R['length'], U['length'], F['length'], S['length']
    for i in range(rt['length']):
        R['name'].append(s(rt['name'][i], arr)); R['type'].append(rt['type'][i])
    for i in range(fn['length']):
        U['name'].append(s(fn['name'][i], arr))
        U['resource'].append(-1 if fn['resource'][i] in (None, -1) else fn['resource'][i] + rbase)
        U['fileName'].append(s(fn['fileName'][i], arr))
        U['lineNumber'].append(fn['lineNumber'][i]); U['columnNumber'].append(fn['columnNumber'][i])
    for i in range(ft['length']):
        f = ft['func'][i]
        r = fn['resource'][f]
        F['func'].append(f + ubase); F['address'].append(ft['address'][i])
        F['line'].append(ft['line'][i]); F['column'].append(ft['column'][i])
        F['inlineDepth'].append(ft['inlineDepth'][i])
        F['lib'].append(-1 if r in (None, -1) or rt['lib'][r] is None else rt['lib'][r])
    for i in range(st['length']):
        pr = st['prefix'][i]
        S['frame'].append(st['frame'][i] + fbase)
        S['prefixOffset'].append(0 if pr is None else i - pr)
    smp = t['samples']
    smp['stack'] = [None if x is None else x + sbase for x in smp['stack']]
    times = smp.pop('time')
    smp['timeDeltas'] = [times[0]] + [times[i] - times[i - 1] for i in range(1, len(times))]
    for k, v in (('resourceTable', R), ('funcTable', U), ('frameTable', F), ('stackTable', S)):
        v['length'] = len(v[next(iter(v))])
for k in ('resourceTable', 'funcTable', 'frameTable', 'stackTable'):
    shared[k]['length'] = len(next(iter(shared[k].values())))
shared['stringArray'] = strings
p['shared'] = shared
p['meta']['preprocessedProfileVersion'] = 70
json.dump(p, sys.stdout, separators=(',', ':'))
