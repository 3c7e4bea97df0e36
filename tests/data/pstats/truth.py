# truth.py FILE: pstats' own figures of cProfile statistics, one function a
# line: "name<TAB>tottime_ns<TAB>cumtime_ns<TAB>calls<TAB>recursive" (name as
# pstats prints it; recursive: 1 when the function is in a cycle of calls),
# sorted by name.
import pstats
import sys

st = pstats.Stats(sys.argv[1]).stats
callees = {f: set() for f in st}
for f, (cc, nc, tt, ct, callers) in st.items():
    for c in callers:
        callees.setdefault(c, set()).add(f)


def reaches(src, dst):
    seen, todo = set(), [src]
    while todo:
        x = todo.pop()
        for y in callees.get(x, ()):
            if y == dst:
                return True
            if y not in seen:
                seen.add(y)
                todo.append(y)
    return False


rows = []
for f, (cc, nc, tt, ct, callers) in st.items():
    rows.append((pstats.func_std_string(f), round(tt * 1e9), round(ct * 1e9), nc, int(reaches(f, f))))
for r in sorted(rows):
    print("\t".join(str(x) for x in r))
