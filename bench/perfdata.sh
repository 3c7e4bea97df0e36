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
#
# The thread curve (issue 29: on 2 cores, -j 2 at most 0.6x the wall time of
# -j 1 for at most 1.25x its CPU): perf2spaa alone at -j 1, 2 and the cores
# present, the runs of the different -j alternated (a busy machine slows
# them alike), on the capture above and on a `perf record --call-graph
# dwarf` capture, where the user stacks are unwound on the threads: with
# BENCH_PERFDWARF=FILE, that one, else one recorded once into bench/out of
# a C program of three threads and a shell script running several programs
# beside it (some 30,000 samples at -F 2000, 270 MB).
# The load of the machine (uptime) is printed with the figures.  On a
# machine others load, wall times say little; BENCH_WRAP='chrt -f 10' (as
# root) runs each perf2spaa of the curve in the real-time class, where the
# figures of this note's commits were taken.
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

# curve LABEL FILE: perf2spaa -q -j J FILE for each J of $jobs, RUNS rounds,
# the J alternated within a round; per J the median wall and CPU time
# (min..max) and their ratios to -j 1's
curve() {
	: > "$OUT/curve"
	i=0
	while [ $i -lt "$RUNS" ]; do
		for j in $jobs; do
			# shellcheck disable=SC2086
			${BENCH_WRAP:-} /usr/bin/time -f "%e %U %S" -o "$OUT/t" "$CMD/perf2spaa" -q -j "$j" "$2" > /dev/null 2>&1 ||
				{ echo "failed: perf2spaa -j $j $2" >&2; return 1; }
			awk -v j="$j" '{ printf "%s %.2f %.2f\n", j, $1, $2 + $3 }' "$OUT/t" >> "$OUT/curve"
		done
		i=$((i + 1))
	done
	echo "$1: perf2spaa -j N alone, $RUNS alternated rounds${BENCH_WRAP:+ under $BENCH_WRAP} (load: $(uptime | sed 's/.*load average: //'))"
	w1="" c1=""
	for j in $jobs; do
		set -- "$(awk -v j="$j" '$1 == j { print $2 }' "$OUT/curve" | spread)" \
			"$(awk -v j="$j" '$1 == j { print $3 }' "$OUT/curve" | spread)"
		w=${1%% *} c=${2%% *}
		[ -n "$w1" ] || w1=$w c1=$c
		echo "$1 $2" | awk -v j="$j" -v w1="$w1" -v c1="$c1" '{
			printf "  -j %-3s wall %6.2f s (%.2f..%.2f)  cpu %6.2f s (%.2f..%.2f)  %.2fx the wall, %.2fx the cpu of -j 1\n",
				j, $1, $2, $3, $4, $5, $6, (w1 > 0 ? $1 / w1 : 0), (c1 > 0 ? $4 / c1 : 0) }'
	done
}
curve "frame pointers, system-wide" "$data"

binj= bincpuj=
for j in $jobs; do
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

# the dwarf capture: its thread curve
dwarf=${BENCH_PERFDWARF:-}
if [ -z "$dwarf" ]; then
	dwarf=$OUT/dwarf.perf.data
	if [ ! -s "$dwarf" ]; then
		echo "recording a dwarf capture (a minute or so, once)..." >&2
		cat > "$OUT/dw.c" <<'EOC'
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
static volatile double sink;
__attribute__((noinline)) static double leaf_a(int n) { double s = 0; for (int i = 0; i < n; i++) s += sqrt(i); return s; }
__attribute__((noinline)) static double leaf_b(int n)
{
	char b[256];
	double s = 0;
	for (int i = 0; i < n; i++) { memset(b, i, sizeof b); s += b[i & 255]; }
	return s;
}
__attribute__((noinline)) static double mid(int k, int n) { return k & 1 ? leaf_a(n) : leaf_b(n); }
__attribute__((noinline)) static double rec(int d, int k, int n) { return d ? rec(d - 1, k, n) + 1 : mid(k, n); }
static void *worker(void *a)
{
	for (int k = 0; k < 60000; k++) sink += rec((int)((k + (long)a) % 12), k, 20000);
	return a;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	pthread_t t[16];
	for (long i = 0; i < n && i < 16; i++) pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < n && i < 16; i++) pthread_join(t[i], NULL);
	return 0;
}
EOC
		cc -O2 -g -fomit-frame-pointer -o "$OUT/dw" "$OUT/dw.c" -lm -lpthread
		printf '%s\n' '#!/bin/sh' "'$OUT/dw' 3 &" \
			'seq 1 600000 | sort -R | gzip -c | gzip -dc | sort -n | cksum > /dev/null' \
			"python3 -c 'import json; print(len(json.dumps([list(range(1000))] * 5000)))' > /dev/null" \
			"'$OUT/dw' 2" 'wait' > "$OUT/dw.sh"
		chmod +x "$OUT/dw.sh"
		perf record -q --call-graph dwarf -F 2000 -e cpu-clock -o "$dwarf.tmp" -- "$OUT/dw.sh" > /dev/null 2>&1 || true
		mv "$dwarf.tmp" "$dwarf"
		rm -f "$OUT/dw" "$OUT/dw.c" "$OUT/dw.sh"
	fi
fi
echo "dwarf capture: $dwarf: $(wc -c < "$dwarf") bytes, $(perf script -i "$dwarf" -F time 2>/dev/null | wc -l) samples"
curve "dwarf" "$dwarf"
rm -f "$OUT/t" "$OUT/cpu" "$OUT/curve"
