#!/bin/sh
# bench/flamegraph.sh CMD_DIR - spaa-flamegraph on the bench SPAA file (about
# 210 MB: 150000 distinct stacks of about 31 frames, 1000000 sample records;
# made by bench/gen-spaa.c as bench/run.sh makes it) against the fold alone
# (target: the graph costs at most 1.5 times spaa-fold) and, when
# inferno-flamegraph is on PATH, against `spaa-fold | inferno-flamegraph`
# (target: at least 2 times faster).  Each runs BENCH_RUNS times (default 5),
# output thrown away; the median wall time is printed with the spread
# (min..max) and the largest peak RSS, then the size of the SVG.
#
# On a real capture instead: BENCH_PERFDATA=perf.data (converted once by
# CMD_DIR/perf2spaa into bench/out/) or BENCH_SPAA=FILE.spaa.  Then the
# median (min..max) of the wall time and of the CPU time (user + sys, every
# process of the pipeline) of `spaa-flamegraph FILE` and of `spaa-fold FILE
# | inferno-flamegraph` (when on PATH), and their ratio (target: at most
# 0.5), and how many frames each draws.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"
LIB=$CMD/../common/libspaa.a
export LC_ALL=C

if [ ! -x "$OUT/gen-spaa" ] || [ "$HERE/gen-spaa.c" -nt "$OUT/gen-spaa" ] || [ "$LIB" -nt "$OUT/gen-spaa" ]; then
	ZLIBS=$(pkg-config --libs libzstd 2>/dev/null || echo -lzstd)
	${CC:-cc} -O2 $INC -o "$OUT/gen-spaa" "$HERE/gen-spaa.c" "$LIB" $ZLIBS -lz -lm
fi
# real: spaa-flamegraph against spaa-fold | inferno-flamegraph on file $1,
# wall and CPU
real() {
	f=$1
	# run2 LABEL SHELL-COMMAND: "LABEL WALL_MED WALL_MIN WALL_MAX CPU_MED CPU_MIN CPU_MAX"
	# (wall time by date's nanoseconds: /usr/bin/time's 10 ms steps are
	# an eighth of these runs)
	run2() {
		: > "$OUT/times2.txt"
		i=0
		while [ $i -lt "$RUNS" ]; do
			i=$((i + 1))
			t0=$(date +%s%N)
			/usr/bin/time -f '%U %S' -o "$OUT/time2.txt" sh -c "$2" > /dev/null ||
				{ echo "FAILED: $2" >&2; exit 1; }
			t1=$(date +%s%N)
			awk -v ns=$((t1 - t0)) '{ print ns / 1e9, $1 + $2 }' "$OUT/time2.txt" >> "$OUT/times2.txt"
		done
		w=$(cut -d' ' -f1 "$OUT/times2.txt" | spread)
		c=$(cut -d' ' -f2 "$OUT/times2.txt" | spread)
		echo "$1 $w $c"
	}
	bytes=$(wc -c < "$f")
	echo "file: $f, $((bytes / 1000000)) MB; $RUNS runs each: median (min..max), seconds"
	g=$(run2 graph "'$CMD/spaa-flamegraph' '$f'")
	echo "$g" | awk '{ printf "%-32s wall %6.3f (%.3f..%.3f)  CPU %6.3f (%.3f..%.3f)\n", "spaa-flamegraph", $2, $3, $4, $5, $6, $7 }'
	if ! command -v inferno-flamegraph > /dev/null 2>&1; then
		echo "inferno-flamegraph is not on PATH: not compared"
		return 0
	fi
	echo "frames drawn: $("$CMD/spaa-flamegraph" "$f" | grep -o '<title>' | wc -l) (inferno: $("$CMD/spaa-fold" "$f" | inferno-flamegraph | grep -o '<title>' | wc -l))"
	i=$(run2 inferno "'$CMD/spaa-fold' '$f' | inferno-flamegraph")
	echo "$i" | awk '{ printf "%-32s wall %6.3f (%.3f..%.3f)  CPU %6.3f (%.3f..%.3f)\n", "spaa-fold | inferno-flamegraph", $2, $3, $4, $5, $6, $7 }'
	echo "$g $i" | awk '{ printf "spaa-flamegraph / (spaa-fold | inferno-flamegraph): wall %.2fx, CPU %.2fx (target: at most 0.5x)\n", $2 / $9, $5 / $12 }'
}
if [ -n "${BENCH_PERFDATA:-}" ]; then
	F=$OUT/$(basename "$BENCH_PERFDATA").spaa
	if [ ! -s "$F" ] || [ "$BENCH_PERFDATA" -nt "$F" ]; then
		echo "converting $BENCH_PERFDATA..." >&2
		"$CMD/perf2spaa" "$BENCH_PERFDATA" > "$F.tmp"
		mv "$F.tmp" "$F"
	fi
	real "$F"
	exit 0
