# The same figures as truth.py, from jfr2spaa's profile (argv[1]), through
# spaa-fold: per event, per leaf frame, the count and the weight.
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
        total[t, "*"] += n
        if primary in ("samples", "count"):
            count[t, leaf] += n
            count[t, "*"] += n
    if primary not in ("samples", "count"):
        for leaf, n in fold(t, "count"):
            count[t, leaf] += n
            count[t, "*"] += n
for (t, leaf) in sorted(count):
    print(f"{t}\t{leaf}\t{count[t, leaf]}\t{total[t, leaf]}")
