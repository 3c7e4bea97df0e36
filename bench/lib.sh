# bench/lib.sh - what every bench script starts with, sourced by them
# (". bench/lib.sh" from the script's own directory).
#
# bench_init DEFAULT_RUNS "$@": the one argument is the directory of the
# built commands; sets CMD (that directory), HERE (bench/), OUT (bench/out,
# made) and RUNS (BENCH_RUNS, else DEFAULT_RUNS); a wrong call is a usage
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
	mkdir -p "$OUT"
}

# spread: the numbers on standard input (one a line) as "MEDIAN MIN MAX"
# (the median of an even count is the mean of the middle two).
spread() {
	sort -n | awk '{ t[NR] = $1 } END {
		m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
		printf "%.3f %.3f %.3f\n", m, t[1], t[NR] }'
}
