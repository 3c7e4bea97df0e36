#!/bin/sh
# bench/valgrind.sh CMD_DIR - valgrind2spaa next to valgrind's own readers on
# the same real files: callgrind_annotate on a callgrind profile and ms_print
# on a massif profile of a real, large program (GCC's cc1 compiling
# common/formats/spans.c of this project at -O2: thousands of functions and call
# sites), and DHAT's JSON of the same run (DHAT has no command-line reader).
# The files are made once into bench/out.  Called by `make bench`.
#
# Each command runs BENCH_RUNS times (default 5) with its output thrown away;
# printed are the median CPU time (user + sys) with the spread (min..max),
# MB/s of input per CPU second, and the peak RSS of the last run.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"

cc1=$(cc -print-prog-name=cc1)
# cc1 run alone has none of the driver's system include directories: the
# multiarch one (bits/*.h) given as the driver gives it
arch=$(cc -print-multiarch)
src=$HERE/../common/formats/spans.c
cg=$OUT/callgrind.out
ms=$OUT/massif.out
dh=$OUT/dhat.out
[ -s "$cg" ] || valgrind --tool=callgrind --callgrind-out-file="$cg" "$cc1" -quiet -O2 ${arch:+-imultiarch "$arch"} $INC -I"$HERE/.." "$src" -o /dev/null 2>/dev/null
[ -s "$ms" ] || valgrind --tool=massif --massif-out-file="$ms" "$cc1" -quiet -O2 ${arch:+-imultiarch "$arch"} $INC -I"$HERE/.." "$src" -o /dev/null 2>/dev/null
[ -s "$dh" ] || valgrind --tool=dhat --dhat-out-file="$dh" "$cc1" -quiet -O2 ${arch:+-imultiarch "$arch"} $INC -I"$HERE/.." "$src" -o /dev/null 2>/dev/null

echo "valgrind (median of $RUNS, CPU seconds)"
bench_row "valgrind2spaa (callgrind)" "$cg" "$CMD/valgrind2spaa" "$cg"
bench_row "callgrind_annotate" "$cg" callgrind_annotate --auto=no "$cg"
bench_row "callgrind_annotate --inclusive=yes" "$cg" callgrind_annotate --auto=no --inclusive=yes "$cg"
bench_row "valgrind2spaa (massif)" "$ms" "$CMD/valgrind2spaa" "$ms"
bench_row "valgrind2spaa --all-snapshots" "$ms" "$CMD/valgrind2spaa" --all-snapshots "$ms"
bench_row "ms_print" "$ms" ms_print "$ms"
bench_row "valgrind2spaa (DHAT)" "$dh" "$CMD/valgrind2spaa" "$dh"
