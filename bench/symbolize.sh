#!/bin/sh
# bench/symbolize.sh CMD_DIR - spaa-symbolize against spaa-cat on a large
# profile whose frames are only addresses (the target: less than 2x spaa-cat).
#
# Picks 20 ELF files of this machine that have function symbols (programs of
# /usr/bin and libraries of /usr/lib/x86_64-linux-gnu) and 500 addresses in
# the functions of each (10,000 distinct addresses), then generates, once,
# bench/out/symbolize.spaa (about 200 MB: 150000 stacks of 12 to 48 of those
# frames, 1000000 samples) with bench/gen-symbolize.c.  Each command reads it
# with its output thrown away, BENCH_RUNS times (default 5); the median and
# the spread (min-max) of the wall times are printed.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"
LIB=$CMD/../common/libspaa.a
export LC_ALL=C

if [ ! -x "$OUT/gen-symbolize" ] || [ "$HERE/gen-symbolize.c" -nt "$OUT/gen-symbolize" ]; then
	${CC:-cc} -O2 -I"$HERE/../common" -o "$OUT/gen-symbolize" "$HERE/gen-symbolize.c" "$LIB"
fi
F=$OUT/symbolize.spaa
if [ ! -s "$F" ] || [ "$HERE/gen-symbolize.c" -nt "$F" ]; then
	echo "picking addresses and generating $(basename "$F")..." >&2
	: > "$OUT/addrs.txt"
	n=0
	for f in /usr/bin/* /usr/lib/x86_64-linux-gnu/*.so*; do
		[ "$n" -lt 20 ] || break
		[ -f "$f" ] && [ ! -L "$f" ] || continue
		head -c 4 "$f" 2>/dev/null | grep -q 'ELF' || continue
		# defined functions with a size: "VALUE SIZE TYPE NAME"
		nm -D -S --defined-only "$f" 2>/dev/null |
			awk 'NF == 4 && ($3 == "T" || $3 == "t" || $3 == "W") { print $1, $2 }' >"$OUT/syms.txt" || true
		[ "$(wc -l <"$OUT/syms.txt")" -ge 500 ] || continue
		# 500 functions spread over the file, an address inside each
		awk -v f="$f" -v total="$(wc -l <"$OUT/syms.txt")" '
			function hex(s,   i, v, c) { v = 0; for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }; return v }
			NR % int(total / 500) == 0 && k < 500 { a = hex($1); sz = hex($2); printf "%s 0x%x\n", f, a + (NR * 7) % sz; k++ }
		' "$OUT/syms.txt" >>"$OUT/addrs.txt"
		n=$((n + 1))
	done
	echo "$(wc -l <"$OUT/addrs.txt") addresses in $n files" >&2
	"$OUT/gen-symbolize" <"$OUT/addrs.txt" >"$F.tmp"
	mv "$F.tmp" "$F"
fi

# timeit COMMAND...: the wall time of each of RUNS runs, one a line
timeit() {
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		s=$(date +%s.%N)
		"$@" >/dev/null
		e=$(date +%s.%N)
		echo "$s $e" | awk '{ printf "%.3f\n", $2 - $1 }'
		i=$((i + 1))
	done
}
size=$(wc -c <"$F")
printf 'file: %s, %d MB\n' "$(basename "$F")" $((size / 1000000))
cat_t=$(timeit "$CMD/spaa-cat" "$F" | spread)
sym_t=$(timeit "$CMD/spaa-symbolize" "$F" | spread)
printf '%-16s median %ss (min %ss, max %ss)\n' spaa-cat $cat_t | awk '{ print }'
set -- $cat_t
cm=$1
printf '%-16s median %ss (min %ss, max %ss)\n' spaa-symbolize $sym_t
set -- $sym_t
echo "$1 $cm" | awk '{ r = $1 / $2; printf "spaa-symbolize / spaa-cat: %.2fx (target < 2x)%s\n", r, r < 2 ? "" : "  ** over target **" }'
"$CMD/spaa-symbolize" --verbose "$F" 2>&1 >/dev/null | awk '{ print "  " $0 }' | head -n 25
