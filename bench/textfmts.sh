#!/bin/sh
# bench/textfmts.sh CMD_DIR - instruments2spaa and pmcstat2spaa on large
# generated inputs: the stacks of the real capture (bench/data/build.perf.txt.zst,
# a system-wide perf capture of a build, 25034 distinct stacks up to 128 frames)
# four times over, laid out as an Instruments deep copy (a 20 MB call tree) and
# as a pmcstat callgraph (23 MB) by bench/gen-textfmts.py; next to folded2spaa
# on the same stacks folded and `wc -w` (C.UTF-8) on each file; the RSS of a
# file read four times shows memory does not grow with the input.  Neither Instruments
# (macOS) nor pmcstat (FreeBSD) is in Debian, and speedscope imports them in
# the browser only: there is no original tool to compare with.
#
# Each command runs BENCH_RUNS times (default 5) with its output thrown away;
# printed are the median CPU time (user + sys) with the spread (min..max),
# MB/s of input per CPU second, and the peak RSS of the last run.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"
export LC_ALL=C

folded=$OUT/textfmts.folded
[ -s "$folded" ] || zstd -dc "$HERE/data/build.perf.txt.zst" | "$CMD/perf2spaa" | "$CMD/spaa-fold" --raw -m samples > "$folded"
for m in instruments pmcstat; do
	f=$OUT/textfmts-$m.txt
	[ -s "$f" ] && [ "$f" -nt "$HERE/gen-textfmts.py" ] || python3 "$HERE/gen-textfmts.py" $m 4 < "$folded" > "$f"
done
big=$OUT/textfmts-4x.folded
[ -s "$big" ] || awk '{ for (k = 0; k < 4; k++) { l = $0; sub(/;/, "#" k ";", l); print l } }' "$folded" > "$big"

I=$OUT/textfmts-instruments.txt
P=$OUT/textfmts-pmcstat.txt
echo "Instruments deep copies and pmcstat callgraphs (median of $RUNS, CPU seconds)"
bench_row "instruments2spaa" "$I" "$CMD/instruments2spaa" "$I"
bench_row "instruments2spaa --derive-self" "$I" "$CMD/instruments2spaa" --derive-self "$I"
bench_row "wc -w (deep copy)" "$I" env LC_ALL=C.UTF-8 wc -w "$I"
bench_row "pmcstat2spaa" "$P" "$CMD/pmcstat2spaa" "$P"
bench_row "wc -w (callgraph)" "$P" env LC_ALL=C.UTF-8 wc -w "$P"
# streaming: the same file read 4 times (the same stacks): RSS stays
bench_row_bytes "instruments2spaa (x4, same stacks)" $(($(wc -c < "$I") * 4)) "$CMD/instruments2spaa" "$I" "$I" "$I" "$I"
bench_row_bytes "pmcstat2spaa (x4, same stacks)" $(($(wc -c < "$P") * 4)) "$CMD/pmcstat2spaa" "$P" "$P" "$P" "$P"
bench_row "folded2spaa (the same stacks)" "$big" "$CMD/folded2spaa" "$big"
