#!/usr/bin/env python3
"""Writes a GHC JSON profile (+RTS -pj) as the text report GHC writes for
+RTS -p, or -P with --ticks (the ticks and bytes columns), in the layout of
GHC 8.x's rts/ProfilerReport.c: header, the flat table of the cost centres
of 1% or more, then the cost-centre tree, one space of indent a level.
The tests' text reports are made from speedscope's sample so (GHC is too
heavy to install for the tests).  Usage: to-text.py [--ticks] FILE.json"""
import json, sys

ticks_cols = sys.argv[1] == "--ticks"
d = json.load(open(sys.argv[-1]))
cc = {c["id"]: c for c in d["cost_centres"]}
T, A = d["total_ticks"], d["total_alloc"]


def pct(x, tot):
    return "%.1f" % (100.0 * x / tot if tot else 0.0)


def inherited(n):
    t, a = n["ticks"], n["alloc"]
    for c in n["children"]:
        ct, ca = inherited(c)
        t, a = t + ct, a + ca
    n["_it"], n["_ia"] = t, a
    return t, a


inherited(d["profile"])
out = []
out.append("\t%s Time and Allocation Profiling Report  (Final)" % d["end_time"])
out.append("")
args = " ".join(d["arguments"])
rts = " ".join(a.replace("-pj", "-P" if ticks_cols else "-p") for a in d["rts_arguments"])
out.append("\t   %s +RTS %s -RTS" % (args, rts))
out.append("")
procs = d["initial_capabilities"] or 1
out.append("\ttotal time  = %11.2f secs   (%d ticks @ %d us, %d processor%s)"
           % (d["total_time"], T, d["tick_interval"], procs, "" if procs == 1 else "s"))
out.append("\ttotal alloc = %s bytes  (excludes profiling overheads)" % "{:,}".format(A).rjust(13))
out.append("")

# the flat table: each cost centre's own costs, summed over its stacks
flat = {}
def walk(n):
    f = flat.setdefault(n["id"], [0, 0])
    f[0] += n["ticks"]
    f[1] += n["alloc"]
    for c in n["children"]:
        walk(c)
walk(d["profile"])
rows = sorted((k for k in flat if flat[k][0] * 100 >= T or flat[k][1] * 100 >= A),
              key=lambda k: (-flat[k][0], -flat[k][1]))
hdr = "%-14s %-10s %-30s %5s %6s" % ("COST CENTRE", "MODULE", "SRC", "%time", "%alloc")
if ticks_cols:
    hdr += "  %5s %11s" % ("ticks", "bytes")
out.append(hdr)
out.append("")
for k in rows:
    c = cc[k]
    line = "%-14s %-10s %-30s %5s %6s" % (c["label"], c["module"], c["src_loc"], pct(flat[k][0], T), pct(flat[k][1], A))
    if ticks_cols:
        line += "  %5d %11d" % (flat[k][0], flat[k][1])
    out.append(line)
out.append("")
out.append("")

hdr = "%-40s %-20s %-34s %5s %11s  %5s %6s   %5s %6s" % (
    "COST CENTRE", "MODULE", "SRC", "no.", "entries", "%time", "%alloc", "%time", "%alloc")
if ticks_cols:
    hdr += "  %5s %11s" % ("ticks", "bytes")
out.append(" " * 120 + "individual      inherited")
out.append(hdr)
out.append("")
def tree(n, depth):
    c = cc[n["id"]]
    line = "%-40s %-20s %-34s %5d %11d  %5s %6s   %5s %6s" % (
        " " * depth + c["label"], c["module"], c["src_loc"], c["id"], n["entries"],
        pct(n["ticks"], T), pct(n["alloc"], A), pct(n["_it"], T), pct(n["_ia"], A))
    if ticks_cols:
        line += "  %5d %11d" % (n["ticks"], n["alloc"])
    out.append(line)
    for ch in n["children"]:
        tree(ch, depth + 1)
tree(d["profile"], 0)
print("\n".join(out))
