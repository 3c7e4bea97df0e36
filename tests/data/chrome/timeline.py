#!/usr/bin/env python3
"""The windows chrome2spaa -s must write for a heap timeline, computed from
its JSON on its own: one line per interval between two timeline samples,
"N START_NS END_NS LIVE_BYTES LIVE_COUNT", the objects still live whose id
is after the previous sample's last assigned id, up to this one's, and that
have an allocation trace.  Usage: timeline.py FILE.heaptimeline"""
import bisect, json, sys

doc = json.load(open(sys.argv[1]))
meta = doc["snapshot"]["meta"]
nf = meta["node_fields"]
ni, ns, nt = nf.index("id"), nf.index("self_size"), nf.index("trace_node_id")
sf = meta["sample_fields"]
ts = doc["samples"][sf.index("timestamp_us")::len(sf)]
last = doc["samples"][sf.index("last_assigned_id")::len(sf)]
nodes = doc["nodes"]
tot = {}
for k in range(0, len(nodes), len(nf)):
    if nodes[k + nt] == 0:
        continue
    w = bisect.bisect_left(last, nodes[k + ni])
    if 0 < w < len(last):
        b, c = tot.get(w, (0, 0))
        tot[w] = (b + nodes[k + ns], c + 1)
for w in range(1, len(last)):
    print(w, ts[w - 1] * 1000, ts[w] * 1000, *tot.get(w, (0, 0)))
