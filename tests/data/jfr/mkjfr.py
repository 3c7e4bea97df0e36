# Writes a small JFR recording by hand (one chunk: a metadata event, a
# checkpoint with the constant pools, a few events), for jfr2spaa's tests
# of what the JDK does not write and of damaged files.
#   python3 mkjfr.py VARIANT > FILE
# VARIANT: ok (every string encoding, a truncated stack, a native frame),
# raw (integers not compressed), and the damaged ones below.
import struct, sys

v = sys.argv[1]
compressed = v != "raw"

def uvar(x):
    x &= (1 << 64) - 1
    out = bytearray()
    for _ in range(8):
        if x < 0x80:
            out.append(x)
            return bytes(out)
        out.append((x & 0x7f) | 0x80)
        x >>= 7
    out.append(x & 0xff)
    return bytes(out)

def i32(x): return uvar(x) if compressed else struct.pack(">i", x)
def i64(x): return uvar(x) if compressed else struct.pack(">Q", x & ((1 << 64) - 1))
def u16(x): return uvar(x) if compressed else struct.pack(">H", x)

def s_utf8(s):
    b = s.encode()
    return b"\x03" + i32(len(b)) + b
def s_latin1(s):
    b = s.encode("latin-1")
    return b"\x05" + i32(len(b)) + b
def s_chars(s):
    return b"\x04" + i32(len(s)) + b"".join(u16(ord(c)) for c in s)
def s_ref(k): return b"\x02" + i64(k)

# classes: id, name, fields (name, class id, constant pool, array)
LONG, INT, BOOL, STRING = 20, 21, 22, 23
THREAD, CLASS, METHOD, SYMBOL, FRAME, FTYPE, STACK = 30, 31, 32, 33, 34, 35, 36
EXEC, PARK, SELF = 100, 101, 40
classes = [
    (LONG, "long", []), (INT, "int", []), (BOOL, "boolean", []), (STRING, "java.lang.String", []),
    (THREAD, "java.lang.Thread", [("osName", STRING, 0, 0), ("osThreadId", LONG, 0, 0),
                                  ("javaName", STRING, 0, 0), ("javaThreadId", LONG, 0, 0)]),
    (CLASS, "java.lang.Class", [("name", SYMBOL, 1, 0)]),
    (METHOD, "jdk.types.Method", [("type", CLASS, 1, 0), ("name", SYMBOL, 1, 0)]),
    (SYMBOL, "jdk.types.Symbol", [("string", STRING, 0, 0)]),
    (FRAME, "jdk.types.StackFrame", [("method", METHOD, 1, 0), ("lineNumber", INT, 0, 0), ("type", FTYPE, 1, 0)]),
    (FTYPE, "jdk.types.FrameType", [("description", STRING, 0, 0)]),
    (STACK, "jdk.types.StackTrace", [("truncated", BOOL, 0, 0), ("frames", FRAME, 0, 1)]),
    (EXEC, "jdk.ExecutionSample", [("startTime", LONG, 0, 0), ("sampledThread", THREAD, 1, 0),
                                   ("stackTrace", STACK, 1, 0)]),
    (PARK, "jdk.ThreadPark", [("startTime", LONG, 0, 0), ("duration", LONG, 0, 0),
                              ("eventThread", THREAD, 1, 0), ("stackTrace", STACK, 1, 0)]),
    (SELF, "x.Self", [("self", SELF, 0, 0)]),
    (102, "profiler.WallClockSample", [("startTime", LONG, 0, 0), ("sampledThread", THREAD, 1, 0),
                                       ("stackTrace", STACK, 1, 0), ("samples", INT, 0, 0)]),
]
if v == "wide":
    # 30 classes of no bytes, each holding two of the next
    for k in range(30):
        classes.append((200 + k, "x.W%d" % k, [("a", 201 + k, 0, 0), ("b", 201 + k, 0, 0)] if k < 29 else []))

strings = []
def sidx(s):
    if s not in strings:
        strings.append(s)
    return strings.index(s)

def element(name, attrs, children):
    out = i32(sidx(name)) + i32(len(attrs))
    for k, val in attrs:
        out += i32(sidx(k)) + i32(sidx(val))
    return out + i32(len(children)) + b"".join(children)

def event(body):
    # the size counts itself: find the length that holds
    for n in range(1, 10):
        size = n + len(body)
        head = i32(size)
        if len(head) == n:
            return head + body

