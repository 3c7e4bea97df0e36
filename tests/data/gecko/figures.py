#!/usr/bin/env python3
"""Per-function figures for tests/gecko2spaa.bats, read independently of
gecko2spaa.

  figures.py raw FILE     a Firefox Profiler profile (Gecko or processed
                          JSON): per thread and function name, the samples
                          (or weights) with the function on the stack
                          (total) and at the leaf (self)
  figures.py spaa FILE    the same from gecko2spaa's SPAA output
  figures.py speedscope FILE
                          from gecko2spaa -s output: speedscope's weights
                          (each sample lasts until the next sample, in ms),
                          over the frames speedscope keeps (JS frames with a
                          file, not resource: nor self-hosted)

Lines: "tid<TAB>function<TAB>self<TAB>total", sorted.
"""
import gzip, json, re, sys
from collections import defaultdict

def load(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    return data

def table(t):
    """columns of a table in either form, as a dict name -> list"""
    if 'schema' in t:
        cols = {}
        for name, pos in t['schema'].items():
            cols[name] = [row[pos] if pos < len(row) else None for row in t['data']]
        return cols
    return t

def js_name(loc):
    m = re.match(r'^(.*) \(in [^)]*\)', loc)
    if m:
        return m.group(1)
    m = re.match(r'^(.*) \((.+?):([0-9]+)(?::([0-9]+))?\)(?:\[\d+\])?$', loc)
    if m:
        return m.group(1) or '(anonymous)'
    m = re.match(r'^(.+?):([0-9]+)(?::([0-9]+))?(?:\[\d+\])?$', loc)
    if m:
        return m.group(1)
    return loc

def raw_threads(p, shared, out, counter):
    if 'profile' in p and 'threads' not in p:
        return raw_threads(p['profile'], shared, out, counter)
    shared = p.get('shared', shared)
    for key in p:  # threads and subprocesses numbered in file order
        if key == 'threads':
            threads(p, shared, out, counter)
        elif key == 'processes':
            for sub in p['processes']:
                raw_threads(json.loads(sub) if isinstance(sub, str) else sub, None, out, counter)

def threads(p, shared, out, counter):
    for t in p['threads']:
        if isinstance(t, str):
            raw_threads(json.loads(t), None, out, counter)
            continue
        counter[0] += 1
        tid = t.get('tid', counter[0])
        strings = t.get('stringArray', t.get('stringTable'))
        if strings is None:
            strings = shared['stringArray']
        st = table(t['stackTable'] if 'stackTable' in t else shared['stackTable'])
        ft = table(t['frameTable'] if 'frameTable' in t else shared['frameTable'])
        fn = t.get('funcTable', (shared or {}).get('funcTable'))
        fn = table(fn) if fn else None
        def fname(f):
            if fn is None:
                return js_name(strings[ft['location'][f]])
            return strings[fn['name'][ft['func'][f]]]
        s = table(t['samples'])
        weights = s.get('weight') or [1] * len(s['stack'])
        for i, stack in enumerate(s['stack']):
            if stack is None:
                continue
            names = []
            while stack is not None:
                names.append(fname(st["frame"][stack]))
                if 'prefixOffset' in st:
                    o = st['prefixOffset'][stack]
                    stack = None if o == 0 else stack - o
                else:
                    stack = st['prefix'][stack]
            w = weights[i] if weights[i] is not None else 1
            out[(tid, names[0])][0] += w
            for n in set(names):
                out[(tid, n)][1] += w

def spaa_records(path):
    frames, stacks, samples = {}, {}, []
    for line in load(path).decode().splitlines():
        r = json.loads(line)
        if r['type'] == 'frame':
            frames[r['id']] = r
        elif r['type'] == 'stack':
            stacks[r['id']] = r
        elif r['type'] == 'sample':
            samples.append(r)
    return frames, stacks, samples

def spaa(path, out):
    frames, stacks, _ = spaa_records(path)
    for s in stacks.values():
        w = s['weights'][0]['value']
        names = [frames[f]['func'] for f in s['frames']]
        tid = s['context']['tid']
        out[(tid, names[0])][0] += w
        for n in set(names):
            out[(tid, n)][1] += w

def speedscope(path, out):
    frames, stacks, samples = spaa_records(path)
    def kept(f):
        # speedscope reads "name (file:line:col)": not a bare "file:line"
        src, name = frames[f].get('srcline'), frames[f]['func']
        return (src is not None and not src.startswith(name + ':') and
                not src.startswith('resource:') and not src.startswith('self-hosted'))
    for i in range(len(samples) - 1):
        s = stacks[samples[i]['stack_id']]
        w = (samples[i + 1]['timestamp'] - samples[i]['timestamp']) * 1000
        names = [frames[f]['func'] for f in s['frames'] if kept(f)]
        tid = s['context']['tid']
        if names:
            out[(tid, names[0])][0] += w
        for n in set(names):
            out[(tid, n)][1] += w

def main():
    mode, path = sys.argv[1], sys.argv[2]
    out = defaultdict(lambda: [0, 0])
    if mode == 'raw':
        raw_threads(json.loads(load(path)), None, out, [0])
    elif mode == 'spaa':
        spaa(path, out)
    else:
        speedscope(path, out)
    for (tid, name), (self_w, total) in sorted(out.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        if mode == 'speedscope':
            print('%s\t%s\t%.6f\t%.6f' % (tid, name, self_w, total))
        else:
            print('%s\t%s\t%s\t%s' % (tid, name, self_w, total))

main()