fi
if [ -n "${BENCH_SPAA:-}" ]; then
	real "$BENCH_SPAA"
	exit 0
fi

F=$OUT/bench-1000k.spaa
if [ ! -s "$F" ] || [ "$HERE/gen-spaa.c" -nt "$F" ]; then
	echo "generating $(basename "$F")..." >&2
	"$OUT/gen-spaa" 1000000 > "$F.tmp"
	mv "$F.tmp" "$F"
fi
if [ -x /usr/bin/time ] && /usr/bin/time -f '%e %M' true >/dev/null 2>&1; then
	TIME="/usr/bin/time -f %e:%M -o $OUT/time.txt"
else
	TIME=
	echo "note: GNU time not found (Debian package 'time'): no peak RSS" >&2
fi

# run LABEL SHELL-COMMAND: median (min..max) of $RUNS wall times, peak RSS;
# prints the median alone on fd 3
run() {
	label=$1
	: > "$OUT/times.txt"
	rss=0
	i=0
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		if [ -n "$TIME" ]; then
			$TIME sh -c "$2" > /dev/null
			IFS=: read -r t m < "$OUT/time.txt"
			[ "$m" -gt "$rss" ] && rss=$m
		else
			s=$(date +%s.%N)
			sh -c "$2" > /dev/null
			e=$(date +%s.%N)
			t=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", e - s }')
		fi
		echo "$t" >> "$OUT/times.txt"
	done
	sort -n "$OUT/times.txt" | awk -v l="$label" -v rss="$rss" '
		{ t[NR] = $1 }
		END {
			m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
			printf "%-40s %6.2f s (%.2f..%.2f)  peak RSS %4d MB\n", l, m, t[1], t[NR], rss / 1024
			print m > "/dev/fd/3"
		}'
}

bytes=$(wc -c < "$F")
echo "file: $(basename "$F"), $((bytes / 1000000)) MB; $RUNS runs each: median (min..max)"
fold=$(run "spaa-fold" "'$CMD/spaa-fold' '$F'" 3>&1 >&2)
graph=$(run "spaa-flamegraph" "'$CMD/spaa-flamegraph' '$F'" 3>&1 >&2)
awk -v g="$graph" -v f="$fold" 'BEGIN { printf "spaa-flamegraph / spaa-fold: %.2fx (target: at most 1.5x)\n", g / f }'
"$CMD/spaa-flamegraph" -o "$OUT/bench.svg" "$F"
echo "SVG: $(($(wc -c < "$OUT/bench.svg") / 1000)) kB, $(grep -c '^<g><title>' "$OUT/bench.svg") frames"
if command -v inferno-flamegraph > /dev/null 2>&1; then
	inf=$(run "spaa-fold | inferno-flamegraph" "'$CMD/spaa-fold' '$F' | inferno-flamegraph" 3>&1 >&2)
	awk -v g="$graph" -v i="$inf" 'BEGIN { printf "spaa-fold | inferno-flamegraph / spaa-flamegraph: %.2fx (target: at least 2x)\n", i / g }'
else
	echo "inferno-flamegraph is not on PATH: not compared"
fi