def metadata():
    cls = []
    for cid, name, fields in classes:
        fe = []
        for fname, fcls, cp, arr in fields:
            a = [("name", fname), ("class", str(fcls))]
            if cp: a.append(("constantPool", "true"))
            if arr: a.append(("dimension", "1"))
            fe.append(element("field", a, []))
        cls.append(element("class", [("name", name), ("id", str(cid))], fe))
    tree = element("root", [], [element("metadata", [], cls), element("region", [("locale", "en_US")], [])])
    table = i32(len(strings)) + b"".join(s_utf8(s) for s in strings)
    return event(i64(0) + i64(0) + i64(0) + i64(1) + table + tree)

def pools(delta, kind=0):
    def pool(cid, entries):
        return i64(cid) + i32(len(entries)) + b"".join(i64(k) + val for k, val in entries)
    ps = [
        pool(STRING, [(1, s_utf8("Interpreted")), (2, s_latin1("Native"))]),
        pool(THREAD, [(1, s_utf8("os-main") + i64(4242) + s_utf8("main \u00e9t\u00e9") + i64(1)),
                      (2, b"\x00" + i64(0) + s_chars("w\u00f6rker") + i64(7))]),
        pool(SYMBOL, [(1, s_chars("org/ex/App$Inner")), (2, s_latin1("r\u00e9sum\u00e9")),
                      (3, (b"\x03" + i32(9) + b"r\xffu\x00n\xef\xbf\xbe;") if v == "badutf8" else s_utf8("run")), (4, b"\x01"), (5, s_utf8("read0"))]),
        pool(CLASS, [(1, i64(1))]),
        pool(METHOD, [(1, i64(1) + i64(2)), (2, i64(1) + i64(3)), (3, i64(0) + i64(5))]),
        pool(FTYPE, [(1, s_ref(1)), (2, s_ref(2)), (3, s_utf8("Inlined"))]),
        pool(STACK, [(1, b"\x00" + i32(2) + i64(1) + i32(12) + i64(3) + i64(2) + i32(30) + i64(1)),
                     (2, b"\x01" + i32(2) + i64(3) + i32(-1) + i64(2) + i64(1) + i32(12) + i64(1))]),
    ]
    if v == "deep":
        # a class that holds itself, in a pool
        ps.append(pool(SELF, [(1, b"\x01" * 100)]))
    if v == "wide":
        ps.append(pool(200, [(1, b"")]))
    if v == "hugecount":
        ps[0] = i64(STRING) + i32(0x7fffffff) + i64(1) + s_utf8("x")
    return event(i64(1) + i64(0) + i64(0) + i64(delta) + bytes([kind]) + i32(len(ps)) + b"".join(ps))

events = [
    event(i64(EXEC) + i64(10) + i64(1) + i64(1)),
    event(i64(EXEC) + i64(11) + i64(1) + i64(1)),
    event(i64(EXEC) + i64(12) + i64(2) + i64(2)),
    event(i64(PARK) + i64(13) + i64(1500) + i64(2) + i64(1)),
    event(i64(PARK) + i64(14) + i64(2500) + i64(1) + i64(2)),
    event(i64(102) + i64(15) + i64(1) + i64(1) + i32(5)),
]
if v == "zerosize":
    events.insert(1, b"\x00")
if v == "badclass":
    events.append(event(i64(77) + i64(0)))
if v == "nostack":
    events.append(event(i64(EXEC) + i64(15) + i64(1) + i64(9)))
if v == "negative":
    events.append(event(i64(PARK) + i64(15) + i64(-1) + i64(1) + i64(1)))
if v == "overflow":
    events += [event(i64(PARK) + i64(15) + i64((1 << 63) - 1) + i64(1) + i64(1))] * 3
body = b"".join(events)
start = 68 + len(body)
cp1 = pools(0)
cp_off = start
if v == "loop":
    # two checkpoints, the second chained back to the first, the first on
    # to the second
    d = len(cp1) + 0
    first = pools(0)
    for pad in range(20):
        first = pools(len(first) + pad)
        if len(first) == len(cp1) + 0 or True:
            break
    second = pools(-len(first))
    cp1 = first + second
    cp_off = start + len(first)
if v == "minloop":
    # a delta of -2^63
    cp1 = pools(-(1 << 63))
meta = metadata()
meta_off = start + len(cp1)
size = meta_off + len(meta)
if v == "cpoff":
    cp_off = size + 10
header = b"FLR\x00" + struct.pack(">HHqqqqqqqI", 2, 1, size, cp_off, meta_off, 0, 0, 0,
                                    1000000000, 1 if compressed else 0)
sys.stdout.buffer.write(header + body + cp1 + meta)
