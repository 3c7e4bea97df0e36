#!/usr/bin/env python3
"""Writes a perf.data (file mode) of `perf record --call-graph lbr` samples
of a program: LBR hardware is Intel's, so tests/perf2spaa-dwarf.bats makes
the capture rather than records it.

usage: mklbr.py PROGRAM OUT [empty]  (the addresses come from `nm PROGRAM`)

One cpu-clock event sampling ip, tid, time, period, callchain and the
branch stack (branch_sample_type user|call_stack|no_flags|no_cycles|
hw_index, as perf record --call-graph lbr sets it); the program mapped at
0x555555554000 in process 4242 ("prog"); samples whose callchain's user
part is a frame-pointer walk gone wrong (one bogus frame) and whose branch
stack holds the real calls: main -> recurse -> recurse -> sorter -> cmp
(one sample with the same callchain and two branches only, one sample with
a kernel part; with "empty", one more sample, whose
branch stack is empty: perf script reads the entry that is not there)."""
import struct
import subprocess
import sys

prog, out = sys.argv[1], sys.argv[2]
syms = {}
for line in subprocess.run(["nm", prog], capture_output=True, text=True, check=True).stdout.splitlines():
    f = line.split()
    if len(f) == 3 and f[1] in "tT":
        syms[f[2].split(".")[0]] = int(f[0], 16)
BASE = 0x555555554000
def a(name, off):
    return BASE + syms[name] + off

PID = 4242
CTX_KERNEL, CTX_USER = 2**64 - 128, 2**64 - 512
ST = 1 | 2 | 4 | 256 | 32 | 2048  # IP TID TIME PERIOD CALLCHAIN BRANCH_STACK
BST = 1 | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 17)

def rec(typ, misc, body):
    body += b"\0" * (-len(body) % 8)
    return struct.pack("<IHH", typ, misc, 8 + len(body)) + body

def sample(t, ip, chain, branches):
    b = struct.pack("<QIIQQ", ip, PID, PID, t, 100000)
    b += struct.pack("<Q", len(chain)) + b"".join(struct.pack("<Q", x) for x in chain)
    b += struct.pack("<QQ", len(branches), 0)  # nr, hw_idx
    for fr, to in branches:
        b += struct.pack("<QQQ", fr, to, 0)
    return rec(9, 2, b)

size = (len(open(prog, "rb").read()) + 0xfff) & ~0xfff
data = rec(3, 0, struct.pack("<II", PID, PID) + b"prog\0")
data += rec(1, 2, struct.pack("<IIQQQ", PID, PID, BASE, size, 0) + prog.encode() + b"\0")
calls = [(a("cmp", 0), None),                         # leaf: cmp's entry (entry 0's target)
         (a("sorter", 0x30), a("cmp", 0)),            # the call chain, innermost first
         (a("recurse", 0x20), a("sorter", 0)),
         (a("recurse", 0x40), a("recurse", 0)),
         (a("main", 0x30), a("recurse", 0))]
branches = [(calls[i][0], calls[i - 1][0]) for i in range(1, len(calls))]
t = 1000000000
for i in range(5):
    data += sample(t + i, a("cmp", 4), [CTX_USER, a("cmp", 4), 0x1234], branches)
# the same callchain, a shorter branch stack: another stack
data += sample(t + 4, a("cmp", 4), [CTX_USER, a("cmp", 4), 0x1234], branches[:2])
# a kernel part before the user one
data += sample(t + 5, a("cmp", 4), [CTX_KERNEL, 0xffffffff81000010, CTX_USER, a("cmp", 4), 0x1234], branches)
# no branches: the callchain as it is
if sys.argv[3:] == ["empty"]:
    data += sample(t + 6, a("main", 0x8), [CTX_USER, a("main", 0x8)], [])

attr = struct.pack("<IIQQQQQIIQQQQIiQIHHII", 1, 128, 0, 100000, ST, 0, 0, 0, 0, 0, 0, BST, 0, 0, 0, 0, 0, 0, 0, 0, 0)
attr += b"\0" * (128 - len(attr))
HDR = 104
attrs_off = HDR
ids_off = attrs_off + len(attr) + 16
data_off = ids_off
hdr = b"PERFILE2" + struct.pack("<QQ", HDR, len(attr) + 16)
hdr += struct.pack("<QQQQQQ", attrs_off, len(attr) + 16, data_off, len(data), 0, 0)
hdr += b"\0" * 32  # no feature sections
with open(out, "wb") as f:
    f.write(hdr + attr + struct.pack("<QQ", ids_off, 0) + data)
