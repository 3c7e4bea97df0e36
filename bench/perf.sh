#!/bin/sh
# bench/perf.sh - speed and peak memory of perf2spaa and dtrace2spaa against
# `wc -w` on ~200 MB inputs made by repeating the corpus files.
# Usage: bench/perf.sh [SIZE_MB]   (run from the top of a built tree)
set -eu
MB=${1:-200}
CORPUS=${SPAA_CORPUS:-/work/shared/corpus}
TMP=${TMPDIR:-/tmp}/spaa-bench-perf.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT INT TERM
BIN=${BIN:-cmd}
bytes=$((MB * 1000000))

# repeat FILE... (whole copies) into OUT until it holds about $bytes bytes
build() {
	out=$1; shift
	cat "$@" > "$TMP/unit"
	echo >> "$TMP/unit"
	n=$(( bytes / $(wc -c < "$TMP/unit") + 1 ))
	i=0
	while [ $i -lt 16 ] && [ $i -lt $n ]; do cat "$TMP/unit"; i=$((i + 1)); done > "$TMP/unit16"
	i=0
	while [ $((i + 16)) -le $n ]; do cat "$TMP/unit16"; i=$((i + 16)); done > "$out"
	while [ $i -lt $n ]; do cat "$TMP/unit"; i=$((i + 1)); done >> "$out"
}

# run LABEL CMD...: prints seconds and peak RSS
run() {
	label=$1; shift
	/usr/bin/time -f "%e %M" -o "$TMP/t" sh -c "$*" > /dev/null
	read -r secs kb < "$TMP/t"
	printf '%-34s %7.2f s %8d KB peak RSS\n' "$label" "$secs" "$kb"
}

P=$CORPUS/perf
build "$TMP/perf.txt" "$P/perf-iperf-stacks-pidtid-01.txt" "$P/perf-rust-Yamakaky-dcpu.txt" \
	"$P/perf-cycles-instructions-01.txt" "$P/perf-funcab-cmd-01.txt" "$P/perf-dd-stacks-01.txt" \
	"$P/perf-java-stacks-02.txt" "$P/perf-js-stacks-01.txt"
build "$TMP/dtrace.txt" "$CORPUS/dtrace/example-dtrace-stacks.txt"
echo "perf input: $(wc -c < "$TMP/perf.txt") bytes; dtrace input: $(wc -c < "$TMP/dtrace.txt") bytes"
run "wc -w perf" "wc -w '$TMP/perf.txt'"
run "perf2spaa" "$BIN/perf2spaa '$TMP/perf.txt'"
run "perf2spaa --samples" "$BIN/perf2spaa --samples '$TMP/perf.txt'"
run "perf2spaa | spaa-fold (pipeline)" "$BIN/perf2spaa '$TMP/perf.txt' | $BIN/spaa-fold 2>/dev/null"
run "  spaa-fold peak alone" "$BIN/perf2spaa '$TMP/perf.txt' > '$TMP/p.spaa'; $BIN/spaa-fold '$TMP/p.spaa' 2>/dev/null"
run "wc -w dtrace" "wc -w '$TMP/dtrace.txt'"
run "dtrace2spaa" "$BIN/dtrace2spaa '$TMP/dtrace.txt'"
