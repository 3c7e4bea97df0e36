#!/usr/bin/env python3
"""Writes a large .cpuprofile for bench/chrome.sh: a call tree of N nodes
(random shape, at most 60 deep, names and scripts drawn from a few hundred), then SAMPLES
samples over its nodes with time deltas of 50..150 us.  Deterministic
(fixed seed).  Usage: gen-cpuprofile.py [--trace] NODES SAMPLES > FILE

With --trace, the same profile as a Chrome Performance trace instead: a
Profile event, then ProfileChunk events of 500 samples each (the nodes first
sampled in a chunk are introduced by it, as Chrome does), each after 40
other events of the kinds a DevTools recording is full of (FunctionCall,
EventDispatch, Layout, with args), which the converter must step over."""
import json, random, sys

trace = sys.argv[1] == "--trace"
if trace:
    del sys.argv[1]
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
def node_json(i):
    cf = {"functionName": "(root)" if i == 0 else rng.choice(names), "scriptId": str(rng.randrange(40)),
          "url": "" if i == 0 else "file:///app/src/mod%d.js" % rng.randrange(40),
          "lineNumber": rng.randrange(2000), "columnNumber": rng.randrange(80)}
    node = {"id": i + 1, "callFrame": cf, "hitCount": 0}
    if children[i]:
        node["children"] = [c + 1 for c in children[i]]
    return node


def write_trace():
    parent = [None] * nodes_n
    for i in range(nodes_n):
        for c in children[i]:
            parent[c] = i
    sent = [False] * nodes_n
    kinds = ["FunctionCall", "EventDispatch", "Layout", "UpdateLayoutTree", "Paint", "TimerFire"]
    out.write('{"traceEvents":[{"name":"Profile","cat":"disabled-by-default-v8.cpu_profiler","ph":"P",'
              '"pid":7,"tid":1,"ts":1000000,"id":"0x1","args":{"data":{"startTime":1000000}}}')
    ts = 1000000
    for k in range(0, samples_n, 500):
        for e in range(40):
            ts += 3
            kind = kinds[rng.randrange(len(kinds))]
            out.write(',{"args":{"data":{"frame":"F%X","url":"file:///app/index.html","functionName":"fn%d",'
                      '"lineNumber":%d,"columnNumber":%d,"scriptId":"%d"}},"cat":"devtools.timeline",'
                      '"dur":%d,"name":"%s","ph":"X","pid":7,"tdur":%d,"tid":1,"ts":%d,"tts":%d}'
                      % (rng.randrange(1 << 32), rng.randrange(400), rng.randrange(2000), rng.randrange(80),
                         rng.randrange(40), rng.randrange(1, 900), kind, rng.randrange(1, 900), ts, ts // 2))
        n = min(500, samples_n - k)
        samples = [rng.randrange(nodes_n) for _ in range(n)]
        deltas = [rng.randrange(50, 151) for _ in range(n)]
        new = []
        for x in samples:  # every node on the path, parents first
            path = []
            while x is not None and not sent[x]:
                sent[x] = True
                path.append(x)
                x = parent[x]
            new.extend(reversed(path))
        nodes = []
        for i in new:
            nd = node_json(i)
            nd.pop("children", None)
            nd.pop("hitCount", None)
            if parent[i] is not None:
                nd["parent"] = parent[i] + 1
            nodes.append(nd)
        ts += sum(deltas)
        chunk = {"cpuProfile": {"nodes": nodes, "samples": [x + 1 for x in samples]}, "timeDeltas": deltas}
        out.write(',{"name":"ProfileChunk","cat":"disabled-by-default-v8.cpu_profiler","ph":"P","pid":7,'
                  '"tid":1,"ts":%d,"id":"0x1","args":{"data":%s}}' % (ts, json.dumps(chunk, separators=(",", ":"))))
    out.write("]}\n")


if trace:
    write_trace()
    sys.exit(0)
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
