#!/usr/bin/env python3
"""Compares, sample by sample, the user stacks of a dwarf capture as
perf2spaa unwinds them (perf2spaa -s DATA) with perf script's (perf script
--no-inline -i DATA | perf2spaa -s), and sorts each difference into the
kinds man/perf2spaa.1 explains: perf script (with libunwind) found no call
frame information for a file in that process and fell back to the frame
pointer, which

  early    ends its stack before ours (its stack is the start of ours),
  garbage  reads a frame in no function ([unknown], [stack], an address),
           in place of one of ours or past our last frame,
  skipped  skips frames (its next frame comes further down in ours),
  named    reads a garbage frame that falls in a named function.

usage: dwarfcmp.py BINARY.spaa TEXT.spaa [PROGRAM-COMM]

Prints "samples N same S early E garbage G skipped K named M unexplained U"
then each unexplained sample (tid, time, the two stacks).  With a
PROGRAM-COMM, also counts that program's samples in its own functions
whose stack (ours) does not reach main: "short P".  Exit status 1 when a sample is in one profile
only."""
import json
import sys


def load(path):
    dsos, frames, stacks, samples = {}, {}, {}, {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            t = r.get("type")
            if t == "dso":
                dsos[r["id"]] = r["name"]
            elif t == "frame":
                frames[r["id"]] = (r.get("func", ""), dsos.get(r.get("dso"), ""), r.get("kind", ""))
            elif t == "stack":
                comm = r.get("context", {}).get("comm", "")
                # the user frames, leaf first
                stacks[r["id"]] = (comm, [frames[i][:2] for i in r["frames"] if frames[i][2] != "kernel"])
            elif t == "sample":
                samples[(r["tid"], r["timestamp"], r.get("cpu"))] = r["stack_id"]
    return stacks, samples


def unnamed(frame):
    func, dso = frame
    return func.startswith("0x") or dso in ("[unknown]", "[stack]", "[heap]", "") or dso.startswith("//anon")


def kind(ours, perf):
    i = 0
    while i < len(ours) and i < len(perf) and ours[i] == perf[i]:
        i += 1
    if i == len(perf) == len(ours):
        return "same"
    if i == len(perf):
        return "early"
    if i == len(ours):
        # perf's stack goes on past our last frame: only with frames in no
        # function (as "0xffffffffffffffff" after a frame-pointer fallback)
        return "garbage" if all(unnamed(f) for f in perf[i:]) else "unexplained"
    if unnamed(perf[i]):
        return "garbage"
    if perf[i] in ours[i + 1:]:
        return "skipped"
    return "named"


def main():
    bstacks, bsamples = load(sys.argv[1])
    tstacks, tsamples = load(sys.argv[2])
    prog = sys.argv[3] if len(sys.argv) > 3 else None
    count = dict.fromkeys(("same", "early", "garbage", "skipped", "named", "unexplained"), 0)
    bad, short = [], 0
    for key, sid in tsamples.items():
        if key not in bsamples:
            print("only in the text path: %s %s" % (key[0], key[1]))
            return 1
        comm, ours = bstacks[bsamples[key]]
        perf = tstacks[sid][1]
        k = kind(ours, perf)
        count[k] += 1
        if k == "unexplained":
            bad.append((key, ours, perf))
        # the program's own functions below main: main on the stack
        if prog and comm == prog and any(f[1].endswith("/" + prog) and f[0] not in ("main", "_start") for f in ours) \
                and not any(f[0] == "main" for f in ours):
            short += 1
    if len(bsamples) != len(tsamples):
        print("samples: %d here, %d in the text path" % (len(bsamples), len(tsamples)))
        return 1
    print("samples %d %s" % (len(tsamples), " ".join("%s %d" % kv for kv in count.items())) +
          (" short %d" % short if prog else ""))
    for key, ours, perf in bad:
        print("%s %s\n  ours %s\n  perf %s" % (key[0], key[1], ";".join(f[0] for f in ours),
                                            ";".join(f[0] for f in perf)))
    return 0


sys.exit(main())
