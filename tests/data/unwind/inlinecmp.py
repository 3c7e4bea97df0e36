#!/usr/bin/env python3
"""Compares, sample by sample, a dwarf capture's stacks by frame names with
and without --inline: perf2spaa --inline -s DATA against perf script -i
DATA | perf2spaa -s, and perf2spaa -s DATA against perf script --no-inline
-i DATA | perf2spaa -s.  A sample whose stacks agree without --inline
must agree with it: what differs then is the naming of inlined calls and
functions, not the unwinding (perf's frame-pointer fallback, ...).  A
sample whose stack perf cuts short (its stack without --inline is the leaf
end of ours: perf's unwinding stops in libc's start, for one) is compared
on that part: perf's stack with --inline against ours up to the same
physical frame.

usage: inlinecmp.py BIN-INLINE TXT-INLINE BIN-NOINLINE TXT-NOINLINE

Prints "samples N alike A differing D" (A: alike without --inline; D: of
those, differing with it), then each of the D (the two stacks).  Exit
status 1 when D > 0 or a sample is in one profile only."""
import json
import sys


def load(path):
    frames, stacks, samples = {}, {}, {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            t = r.get("type")
            if t == "frame":
                frames[r["id"]] = (r.get("func", ""), r.get("inlined", False))
            elif t == "stack":
                stacks[r["id"]] = [frames[i] for i in r["frames"]]
            elif t == "sample":
                samples[(r["tid"], r["timestamp"], r.get("cpu"))] = r["stack_id"]
    return {k: stacks[v] for k, v in samples.items()}


def main():
    bi, ti, bn, tn = (load(p) for p in sys.argv[1:5])
    keys = set(bi)
    if keys != set(ti) or keys != set(bn) or keys != set(tn):
        print("the profiles do not have the same samples")
        return 1
    alike = differing = 0
    out = []
    for k in sorted(keys):
        ours = bi[k]
        if bn[k] != tn[k]:
            n = len(tn[k])
            if n == 0 or bn[k][:n] != tn[k]:
                continue
            # perf's stack ends early: ours up to its n-th physical frame
            i = 0
            while n:
                n -= not ours[i][1]
                i += 1
            ours = ours[:i]
        alike += 1
        # by names (the text path cannot always tell which are inlined)
        if [f[0] for f in ours] != [f[0] for f in ti[k]]:
            differing += 1
            out.append("%s\n  ours: %s\n  perf: %s" % (k, ";".join(f[0] for f in ours),
                                                    ";".join(f[0] for f in ti[k])))
    print("samples %d alike %d differing %d" % (len(keys), alike, differing))
    for o in out:
        print(o)
    return 1 if differing else 0


sys.exit(main())
