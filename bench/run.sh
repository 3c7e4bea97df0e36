#!/bin/sh
# bench/run.sh CMD_DIR - speed and memory of the spaa-tools commands on a large
# generated profile (called by `make bench`).
#
# Generates, once, bench/out/bench-1m.spaa (about 210 MB: 200 dsos, 20000
# frames, 150000 unique stacks, 1000000 sample records) and bench/out/bench-2m.spaa
# (the same stacks with 2000000 samples), with bench/gen-spaa.c linked to the
# library of the build tree.  Each command reads the file with its output
# thrown away; the best wall time of 3 runs and the largest peak RSS are printed,
# with MB/s, the ratio to `wc -w` (run in the C.UTF-8 locale) and the target,
# if any.  The machine may be shared: timings vary from run to run, so
# BENCH_RUNS=5 or more gives steadier best times.
#
# To add a command, add a line at the end:
#   bench_cmd NAME TARGET_RATIO COMMAND [ARGS]...
# where the file name is appended to the arguments ("-" for no ratio target).
# Set BENCH_RUNS to change the number of runs, BENCH_SAMPLES for the sample count.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 3 "$@"
SAMPLES=${BENCH_SAMPLES:-1000000}
LIB=$CMD/../common/libspaa.a
export LC_ALL=C

# ---- the generator and the files -------------------------------------------------
if [ ! -x "$OUT/gen-spaa" ] || [ "$HERE/gen-spaa.c" -nt "$OUT/gen-spaa" ] || [ "$LIB" -nt "$OUT/gen-spaa" ]; then
	ZLIBS=$(pkg-config --libs libzstd 2>/dev/null || echo -lzstd)
	${CC:-cc} -O2 $INC -o "$OUT/gen-spaa" "$HERE/gen-spaa.c" "$LIB" $ZLIBS -lz -lm
fi
gen() { # gen FILE SAMPLES: made again only when the generator's source changed
	if [ ! -s "$1" ] || [ "$HERE/gen-spaa.c" -nt "$1" ]; then
		echo "generating $(basename "$1") ($2 samples)..." >&2
		"$OUT/gen-spaa" "$2" > "$1.tmp"
		mv "$1.tmp" "$1"
	fi
}
F1=$OUT/bench-$((SAMPLES / 1000))k.spaa
F2=$OUT/bench-$((SAMPLES * 2 / 1000))k.spaa
gen "$F1" "$SAMPLES"
gen "$F2" $((SAMPLES * 2))

# ---- timing -------------------------------------------------------------------------
if [ -x /usr/bin/time ] && /usr/bin/time -f '%e %M' true >/dev/null 2>&1; then
	HAVE_GNU_TIME=1
else
	HAVE_GNU_TIME=
	echo "note: GNU time not found (Debian package 'time'): no peak RSS" >&2
fi

# measure FILE COMMAND... -> "SECONDS RSS_KB" (best time, largest RSS) on stdout
measure() {
	f=$1
	shift
	best=
	rss=0
	i=0
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		if [ -n "$HAVE_GNU_TIME" ]; then
			/usr/bin/time -f '%e %M' -o "$OUT/time.txt" "$@" "$f" > /dev/null 2> "$OUT/err.txt" || {
				echo "FAILED: $* $f" >&2
				cat "$OUT/err.txt" >&2
				return 1
			}
			read -r t m < "$OUT/time.txt"
		else
			s=$(date +%s.%N)
			"$@" "$f" > /dev/null 2> "$OUT/err.txt" || {
				echo "FAILED: $* $f" >&2
				return 1
			}
			e=$(date +%s.%N)
			t=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", e - s }')
			m=0
		fi
		best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b < a) ? b : a }')
		[ "$m" -gt "$rss" ] && rss=$m
	done
	echo "$best $rss"
}

SIZE1=$(wc -c < "$F1")
SIZE2=$(wc -c < "$F2")
printf 'files: %s (%d MB), %s (%d MB); best of %d runs\n' "$(basename "$F1")" $((SIZE1 / 1000000)) \
	"$(basename "$F2")" $((SIZE2 / 1000000)) "$RUNS"
printf '%-22s %8s %8s %9s %7s %8s   %s\n' command seconds MB/s "RSS MB" "x wc" "target" "RSS MB (2x samples)"

# the yardstick: wc -w in a UTF-8 locale (about 420 MB/s on the machine class
# of the targets; in the C locale GNU wc -w is much slower here, which would
# flatter the ratios)
set -- $(measure "$F1" env LC_ALL=C.UTF-8 wc -w)
WC=$1

# bench_cmd NAME TARGET COMMAND... : one line of the table
bench_cmd() {
	name=$1
	target=$2
	shift 2
	if [ ! -x "$1" ] && ! command -v "$1" >/dev/null 2>&1; then
		printf '%-22s (not built)\n' "$name"
		return 0
	fi
	if "$@" --help 2>&1 | grep -q "not implemented"; then
		printf '%-22s (not implemented yet)\n' "$name"
		return 0
	fi
	r1=$(measure "$F1" "$@") || { printf '%-22s FAILED\n' "$name"; return 0; }
	r2=$(measure "$F2" "$@") || { printf '%-22s FAILED (2x)\n' "$name"; return 0; }
	echo "$r1 $r2" | awk -v name="$name" -v size="$SIZE1" -v wc="$WC" -v target="$target" '{
		t = $1; rss = $2 / 1024; rss2 = $4 / 1024
		mbs = t > 0 ? size / 1e6 / t : 0
		ratio = wc > 0 ? t / wc : 0
		tg = target == "-" ? "" : sprintf("<=%.1fx", target)
		ok = (target == "-" || ratio <= target) ? "" : " SLOWER THAN TARGET"
		flat = rss < 100 ? "" : " RSS OVER 100 MB"
		printf "%-22s %8.2f %8.1f %9.1f %6.2fx %8s   %.1f%s%s\n", name, t, mbs, rss, ratio, tg, rss2, ok, flat
	}'
}

printf '%-22s %8.2f %8.1f %9s %6.2fx %8s\n' "wc -w" "$WC" \
	"$(awk -v s="$SIZE1" -v t="$WC" 'BEGIN { print (t > 0 ? s / 1e6 / t : 0) }')" "-" 1 ""
# peak RSS target: < 100 MB, and the same with twice the samples
bench_cmd "spaa-validate" 1.0 "$CMD/spaa-validate"
bench_cmd "spaa-cat" 1.5 "$CMD/spaa-cat"
bench_cmd "spaa-cat --merge" - "$CMD/spaa-cat" --merge
bench_cmd "spaa-fold" - "$CMD/spaa-fold"
bench_cmd "spaa-grep -e X" - "$CMD/spaa-grep" -e function_00042
