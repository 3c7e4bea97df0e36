#!/bin/sh
# bench/onestep.sh CMD_DIR - issue 29's speed goals, each job side by side
# with the tool a user would otherwise pick, in one run (the two alternated,
# run by run, so that a load on the machine falls on both):
#   perf.data -> SVG     spaa-flamegraph perf.data
#                        vs perf script | inferno-collapse-perf | inferno-flamegraph   (goal 0.20x)
#   perf.data -> folded  spaa-fold perf.data
#                        vs perf script | inferno-collapse-perf                        (goal 0.20x)
#   perf.data -> table   spaa-top perf.data
#                        vs perf report --stdio --no-children -g none                  (goal 0.35x)
#   perf text -> folded  spaa-fold perf.txt
#                        vs inferno-collapse-perf perf.txt (its default threads)       (goal 0.8x, RSS <= 80 MB)
# then the threads: perf2spaa (perf.data, text, a dwarf capture), the
# one-step spaa-fold and spaa-top, and spaa-fold, spaa-flamegraph and
# spaa-top on a large SPAA file, each at -j 1, 2 and the machine's cores,
# the runs of each -j alternated, with the ratio at 2 (goal: at most 0.6x
# the wall time of 1 for at most 1.25x its CPU).
#
# The captures: BENCH_PERFDATA=FILE, else the system-wide capture of a build
# that bench/perfdata.sh records into bench/out (recorded here if missing);
# BENCH_PERFTEXT=FILE, else 25 copies of bench/data's build capture (the
# `perf script` text of a build), each copy's pids and tids shifted
# (perftext-copies.sh), the issue's text capture.  Without inferno on PATH its rows are skipped, with a message.
# The threads' rows also read that text converted to SPAA (made once), and
# BENCH_PERFDWARF=FILE, else the dwarf capture bench/perfdata.sh records
# (skipped, with a message, when there is none).
# BENCH_RUNS runs each (default 5): medians, with the spread (min..max), of
# the wall time and the CPU time (user + sys of every process and thread);
# the threads' ratios also round by round (see curve below).
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"

data=${BENCH_PERFDATA:-$OUT/build.perf.data}
if [ ! -s "$data" ]; then
	sh "$HERE/perfdata.sh" "$CMD" > /dev/null
	[ -s "$data" ] || { echo "onestep.sh: no perf.data capture (perf cannot record here?): skipped" >&2; exit 0; }
fi
text=${BENCH_PERFTEXT:-$OUT/perftext-25.txt}
# (the capture bench/perftext.sh makes, made once)
[ -s "$text" ] || zstd -dqc "$HERE/data/build.perf.txt.zst" | sh "$HERE/perftext-copies.sh" 25 > "$text"
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
inferno=$(command -v inferno-collapse-perf || true)
echo "perf.data: $data, $(wc -c < "$data") bytes; perf text: $text, $(wc -c < "$text") bytes"
echo "$cores cores, load $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs each, median (min..max)"

# timed SHELL_COMMAND: one run; "WALL CPU RSS_KB" (RSS: the largest
# process); the times to the millisecond (bash's time: GNU time's are in
# hundredths, a twentieth of the runs of a fifth of a second the threads'
# ratios are judged on), the RSS by GNU time
timed() {
	bash -c 'TIMEFORMAT="%3R %3U %3S"; { time /usr/bin/time -f %M -o "$2" sh -c "$1" > /dev/null 2> "$3"; } 2> "$4"' \
		timed "$1" "$OUT/rss.txt" "$OUT/err.txt" "$OUT/t.txt" ||
		{ echo "FAILED: $1" >&2; cat "$OUT/err.txt" >&2; exit 1; }
	awk -v rss="$(tail -n 1 "$OUT/rss.txt")" '{ print $1, $2 + $3, rss }' "$OUT/t.txt"
}

