#!/usr/bin/env python3
"""Weighs v8log2spaa -s output as speedscope's v8proflog importer weighs
ticks (each the time since the one before, in microseconds, after sorting
by time) and prints, for each JavaScript frame, "KEY<TAB>TOTAL" with KEY as
speedscope keys it ("name file:line:col"; no name for an anonymous
function); a frame counts once per sample however often it recurs."""
import json, sys
frames, stacks, total = {}, {}, {}
samples = []
for line in open(sys.argv[1]):
    r = json.loads(line)
    t = r["type"]
    if t == "frame" and r.get("x_kind") == "js" and "srcline" in r:
        # an anonymous function: named "<anonymous> LOCATION" here
        name = "" if r["func"].startswith("<anonymous>") else r["func"]
        frames[r["id"]] = name + " " + r["srcline"]
    elif t == "stack":
        stacks[r["id"]] = r["frames"]
    elif t == "sample":
        samples.append((round(r["timestamp"] * 1e6), r["stack_id"]))
samples.sort(key=lambda s: s[0])
last = 0
for tm, sid in samples:
    w = tm - last
    last = tm
    for k in set(frames[f] for f in stacks[sid] if f in frames):
        total[k] = total.get(k, 0) + w
for k in sorted(total):
    print("%s\t%d" % (k, total[k]))
