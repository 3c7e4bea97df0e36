#!/usr/bin/env python3
"""Every row of an Instruments deep copy against a SPAA file made of it:
the row's total as Instruments prints it, and the total weight of its path
in the SPAA file (the stacks whose frames, root first, begin with the
row's path) printed in the row's unit with as many decimals (half up).
Prints "LINE<TAB>INSTRUMENTS<TAB>OURS<TAB>SUM" for the rows where the two
differ, SUM being the sum of the row's children as Instruments prints
them.  Usage: totals.py COPY SPAA"""
import json
import re
import sys
from decimal import Decimal, ROUND_HALF_UP

UNITS = {'ns': 1, 'us': 10**3, '\u00b5s': 10**3, '\u03bcs': 10**3, 'ms': 10**6, 's': 10**9,
         'min': 60 * 10**9, 'c': 1, 'cycles': 1, 'Kc': 10**3, 'Mc': 10**6, 'Gc': 10**9,
         'Bytes': 1, 'B': 1, 'KB': 1024, 'MB': 1024**2, 'GB': 1024**3}


def parse(text):
    text = text.replace('\u2007', ' ').replace('\u00a0', ' ').strip()
    m = re.match(r'([\d.,]+)\s*([^\s\d%]*)', text)
    num = m.group(1).replace(',', '')
    return num, m.group(2)


def main():
    with open(sys.argv[1], encoding='utf-8-sig', newline='') as f:
        lines = [l.rstrip('\r\n') for l in f]
    head = [h.strip() for h in lines[0].split('\t')]
    sym = head.index('Symbol Name') if 'Symbol Name' in head else head.index('Symbol Names')
    total = next(i for i, h in enumerate(head) if h in ('Weight', 'Running Time', 'Bytes Used'))
    frames, tree = {}, {}
    for l in open(sys.argv[2], encoding='utf-8'):
        r = json.loads(l)
        if r['type'] == 'frame':
            frames[r['id']] = r['func']
        elif r['type'] == 'stack':
            w = r['weights'][0]['value']
            names = tuple(frames[f] for f in reversed(r['frames']))
            for k in range(1, len(names) + 1):
                tree[names[:k]] = tree.get(names[:k], 0) + w
    rows = []
    for n, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        cols = line.split('\t')
        name = cols[sym]
        rows.append((n, len(name) - len(name.lstrip(' ')), name.strip(), cols[total]))
    base = rows[0][1]
    path = []
    for i, (n, depth, name, fig) in enumerate(rows):
        depth -= base
        path[depth:] = [name]
        num, unit = parse(fig)
        scale = UNITS[unit]
        frac = len(num.split('.')[1]) if '.' in num else 0
        q = Decimal(1).scaleb(-frac)
        ours = (Decimal(tree.get(tuple(path), 0)) / scale).quantize(q, rounding=ROUND_HALF_UP)
        if ours != Decimal(num):
            kids = Decimal(0)
            for n2, d2, _, f2 in rows[i + 1:]:
                if d2 - base <= depth:
                    break
                if d2 - base == depth + 1:
                    kn, ku = parse(f2)
                    kids += Decimal(kn) * UNITS[ku]
            print('%d\t%s\t%s %s\t%s %s' % (n, fig.strip(), ours, unit, (kids / scale).quantize(q, rounding=ROUND_HALF_UP), unit))


main()
