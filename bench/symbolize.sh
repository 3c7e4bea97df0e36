#!/bin/sh
# bench/symbolize.sh CMD_DIR - spaa-symbolize against spaa-cat on a large
# profile whose frames are only addresses (the target: less than 2x spaa-cat),
# then against addr2line -f -i and eu-addr2line -f -i per address on an
# -O2 -g program (issue 18 item 4: at or below addr2line).
#
# Picks 20 ELF files of this machine that have function symbols (programs of
# /usr/bin and libraries of /usr/lib/x86_64-linux-gnu) and 500 addresses in
# the functions of each (10,000 distinct addresses), then generates, once,
# bench/out/symbolize.spaa (about 200 MB: 150000 stacks of 12 to 48 of those
# frames, 1000000 samples) with bench/gen-symbolize.c.  Each command reads it
# with its output thrown away, BENCH_RUNS times (default 5); the median and
# the spread (min-max) of the CPU times (user + sys) are printed.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"
LIB=$CMD/../common/libspaa.a
export LC_ALL=C

if [ ! -x "$OUT/gen-symbolize" ] || [ "$HERE/gen-symbolize.c" -nt "$OUT/gen-symbolize" ]; then
	${CC:-cc} -O2 $INC -o "$OUT/gen-symbolize" "$HERE/gen-symbolize.c" "$LIB"
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

size=$(wc -c <"$F")
printf 'file: %s, %d MB, CPU time (user + sys)\n' "$(basename "$F")" $((size / 1000000))
set -- $(bench_cpu "$CMD/spaa-cat" "$F")
cm=$1
printf '%-16s median %ss (min %ss, max %ss)\n' spaa-cat "$1" "$2" "$3"
set -- $(bench_cpu "$CMD/spaa-symbolize" "$F")
printf '%-16s median %ss (min %ss, max %ss)\n' spaa-symbolize "$1" "$2" "$3"
echo "$1 $cm" | awk '{ r = $1 / $2; printf "spaa-symbolize / spaa-cat: %.2fx (target < 2x)%s\n", r, r < 2 ? "" : "  ** over target **" }'
"$CMD/spaa-symbolize" --verbose "$F" 2>&1 >/dev/null | awk '{ print "  " $0 }' | head -n 25

# ---- per address, with DWARF: against addr2line and eu-addr2line ----------
#
# The program: a copy of CMD_DIR/any2spaa (the converters linked into one,
# about 100,000 instructions; -O2 -g as configure builds it), made once as
# bench/out/dwarf-prog.  The addresses: every instruction of its functions,
# the first 100,000, in an order shuffled once (as a profile meets them;
# addr2line is three times faster on sorted addresses), one frame each in
# bench/out/dwarf.spaa (10,000 stacks of them, 100,000 samples).  CPU time
# (user + sys) per address, median (min..max) of RUNS runs: spaa-symbolize,
# spaa-cat on the same file (the SPAA reading and writing share),
# bench/elfsym-lookup.c (common/perf/elfsym's look-ups alone, printed as addr2line
# prints them: the perf.data path's share), addr2line -f -i on the
# addresses, eu-addr2line -f -i on 2,000 of them (it takes about 0.5 ms an
# address).
P=$OUT/dwarf-prog
D=$OUT/dwarf.spaa
if [ ! -s "$D" ] || [ "$HERE/gen-symbolize.c" -nt "$D" ] || [ ! -x "$P" ]; then
	readelf -S "$CMD/any2spaa" | grep -q '\.debug_info' || { echo "$CMD/any2spaa has no DWARF: build with -g" >&2; exit 1; }
	cp "$CMD/any2spaa" "$P"
	objdump -d --no-show-raw-insn "$P" |
		awk '/^ *[0-9a-f]+:/ { sub(":", "", $1); print "0x" $1 }' | head -n 100000 |
		awk 'BEGIN { srand(42) } { print rand(), $0 }' | sort -n | cut -d' ' -f2 >"$OUT/dwarf-addrs.txt"
	head -n 2000 "$OUT/dwarf-addrs.txt" >"$OUT/dwarf-addrs2k.txt"
	sed "s|^|$P |" "$OUT/dwarf-addrs.txt" | "$OUT/gen-symbolize" 100000 10000 >"$D.tmp"
	mv "$D.tmp" "$D"
fi
if [ ! -x "$OUT/elfsym-lookup" ] || [ "$HERE/elfsym-lookup.c" -nt "$OUT/elfsym-lookup" ] ||
	[ "$HERE/../common/perf/elfsym.c" -nt "$OUT/elfsym-lookup" ]; then
	${CC:-cc} -O2 $INC -o "$OUT/elfsym-lookup" "$HERE/elfsym-lookup.c" "$HERE/../common/perf/elfsym.c" \
		"$LIB" -ldw -lelf -lzstd -lz -lm
fi
n=$(wc -l <"$OUT/dwarf-addrs.txt")
# row NAME ADDRESSES COMMAND...: CPU seconds and microseconds per address
row() {
	_name=$1 _n=$2
	shift 2
	set -- $(bench_cpu "$@")
	awk -v nm="$_name" -v n="$_n" -v m="$1" -v lo="$2" -v hi="$3" -v rss="$4" 'BEGIN {
		printf "%-24s %6.3f s (%.3f..%.3f)  %6.2f us/address (%.2f..%.2f), RSS %d MB\n",
			nm, m, lo, hi, m / n * 1e6, lo / n * 1e6, hi / n * 1e6, rss / 1024 }'
}
printf '\nDWARF: %d addresses of %s (-O2 -g), CPU time\n' "$n" "$(basename "$P")"
row spaa-symbolize "$n" "$CMD/spaa-symbolize" "$D"
row "  spaa-cat (SPAA i/o)" "$n" "$CMD/spaa-cat" "$D"
row "  elfsym look-ups alone" "$n" sh -c '"$1" "$2" <"$3"' - "$OUT/elfsym-lookup" "$P" "$OUT/dwarf-addrs.txt"
row "addr2line -f -i" "$n" sh -c 'addr2line -f -i -e "$1" <"$2"' - "$P" "$OUT/dwarf-addrs.txt"
RUNS=1 row "eu-addr2line -f -i" 2000 sh -c 'eu-addr2line -f -i -e "$1" <"$2"; true' - "$P" "$OUT/dwarf-addrs2k.txt"
