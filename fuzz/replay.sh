#!/bin/sh
# fuzz/replay.sh - every fuzz seed and every crash reproducer, through the
# commands of a sanitizer build (.ci/run calls it with SPAA_BUILDDIR set to
# the ASan+UBSan build).  A command may accept or refuse an input (exit 0, 1
# or 2); it must not crash (signal) or make a sanitizer speak.
#   fuzz/seeds/spaa/, fuzz/crashes/spaa/     SPAA: spaa-validate, spaa-fold,
#                                            spaa-cat --merge, spaa-top, spaa-stat,
#                                            spaa-demangle,
#                                            spaa-flamegraph (and --flamechart),
#                                            spaa2speedscope -s
#   fuzz/seeds/symtab/                       spaa-symbolize --kallsyms=FILE
#   fuzz/seeds/folded2spaa/ (and crashes/)   folded2spaa, and spaa-flamegraph
#   fuzz/seeds/CMD/, fuzz/crashes/CMD/       the converter CMD, with and
#                                            without --samples (perf2spaa: an
#                                            input with "%%data%%" markers also
#                                            as the --threads directory
#                                            fuzz_cmd.c makes of it)
#   fuzz/seeds/spaa/, fuzz/crashes/spaa2pprof/, fuzz/crashes/spaa-symbolize/
#                                            spaa2pprof, and spaa-symbolize
#                                            under an empty --root (and, for
#                                            its crashes, without)
#   fuzz/seeds/spaa-heapdiff/ (and crashes/) spaa-heapdiff BEFORE AFTER: the
#                                            file split at a line "%%" (none:
#                                            the file is both)
# Usage: SPAA_BUILDDIR=DIR sh fuzz/replay.sh   (from the top of the sources)
set -u
B=${SPAA_BUILDDIR:?set SPAA_BUILDDIR to a build directory}/cmd
here=$(cd "$(dirname "$0")" && pwd)
export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
err=$(mktemp)
root=$(mktemp -d) # spaa-symbolize's --root: empty, no ELF file is read
trap 'rm -rf "$err" "$err.before" "$err.after" "$err.dir"; rmdir "$root"' EXIT
runs=0 bad=0
check() { # check FILE CMD ARGS...: runs CMD ARGS FILE
	f=$1; shift
	"$B/$1" "$@" "$f" > /dev/null 2> "$err" < /dev/null
	rc=$?
	runs=$((runs + 1))
	if [ $rc -gt 2 ] || grep -q 'runtime error\|AddressSanitizer\|LeakSanitizer' "$err"; then
		bad=$((bad + 1))
		echo "replay: $*: $f: exit $rc" >&2
		head -n 20 "$err" >&2
	fi
}
for dir in "$here"/seeds/* "$here"/crashes/*; do
	[ -d "$dir" ] || continue
	name=$(basename "$dir")
	for f in "$dir"/*; do
		[ -f "$f" ] || continue
		case $name in
		spaa)
			check "$f" spaa-validate -q
			check "$f" spaa-fold
			check "$f" spaa-cat --merge -o /dev/null
			check "$f" spaa-top
			check "$f" spaa-stat
			check "$f" spaa-demangle -o /dev/null
			check "$f" spaa-flamegraph
			check "$f" spaa-flamegraph --flamechart
			check "$f" spaa2speedscope -s -o /dev/null
			check "$f" spaa2pprof -o /dev/null
			check "$f" spaa-symbolize --root="$root" --kallsyms=none --perf-map="$root" -o /dev/null ;;
		spaa2pprof)
			check "$f" spaa2pprof -o /dev/null ;;
		spaa-symbolize) # and without a root: dsos that are no regular file
			check "$f" spaa-symbolize --root="$root" --kallsyms=none --perf-map="$root" -o /dev/null
			check "$f" spaa-symbolize --kallsyms=none --perf-map="$root" -o /dev/null ;;
		spaa-heapdiff)
			if grep -q '^%%$' "$f"; then
				sed '/^%%$/,$d' "$f" > "$err.before"
				sed '1,/^%%$/d' "$f" > "$err.after"
			else
				cp "$f" "$err.before" && cp "$f" "$err.after"
			fi
			check "$err.after" spaa-heapdiff -o /dev/null "$err.before" ;;
		symtab) # the file without its selector byte, as a kallsyms list
			tail -c +2 "$f" > "$err.in"
			check "$here/../examples/parser.spaa" spaa-symbolize --kallsyms="$err.in" -o /dev/null
			rm -f "$err.in" ;;
		perf2spaa) # and an input with "%%data%%" markers as the --threads
			   # directory fuzz_cmd.c makes of it: data, data.0, ...
			check "$f" "$name" -o /dev/null
			check "$f" "$name" --samples -o /dev/null
			if grep -q '%%data%%' "$f"; then
				rm -rf "$err.dir" && mkdir "$err.dir"
				python3 -c 'import sys
parts = open(sys.argv[1], "rb").read().split(b"%%data%%")[:16]
for i, p in enumerate(parts):
    open(sys.argv[2] + ("/data" if i == 0 else "/data.%d" % (i - 1)), "wb").write(p)' "$f" "$err.dir"
				check "$err.dir" "$name" -o /dev/null
				check "$err.dir" "$name" --samples -o /dev/null
				rm -rf "$err.dir"
			fi ;;
		folded2spaa)
			check "$f" "$name" -o /dev/null
			check "$f" "$name" --samples -o /dev/null
			check "$f" spaa-flamegraph
			check "$f" spaa-flamegraph --reverse --colors=kind ;;
		*)
			check "$f" "$name" -o /dev/null
			check "$f" "$name" --samples -o /dev/null ;;
		esac
	done
done
echo "replay: $runs runs, $bad failed"
[ "$bad" -eq 0 ]
