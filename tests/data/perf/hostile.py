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
  hostile.py samples IN OUT N [R] [late]
        IN (pipe or file mode) without its FINISHED_ROUND records, and its
        sample records replaced by N samples in all: copies of each, their
        times spread between its time and the next sample's (so that time
        order is the order of IN's samples; copies share a time where there
        are more of them than nanoseconds); with R > 0 a FINISHED_ROUND
        after every R samples; with late, the first sample moved to the end
        of the data (the earliest time there last).  OUT - is standard output
  hostile.py pipe-threads IN OUT N
        pipe-mode IN followed by N threads of its first sample's process,
        each a COMM record (the tid 1000000 + i, the name t + i) and a
        copy of that sample of its own, at times after IN's
  hostile.py pipe-compress IN OUT
        pipe-mode IN (- standard input) with its kernel's records (types
        below 64) zstd-compressed (the zstd command) into COMPRESSED
        records, as perf record -z writes them, after its own records
  hostile.py dup-first IN OUT P
        IN (pipe or file mode) with its first sample record twice, both of
        period P (a stack's period summing past 2^64 - 1); the offset of
        the second printed
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


def capture(b):
    """(pipe, start, end, sample_type of the first attribute) of perf.data bytes b"""
    if struct.unpack_from("<Q", b, 8)[0] == PIPE_HEADER:
        attr = next(o for o, t, s in pipe_records(b) if t == 64)
        return True, PIPE_HEADER, len(b), struct.unpack_from("<Q", b, attr + 8 + 24)[0]
    aoff = struct.unpack_from("<Q", b, 24)[0]
    doff, dsize = struct.unpack_from("<QQ", b, 40)
    return False, doff, doff + dsize, struct.unpack_from("<Q", b, aoff + 24)[0]


def attr_flags(b, pipe):
    """the flags word of the first attribute of perf.data bytes b"""
    if pipe:
        attr = next(o for o, t, s in pipe_records(b) if t == 64)
        return struct.unpack_from("<Q", b, attr + 8 + 40)[0]
    return struct.unpack_from("<Q", b, struct.unpack_from("<Q", b, 24)[0] + 40)[0]


def write_capture(b, dst, chunks, size):
    """b with its data (records from capture()'s start to end) replaced by
    chunks, of size bytes in all, written to dst (- standard output): in
    file mode the header's data size and the feature sections after the
    data moved with it"""
    pipe, start, end, st = capture(b)
    out = sys.stdout.buffer if dst == "-" else open(dst, "wb")
    head = bytearray(b[:start])
    tail = bytearray(b[end:])
    if not pipe:
        delta = size - (end - start)
        struct.pack_into("<Q", head, 48, size)
        bits = sum(bin(x).count("1") for x in b[72:104])
        for i in range(bits):
            off, sz = struct.unpack_from("<QQ", tail, 16 * i)
            struct.pack_into("<QQ", tail, 16 * i, off + delta, sz)
    out.write(head)
    for c in chunks:
        out.write(c)
    out.write(tail)
    out.flush()


def time_offset(st):
    if not st & BIT["TIME"]:
        raise SystemExit("hostile.py: samples without times")
    return 8 + 8 * sum(1 for f in ("IDENTIFIER", "IP", "TID") if st & BIT[f])


def samples(src, dst, n, r, late):
    b = open(src, "rb").read()
    pipe, start, end, st = capture(b)
    to = time_offset(st)
    recs = [(o, t, s) for o, t, s in records(b, start, end) if t != 68]
    smp = [o for o, t, s in recs if t == 9]
    k = len(smp)
    if not k:
        raise SystemExit("hostile.py: no sample record in " + src)
    if n < k:
        raise SystemExit("hostile.py: %d samples in %s, more than %d wanted" % (k, src, n))
    # the times of all the records that have one (the others': in the
    # sample_id_all trailer), for the room before the next of them
    flags = attr_flags(b, pipe)
    tsz = 8 * sum(1 for f in ("TID", "TIME", "ID", "STREAM_ID", "CPU", "IDENTIFIER") if st & BIT[f])
    times = set()
    for o, t, s in recs:
        if t == 9:
            times.add(struct.unpack_from("<Q", b, o + to)[0])
        elif t < 64 and flags >> 18 & 1 and s >= 8 + tsz:
            times.add(struct.unpack_from("<Q", b, o + s - tsz + (8 if st & BIT["TID"] else 0))[0])
    times = sorted(times)
    nxt = dict((t, times[i + 1] if i + 1 < len(times) else t + 10 ** 9) for i, t in enumerate(times))
    plan = []  # (offset, type, size, copies, room: the time to the next record)
    size = 0
    si = 0
    for o, t, s in recs:
        c = step = 0
        if t == 9:
            c = n // k + (1 if si < n % k else 0)
            si += 1
            ts = struct.unpack_from("<Q", b, o + to)[0]
            # (spread over the room, in time order; copies share a time
            # where the room has fewer nanoseconds than copies)
            step = nxt[ts] - ts
            size += c * s
        else:
            size += s
        plan.append((o, t, s, c, step))
    if r:
        size += 8 * (n // r)
    finished = struct.pack("<IHH", 68, 0, 8)

    def chunks():
        done = 0
        held = b""
        for o, t, s, c, step in plan:
            if t != 9:
                yield b[o:o + s]
                continue
            ts = struct.unpack_from("<Q", b, o + to)[0]
            i = 0
            while i < c:
                m = c - i
                if r:
                    m = min(m, r - done % r)
                buf = bytearray(b[o:o + s] * m)
                for x in range(m):
                    struct.pack_into("<Q", buf, x * s + to, ts + (i + x) * step // c)
                if late and not held and done == 0:
                    held = bytes(buf[:s])
                    buf = buf[s:]
                yield bytes(buf)
                i += m
                done += m
                if r and done % r == 0:
                    yield finished
        yield held

    write_capture(b, dst, chunks(), size)


def pipe_threads(src, dst, n):
    b = open(src, "rb").read()
    pipe, start, end, st = capture(b)
    if not pipe or not attr_flags(b, pipe) >> 18 & 1:
        raise SystemExit("hostile.py: pipe-threads: a pipe-mode capture with sample_id_all")
    to = time_offset(st)
    tido = 8 + 8 * sum(1 for f in ("IDENTIFIER", "IP") if st & BIT[f])
    tsz = 8 * sum(1 for f in ("TID", "TIME", "ID", "STREAM_ID", "CPU", "IDENTIFIER") if st & BIT[f])
    recs = list(pipe_records(b))
    so, ss = next((o, s) for o, t, s in recs if t == 9)
    sample = bytearray(b[so:so + ss])
    pid = struct.unpack_from("<I", sample, tido)[0]
    co, cs = next((o, s) for o, t, s in recs if t == 3)
    trailer = bytearray(b[co + cs - tsz:co + cs])
    last = max(struct.unpack_from("<Q", b, o + to)[0] for o, t, s in recs if t == 9)
    out = [b]
    for i in range(n):
        tid = 1000000 + i
        t = last + 1000 + 2 * i
        name = b"t%d" % i
        name += b"\0" * (8 - len(name) % 8)
        if st & BIT["TID"]:
            struct.pack_into("<II", trailer, 0, pid, tid)
        struct.pack_into("<Q", trailer, 8 if st & BIT["TID"] else 0, t)
        body = struct.pack("<II", pid, tid) + name + trailer
        out.append(struct.pack("<IHH", 3, 0, 8 + len(body)) + body)
        struct.pack_into("<II", sample, tido, pid, tid)
        struct.pack_into("<Q", sample, to, t + 1)
        out.append(bytes(sample))
        if i % 1000 == 999:
            out.append(struct.pack("<IHH", 68, 0, 8))
    (sys.stdout.buffer if dst == "-" else open(dst, "wb")).write(b"".join(out))


def pipe_compress(src, dst):
    import subprocess
    b = sys.stdin.buffer.read() if src == "-" else open(src, "rb").read()
    own, kernel = [], []
    for o, t, s in pipe_records(b):
        (own if t >= 64 else kernel).append(b[o:o + s])
    z = subprocess.run(["zstd", "-q", "-c", "-3"], input=b"".join(kernel), stdout=subprocess.PIPE, check=True).stdout
    out = [b[:PIPE_HEADER]] + own
    step = 65528 - 16  # a record's size is 16 bits, a multiple of 8
    for i in range(0, len(z), step):
        part = z[i:i + step]
        pad = (8 - len(part) % 8) % 8
        # COMPRESSED2: its data size, then the data padded to 8 bytes
        out.append(struct.pack("<IHHQ", 83, 0, 16 + len(part) + pad, len(part)) + part + b"\0" * pad)
    (sys.stdout.buffer if dst == "-" else open(dst, "wb")).write(b"".join(out))


def dup_first(src, dst, period):
    b = open(src, "rb").read()
    pipe, start, end, st = capture(b)
    if not st & BIT["PERIOD"]:
        raise SystemExit("hostile.py: samples without periods")
    po = 8 + 8 * sum(1 for f in ORDER[:ORDER.index("PERIOD")] if st & BIT[f])
    out = []
    second = None
    for o, t, s in records(b, start, end):
        rec = bytearray(b[o:o + s])
        if t == 9 and second is None:
            struct.pack_into("<Q", rec, po, period)
            second = o + s
            out.append(bytes(rec))
        out.append(bytes(rec))
    if second is None:
        raise SystemExit("hostile.py: no sample record in " + src)
    write_capture(b, dst, out, sum(len(x) for x in out))
    return second


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
    elif len(argv) in (5, 6, 7) and argv[1] == "samples":
        rest = argv[5:]
        late = "late" in rest
        rest = [a for a in rest if a != "late"]
        samples(argv[2], argv[3], int(argv[4]), int(rest[0]) if rest else 0, late)
    elif len(argv) == 5 and argv[1] == "pipe-threads":
        pipe_threads(argv[2], argv[3], int(argv[4]))
    elif len(argv) == 4 and argv[1] == "pipe-compress":
        pipe_compress(argv[2], argv[3])
    elif len(argv) == 5 and argv[1] == "dup-first":
        print(dup_first(argv[2], argv[3], int(argv[4])))
    elif len(argv) == 5 and argv[1] == "pipe-buildids":
        pipe_buildids(argv[2], argv[3], int(argv[4]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
