#!/usr/bin/env python3
"""bench/gen-textfmts.py MODE COPIES < FOLDED > OUT - a large Instruments deep
copy (MODE instruments) or pmcstat callgraph (MODE pmcstat) made of folded
stacks ("root;...;leaf COUNT"), COPIES times over (the copies' roots, or
sampled functions, named NAME#k so that each copy is its own tree).  The
counts become milliseconds (Instruments) or samples (pmcstat), laid out as
Instruments and pmcstat print them.  For bench/textfmts.sh."""
import sys


def trie():
    return [0, 0, {}]  # total, self, children


def main():
    mode, copies = sys.argv[1], int(sys.argv[2])
    stacks = []
    for line in sys.stdin:
        path, _, count = line.rstrip('\n').rpartition(' ')
        if path:
            stacks.append((path.split(';'), int(count)))
    root = trie()
    for k in range(copies):
        for frames, count in stacks:
            if mode == 'pmcstat':
                frames = frames[::-1]
            node = root
            for i, f in enumerate(frames):
                name = '%s#%d' % (f, k) if i == 0 else f
                node = node[2].setdefault(name, trie())
                node[0] += count
            node[1] += count
    out = sys.stdout
    total = sum(c[0] for c in root[2].values())
    sys.setrecursionlimit(10000)
    if mode == 'instruments':
        out.write('Weight\tSelf Weight\t\tSymbol Name\n')

        def walk(name, node, depth):
            out.write('%d.00 ms  %5.1f%%\t%d.00 ms\t \t%s%s\n' % (
                node[0], 100.0 * node[0] / total, node[1], ' ' * depth, name))
            for n, c in sorted(node[2].items(), key=lambda x: -x[1][0]):
                walk(n, c, depth + 1)
    else:
        out.write('@ CPU_CLK_UNHALTED_CORE [%d samples]\n\n' % total)

        def walk(name, node, depth, parent=None):
            tot = parent if parent is not None else total
            pct = '100.0%% ' if node[0] == tot else '%05.2f%% ' % (100.0 * node[0] / tot)
            num = ' [%d] ' % node[0]
            obj = ' @ /usr/local/bin/build' if depth == 0 else ''
            out.write('%s%s%s%s%s%s%s\n' % (' ' * depth, pct.replace('%%', '%'), num, ' ' * max(0, 12 - len(num)),
                                             ' ' * depth, name, obj))
            for n, c in sorted(node[2].items(), key=lambda x: -x[1][0]):
                walk(n, c, depth + 1, node[0])
    for n, c in sorted(root[2].items(), key=lambda x: -x[1][0]):
        walk(n, c, 0)
        if mode == 'pmcstat':
            out.write('\n')


main()
