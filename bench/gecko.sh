#!/bin/sh
# bench/gecko.sh CMD_DIR - gecko2spaa on Firefox Profiler profiles: the real
# Firefox 59 profile of speedscope's samples (tests/data/gecko, 2.4 MB, one
# thread of 10,161 samples, Gecko format), firefox-esr 153's (6.9 MB, four
# processes, 7,960 samples, Gecko format 34), and a large generated processed
# profile (8 threads of 250,000 samples, 2,000,000 in all, over 20,000
# stacks of a tree of 5,000 functions in 40 libraries, with sample weights),
# plain and gzipped as samply writes it; next to `wc -w` (C.UTF-8) and
# `gzip -dc` on the same files.  There is no original command-line converter
# to compare with: the Firefox Profiler imports in the browser, and neither
# it nor samply is in Debian.  Called by `make bench`.
#
# Each command runs BENCH_RUNS times (default 5) with its output thrown away;
# printed are the median CPU time (user + sys) with the spread (min..max),
# MB/s of input per CPU second, and the peak RSS of the last run.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"

ff=$OUT/firefox-59.json
[ -s "$ff" ] || gzip -dc "$HERE/../tests/data/gecko/speedscope-59-firefox.json.gz" > "$ff"
ff153=$OUT/firefox-esr-153.json
[ -s "$ff153" ] || zstd -dc "$HERE/../tests/data/gecko/firefox-esr-153.json.zst" > "$ff153"
big=$OUT/gecko-processed-2000k.json
[ -s "$big" ] || python3 - "$big" <<'PY'
import json, random, sys
random.seed(7)
nfunc, nlib, nstack, nthread, per = 5000, 40, 20000, 8, 250000
strings = ['f%d' % i for i in range(nfunc)] + ['lib%d.so' % i for i in range(nlib)] + ['src/m%d.c' % i for i in range(100)]
libs = [{'name': 'lib%d.so' % i, 'debugName': 'lib%d.so' % i, 'path': '/usr/lib/lib%d.so' % i,
         'start': 0, 'end': 0, 'codeId': '%040x' % (i * 7919 + 1)} for i in range(nlib)]
prefix, frame = [None], [0]
for s in range(1, nstack):
    prefix.append(random.randrange(s))
    frame.append(random.randrange(nfunc))
func = list(range(nfunc))
threads = []
for t in range(nthread):
    stack = [random.randrange(nstack) for _ in range(per)]
    threads.append({'name': 'Thread %d' % t, 'pid': '4242', 'tid': 4243 + t,
        'stringArray': strings,
        'stackTable': {'length': nstack, 'prefix': prefix, 'frame': frame},
        'frameTable': {'length': nfunc, 'func': func, 'address': [i * 16 for i in range(nfunc)],
                       'line': [None] * nfunc, 'column': [None] * nfunc, 'inlineDepth': [0] * nfunc},
        'funcTable': {'length': nfunc, 'name': func, 'resource': [i % nlib for i in range(nfunc)],
                      'fileName': [nfunc + nlib + i % 100 for i in range(nfunc)], 'lineNumber': [i % 900 + 1 for i in range(nfunc)]},
        'resourceTable': {'length': nlib, 'lib': list(range(nlib)), 'name': [nfunc + i for i in range(nlib)]},
        'samples': {'length': per, 'stack': stack, 'time': [i * 1.0 for i in range(per)],
                    'weight': [random.randrange(1, 4) for _ in range(per)], 'weightType': 'samples'}})
json.dump({'meta': {'preprocessedProfileVersion': 49, 'startTime': 0, 'interval': 1}, 'libs': libs, 'threads': threads},
          open(sys.argv[1], 'w'), separators=(',', ':'))
PY
[ -s "$big.gz" ] || gzip -1 < "$big" > "$big.gz"

echo "gecko2spaa (median of $RUNS, CPU seconds)"
bench_row "gecko2spaa (Firefox 59, Gecko)" "$ff" "$CMD/gecko2spaa" "$ff"
bench_row "gecko2spaa -s (Firefox 59)" "$ff" "$CMD/gecko2spaa" -s "$ff"
bench_row "wc -w (Firefox 59)" "$ff" env LC_ALL=C.UTF-8 wc -w "$ff"
bench_row "gecko2spaa (Firefox ESR 153)" "$ff153" "$CMD/gecko2spaa" "$ff153"
bench_row "wc -w (Firefox ESR 153)" "$ff153" env LC_ALL=C.UTF-8 wc -w "$ff153"
bench_row "gecko2spaa (generated, processed)" "$big" "$CMD/gecko2spaa" "$big"
bench_row "gecko2spaa -s (generated)" "$big" "$CMD/gecko2spaa" -s "$big"
bench_row "gecko2spaa (generated, .json.gz)" "$big" "$CMD/gecko2spaa" "$big.gz"
bench_row "gzip -dc (generated, .json.gz)" "$big" gzip -dc "$big.gz"
bench_row "wc -w (generated)" "$big" env LC_ALL=C.UTF-8 wc -w "$big"
