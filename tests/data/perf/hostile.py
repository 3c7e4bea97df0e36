#!/usr/bin/env python3
"""hostile.py - hostile variants of a real perf.data capture, for the tests
of tests/perf2spaa-data.bats: each claims a count or size its bytes do not
back, or repeats what a reader might hold or redo for each repetition.

  hostile.py feature IN BIT      the offset of feature BIT's section (file mode)
  hostile.py sample-field IN FIELD [all]
        the offset of FIELD (callchain, read, stack: the count or size that
        starts it) in the first sample record of file-mode IN (with all: in
        each, one a line)
  hostile.py branch IN OUT
        file-mode IN with its first attribute's samples read as having a
        branch stack where they have their callchain (sample_type's
        CALLCHAIN bit cleared, BRANCH_STACK set): its nr the entries'
  hostile.py pipe-record IN TYPE [FEATURE]
        the offset of the first record of TYPE (of HEADER_FEATURE: of
        FEATURE) of pipe-mode IN
  hostile.py ids-overlap IN OUT K
        a file-mode IN with K copies of its first attribute appended, each
        with the whole file as its ids section, the header's attribute
        section pointing at them
  hostile.py pipe-attrs IN OUT N
        a pipe-mode IN with N copies of its first HEADER_ATTR record after
        the pipe header
  hostile.py kernel-build-id IN
        the offset of the kernel's build id ([kernel.kallsyms]'s) in the
        build-id section of file-mode IN (a capture made elsewhere: its
        first byte changed)
  hostile.py pipe-buildids IN OUT N
        a pipe-mode IN followed by N times: a HEADER_BUILD_ID record (a
        file name of its own each), a copy of IN's first sample record and
        a FINISHED_ROUND (which delivers the sample before the next)
  hostile.py pipe-maps IN OUT N F [write|falling]
        a pipe-mode IN with N mappings of the first user-space MMAP2
        record's process after its first FINISHED_ROUND, at ascending
        addresses (falling: descending, as mmap places them, top down),
        then F FORK records of that process (a child with the tid 1000000
        each time, as a process whose pid was reused), with write each
        followed by a mapping of the child's own
"""
import struct
import sys

PIPE_HEADER = 16


def records(b, off, end):
    while off + 8 <= end:
        typ, misc, size = struct.unpack_from("<IHH", b, off)
        if size < 8:
            raise SystemExit("hostile.py: record of size %d at %d" % (size, off))
        yield off, typ, size
        off += size


