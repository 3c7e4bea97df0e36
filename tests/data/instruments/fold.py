#!/usr/bin/env python3
"""An Instruments deep copy read on its own, for instruments2spaa's tests:
folded stacks (root first, bytewise order) of each node's self weight, in
nanoseconds, cycles or bytes (decimal figures times the unit, rounded half
up), from the self column, or (--derive-self, or no self column) the node's
total less its children's totals, at least 0; a node whose self is '-' and
whose children leave part of its total unaccounted for, beyond the figures'
rounding, gets that part as a child "[unknown]" (what Instruments hid).
--count: the Count column.
Usage: fold.py FILE [--derive-self] [--count]"""
import re
import sys
from decimal import Decimal, ROUND_HALF_UP

UNITS = {'ns': 1, 'us': 10**3, '\u00b5s': 10**3, '\u03bcs': 10**3, 'ms': 10**6, 's': 10**9,
         'min': 60 * 10**9, 'c': 1, 'cycles': 1, 'Kc': 10**3, 'Mc': 10**6, 'Gc': 10**9,
         'Bytes': 1, 'B': 1, 'KB': 1024, 'MB': 1024**2, 'GB': 1024**3}


def figure(text, unit=None):
    text = text.replace('\u2007', ' ').replace('\u00a0', ' ').strip()
    if text == '-':
        return 0
    m = re.match(r'([\d.,]+)\s*([^\s\d%]*)', text)
    value = Decimal(m.group(1).replace(',', ''))
    return int((value * UNITS[m.group(2) or unit]).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def tol2(text):
    """Twice the most a figure can be off its true value: half a unit of
    its last digit (rounded up) and half of one for the whole number."""
    text = text.replace('\u2007', ' ').replace('\u00a0', ' ').strip()
    m = re.match(r'([\d.,]+)\s*([^\s\d%]*)', text)
    frac = len(m.group(1).split('.')[1]) if '.' in m.group(1) else 0
    scale = UNITS.get(m.group(2), 1)
    return -(-scale // 10**frac) + 1


def main():
    path, opts = sys.argv[1], sys.argv[2:]
    with open(path, encoding='utf-8', newline='') as f:
        lines = [l.rstrip('\r\n') for l in f]
    lines = [l for l in lines if l.strip()]
    head = [h.strip() for h in lines[0].split('\t')]
    sym = head.index('Symbol Name') if 'Symbol Name' in head else head.index('Symbol Names')
    if '--count' in opts:
        total, selfcol = head.index('Count'), None
    else:
        total = next(i for i, h in enumerate(head) if h in ('Weight', 'Running Time', 'Bytes Used'))
        selfcol = next((i for i, h in enumerate(head) if h.startswith('Self')), None)
        if '--derive-self' in opts:
            selfcol = None
    unit = None
    if selfcol is not None and '(' in head[selfcol]:
        unit = head[selfcol][head[selfcol].index('(') + 1:-1]
    nodes = []
    for line in lines[1:]:
        cols = line.split('\t')
        name = cols[sym]
        depth = len(name) - len(name.lstrip(' '))
        own = figure(cols[selfcol], unit) if selfcol is not None else None
        dash = selfcol is not None and cols[selfcol].strip() == '-'
        tl = tol2(cols[total]) if '--count' not in opts else 0
        nodes.append([depth, name.strip(), figure(cols[total], "c" if "--count" in opts else None), own, dash, tl])
    base = nodes[0][0]
    out = {}
    path = []
    for i, (depth, name, tot, own, dash, tl) in enumerate(nodes):
        depth -= base
        path[depth:] = [name]
        if dash:
            children, ctol = 0, 0
            for d2, _, t2, _, _, tl2 in nodes[i + 1:]:
                if d2 - base <= depth:
                    break
                if d2 - base == depth + 1:
                    children += t2
                    ctol += tl2
            if tot > children and 2 * (tot - children) > tl + ctol:
                key = ';'.join(path + ['[unknown]'])
                out[key] = out.get(key, 0) + tot - children
        if own is None:
            children = 0
            for d2, _, t2, _, _, _ in nodes[i + 1:]:
                if d2 - base <= depth:
                    break
                if d2 - base == depth + 1:
                    children += t2
            own = max(tot - children, 0)
        if own:
            key = ';'.join(path)
            out[key] = out.get(key, 0) + own
    for key in sorted(out, key=lambda k: k.encode()):
        print(key, out[key])


main()
