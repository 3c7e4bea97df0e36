#!/bin/sh
# bench/memory.sh CMD_DIR - pprof2spaa and spaa2pprof on the SPAA and pprof
# forms of a real capture (the bundled perf capture of a build of this
# project: 46,000 samples, 36,000 distinct frames), and heaptrack2spaa
# against heaptrack_print on a heaptrack recording made here (awk building
# and thinning a 2,000,000-entry array: every allocation a line), when
# heaptrack is installed.  Called by `make bench`.
#
# Each command is measured BENCH_RUNS times (default 5), each measurement
# the CPU time of BENCH_REP runs in a row (default 20) divided by them, its
# output thrown away; printed are the median CPU time of one run (user +
# sys: the machine may be shared) with the spread (min..max), and MB/s of
# uncompressed input per CPU second.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"
export LC_ALL=C

spaa=$OUT/capture.spaa
pb=$OUT/capture.pb
if [ ! -s "$pb" ]; then
	zstd -dc "$HERE/data/build.perf.txt.zst" | "$CMD/perf2spaa" -o "$spaa"
	"$CMD/spaa2pprof" "$spaa" | gzip -dc > "$pb"
fi

# cpu FILE COMMAND...: "median min max" CPU seconds of one COMMAND FILE.
# /usr/bin/time counts in steps of 10 ms, which would round these small
# files' runs to one or two steps: each measurement times REP runs in a row
# (enough for about half a second) and divides.
REP=${BENCH_REP:-20}
cpu() {
	f=$1
	shift
	i=0
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		/usr/bin/time -f '%U %S' -o "$OUT/cpu.txt" sh -c '
			rep=$1 f=$2
			shift 2
			j=0
			while [ $j -lt "$rep" ]; do
				"$@" "$f" > /dev/null || exit 1
				j=$((j + 1))
			done' sh "$REP" "$f" "$@" 2> "$OUT/err.txt" ||
			{ echo "FAILED: $* $f" >&2; cat "$OUT/err.txt" >&2; return 1; }
		awk -v r="$REP" '{ print ($1 + $2) / r }' "$OUT/cpu.txt"
	done | spread
}
row() { # NAME FILE COMMAND...
	name=$1
	f=$2
	shift 2
	bytes=$(case $f in *.zst) zstd -dc "$f" | wc -c ;; *) wc -c < "$f" ;; esac)
	set -- $(cpu "$f" "$@")
	awk -v n="$name" -v b="$bytes" -v m="$1" -v lo="$2" -v hi="$3" 'BEGIN {
		printf "%-28s %7.3f s (%.3f..%.3f) %9.1f MB/s of %.1f MB\n", n, m, lo, hi, (m > 0 ? b / 1e6 / m : 0), b / 1e6 }'
}

echo "median CPU seconds of one run ($RUNS measurements of $REP runs each; spread), MB/s of uncompressed input"
row "spaa2pprof" "$spaa" "$CMD/spaa2pprof"
row "pprof2spaa (plain protobuf)" "$pb" "$CMD/pprof2spaa"
row "spaa-cat (the reader alone)" "$spaa" "$CMD/spaa-cat"
if command -v heaptrack >/dev/null 2>&1 && command -v heaptrack_print >/dev/null 2>&1; then
	ht=$OUT/perl.heaptrack
	if [ ! -s "$ht.zst" ]; then
		heaptrack -o "$ht" perl -e 'my %h; for my $i (1..300000) { $h{$i} = "x" x ($i % 50) }
			for my $i (1..150000) { delete $h{$i * 2} }' > /dev/null 2>&1
	fi
	row "heaptrack2spaa" "$ht.zst" "$CMD/heaptrack2spaa"
	row "heaptrack_print" "$ht.zst" heaptrack_print
else
	echo "heaptrack2spaa: heaptrack not installed, not measured"
fi
