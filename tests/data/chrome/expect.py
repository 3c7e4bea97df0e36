#!/usr/bin/env python3
"""The figures chrome2spaa must give, computed from a Chrome/Node profile's
JSON on its own (not the converter's code): one line per function,
"self total function", self and total of one metric, sorted by function.
Usage: expect.py FILE METRIC, METRIC one of wall_us, samples (CPU),
alloc_bytes, alloc_count, live_bytes, live_count (heap).  A function's total
counts each stack once however often the function occurs in it."""
import json, sys
from collections import defaultdict

path, metric = sys.argv[1], sys.argv[2]
doc = json.load(open(path))
selfw, totw = defaultdict(int), defaultdict(int)

def add(names, w):
    if not names:
        return
    selfw[names[0]] += w
    for n in set(names):
        totw[n] += w

def fname(cf):
    return cf.get("functionName") or "(anonymous)"

def cpu(nodes, parent, samples, deltas, start, end):
    """nodes: id -> name; a sample lasts until the next; the last until end."""
    def path(i):
        out = []
        while i is not None:
            out.append(nodes[i])
            i = parent.get(i)
        return out
    t, ts = start, []
    for d in deltas:
        t += d
        ts.append(t)
    for k, s in enumerate(samples):
        if k + 1 < len(samples):
            dur = ts[k + 1] - ts[k]
        else:
            dur = end - ts[k] if end is not None and end > ts[k] else 0
        add(path(s), max(dur, 0) if metric == "wall_us" else 1)

if isinstance(doc, list) or "traceEvents" in doc:
    events = doc if isinstance(doc, list) else doc["traceEvents"]
    profs = {}
    for e in events:
        if e.get("name") not in ("Profile", "ProfileChunk"):
            continue
        p = profs.setdefault((e.get("pid"), e.get("id")),
                             {"nodes": {}, "parent": {}, "samples": [], "deltas": [], "start": 0, "end": None})
        data = e.get("args", {}).get("data", {})
        if e["name"] == "Profile":
            p["start"] = data.get("startTime", 0)
            continue
        cp = data.get("cpuProfile", {})
        for n in cp.get("nodes", []):
            p["nodes"][n["id"]] = fname(n["callFrame"])
            if "parent" in n:
                p["parent"][n["id"]] = n["parent"]
        p["samples"] += cp.get("samples", [])
        p["deltas"] += data.get("timeDeltas", [])
        if "endTime" in data:
            p["end"] = data["endTime"]
    for p in profs.values():
        cpu(p["nodes"], p["parent"], p["samples"], p["deltas"], p["start"], p["end"])
elif "nodes" in doc and "snapshot" not in doc:
    nodes = {n["id"]: fname(n["callFrame"]) for n in doc["nodes"]}
    parent = {c: n["id"] for n in doc["nodes"] for c in n.get("children", [])}
    cpu(nodes, parent, doc["samples"], doc["timeDeltas"], doc["startTime"], doc.get("endTime"))
elif "head" in doc:
    counts = defaultdict(int)
    for s in doc.get("samples", []):
        counts[s["nodeId"]] += 1
    def walk(n, up):
        names = [fname(n["callFrame"])] + up
        add(names, n["selfSize"] if metric == "alloc_bytes" else counts[n["id"]])
        for c in n.get("children", []):
            walk(c, names)
    walk(doc["head"], [])
else:
    meta = doc["snapshot"]["meta"]
    strings = doc["strings"]
    ff = meta["trace_function_info_fields"]
    fi = doc["trace_function_infos"]
    funcs = [strings[fi[i + ff.index("name")]] or "(anonymous)" for i in range(0, len(fi), len(ff))]
    tf = meta["trace_node_fields"]
    nf = meta["node_fields"]
    live = defaultdict(lambda: [0, 0])
    ns = doc["nodes"]
    for i in range(0, len(ns), len(nf)):
        t = ns[i + nf.index("trace_node_id")]
        if t:
            live[t][0] += 1
            live[t][1] += ns[i + nf.index("self_size")]
    def walk(arr, up):
        for i in range(0, len(arr), len(tf)):
            rec = arr[i:i + len(tf)]
            tid = rec[tf.index("id")]
            names = [funcs[rec[tf.index("function_info_index")]]] + up
            w = {"alloc_count": rec[tf.index("count")], "alloc_bytes": rec[tf.index("size")],
                 "live_count": live[tid][0], "live_bytes": live[tid][1]}[metric]
            add(names, w)
            walk(rec[tf.index("children")], names)
    walk(doc["trace_tree"], [])

for n in sorted(totw, key=lambda s: s.encode()):
    if totw[n] or selfw[n]:
        print(selfw[n], totw[n], n)
