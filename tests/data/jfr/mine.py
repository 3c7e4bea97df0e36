# The same figures as truth.py, from jfr2spaa's profile (argv[1]): per
# event and leaf frame through spaa-fold, per thread and per leaf frame with
# its line and type from the records; the count and the weight.
import json, subprocess, sys
from collections import defaultdict

spaa = sys.argv[1]
header = json.loads(open(spaa).readline())
count = defaultdict(int)
total = defaultdict(int)
def fold(event, metric):
    out = subprocess.run(["spaa-fold", "--no-comm", "--event=" + event, "-m", metric, spaa],
                         check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        stack, n = line.rsplit(" ", 1)
        yield stack.split(";")[-1], int(n)
for ev in header["events"]:
    t, primary = ev["name"], ev["sampling"]["primary_metric"]
    for leaf, n in fold(t, primary):
        total[t, leaf] += n
        if not leaf.startswith("@"):
            total[t, "*"] += n
        if primary in ("samples", "count"):
            count[t, leaf] += n
            if not leaf.startswith("@"):
                count[t, "*"] += n
    if primary not in ("samples", "count"):
        for leaf, n in fold(t, "count"):
            count[t, leaf] += n
            if not leaf.startswith("@"):
                count[t, "*"] += n
# per thread ("@" and its name) from the stack records' contexts, and per
# top frame with its line and frame type (its dso) from the records
primary = {ev["name"]: ev["sampling"]["primary_metric"] for ev in header["events"]}
dsos, frames = {}, {}
for line in open(spaa):
    r = json.loads(line)
    if r["type"] == "dso":
        dsos[r["id"]] = r["name"]
    elif r["type"] == "frame":
        frames[r["id"]] = r
    elif r["type"] == "stack":
        t = r["context"]["event"]
        f = frames[r["frames"][0]]
        src = f.get("srcline", "")
        exact = "=%s:%s%s" % (f["func"], src.rsplit(":", 1)[1] if src else "", dsos[f["dso"]])
        w = {x["metric"]: x["value"] for x in r["weights"]}
        for key in ((t, "@" + r["context"].get("comm", "")), (t, exact)):
            total[key] += w[primary[t]]
            count[key] += w["count"] if "count" in w else w[primary[t]]
for (t, leaf) in sorted(count):
    print(f"{t}\t{leaf}\t{count[t, leaf]}\t{total[t, leaf]}")
