#!/usr/bin/env python3
"""A pmcstat callgraph read on its own, for pmcstat2spaa's tests: folded
stacks (outermost caller first, the sampled function last; bytewise order)
of every event: a line without callers gives its chain its count; a line with
callers gives its chain its count less theirs only with --cut-chains (speedscope
drops them).  Usage: fold.py FILE [--cut-chains]"""
import re
import sys

LINE = re.compile(r'^( *)[\d.]+%\s+\[(\d+)\]\s*(.*?)(?: @ (.*))?$')


def main():
    cut_chains = '--cut-chains' in sys.argv[2:]
    out = {}
    chain = []  # [name, count, callers' count, has callers]

    def close(depth):
        while len(chain) > depth:
            name, count, callers, has = chain.pop()
            w = count if not has else (count - callers if cut_chains else 0)
            if w:
                key = ';'.join([name] + [c[0] for c in reversed(chain)])
                out[key] = out.get(key, 0) + w
            if chain:
                chain[-1][2] += count
                chain[-1][3] = True

    with open(sys.argv[1], encoding='utf-8', newline='') as f:
        for line in f:
            line = line.rstrip('\r\n').rstrip()
            if line.startswith('@ '):
                close(0)
                continue
            m = LINE.match(line)
            if not m:
                continue
            depth = len(m.group(1))
            close(depth)
            chain.append([m.group(3).strip(), int(m.group(2)), 0, False])
    close(0)
    for key in sorted(out, key=lambda k: k.encode()):
        print(key, out[key])


main()
