#!/usr/bin/env python3
"""mkcapture.py PROG OUTDIR - a perf.data of one `--call-graph dwarf` sample
of aarch64 program PROG (prog.c, built as README says), for perf2spaa's
unwinding test on a machine that is not aarch64.

PROG runs under qemu-aarch64 with gdb-multiarch attached; at the sixth time
leaf() stores its sum, gdb prints the registers x0..x30, sp and pc and the
call stack and dumps 1 KiB of the stack from sp.  The perf.data is what
`perf record -e cpu-clock -c 1000000 --call-graph dwarf,1024` writes on an
aarch64 machine for that moment (perf's register numbers of
arch/arm64/include/uapi/asm/perf_regs.h: x0..x30, sp, pc; HEADER_ARCH
"aarch64"): a COMM and an MMAP2 record of PROG (as /prog, pid 4242) and
the sample.  OUTDIR gets perf.data and gdb.txt (gdb's registers and call
stack, the ground truth).  Needs qemu-user and gdb-multiarch; not run by
the tests."""
import os
import re
import struct
import subprocess
import sys
import time

prog, out = sys.argv[1], sys.argv[2]
port = "23456"
qemu = subprocess.Popen(["qemu-aarch64", "-g", port, prog], env={}, stdout=subprocess.DEVNULL)
time.sleep(0.5)
regs = " ".join("x%d" % i for i in range(31)) + " sp pc"
stack = os.path.join(out, "stack.bin")
g = subprocess.run(["gdb-multiarch", "-q", "-batch", "-ex", "set architecture aarch64", "-ex", "file " + prog,
                    "-ex", "target remote :" + port, "-ex", "break *(leaf + 32)", "-ex", "continue",
                    "-ex", "continue 5", "-ex", "info registers " + regs, "-ex", "bt",
                    "-ex", "dump binary memory %s $sp $sp+1024" % stack, "-ex", "kill"],
                   capture_output=True, text=True)
qemu.wait()
lines = [l for l in g.stdout.splitlines() if re.match(r"^(x\d+|sp|pc) |^#\d", l)]
open(os.path.join(out, "gdb.txt"), "w").write("\n".join(lines) + "\n")
val = {}
for l in lines:
    m = re.match(r"^(x\d+|sp|pc)\s+(0x[0-9a-f]+)", l)
    if m:
        val[m.group(1)] = int(m.group(2), 16)
regv = [val["x%d" % i] for i in range(31)] + [val["sp"], val["pc"]]
data = open(stack, "rb").read()
os.unlink(stack)

# the executable segment of PROG (its first PT_LOAD)
elf = open(prog, "rb").read()
phoff, = struct.unpack_from("<Q", elf, 32)
phentsize, phnum = struct.unpack_from("<HH", elf, 54)
for i in range(phnum):
    p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz = struct.unpack_from("<IIQQQQQ", elf, phoff + i * phentsize)
    if p_type == 1 and p_flags & 1:
        break
seg_start, seg_len = p_vaddr & ~0xfff, ((p_vaddr + p_memsz + 0xfff) & ~0xfff) - (p_vaddr & ~0xfff)

PID = 4242
ST_IP, ST_TID, ST_TIME, ST_CALLCHAIN, ST_REGS_USER, ST_STACK_USER = 1, 2, 4, 32, 1 << 12, 1 << 13
sample_type = ST_IP | ST_TID | ST_TIME | ST_CALLCHAIN | ST_REGS_USER | ST_STACK_USER
# disabled, inherit, mmap, comm, exclude_callchain_user, mmap2, comm_exec
flags = 1 | 2 | (1 << 8) | (1 << 9) | (1 << 22) | (1 << 23) | (1 << 24)
attr = struct.pack("<IIQQQQQIIQQQQIiQIHHIIQ", 1, 128, 0, 1000000, sample_type, 0, flags, 0, 0, 0, 0, 0,
                   (1 << 33) - 1, len(data), 0, 0, 0, 0, 0, 0, 0, 0)
assert len(attr) == 128


def record(typ, misc, body):
    body += b"\0" * (-len(body) % 8)
    return struct.pack("<IHH", typ, misc, 8 + len(body)) + body


def cstr(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)


recs = record(3, 0, struct.pack("<II", PID, PID) + cstr("prog"))
recs += record(10, 2, struct.pack("<IIQQQIIQQII", PID, PID, seg_start, seg_len, 0, 0, 0, 0, 0, 5, 2) + cstr("/prog"))
t = 1000000000
sample = struct.pack("<QIIQQ", val["pc"], PID, PID, t, 0)
sample += struct.pack("<Q", 2) + b"".join(struct.pack("<Q", v) for v in regv)
sample += struct.pack("<Q", len(data)) + data + struct.pack("<Q", len(data))
recs += record(9, 2, sample)


def hstring(s):
    b = s.encode() + b"\0"
    b += b"\0" * (-len(b) % 64)
    return struct.pack("<I", len(b)) + b


HEADER = 104
attrs_off = HEADER
fattr = attr + struct.pack("<QQ", 0, 0)
data_off = attrs_off + len(fattr)
feats = [(3, hstring("arm64-host")), (4, hstring("6.1.0-arm64")), (6, hstring("aarch64"))]
feat_off = data_off + len(recs)
table = b""
body = b""
pos = feat_off + 16 * len(feats)
for bit, content in feats:
    table += struct.pack("<QQ", pos + len(body), len(content))
    body += content
bitmap = bytearray(32)
for bit, _ in feats:
    bitmap[bit // 8] |= 1 << (bit % 8)
head = b"PERFILE2" + struct.pack("<QQQQQQQQ", HEADER, len(fattr), attrs_off, len(fattr), data_off, len(recs), 0, 0) + bytes(bitmap)
assert len(head) == HEADER
open(os.path.join(out, "perf.data"), "wb").write(head + fattr + recs + table + body)
