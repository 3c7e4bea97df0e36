#!/bin/sh
# bench/speedscope.sh CMD_DIR - spaa2speedscope and speedscope2spaa on the
# real capture (bench/data/build.perf.txt.zst: a system-wide perf capture of a
# build) and on a large generated profile (bench/gen-spaa.c: 1,000,000
# samples of 150,000 stacks, as bench/flamegraph.sh makes it), next to
# spaa-fold and `wc -w` (C.UTF-8) on the same files.
# speedscope has no command-line importer to compare with (it imports in the
# browser).  Called by `make bench`.
#
# Each command runs BENCH_RUNS times (default 5) with its output thrown away;
# printed are the median CPU time (user + sys) with the spread (min..max),
# MB/s of input per CPU second, and the peak RSS of the last run.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"

spaa=$OUT/build.spaa
[ -s "$spaa" ] || "$CMD/perf2spaa" -s "$HERE/data/build.perf.txt.zst" -o "$spaa"
"$CMD/spaa2speedscope" "$spaa" -o "$OUT/build.speedscope.json"
"$CMD/spaa2speedscope" -s "$spaa" -o "$OUT/build-time.speedscope.json"

LIB=$CMD/../common/libspaa.a
if [ ! -x "$OUT/gen-spaa" ] || [ "$HERE/gen-spaa.c" -nt "$OUT/gen-spaa" ] || [ "$LIB" -nt "$OUT/gen-spaa" ]; then
	ZLIBS=$(pkg-config --libs libzstd 2>/dev/null || echo -lzstd)
	${CC:-cc} -O2 $INC -o "$OUT/gen-spaa" "$HERE/gen-spaa.c" "$LIB" $ZLIBS -lz -lm
fi
big=$OUT/bench-1000k.spaa
[ -s "$big" ] || { "$OUT/gen-spaa" 1000000 > "$big.tmp" && mv "$big.tmp" "$big"; }
"$CMD/spaa2speedscope" "$big" -o "$OUT/big.speedscope.json"
"$CMD/spaa2speedscope" -s "$big" -o "$OUT/big-time.speedscope.json"

echo "speedscope (median of $RUNS, CPU seconds)"
bench_row "spaa-fold (SPAA)" "$spaa" "$CMD/spaa-fold" "$spaa"
bench_row "spaa2speedscope (SPAA)" "$spaa" "$CMD/spaa2speedscope" "$spaa"
bench_row "spaa2speedscope -s (SPAA)" "$spaa" "$CMD/spaa2speedscope" -s "$spaa"
bench_row "speedscope2spaa (stacks)" "$OUT/build.speedscope.json" "$CMD/speedscope2spaa" "$OUT/build.speedscope.json"
bench_row "speedscope2spaa (time order)" "$OUT/build-time.speedscope.json" "$CMD/speedscope2spaa" "$OUT/build-time.speedscope.json"
bench_row "wc -w (time order)" "$OUT/build-time.speedscope.json" env LC_ALL=C.UTF-8 wc -w "$OUT/build-time.speedscope.json"
bench_row "spaa-fold (generated SPAA)" "$big" "$CMD/spaa-fold" "$big"
bench_row "spaa2speedscope (generated)" "$big" "$CMD/spaa2speedscope" "$big"
bench_row "spaa2speedscope -s (generated)" "$big" "$CMD/spaa2speedscope" -s "$big"
bench_row "speedscope2spaa (generated, stacks)" "$OUT/big.speedscope.json" "$CMD/speedscope2spaa" "$OUT/big.speedscope.json"
bench_row "speedscope2spaa (generated, time order)" "$OUT/big-time.speedscope.json" "$CMD/speedscope2spaa" "$OUT/big-time.speedscope.json"
bench_row "wc -w (generated, time order)" "$OUT/big-time.speedscope.json" env LC_ALL=C.UTF-8 wc -w "$OUT/big-time.speedscope.json"
