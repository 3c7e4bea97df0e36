#!/bin/sh
# bench/real.sh CMD_DIR - perf2spaa, perf2spaa | spaa-fold and folded2spaa on
# a real, varied `perf script` capture of about 250 MB, side by side with
# `wc -w` (C.UTF-8) and with the collapsers of other tools found on PATH
# (inferno-collapse-perf, stackcollapse-perf.pl).  Called by `make bench`.
#
# The capture: with BENCH_CAPTURE=FILE, that file.  Else, when perf works here
# (root, linux-perf installed), one is recorded once into bench/out: the whole
# machine (perf record -a -g -e cpu-clock -F 1999) while this tree is built
# from a copy and its test suite runs for two minutes (shells, awk, jq, the C
# compiler, these commands, the kernel): about 500,000 samples.  Without perf,
# bench/data/build.perf.txt.zst is used: a real capture of a build of this
# project (46,000 samples, 15 MB), which is small; its figures are printed
# but say less about caches than a large one.
#
# Every command runs BENCH_RUNS times (default 5) with its output thrown
# away; the median wall time is printed with the spread (min..max), MB/s and
# the ratio of the median to wc -w's median.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"

capture=${BENCH_CAPTURE:-}
if [ -z "$capture" ]; then
	capture=$OUT/real.perf.txt
	if [ ! -s "$capture" ] && command -v perf >/dev/null 2>&1 &&
	   perf record -q -e cpu-clock -o "$OUT/probe.data" -- true >/dev/null 2>&1; then
		echo "recording a capture (about 3 minutes, once)..." >&2
		rm -rf "$OUT/src" && mkdir -p "$OUT/src"
		(cd "$HERE/.." && tar --exclude=./bench/out --exclude=./_build -cf - .) | (cd "$OUT/src" && tar -xf -)
		perf record -q -a -g -e cpu-clock -F 1999 -o "$OUT/real.data" -- sh -c \
			"cd '$OUT/src' && (make -s distclean >/dev/null 2>&1 || true) && autoreconf -fi >/dev/null 2>&1 &&
			 ./configure -q && make -s -j2 && timeout 120 make -s -j2 check >/dev/null 2>&1; true" \
			>/dev/null 2>&1
		perf script -i "$OUT/real.data" > "$capture.tmp" 2>/dev/null && mv "$capture.tmp" "$capture"
		rm -rf "$OUT/src" "$OUT/real.data" "$OUT/probe.data"
	fi
	if [ ! -s "$capture" ]; then
		capture=$OUT/build.perf.txt
		zstd -dqf "$HERE/data/build.perf.txt.zst" -o "$capture"
	fi
fi
bytes=$(wc -c < "$capture")
samples=$(grep -c '^$' "$capture" || true)
echo "capture: $capture: $bytes bytes, about $samples samples; $RUNS runs each, median (min..max)"

# run_times CMD...: the wall times of $RUNS runs, one per line, sorted
run_times() {
	i=0
	while [ $i -lt "$RUNS" ]; do
		/usr/bin/time -f %e -o "$OUT/t" sh -c "$*" > /dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
		cat "$OUT/t"
		i=$((i + 1))
	done | sort -n
}
wc_median=
row() { # row LABEL CMD...
	label=$1; shift
	t=$(run_times "$@") || return 0
	min=$(echo "$t" | head -n 1); max=$(echo "$t" | tail -n 1)
	med=$(echo "$t" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	[ -n "$wc_median" ] || wc_median=$med
	awk -v l="$label" -v m="$med" -v a="$min" -v b="$max" -v n="$bytes" -v w="$wc_median" 'BEGIN {
		printf "%-40s %6.2f s (%.2f..%.2f) %7.0f MB/s %6.2fx wc -w\n", l, m, a, b, n / m / 1e6, m / w }'
}
row "wc -w (C.UTF-8)" "LC_ALL=C.UTF-8 wc -w '$capture'"
row "perf2spaa" "'$CMD/perf2spaa' '$capture'"
row "perf2spaa | spaa-fold" "'$CMD/perf2spaa' '$capture' | '$CMD/spaa-fold'"
"$CMD/perf2spaa" "$capture" 2>/dev/null | "$CMD/spaa-fold" > "$OUT/real.folded"
row "perf2spaa > f; spaa-fold f" "'$CMD/perf2spaa' '$capture' > '$OUT/real.spaa' 2>/dev/null; '$CMD/spaa-fold' '$OUT/real.spaa'"
row "folded2spaa (its folded output)" "'$CMD/folded2spaa' '$OUT/real.folded'"
if command -v inferno-collapse-perf >/dev/null 2>&1; then
	row "inferno-collapse-perf" "inferno-collapse-perf '$capture'"
else
	echo "inferno-collapse-perf: not on PATH (cargo install inferno), skipped"
fi
if command -v stackcollapse-perf.pl >/dev/null 2>&1; then
	row "stackcollapse-perf.pl" "stackcollapse-perf.pl '$capture'"
else
	echo "stackcollapse-perf.pl: not on PATH (FlameGraph), skipped"
fi
rm -f "$OUT/t" "$OUT/real.spaa"
