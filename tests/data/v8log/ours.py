#!/usr/bin/env python3
"""From v8log2spaa output: --js-self: each JS function's own ticks
("NAME LOCATION<TAB>TICKS", sorted, as ppjs.py prints prof-process's);
--js-paths: the ticks of each path of JS frames alone, root first
("a;b;c<TAB>TICKS"); --callers: for each JS leaf, the ticks of each
direct caller, "LEAF<TAB>CALLER<TAB>TICKS" (a caller that is not JS is
"(other)", none at all "(none)"; V8's own code, and the node binary's
code, are passed over: prof-process does not see them, see the man page);
--gc: the ticks of VM state 1; --total."""
import json, sys
frames, out, skip, dsos = {}, {}, set(), {}
gc = total = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "dso":
        dsos[r["id"]] = r["name"]
    if r["type"] == "frame" and (r.get("x_kind") == "v8" or
                                 (r.get("x_kind") == "native" and dsos[r["dso"]].endswith("/node"))):
        skip.add(r["id"])
    if r["type"] == "frame" and r.get("x_kind") == "js":
        # an anonymous function is named by its location already
        # ("<anonymous> a.js:6:22", as prof-process names it)
        n = r["func"]
        if "srcline" in r and not n.endswith(" " + r["srcline"]):
            n += " " + r["srcline"]
        frames[r["id"]] = n
    elif r["type"] == "stack":
        w = [x["value"] for x in r["weights"] if x["metric"] == "samples"][0]
        total += w
        if r["context"].get("x_v8_vm_state") == 1:
            gc += w
        if sys.argv[2] == "--js-self":
            f = r["frames"][0]
            if f in frames:
                out[frames[f]] = out.get(frames[f], 0) + w
        elif sys.argv[2] == "--callers":
            f = r["frames"][:1] + [x for x in r["frames"][1:] if x not in skip]
            if f[0] in frames:
                c = "(none)" if len(f) < 2 else frames.get(f[1], "(other)")
                k = frames[f[0]] + "\t" + c
                out[k] = out.get(k, 0) + w
        elif sys.argv[2] == "--js-paths":
            k = ";".join(frames[f] for f in reversed(r["frames"]) if f in frames)
            out[k] = out.get(k, 0) + w
if sys.argv[2] == "--gc":
    print(gc)
elif sys.argv[2] == "--total":
    print(total)
else:
    for k in sorted(out):
        print("%s\t%d" % (k, out[k]))
