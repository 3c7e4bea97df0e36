#!/usr/bin/env python3
"""a2l-compare.py BIN OUT.spaa: every frame spaa-symbolize made from an
address of BIN (its "ip") against addr2line -a -f -i: the same chain of
inlined calls, innermost first, with the same function names, files and
lines.  Prints each difference and a count; exits 1 if there is one.

Where the two may differ, by design or by a bug of addr2line, the check is
made another way:
- an address spaa-symbolize leaves unresolved must be in no function of
  the symbol table (nm -S): the padding after a function, which addr2line
  gives to the function before it;
- the physical function is the symbol table's name (as perf prints it),
  addr2line's is DWARF's: they must be equal without GCC's clone suffixes
  (.constprop.N, .isra.N, .part.N, .cold, .localalias);
- addr2line (binutils 2.40) reads a DWARF 5 file entry whose name is also
  the unit's own under another directory ("cmd/linked/../x.c" when the
  unit is cmd/linked/x.c) as the unit's file: a line that differs must be
  eu-addr2line's (without its column);
- code without DWARF has no line ("file.o:?" or "??:?" for addr2line);
- addr2line's discriminators are left out."""
import collections, json, re, subprocess, sys

bin_path, spaa = sys.argv[1], sys.argv[2]
ours = collections.defaultdict(list)
unresolved = set()
for text in open(spaa):
    r = json.loads(text)
    if r.get('type') != 'frame' or 'ip' not in r:
        continue
    a = int(r['ip'], 16)
    if not r.get('func_resolved', True) or r['func'].startswith('0x'):
        unresolved.add(a)
        continue
    ours[a].append((r.get('inline_depth', 0), r['func'], r.get('srcline')))
addrs = sorted(set(ours) | unresolved)

def chains(cmd):
    out = subprocess.run(cmd + ['-a', '-f', '-i', '-e', bin_path], input=''.join('0x%x\n' % a for a in addrs_of),
                         capture_output=True, text=True).stdout
    res, cur = {}, None
    for line in out.splitlines():
        if re.fullmatch(r'0x[0-9a-f]+', line):
            cur = int(line, 16)
            res[cur] = []
        else:
            res[cur].append(line)
    return {a: [(t[i], t[i + 1]) for i in range(0, len(t) - 1, 2)] for a, t in res.items()}

def line_of(s, cols):
    s = re.sub(r' \(discriminator \d+\)$', '', s)
    if cols:
        s = re.sub(r'(:\d+):\d+$', r'\1', s)
    return None if s.endswith(':?') or s.endswith(':0') else s

clone = re.compile(r'(\.(constprop|isra|part|cold|localalias)(\.\d+)?)+$')
addrs_of = addrs
a2l = chains(['addr2line'])
funcs = []
for line in subprocess.run(['nm', '-S', bin_path], capture_output=True, text=True).stdout.splitlines():
    f = line.split()
    if len(f) == 4 and f[2] in 'TtWwi':
        funcs.append((int(f[0], 16), int(f[1], 16)))
funcs.sort()

bad, disputed, n = [], {}, collections.Counter()
for a in addrs:
    want = [(f, line_of(s, False)) for f, s in a2l.get(a, [])]
    if a in unresolved:
        import bisect
        k = bisect.bisect_right(funcs, (a, float('inf'))) - 1
        inside = any(s <= a < s + z for s, z in funcs[max(0, k - 8):k + 1])
        if inside:
            bad.append('0x%x: unresolved, inside a function of the symbol table; addr2line: %s' % (a, want))
        n['unresolved padding'] += 1
        continue
    got = [(f, s) for _, f, s in sorted(ours[a], key=lambda x: -x[0])]
    if len(got) != len(want) or [f for f, _ in got[:-1]] != [f for f, _ in want[:-1]] or \
            clone.sub('', got[-1][0]) != clone.sub('', want[-1][0]):
        bad.append('0x%x: %s; addr2line: %s' % (a, got, want))
        continue
    if [s for _, s in got] == [s for _, s in want]:
        n['same'] += 1
    else:
        disputed[a] = got
addrs_of = sorted(disputed)
eu = chains(['eu-addr2line']) if disputed else {}
for a, got in disputed.items():
    other = [line_of(s, True) for _, s in eu.get(a, [])]
    # "f inlined at FILE:LINE:COL in g" with no frame of g after it
    m = re.search(r' inlined at (\S+) in ', eu[a][-1][0]) if eu.get(a) else None
    if m:
        other.append(line_of(m.group(1), True))
    if [s for _, s in got] == other:
        n['line as eu-addr2line'] += 1
    else:
        bad.append('0x%x: %s; addr2line: %s; eu-addr2line: %s' % (a, got, a2l.get(a), eu.get(a)))
for b in bad[:20]:
    print(b)
print('%d addresses: %d different, %s' % (len(addrs), len(bad), ', '.join('%d %s' % (v, k) for k, v in sorted(n.items()))))
sys.exit(1 if bad or not addrs else 0)