# pair NAME GOAL OURS PEER: RUNS alternated runs of each; prints both rows
# and the ratio of the medians (wall and CPU) with the goal.
pair() {
	_i=0
	: > "$OUT/a.txt"
	: > "$OUT/b.txt"
	while [ $_i -lt "$RUNS" ]; do
		_i=$((_i + 1))
		timed "$3" >> "$OUT/a.txt"
		[ -z "$4" ] || timed "$4" >> "$OUT/b.txt"
	done
	set -- "$1" "$2" "$3" "$4" \
		$(awk '{ print $1 }' "$OUT/a.txt" | spread) $(awk '{ print $2 }' "$OUT/a.txt" | spread) \
		"$(awk '{ if ($3 > m) m = $3 } END { print m + 0 }' "$OUT/a.txt")"
	printf '  %-52s wall %6.3f s (%.3f..%.3f)  CPU %6.3f s (%.3f..%.3f)  RSS %d MB\n' \
		"$1" "$5" "$6" "$7" "$8" "$9" "${10}" $((${11} / 1024))
	[ -n "$4" ] || return 0
	_aw=$5 _ac=$8
	set -- $(awk '{ print $1 }' "$OUT/b.txt" | spread) $(awk '{ print $2 }' "$OUT/b.txt" | spread)
	printf '  %-52s wall %6.3f s (%.3f..%.3f)  CPU %6.3f s (%.3f..%.3f)\n' "peer" "$1" "$2" "$3" "$4" "$5" "$6"
	awk -v aw="$_aw" -v ac="$_ac" -v bw="$1" -v bc="$4" -v g="$goal" 'BEGIN {
		printf "  ratio: wall %.2fx, CPU %.2fx (goal %sx wall): %s\n", aw / bw, ac / bc, g, aw / bw <= g ? "met" : "NOT met" }'
}
job() { # job TITLE GOAL OURS PEER
	echo "$1"
	goal=$2
	pair "ours" "$2" "$3" "$4"
}

peer_svg= peer_fold= peer_text=
if [ -n "$inferno" ]; then
	peer_svg="perf script -i '$data' 2>/dev/null | inferno-collapse-perf | inferno-flamegraph"
	peer_fold="perf script -i '$data' 2>/dev/null | inferno-collapse-perf"
	peer_text="inferno-collapse-perf '$text'"
else
	echo "inferno-collapse-perf: not on PATH, its rows skipped (../shared/tools/build-peers.sh builds it)"
fi
job "perf.data -> SVG: spaa-flamegraph perf.data | perf script | inferno-collapse-perf | inferno-flamegraph" 0.20 \
	"'$CMD/spaa-flamegraph' '$data'" "$peer_svg"
job "perf.data -> folded: spaa-fold perf.data | perf script | inferno-collapse-perf" 0.20 \
	"'$CMD/spaa-fold' '$data'" "$peer_fold"
job "perf.data -> table: spaa-top perf.data | perf report --stdio --no-children -g none" 0.35 \
	"'$CMD/spaa-top' '$data'" "perf report --stdio --no-children -g none -i '$data' 2>/dev/null"
job "perf text -> folded: spaa-fold perf.txt | inferno-collapse-perf perf.txt (goal also RSS <= 80 MB)" 0.8 \
	"'$CMD/spaa-fold' '$text'" "$peer_text"

