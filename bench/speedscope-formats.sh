#!/bin/sh
# bench/speedscope-formats.sh CMD_DIR - the formats read as speedscope reads
# them that have no command-line tool of their own in Debian to compare with
# (GHC is in Debian, but its profiler writes reports and has no converter;
# Hermes and Safari's Web Inspector are not): ghcprof2spaa on a generated
# GHC JSON profile (+RTS -pj) and the same as a -P text report, chrome2spaa on
# a generated Hermes trace (samples and stackFrames), safari2spaa on a
# generated Safari timeline recording, next to `wc -w`
# (C.UTF-8) on the same files.  The files are made once by
# bench/gen-speedscope-formats.py (fixed seed).
#
# Each command runs BENCH_RUNS times (default 5) with its output thrown away;
# printed are the median CPU time (user + sys) with the spread (min..max),
# MB/s of input per CPU second, and the peak RSS of the last run.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"
export LC_ALL=C

gen() { # FILE KIND N
	if [ ! -s "$1" ] || [ "$HERE/gen-speedscope-formats.py" -nt "$1" ]; then
		echo "generating $(basename "$1")..." >&2
		python3 "$HERE/gen-speedscope-formats.py" "$2" "$3" > "$1.tmp"
		mv "$1.tmp" "$1"
	fi
}
gen "$OUT/ghc-300k.json" ghc-json 300000
[ -s "$OUT/ghc-300k.prof" ] && [ "$OUT/ghc-300k.prof" -nt "$OUT/ghc-300k.json" ] ||
	python3 "$HERE/../tests/data/ghcprof/to-text.py" --ticks "$OUT/ghc-300k.json" > "$OUT/ghc-300k.prof"
gen "$OUT/hermes-1m.json" hermes 1000000
gen "$OUT/safari-200k.json" safari 200000

echo "speedscope's other formats (median of $RUNS, CPU seconds)"
bench_row "ghcprof2spaa (JSON, 300k nodes)" "$OUT/ghc-300k.json" "$CMD/ghcprof2spaa" "$OUT/ghc-300k.json"
bench_row "ghcprof2spaa (-P text, 300k nodes)" "$OUT/ghc-300k.prof" "$CMD/ghcprof2spaa" "$OUT/ghc-300k.prof"
bench_row "wc -w (-P text)" "$OUT/ghc-300k.prof" env LC_ALL=C.UTF-8 wc -w "$OUT/ghc-300k.prof"
bench_row "chrome2spaa (Hermes, 1M samples)" "$OUT/hermes-1m.json" "$CMD/chrome2spaa" "$OUT/hermes-1m.json"
bench_row "wc -w (Hermes)" "$OUT/hermes-1m.json" env LC_ALL=C.UTF-8 wc -w "$OUT/hermes-1m.json"
bench_row "safari2spaa (200k samples)" "$OUT/safari-200k.json" "$CMD/safari2spaa" "$OUT/safari-200k.json"
bench_row "wc -w (Safari)" "$OUT/safari-200k.json" env LC_ALL=C.UTF-8 wc -w "$OUT/safari-200k.json"
