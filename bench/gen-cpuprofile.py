#!/usr/bin/env python3
"""Writes a large .cpuprofile for bench/chrome.sh: a call tree of N nodes
(random shape, at most 60 deep, names and scripts drawn from a few hundred), then SAMPLES
samples over its nodes with time deltas of 50..150 us.  Deterministic
(fixed seed).  Usage: gen-cpuprofile.py NODES SAMPLES > FILE"""
import json, random, sys

nodes_n, samples_n = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(1)
out = sys.stdout
names = ["fn%d" % i for i in range(400)] + ["", "(garbage collector)", "(program)", "(idle)"]
children = [[] for _ in range(nodes_n)]
depth = [0] * nodes_n
for i in range(1, nodes_n):
    # mostly below a recent node, as call trees grow, but no deeper than 60
    par = rng.randrange(max(0, i - 50), i)
    while depth[par] >= 60:
        par = rng.randrange(i)
    depth[i] = depth[par] + 1
    children[par].append(i)
out.write('{"nodes":[')
for i in range(nodes_n):
    cf = {"functionName": "(root)" if i == 0 else rng.choice(names), "scriptId": str(rng.randrange(40)),
          "url": "" if i == 0 else "file:///app/src/mod%d.js" % rng.randrange(40),
          "lineNumber": rng.randrange(2000), "columnNumber": rng.randrange(80)}
    node = {"id": i + 1, "callFrame": cf, "hitCount": 0}
    if children[i]:
        node["children"] = [c + 1 for c in children[i]]
    out.write(("," if i else "") + json.dumps(node, separators=(",", ":")))
out.write('],"startTime":1000000,"endTime":%d,"samples":[' % (1000000 + 150 * samples_n))
CH = 100000
for k in range(0, samples_n, CH):
    out.write(("," if k else "") + ",".join(str(rng.randrange(nodes_n) + 1) for _ in range(min(CH, samples_n - k))))
out.write('],"timeDeltas":[')
for k in range(0, samples_n, CH):
    out.write(("," if k else "") + ",".join(str(rng.randrange(50, 151)) for _ in range(min(CH, samples_n - k))))
out.write("]}\n")
