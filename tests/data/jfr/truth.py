# The ground truth for jfr2spaa's tests, from the JDK's own reader: for
# every event type with stack traces in `jfr print --json FILE...`, per top
# frame (package.Class.method), per top frame with its line and frame type
# (=name:line[type]), per thread (@name) and in all, the number of events and the
# sum of what jfr2spaa weighs them by.  Lines: type, frame, count, sum.
import json, re, subprocess, sys
from collections import defaultdict

def dur_ns(s):
    # ISO-8601 durations as java.time.Duration prints them: PT1H2M3.000004S
    m = re.fullmatch(r"(-?)PT(?:(\d+)H)?(?:(\d+)M)?(?:(-?\d+)(?:\.(\d+))?S)?", s)
    if not m:
        raise SystemExit("a duration not understood: " + s)
    sec = int(m.group(4) or 0)
    frac = (m.group(5) or "").ljust(9, "0")
    ns = ((int(m.group(2) or 0) * 60 + int(m.group(3) or 0)) * 60 + sec) * 10**9 + int(frac)
    return -ns if m.group(1) else ns

# (several FILEs: their events together, each file read by jfr on its own)
events = []
for f in sys.argv[1:]:
    out = subprocess.run(["jfr", "print", "--json", f], check=True, capture_output=True).stdout
    events += json.loads(out)["recording"]["events"]
count = defaultdict(int)
total = defaultdict(int)
for e in events:
    v = e["values"]
    st = v.get("stackTrace")
    if st is None:
        continue
    t = e["type"]
    frames = st["frames"]
    if frames:
        m = frames[0]["method"]
        cls = (m["type"] or {}).get("name") or ""
        leaf = (cls.replace("/", ".") + "." if cls else "") + m["name"]
        line = frames[0]["lineNumber"]
        exact = "=%s:%s[%s]" % (leaf, line if line > 0 else "", frames[0]["type"])
    else:
        leaf = "[no frames]"
        exact = "=[no frames]:[jfr]"
    if t in ("jdk.ExecutionSample", "jdk.NativeMethodSample"):
        w = 1
    elif t == "jdk.ObjectAllocationSample":
        w = v["weight"]
    elif t == "jdk.ObjectAllocationInNewTLAB":
        w = v["tlabSize"]
    elif t == "jdk.ObjectAllocationOutsideTLAB":
        w = v["allocationSize"]
    elif "duration" in v:
        w = dur_ns(v["duration"])
    else:
        w = 1
    th = v.get("sampledThread") or v.get("eventThread")
    who = "@" + ((th.get("javaName") or th.get("osName")) if th else "")
    for key in ((t, leaf), (t, "*"), (t, who), (t, exact)):
        count[key] += 1
        total[key] += w
for (t, leaf) in sorted(count):
    print(f"{t}\t{leaf}\t{count[t, leaf]}\t{total[t, leaf]}")
