#!/bin/sh
# bench/perftext.sh CMD_DIR - the text path of issue 18: `perf2spaa FILE |
# spaa-fold` at -j 1, 2 and the machine's cores (and spaa-fold's own -j,
# alone and behind perf2spaa -j 2), side by side with
# inferno-collapse-perf FILE at --nthreads 1, 2 and its default (when it is
# on PATH).  Goal: the pipeline at its default -j at most 1.0x inferno at its
# default, in wall time.
#
# The capture: with BENCH_PERFTEXT=FILE, that `perf script` text (plain,
# gzip or zstd; inferno gets it decompressed).  Else bench/data's
# build.perf.txt.zst, a system-wide capture of a build.
#
# Each command runs BENCH_RUNS times (default 5), output thrown away; the
# medians of wall time and of CPU time (user + sys, all threads and both
# ends of the pipe) are printed with their spread (min..max).  The machine
# may be shared: CPU time is the steadier figure, and CPU at -j 1 over wall
# at -j N says how far N cores carry it.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"

data=${BENCH_PERFTEXT:-$HERE/data/build.perf.txt.zst}
text=$data
case $data in
*.zst) text=$OUT/perftext.txt; zstd -dqfc "$data" > "$text" ;;
*.gz) text=$OUT/perftext.txt; gzip -dc "$data" > "$text" ;;
esac
cores=$(nproc 2>/dev/null || echo 1)
echo "perftext: $data, $(wc -c < "$text") bytes, $(grep -c '^$' "$text") blank lines; $cores cores; $RUNS runs"

# row NAME SHELL_COMMAND: wall and CPU medians (min..max); the wall median
# is left in $OUT/wall.txt
row() {
	_i=0
	while [ $_i -lt "$RUNS" ]; do
		_i=$((_i + 1))
		/usr/bin/time -f '%e %U %S' -o "$OUT/t.txt" sh -c "$2" > /dev/null 2> "$OUT/err.txt" ||
			{ echo "FAILED: $2" >&2; cat "$OUT/err.txt" >&2; return 1; }
		tail -1 "$OUT/t.txt"
	done > "$OUT/runs.txt"
	set -- "$1" $(awk '{ print $1 }' "$OUT/runs.txt" | spread) $(awk '{ print $2 + $3 }' "$OUT/runs.txt" | spread)
	printf '%-40s wall %6.2f s (%.2f..%.2f)   CPU %6.2f s (%.2f..%.2f)\n' "$@"
	echo "$2" > "$OUT/wall.txt"
}

jobs="1 2"
[ "$cores" -gt 2 ] && jobs="$jobs $cores"
for j in $jobs; do
	row "perf2spaa -j $j | spaa-fold" "'$CMD/perf2spaa' -j $j '$text' | '$CMD/spaa-fold'"
done
row "perf2spaa | spaa-fold (default -j)" "'$CMD/perf2spaa' '$text' | '$CMD/spaa-fold'"
ours=$(cat "$OUT/wall.txt")
# spaa-fold's own -j (one thread reads, another folds), alone on the
# capture's SPAA and behind perf2spaa -j 2
"$CMD/perf2spaa" -j 2 "$text" > "$OUT/perftext.spaa" 2> /dev/null
for j in $jobs; do
	row "spaa-fold -j $j (the capture's SPAA)" "'$CMD/spaa-fold' -j $j '$OUT/perftext.spaa'"
	row "perf2spaa -j 2 | spaa-fold -j $j" "'$CMD/perf2spaa' -j 2 '$text' | '$CMD/spaa-fold' -j $j"
done
rm -f "$OUT/perftext.spaa"
if command -v inferno-collapse-perf >/dev/null 2>&1; then
	for j in $jobs; do
		row "inferno-collapse-perf --nthreads $j" "inferno-collapse-perf --nthreads $j '$text'"
	done
	row "inferno-collapse-perf (default)" "inferno-collapse-perf '$text'"
	theirs=$(cat "$OUT/wall.txt")
	awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "wall, default threads: perf2spaa | spaa-fold / inferno = %.2fx (goal <= 1.0x)\n", (b > 0 ? a / b : 0) }'
else
	echo "inferno-collapse-perf is not on PATH: no comparison"
fi
