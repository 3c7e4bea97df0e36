#!/bin/sh
# bench/perftext.sh CMD_DIR - the text path of issues 18 and 29: `perf2spaa
# FILE` alone (> /dev/null: the parse and the SPAA written) and `perf2spaa
# FILE | spaa-fold` at -j 1, 2 and the machine's cores (and spaa-fold's own
# -j, alone and behind perf2spaa -j 2), side by side with
# inferno-collapse-perf FILE at --nthreads 1, 2 and its default (when it is
# on PATH).  Goals (issue 29): perf2spaa -j 2 at most 0.6x the wall time of
# -j 1 for at most 1.25x its CPU; the pipeline at its default -j at most
# 0.8x inferno at its default, in wall time (the one-step `spaa-fold
# perf.txt` of issue 29 reads the text the way perf2spaa does, without
# the SPAA text between).
#
# The capture: with BENCH_PERFTEXT=FILE, that `perf script` text (plain,
# gzip or zstd; the commands get it decompressed).  Else issue 29's: 25
# copies (BENCH_COPIES) of bench/data's build.perf.txt.zst, a system-wide
# capture of a build, the pids of each copy shifted (perftext-copies.sh).
#
# Each command runs BENCH_RUNS times (default 5), output thrown away; the
# medians of wall time and of CPU time (user + sys, all threads and both
# ends of the pipe) are printed with their spread (min..max), and the peak
# RSS of the largest process.  The machine may be shared: CPU time is the
# steadier figure, and the load average is printed before and after.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"

copies=${BENCH_COPIES:-25}
if [ -n "$BENCH_PERFTEXT" ]; then
	data=$BENCH_PERFTEXT
	text=$data
	case $data in
	*.zst) text=$OUT/perftext.txt; zstd -dqfc "$data" > "$text" ;;
	*.gz) text=$OUT/perftext.txt; gzip -dc "$data" > "$text" ;;
	esac
else
	data="$copies pid-shifted copies of $HERE/data/build.perf.txt.zst"
	text=$OUT/perftext-$copies.txt
	[ -s "$text" ] || zstd -dqc "$HERE/data/build.perf.txt.zst" | sh "$HERE/perftext-copies.sh" "$copies" > "$text"
fi
cores=$(nproc 2>/dev/null || echo 1)
echo "perftext: $data, $(wc -c < "$text") bytes, $(grep -c '^$' "$text") blank lines; $cores cores; $RUNS runs"
echo "load before: $(uptime | sed 's/.*load/load/')"

# row NAME SHELL_COMMAND: wall and CPU medians (min..max); the wall median
# is left in $OUT/wall.txt
row() {
	_i=0
	while [ $_i -lt "$RUNS" ]; do
		_i=$((_i + 1))
		/usr/bin/time -f '%e %U %S %M' -o "$OUT/t.txt" sh -c "$2" > /dev/null 2> "$OUT/err.txt" ||
			{ echo "FAILED: $2" >&2; cat "$OUT/err.txt" >&2; return 1; }
		tail -1 "$OUT/t.txt"
	done > "$OUT/runs.txt"
	set -- "$1" $(awk '{ print $1 }' "$OUT/runs.txt" | spread) $(awk '{ print $2 + $3 }' "$OUT/runs.txt" | spread) \
		$(awk '$4 > m { m = $4 } END { print int(m / 1024) }' "$OUT/runs.txt")
	printf '%-40s wall %6.2f s (%.2f..%.2f)   CPU %6.2f s (%.2f..%.2f)   RSS %d MB\n' "$@"
	echo "$2" > "$OUT/wall.txt"
	echo "$5" > "$OUT/cpu.txt"
}

# ratio WHAT A_WALL A_CPU B_WALL B_CPU GOAL
ratio() {
	awk -v w="$1" -v a="$2" -v c="$3" -v b="$4" -v d="$5" -v g="$6" 'BEGIN {
		printf "%s: wall %.2fx, CPU %.2fx (%s)\n", w, (b > 0 ? a / b : 0), (d > 0 ? c / d : 0), g }'
}

jobs="1 2"
[ "$cores" -gt 2 ] && jobs="$jobs $cores"
# the parse alone (and the SPAA written), -j 1 and -j 2 alternated
_i=0
: > "$OUT/alt.txt"
while [ $_i -lt "$RUNS" ]; do
	_i=$((_i + 1))
	for j in $jobs; do
		/usr/bin/time -f "$j %e %U %S %M" -a -o "$OUT/alt.txt" "$CMD/perf2spaa" -j $j "$text" > /dev/null
	done
done
for j in $jobs; do
	set -- "perf2spaa -j $j > /dev/null" $(awk -v j=$j '$1 == j { print $2 }' "$OUT/alt.txt" | spread) \
		$(awk -v j=$j '$1 == j { print $3 + $4 }' "$OUT/alt.txt" | spread) \
		$(awk -v j=$j '$1 == j && $5 > m { m = $5 } END { print int(m / 1024) }' "$OUT/alt.txt")
	printf '%-40s wall %6.2f s (%.2f..%.2f)   CPU %6.2f s (%.2f..%.2f)   RSS %d MB\n' "$@"
	eval "w$j=$2 c$j=$5"
done
ratio "perf2spaa -j 2 / -j 1" "$w2" "$c2" "$w1" "$c1" "goal: wall <= 0.6x, CPU <= 1.25x"
for j in $jobs; do
	row "perf2spaa -j $j | spaa-fold" "'$CMD/perf2spaa' -j $j '$text' | '$CMD/spaa-fold'"
done
row "perf2spaa | spaa-fold (default -j)" "'$CMD/perf2spaa' '$text' | '$CMD/spaa-fold'"
ours=$(cat "$OUT/wall.txt") ours_cpu=$(cat "$OUT/cpu.txt")
row "perf2spaa > /dev/null (default -j)" "'$CMD/perf2spaa' '$text'"
wd=$(cat "$OUT/wall.txt") cd=$(cat "$OUT/cpu.txt")
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
	theirs=$(cat "$OUT/wall.txt") theirs_cpu=$(cat "$OUT/cpu.txt")
	ratio "default threads: perf2spaa | spaa-fold / inferno" "$ours" "$ours_cpu" "$theirs" "$theirs_cpu" "goal: wall <= 0.8x"
	ratio "default threads: perf2spaa > /dev/null / inferno" "$wd" "$cd" "$theirs" "$theirs_cpu" "the parse alone"
else
	echo "inferno-collapse-perf is not on PATH: no comparison"
fi
echo "load after: $(uptime | sed 's/.*load/load/')"
