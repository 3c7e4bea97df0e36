#!/bin/sh
# bench/valgrind.sh CMD_DIR - valgrind2spaa next to valgrind's own readers on
# the same real files: callgrind_annotate on a callgrind profile and ms_print
# on a massif profile of a real program (this toolbox's perf2spaa converting
# the bundled capture bench/data/build.perf.txt.zst, cut to its first 20 MB),
# and DHAT's JSON of the same run (DHAT has no command-line reader).  The
# files are made once into bench/out.  Called by `make bench`.
#
# Each command runs BENCH_RUNS times (default 5) with its output thrown away;
# printed are the median CPU time (user + sys) with the spread (min..max),
# MB/s of input per CPU second, and the peak RSS of the last run.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"

in=$OUT/build-20m.perf.txt
[ -s "$in" ] || zstd -dc "$HERE/data/build.perf.txt.zst" | head -c 20000000 > "$in"
cg=$OUT/callgrind.out
ms=$OUT/massif.out
dh=$OUT/dhat.out
[ -s "$cg" ] || valgrind --tool=callgrind --callgrind-out-file="$cg" "$CMD/perf2spaa" -q "$in" -o /dev/null 2>/dev/null
[ -s "$ms" ] || valgrind --tool=massif --massif-out-file="$ms" "$CMD/perf2spaa" -q "$in" -o /dev/null 2>/dev/null
[ -s "$dh" ] || valgrind --tool=dhat --dhat-out-file="$dh" "$CMD/perf2spaa" -q "$in" -o /dev/null 2>/dev/null

echo "FAILED: $*" >&2; cat "$OUT/err.txt" >&2; return 1; }
		awk '{ print $1 + $2, $3 }' "$OUT/cpu.txt"
	done | sort -n | awk '{ t[NR] = $1; m = $2 } END { printf "%.3f %.3f %.3f %d\n", t[int((NR + 1) / 2)], t[1], t[NR], m }'
}
row() { # NAME FILE COMMAND...
	name=$1
	bytes=$(wc -c < "$2")
	shift 2
	set -- $(cpu "$@")
	awk -v n="$name" -v b="$bytes" -v m="$1" -v lo="$2" -v hi="$3" -v rss="$4" 'BEGIN {
		printf "%-34s %7.3f s (%.3f..%.3f) %7.1f MB/s of %.2f MB, RSS %d MB\n", n, m, lo, hi, (m > 0 ? b / 1e6 / m : 0), b / 1e6, rss / 1024 }'
}
echo "valgrind (median of $RUNS, CPU seconds)"
bench_row "valgrind2spaa (callgrind)" "$cg" "$CMD/valgrind2spaa" "$cg"
bench_row "callgrind_annotate" "$cg" callgrind_annotate --auto=no "$cg"
bench_row "callgrind_annotate --inclusive=yes" "$cg" callgrind_annotate --auto=no --inclusive=yes "$cg"
bench_row "valgrind2spaa (massif)" "$ms" "$CMD/valgrind2spaa" "$ms"
bench_row "valgrind2spaa --all-snapshots" "$ms" "$CMD/valgrind2spaa" --all-snapshots "$ms"
bench_row "ms_print" "$ms" ms_print "$ms"
bench_row "valgrind2spaa (DHAT)" "$dh" "$CMD/valgrind2spaa" "$dh"
