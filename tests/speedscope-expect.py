#!/usr/bin/env python3
# speedscope-expect.py UNIT < FOLDED: the sandwich table speedscope should
# show for these folded stacks (weights in UNIT), worked out here on its own:
# a function's self weight is the weight of the stacks it ends, its total the
# weight of the stacks it is in (once per stack); values and percentages
# formatted as speedscope's TimeFormatter, ByteFormatter and formatPercent
# do.  One row a line, NAME<TAB>TOTAL<TAB>SELF, sorted by name.
import math, sys
unit = sys.argv[1]
self_w, total_w, grand = {}, {}, 0
for line in sys.stdin:
    path, _, w = line.rstrip('\n').rpartition(' ')
    w = int(w)
    grand += w
    names = path.split(';')
    self_w[names[-1]] = self_w.get(names[-1], 0) + w
    for n in set(names):
        total_w[n] = total_w.get(n, 0) + w
def fixed(x, d):  # JavaScript's toFixed: round half away from zero on the decimal
    from decimal import Decimal, ROUND_HALF_UP
    return str(Decimal(x).quantize(Decimal(1).scaleb(-d), rounding=ROUND_HALF_UP))
def fmt(v):
    if unit in ('nanoseconds', 'microseconds', 'milliseconds', 'seconds'):
        s = v * {'nanoseconds': 1e-9, 'microseconds': 1e-6, 'milliseconds': 1e-3, 'seconds': 1}[unit]
        if s / 60 >= 1:
            m = math.floor(s / 60)
            return f'{m}:{math.floor(s - m * 60):02d}'
        if s >= 1: return fixed(s, 2) + 's'
        if s / 1e-3 >= 1: return fixed(s / 1e-3, 2) + 'ms'
        if s / 1e-6 >= 1: return fixed(s / 1e-6, 2) + 'µs'
        return fixed(s / 1e-9, 2) + 'ns'
    if unit == 'bytes':
        if v < 1024: return f'{v} B'
        for u in ('KB', 'MB', 'GB'):
            v /= 1024
            if v < 1024 or u == 'GB': return fixed(v, 2) + ' ' + u
    return f'{v:,}'
def pct(p):
    if p == 100: return '100%'
    if p > 99: return '>99%'
    if p < 0.01: return '<0.01%'
    if p < 1: return fixed(p, 2) + '%'
    if p < 10: return fixed(p, 1) + '%'
    return fixed(p, 0) + '%'
for n in sorted(total_w):
    t, s = total_w[n], self_w.get(n, 0)
    print(f'{n}\t{fmt(t)} ({pct(100 * t / grand)})\t{fmt(s)} ({pct(100 * s / grand)})')
