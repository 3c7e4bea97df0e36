#!/bin/sh
# bench/perfdata.sh CMD_DIR - perf2spaa reading perf.data itself against the
# ways to the same folded stacks through perf: `perf script | perf2spaa |
# spaa-fold`, `perf script | inferno-collapse-perf` (when on PATH) and
# `perf report --stdio --no-children -g none` (perf's own summary).  Goals
# (issue 18): at most 0.2x the first, 0.5x perf report.
#
# The capture: with BENCH_PERFDATA=FILE, that perf.data.  Else, when perf
# works here (root, linux-perf), one is recorded once into bench/out: the
# whole machine (perf record -a -g -e cpu-clock -F 999) for the first 60 s
# of a build of this tree from a copy with make -j2 (many short processes,
# the C compiler, the kernel; about 120,000 samples on 2 cores, 20 MB, the
# size of issue 18's reference capture).  Without perf the bench is
# skipped (exit 0, with a message).
#
# Each pipeline runs BENCH_RUNS times (default 5), output thrown away; the
# median wall time and CPU time (user + system of the whole pipeline) are
# printed with the spread (min..max), perf2spaa at -j 1, 2 and the
# machine's cores, alone and with spaa-fold, and the ratios of the medians
# to the other ways.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"

data=${BENCH_PERFDATA:-}
if [ -z "$data" ]; then
	data=$OUT/build.perf.data
	if [ ! -s "$data" ]; then
		if ! command -v perf >/dev/null 2>&1 ||
		   ! perf record -q -N -e cpu-clock -o "$OUT/probe.data" -- true >/dev/null 2>&1; then
			echo "perfdata.sh: perf cannot record here: skipped" >&2
			exit 0
		fi
		echo "recording a capture of a build of this tree (a few minutes, once)..." >&2
		rm -rf "$OUT/src" && mkdir -p "$OUT/src"
		(cd "$HERE/.." && tar --exclude=./bench/out --exclude=./_build --exclude=./fuzz/build -cf - .) | (cd "$OUT/src" && tar -xf -)
		(cd "$OUT/src" && (make -s distclean >/dev/null 2>&1 || true) && autoreconf -fi >/dev/null 2>&1 &&
		 ./configure -q) >/dev/null 2>&1
		perf record -q -a -g -e cpu-clock -F 999 -o "$data.tmp" -- \
			timeout 60 make -s -j2 -C "$OUT/src" >/dev/null 2>&1 || true
		mv "$data.tmp" "$data"
		rm -rf "$OUT/src" "$OUT/probe.data"
	fi
fi
samples=$(perf script -i "$data" -F time 2>/dev/null | wc -l)
echo "capture: $data: $(wc -c < "$data") bytes, $samples samples; $RUNS runs each, median (min..max)"

# run_times CMD: $RUNS runs; "MEDIAN MIN MAX" of the wall times, then of
# the CPU times (user + system, all processes of the pipeline), one line each
run_times() {
	i=0
	: > "$OUT/cpu"
	while [ $i -lt "$RUNS" ]; do
		/usr/bin/time -f "%e %U %S" -o "$OUT/t" sh -c "$1" > /dev/null 2>&1 || { echo "failed: $1" >&2; return 1; }
		awk '{ printf "%.2f\n", $2 + $3 }' "$OUT/t" >> "$OUT/cpu"
		awk '{ print $1 }' "$OUT/t"
		i=$((i + 1))
	done | spread
	spread < "$OUT/cpu"
}
row() { # row LABEL CMD: prints the row, sets $med (wall) and $cpu (CPU median)
	set -- "$1" "$(run_times "$2")"
	med=$(echo "$2" | awk 'NR == 1 { print $1 }')
	cpu=$(echo "$2" | awk 'NR == 2 { print $1 }')
	echo "$2" | awk -v l="$1" 'NR == 1 { w = sprintf("%6.2f s (%.2f..%.2f)", $1, $2, $3) }
		NR == 2 { printf "%-45s wall %s  cpu %6.2f s (%.2f..%.2f)\n", l, w, $1, $2, $3 }'
}
# the binary path at -j 1, 2 and the machine's cores (a many-core figure
# follows from these: see perf2spaa(1) -j for what runs in parallel), alone
# and with spaa-fold
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
jobs="1 2"
[ "$cores" -gt 2 ] && jobs="$jobs $cores"
binj= bincpuj=
for j in $jobs; do
	row "perf2spaa -j $j perf.data > /dev/null" "'$CMD/perf2spaa' -j $j -q '$data'"
	row "perf2spaa -j $j perf.data | spaa-fold" "'$CMD/perf2spaa' -j $j -q '$data' | '$CMD/spaa-fold'"
	binj="$binj $j:$med" bincpuj="$bincpuj $j:$cpu"
done
row "perf script | perf2spaa | spaa-fold" "perf script -i '$data' 2>/dev/null | '$CMD/perf2spaa' -q | '$CMD/spaa-fold'"
text=$med textcpu=$cpu
row "perf report --stdio --no-children -g none" "perf report --stdio --no-children -g none -i '$data' 2>/dev/null"
report=$med reportcpu=$cpu
inferno= infcpu=
if command -v inferno-collapse-perf >/dev/null 2>&1; then
	row "perf script | inferno-collapse-perf" "perf script -i '$data' 2>/dev/null | inferno-collapse-perf"
	inferno=$med infcpu=$cpu
else
	echo "inferno-collapse-perf: not on PATH, skipped"
fi
for w in $binj; do
	j=${w%%:*} b=${w#*:}
	c=$(echo "$bincpuj" | tr ' ' '\n' | awk -F: -v j="$j" '$1 == j { print $2 }')
	awk -v j="$j" -v b="$b" -v t="$text" -v r="$report" -v i="$inferno" -v bc="$c" -v tc="$textcpu" -v rc="$reportcpu" -v ic="$infcpu" 'BEGIN {
		printf "perf2spaa -j %s | spaa-fold, wall: %.2fx the text path, %.2fx perf report (goal 0.5x)", j, b / t, b / r
		if (i != "") printf ", %.2fx perf script | inferno (goal 0.2x)", b / i
		printf "\nperf2spaa -j %s | spaa-fold, cpu:  %.2fx the text path, %.2fx perf report", j, bc / tc, bc / rc
		if (ic != "") printf ", %.2fx perf script | inferno", bc / ic
		printf "\n" }'
done
rm -f "$OUT/t" "$OUT/cpu"
