#!/bin/sh
# bench/spall.sh [CMD_DIR] - speed and memory of spall2spaa on large generated
# traces, against `wc -w` on the same files.
#
# Generates, once, in $SPALL_BENCH_DIR (default /tmp/spall-bench), with
# bench/gen-spall.c: trace.json (about 200 MB Chrome JSON: nested X events
# and B/E pairs on 4 threads) and trace.spall (about 300 MB binary v3).
# Each command runs BENCH_RUNS times (default 3) with its output thrown away;
# printed are the best CPU time (user + sys: the machine may be shared, so
# wall time says little), MB/s of input per CPU second, the peak RSS, and the
# sha256 of spall2spaa's output (to check that optimisations change nothing).
# Targets: 200 MB/s for JSON, 500 MB/s for binary (one core).
# CMD_DIR defaults to the cmd directory next to this script.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
CMD=$(cd "${1:-$HERE/../cmd}" && pwd)
DIR=${SPALL_BENCH_DIR:-/tmp/spall-bench}
RUNS=${BENCH_RUNS:-3}
export LC_ALL=C
mkdir -p "$DIR"

if [ ! -x "$DIR/gen-spall" ] || [ "$HERE/gen-spall.c" -nt "$DIR/gen-spall" ]; then
	${CC:-cc} -O2 -o "$DIR/gen-spall" "$HERE/gen-spall.c"
	rm -f "$DIR/trace.json" "$DIR/trace.spall"
fi
gen() { # gen FILE json|bin MB
	if [ ! -s "$1" ]; then
		echo "generating $(basename "$1")..." >&2
		"$DIR/gen-spall" "$2" "$3" > "$1.tmp"
		mv "$1.tmp" "$1"
	fi
}
gen "$DIR/trace.json" json 200
gen "$DIR/trace.spall" bin 300

if [ -x /usr/bin/time ] && /usr/bin/time -f '%e' true >/dev/null 2>&1; then
	GNU_TIME=1
else
	GNU_TIME=
	echo "note: GNU time not found: no peak RSS; times from bash" >&2
fi

# measure FILE COMMAND... -> "CPU_SECONDS RSS_KB" (best CPU time, largest RSS)
measure() {
	mf=$1
	shift
	best=
	rss=0
	i=0
	while [ $i -lt "$RUNS" ]; do
		if [ -n "$GNU_TIME" ]; then
			/usr/bin/time -o "$DIR/time.out" -f '%e %U %S %M' "$@" "$mf" >/dev/null 2>/dev/null
			r=$(tail -n 1 "$DIR/time.out")
			cpu=$(echo "$r" | awk '{ printf "%.2f", $2 + $3 }')
			m=$(echo "$r" | awk '{ print $4 }')
		else
			r=$(bash -c 'TIMEFORMAT="%U %S"; time "$@" >/dev/null 2>/dev/null' x "$@" "$mf" 2>&1 | tail -n 1)
			cpu=$(echo "$r" | awk '{ printf "%.2f", $1 + $2 }')
			m=0
		fi
		if [ -z "$best" ] || awk "BEGIN { exit !($cpu < $best) }"; then best=$cpu; fi
		if [ "$m" -gt "$rss" ]; then rss=$m; fi
		i=$((i + 1))
	done
	echo "$best $rss"
}

row() { # row LABEL FILE TARGET_MBS COMMAND...  (TARGET_MBS - for none)
	label=$1
	rf=$2
	target=$3
	shift 3
	size=$(wc -c < "$rf")
	set -- $(measure "$rf" "$@")
	awk -v l="$label" -v s="$size" -v t="$1" -v m="$2" -v g="$target" 'BEGIN {
		mbs = t > 0 ? s / 1048576 / t : 0
		printf "%-28s %8.1f MB %7.2f s cpu %8.1f MB/s %8.1f MB rss", l, s / 1048576, t, mbs, m / 1024
		if (g != "-") printf "  (target %d MB/s: %s)", g, (mbs >= g ? "met" : "MISSED")
		printf "\n"
	}'
}

# targets, in MB of input per CPU second: JSON 200, binary 500
for f in trace.json:200 trace.spall:500; do
	tgt=${f#*:}
	f=${f%:*}
	row "wc -w $f" "$DIR/$f" - env LC_ALL=C.UTF-8 wc -w # UTF-8: see bench/run.sh
	row "spall2spaa $f" "$DIR/$f" "$tgt" "$CMD/spall2spaa"
	"$CMD/spall2spaa" "$DIR/$f" 2>/dev/null | sha256sum | sed "s/ .*/  (sha256 of the output)/"
done