jobs="1 2"
[ "$cores" -gt 2 ] && jobs="$jobs $cores"
# the text capture as SPAA (made once): a large SPAA file read on the threads
spaa=$OUT/perftext-25.spaa
[ -s "$spaa" ] || "$CMD/perf2spaa" "$text" > "$spaa"
# curve TITLE CMD FILE: CMD -j N FILE at each N of $jobs, the runs
# alternated (each round runs every -j once, every other round in the
# reverse order, so that a load on the machine, or a drift in its speed,
# falls on all); the rows, and the ratio at -j 2 to -j 1 with the goal: of
# the medians, and the median of each round's own ratio (its two runs a
# second apart: the figure a machine whose speed wanders from minute to
# minute, as a shared virtual one does, blurs least; the goal is judged on
# it)
curve() {
	echo "threads: $1 (goal at -j 2: wall <= 0.6x, CPU <= 1.25x of -j 1)"
	for _j in $jobs; do : > "$OUT/j$_j.txt"; done
	_back=$(echo $jobs | tr ' ' '\n' | sort -rn | tr '\n' ' ')
	_i=0
	while [ $_i -lt "$RUNS" ]; do
		_i=$((_i + 1))
		_order=$jobs
		[ $((_i % 2)) -eq 1 ] || _order=$_back
		for _j in $_order; do timed "'$CMD/$2' -j $_j '$3'" >> "$OUT/j$_j.txt"; done
	done
	# (each round's ratios, before the rows take the files)
	paste -d ' ' "$OUT/j1.txt" "$OUT/j2.txt" | awk '{ print $4 / $1, $5 / $2 }' > "$OUT/r.txt"
	for _j in $jobs; do
		set -- "$1" "$2" "$3" $(awk '{ print $1 }' "$OUT/j$_j.txt" | spread) \
			$(awk '{ print $2 }' "$OUT/j$_j.txt" | spread) \
			"$(awk '{ if ($3 > m) m = $3 } END { print m + 0 }' "$OUT/j$_j.txt")"
		printf '  %-52s wall %6.3f s (%.3f..%.3f)  CPU %6.3f s (%.3f..%.3f)  RSS %d MB\n' \
			"$2 -j $_j" "$4" "$5" "$6" "$7" "$8" "$9" $((${10} / 1024))
		eval "_w$_j=$4 _c$_j=$7"
		rm -f "$OUT/j$_j.txt"
	done
	set -- $(awk '{ print $1 }' "$OUT/r.txt" | spread) $(awk '{ print $2 }' "$OUT/r.txt" | spread)
	awk -v w1="$_w1" -v c1="$_c1" -v w2="$_w2" -v c2="$_c2" -v pw="$1" -v pwl="$2" -v pwh="$3" \
	    -v pc="$4" -v pcl="$5" -v pch="$6" 'BEGIN {
		printf "  ratio at -j 2: of the medians wall %.2fx, CPU %.2fx; round by round wall %.2fx (%.2f..%.2f), CPU %.2fx (%.2f..%.2f) (goal 0.6x wall, 1.25x CPU): %s\n",
			w2 / w1, c2 / c1, pw, pwl, pwh, pc, pcl, pch, pw <= 0.6 && pc <= 1.25 ? "met" : "NOT met" }'
	rm -f "$OUT/r.txt"
}
curve "perf2spaa perf.data" perf2spaa "$data"
curve "perf2spaa perf.txt" perf2spaa "$text"
# dwarf unwinding: BENCH_PERFDWARF, else the capture bench/perfdata.sh records
dwarf=${BENCH_PERFDWARF:-$OUT/dwarf.perf.data}
if [ -s "$dwarf" ]; then
	curve "perf2spaa, dwarf capture" perf2spaa "$dwarf"
else
	echo "no dwarf capture (bench/perfdata.sh records one, or BENCH_PERFDWARF=FILE): its row skipped"
fi
curve "spaa-fold perf.data" spaa-fold "$data"
curve "spaa-fold perf.txt" spaa-fold "$text"
curve "spaa-top perf.data" spaa-top "$data"
curve "spaa-fold SPAA ($(($(wc -c < "$spaa") >> 20)) MB)" spaa-fold "$spaa"
curve "spaa-flamegraph SPAA" spaa-flamegraph "$spaa"
curve "spaa-top SPAA" spaa-top "$spaa"
rm -f "$OUT/t.txt" "$OUT/err.txt" "$OUT/a.txt" "$OUT/b.txt"
