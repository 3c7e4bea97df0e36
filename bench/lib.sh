# bench/lib.sh - what every bench script starts with, sourced by them
# (". bench/lib.sh" from the script's own directory).
#
# bench_init DEFAULT_RUNS "$@": the one argument is the directory of the
# built commands; sets CMD (that directory), HERE (bench/), OUT (bench/out,
# made), RUNS (BENCH_RUNS, else DEFAULT_RUNS) and INC (the -I options of
# the library's headers, common/ and its layers); a wrong call is a usage
# error (exit 2).
bench_init() {
	_runs=$1
	shift
	if [ $# -ne 1 ] || [ ! -d "$1" ]; then
		echo "usage: bench/$(basename "$0") CMD_DIR" >&2
		exit 2
	fi
	CMD=$(cd "$1" && pwd)
	HERE=$(cd "$(dirname "$0")" && pwd)
	OUT=$HERE/out
	RUNS=${BENCH_RUNS:-$_runs}
	INC="-I$HERE/../common"
	for _d in base spaa formats perf analysis; do INC="$INC -I$HERE/../common/$_d"; done
	mkdir -p "$OUT"
}

# spread: the numbers on standard input (one a line) as "MEDIAN MIN MAX"
# (the median of an even count is the mean of the middle two).
spread() {
	sort -n | awk '{ t[NR] = $1 } END {
		m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
		printf "%.3f %.3f %.3f\n", m, t[1], t[NR] }'
}

# bench_cpu COMMAND...: "MEDIAN MIN MAX RSS_KB" of RUNS runs of COMMAND (CPU
# seconds, user + sys; the peak RSS of the last run), its output thrown away.
bench_cpu() {
	_i=0
	while [ $_i -lt "$RUNS" ]; do
		_i=$((_i + 1))
		/usr/bin/time -f '%U %S %M' -o "$OUT/cpu.txt" "$@" > /dev/null 2> "$OUT/err.txt" ||
			{ echo "FAILED: $*" >&2; cat "$OUT/err.txt" >&2; return 1; }
		awk '{ print $1 + $2, $3 }' "$OUT/cpu.txt"
	done | sort -n | awk '{ t[NR] = $1; m = $2 } END { printf "%.3f %.3f %.3f %d\n", t[int((NR + 1) / 2)], t[1], t[NR], m }'
}

# bench_row NAME FILE COMMAND...: one line, "NAME median (min..max), MB/s of
# FILE's bytes per CPU second, RSS"; bench_row_bytes NAME BYTES COMMAND...
# the same for a byte count (several files).
bench_row() {
	_file=$2
	_n=$1
	shift 2
	bench_row_bytes "$_n" "$(wc -c < "$_file")" "$@"
}
bench_row_bytes() {
	_name=$1
	_bytes=$2
	shift 2
	set -- $(bench_cpu "$@")
	awk -v n="$_name" -v b="$_bytes" -v m="$1" -v lo="$2" -v hi="$3" -v rss="$4" 'BEGIN {
		printf "%-34s %7.3f s (%.3f..%.3f) %7.1f MB/s of %.2f MB, RSS %d MB\n", n, m, lo, hi, (m > 0 ? b / 1e6 / m : 0), b / 1e6, rss / 1024 }'
}
