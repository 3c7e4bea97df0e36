#!/usr/bin/env python3
"""Large inputs for bench/speedscope-formats.sh, made up with a fixed seed:
  gen-speedscope-formats.py ghc-json N   a GHC +RTS -pj profile of about N tree
                                         nodes (2000 cost centres, depth <= 24)
  gen-speedscope-formats.py hermes N     a Hermes trace of N samples on 4
                                         threads, 20000 stack frames
  gen-speedscope-formats.py safari N     a Safari timeline recording of N
                                         samples of stacks of 20000 functions
The result goes to standard output."""
import json, random, sys

kind, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(42)
w = sys.stdout.write

if kind == "ghc-json":
    ccs = [{"id": i, "label": "f%d" % i, "module": "M%d" % (i % 50), "src_loc": "src/M%d.hs:%d:1-9" % (i % 50, i),
            "is_caf": False} for i in range(1, 2001)]
    ccs.append({"id": 9999, "label": "MAIN", "module": "MAIN", "src_loc": "<built-in>", "is_caf": False})
    count = [0]
    tot = [0, 0]
    def node(cc, depth):
        count[0] += 1
        t, a = rnd.randrange(0, 5), rnd.randrange(0, 100000)
        tot[0] += t
        tot[1] += a
        kids = []
        if depth < 24:
            k = rnd.randrange(0, 4) if count[0] < n else 0
            kids = [node(rnd.randrange(1, 2001), depth + 1) for _ in range(k)]
        return {"id": cc, "entries": rnd.randrange(0, 1000), "alloc": a, "ticks": t, "children": kids}
    roots = []
    while count[0] < n:
        roots.append(node(rnd.randrange(1, 2001), 1))
    tree = {"id": 9999, "entries": 0, "alloc": 0, "ticks": 0, "children": roots}
    json.dump({"program": "bench", "arguments": ["bench"], "rts_arguments": ["-pj"], "end_time": "Thu Nov 26 12:00 2026",
               "initial_capabilities": 0, "total_time": tot[0] / 1000, "total_ticks": tot[0], "tick_interval": 1000,
               "total_alloc": tot[1], "cost_centres": ccs, "profile": tree}, sys.stdout)
elif kind == "hermes":
    frames = {"1": {"name": "[root]", "category": "root"}}
    for i in range(2, 20001):
        frames[str(i)] = {"name": "fn%d(http://localhost:8081/index.bundle:%d:%d)" % (i, i, i % 80),
                          "category": "JavaScript", "parent": rnd.randrange(1, i)}
    w('{"traceEvents":[{"name":"process_name","ph":"M","pid":1,"tid":"1","ts":"0","args":{"name":"hermes"}}],\n"samples":[\n')
    ts = 1000000
    for k in range(n):
        ts += rnd.randrange(100, 2000)
        w('%s{"cpu":"-1","name":"","ts":"%d","pid":1,"tid":"%d","weight":"1","sf":%d}\n'
          % ("," if k else "", ts, 1 + k % 4, rnd.randrange(1, 20001)))
    w('],\n"stackFrames":')
    json.dump(frames, sys.stdout)
    w('}\n')
elif kind == "safari":
    parent = [0, 0] + [rnd.randrange(1, i) for i in range(2, 20001)]
    def frame(i):
        return {"sourceID": str(i % 30), "name": "fn%d" % i if i % 17 else "", "line": i, "column": i % 80,
                "url": "https://example.com/js/app%d.js" % (i % 30), "expressionLocation": {"line": i + 1, "column": 3}}
    w('{"version":1,"recording":{"displayName":"Timeline Recording 1","startTime":1.0,"endTime":%d.0,'
      '"instrumentTypes":["timeline-record-type-script"],"records":[],"markers":[],"sampleStackTraces":[\n' % (n // 1000 + 2))
    t = 1.0
    for k in range(n):
        t += 0.001
        i = rnd.randrange(1, 20001)
        st = []
        while i:
            st.append(frame(i))
            i = parent[i]
        w("%s%s\n" % ("," if k else "", json.dumps({"timestamp": t, "stackFrames": st}, separators=(",", ":"))))
    w('],"sampleDurations":[')
    w(",".join(repr(0.0009 + rnd.random() * 0.0002) for _ in range(n)))
    w(']},"overview":{}}\n')