def feature_section(b, bit):
    """(offset, size) of feature BIT's section of file-mode perf.data bytes b"""
    doff, dsize = struct.unpack_from("<QQ", b, 40)
    fo = doff + dsize
    for i in range(256):
        if b[72 + i // 8] >> (i % 8) & 1:
            if i == bit:
                return struct.unpack_from("<QQ", b, fo)
            fo += 16
    raise SystemExit("hostile.py: no feature %d" % bit)


def feature(path, bit):
    return feature_section(open(path, "rb").read(), bit)[0]


# sample_type bits, in the order of a sample's fields
ST = ["IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
      "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER"]
ORDER = ["IDENTIFIER", "IP", "TID", "TIME", "ADDR", "ID", "STREAM_ID", "CPU",
         "PERIOD", "READ", "CALLCHAIN", "RAW", "BRANCH_STACK", "REGS_USER",
         "STACK_USER"]
BIT = dict((n, 1 << i) for i, n in enumerate(ST))
BIT["IDENTIFIER"] = 1 << 16


def sample_field(path, field, every=False):
    b = open(path, "rb").read()
    aoff = struct.unpack_from("<Q", b, 24)[0]
    st, rf = struct.unpack_from("<QQ", b, aoff + 24)
    regs_user = struct.unpack_from("<Q", b, aoff + 80)[0]
    doff, dsize = struct.unpack_from("<QQ", b, 40)
    want = {"callchain": "CALLCHAIN", "read": "READ", "stack": "STACK_USER"}[field]
    if not st & BIT[want]:
        raise SystemExit("hostile.py: no %s in the samples of %s" % (field, path))
    found = []
    for off, typ, size in records(b, doff, doff + dsize):
        if typ != 9:
            continue
        o = off + 8
        for f in ORDER:
            if not st & BIT[f]:
                continue
            if f == want:
                found.append(o)
                break
            if f == "READ":
                n = struct.unpack_from("<Q", b, o)[0] if rf & 8 else 1
                o += 8 * (1 + bin(rf & 3).count("1"))
                o += 8 * n * ((1 if rf & 8 else 0) + bin(rf & 4).count("1") + bin(rf & 16).count("1"))
            elif f == "CALLCHAIN":
                o += 8 + 8 * struct.unpack_from("<Q", b, o)[0]
            elif f == "RAW":
                o += 4 + struct.unpack_from("<I", b, o)[0]
            elif f == "BRANCH_STACK":
                raise SystemExit("hostile.py: branch stacks are not walked")
            elif f == "REGS_USER":
                abi = struct.unpack_from("<Q", b, o)[0]
                o += 8 + (8 * bin(regs_user).count("1") if abi else 0)
            else:
                o += 8
        if found and not every:
            break
    if not found:
        raise SystemExit("hostile.py: no sample record in %s" % path)
    return "\n".join(str(o) for o in found)


def branch(src, dst):
    b = bytearray(open(src, "rb").read())
    aoff = struct.unpack_from("<Q", b, 24)[0]
    st = struct.unpack_from("<Q", b, aoff + 24)[0]
    if not st & BIT["CALLCHAIN"] or st & BIT["BRANCH_STACK"]:
        raise SystemExit("hostile.py: not a callchain capture")
    st ^= BIT["CALLCHAIN"] | BIT["BRANCH_STACK"]
    struct.pack_into("<Q", b, aoff + 24, st)
    open(dst, "wb").write(b)


def pipe_record(path, typ, feat):
    b = open(path, "rb").read()
    for o, t, s in pipe_records(b):
        if t == typ and (feat is None or struct.unpack_from("<Q", b, o + 8)[0] == feat):
            return o
    raise SystemExit("hostile.py: no record of type %d in %s" % (typ, path))


def ids_overlap(src, dst, k):
    b = bytearray(open(src, "rb").read())
    attr_size = struct.unpack_from("<Q", b, 16)[0]
    aoff = struct.unpack_from("<Q", b, 24)[0]
    first = bytearray(b[aoff:aoff + attr_size])
    struct.pack_into("<QQ", first, attr_size - 16, 0, len(b) + attr_size * k)
    new_off = len(b)
    b += first * k
    struct.pack_into("<QQ", b, 24, new_off, attr_size * k)
    open(dst, "wb").write(b)


def pipe_records(b):
    if b[:8] != b"PERFILE2" or struct.unpack_from("<Q", b, 8)[0] != PIPE_HEADER:
        raise SystemExit("hostile.py: not a pipe-mode perf.data")
    return records(b, PIPE_HEADER, len(b))


def pipe_attrs(src, dst, n):
    b = open(src, "rb").read()
    attr = next(b[o:o + s] for o, t, s in pipe_records(b) if t == 64)
    open(dst, "wb").write(b[:PIPE_HEADER] + attr * n + b[PIPE_HEADER:])


def pipe_buildids(src, dst, n):
    b = open(src, "rb").read()
    sample = next(b[o:o + s] for o, t, s in pipe_records(b) if t == 9)
    out = [b]
    for i in range(n):
        name = b"/hostile/%08d" % i
        name += b"\0" * (8 - len(name) % 8)
        body = struct.pack("<i", -1) + bytes(range(20)) + b"\0" * 4 + name
        out.append(struct.pack("<IHH", 67, 0, 8 + len(body)) + body)
        out.append(sample)
        out.append(struct.pack("<IHH", 68, 0, 8))
    open(dst, "wb").write(b"".join(out))


def pipe_maps(src, dst, n, f, write=False, falling=False):
    b = open(src, "rb").read()
    recs = list(pipe_records(b))
    attr = next(o for o, t, s in recs if t == 64)
    st = struct.unpack_from("<Q", b, attr + 8 + 24)[0]
    flags = struct.unpack_from("<Q", b, attr + 8 + 40)[0]
    tsz = 0
    if flags >> 18 & 1:
        tsz = 8 * sum(1 for bit in ("TID", "TIME", "ID", "STREAM_ID", "CPU", "IDENTIFIER") if st & BIT[bit])
    mo, ms = next((o, s) for o, t, s in recs if t == 10 and struct.unpack_from("<H", b, o + 4)[0] & 7 == 2)
    mmap = bytearray(b[mo:mo + ms])
    pid = struct.unpack_from("<I", mmap, 8)[0]
    trailer = bytes(mmap[ms - tsz:]) if tsz else b""
    cut = next(o + s for o, t, s in recs if t == 68)
    out = [b[:cut]]
    for i in range(n):
        struct.pack_into("<QQ", mmap, 16, 0x100000000 + (n - 1 - i if falling else i) * 0x2000, 0x1000)
        out.append(bytes(mmap))
    out.append(struct.pack("<IHH", 68, 0, 8))
    body = struct.pack("<IIIIQ", 1000000, pid, 1000000, pid, 0) + trailer
    fork = struct.pack("<IHH", 7, 0, 8 + len(body)) + body
    if write:
        child = bytearray(mmap)
        struct.pack_into("<IIQQ", child, 8, 1000000, 1000000, 0x10000, 0x1000)
        fork += bytes(child)
    out.append(fork * f)
    out.append(b[cut:])
    open(dst, "wb").write(b"".join(out))


def kernel_build_id(path):
    b = open(path, "rb").read()
    off, size = feature_section(b, 2)
    for o, typ, sz in records(b, off, off + size):
        if b[o + 36:o + 36 + 17] == b"[kernel.kallsyms]":
            return o + 12
    raise SystemExit("hostile.py: no kernel build id in " + path)


def main(argv):
    if len(argv) == 4 and argv[1] == "feature":
        print(feature(argv[2], int(argv[3])))
    elif len(argv) in (4, 5) and argv[1] == "sample-field":
        print(sample_field(argv[2], argv[3], len(argv) == 5 and argv[4] == "all"))
    elif len(argv) == 4 and argv[1] == "branch":
        branch(argv[2], argv[3])
    elif len(argv) in (4, 5) and argv[1] == "pipe-record":
        print(pipe_record(argv[2], int(argv[3]), int(argv[4]) if len(argv) == 5 else None))
    elif len(argv) == 5 and argv[1] == "ids-overlap":
        ids_overlap(argv[2], argv[3], int(argv[4]))
    elif len(argv) == 5 and argv[1] == "pipe-attrs":
        pipe_attrs(argv[2], argv[3], int(argv[4]))
    elif len(argv) in (6, 7) and argv[1] == "pipe-maps":
        opt = argv[6] if len(argv) == 7 else ""
        if opt not in ("", "write", "falling"):
            raise SystemExit("hostile.py: pipe-maps: write or falling, not " + opt)
        pipe_maps(argv[2], argv[3], int(argv[4]), int(argv[5]), opt == "write", opt == "falling")
    elif len(argv) == 3 and argv[1] == "kernel-build-id":
        print(kernel_build_id(argv[2]))
    elif len(argv) == 5 and argv[1] == "pipe-buildids":
        pipe_buildids(argv[2], argv[3], int(argv[4]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
