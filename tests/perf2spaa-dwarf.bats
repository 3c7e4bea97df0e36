#!/usr/bin/env bats
# perf2spaa reading `perf record --call-graph dwarf` captures itself: the
# user stacks unwound from the saved registers and stack (common/perf/unwind.c)
# against `perf script`'s own unwinding of the same file.  Real captures,
# made here (as root, with perf) of a program built -O2 -g without frame
# pointers, so that only the CFI can unwind it; skipped where perf cannot
# record.
load common

setup_file() {
	local d=$BATS_FILE_TMPDIR
	cc -O2 -g -fomit-frame-pointer -fPIC -shared -o "$d/liblib.so" "$D/unwind/lib.c" &&
		cc -O2 -g -fomit-frame-pointer -o "$d/prog" "$D/unwind/prog.c" -L"$d" -llib -Wl,-rpath,"$d" ||
		return 1
	if perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$d/perf.data" "$d/prog" 150 \
		> /dev/null 2> "$d/record.err"; then
		perf script -i "$d/perf.data" > "$d/perf.txt" 2> /dev/null
		perf script --no-inline -i "$d/perf.data" > "$d/perf-noinline.txt" 2> /dev/null
	fi
	# a saved stack of 1 KB: deep stacks cut; pipe mode (perf record -o -)
	if perf record -q -e cpu-clock -F 2000 --call-graph dwarf,1024 -o "$d/cut.data" "$d/prog" 100 \
		> /dev/null 2>> "$d/record.err"; then
		perf script --no-inline -i "$d/cut.data" > "$d/cut.txt" 2> /dev/null
	fi
	if perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o - "$d/prog" 100 > "$d/pipe.data" 2>> "$d/record.err"; then
		perf script --no-inline -i "$d/pipe.data" > "$d/pipe.txt" 2> /dev/null
	fi
	cc -O2 -g -fomit-frame-pointer -o "$d/vdso" "$D/unwind/vdso.c" || return 1
	if perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$d/vdso.data" "$d/vdso" \
		> /dev/null 2>> "$d/record.err"; then
		perf script --no-inline -i "$d/vdso.data" > "$d/vdso.txt" 2> /dev/null
	fi
}

# record_sys: $T/sys.data, a system-wide dwarf capture of the test program
# and a compilation, or the test is skipped; $T/tids, their threads
# (workload_tids): what else ran on the machine is left out of the
# comparisons
record_sys() {
	perf record -q -a -F 1000 -e cpu-clock --call-graph dwarf -o "$T/sys.data" -- \
		sh -c "echo \$\$ > '$T/root.pid'; '$BATS_FILE_TMPDIR/prog' 100 & cc -O2 -c -o '$T/x.o' '$D/unwind/epilogue.c'; wait" > /dev/null 2>&1 ||
		skip "perf cannot record system-wide here"
	workload_tids "$T/sys.data" "$T/root.pid" > "$T/tids" || fail "no sample of the test's processes in the capture"
}

need_capture() {
	[ -s "$BATS_FILE_TMPDIR/perf.txt" ] ||
		skip "perf record --call-graph dwarf does not work here: $(head -n 1 "$BATS_FILE_TMPDIR/record.err")"
}

# The stacks of SPAA profile $1 by the addresses of their physical frames
# ("ip;ip;... samples", root first, summed over contexts): what unwinding
# gives, whatever the names.
# ($2 "user": their user frames only; "vdso": the frames in the [vdso] as
# one, 0x0.)
ip_fold() {
	jq -r -n --arg only "${2:-}" '[inputs] | (map(select(.type == "frame")) | map({key: (.id | tostring), value: .}) | from_entries) as $f
		| (map(select(.type == "dso")) | map({key: (.id | tostring), value: .name}) | from_entries) as $d
		| .[] | select(.type == "stack")
		| ([.frames[] | $f[tostring] | select(.inlined != true) | select($only != "user" or .kind != "kernel")
		    | if $only == "vdso" and $d[.dso | tostring] == "[vdso]" then "0x0" else .ip end]
		   | reverse | join(";")) + " "
		  + (.weights[] | select(.metric == "samples") | .value | tostring)' "$1" |
		awk '{ w = $NF; sub(/ [0-9]+$/, ""); s[$0] += w } END { for (k in s) print k, s[k] }' | sort
}

# The share of the weight of folded file $1 that $2 has on the same lines,
# in parts per million (1000000: the same lines with the same weights).
same_weight_ppm() {
	awk 'NR == FNR { w = $NF; sub(/ [0-9]+$/, ""); a[$0] += w; tot += w; next }
	     { w = $NF; sub(/ [0-9]+$/, ""); b[$0] += w }
	     END { for (k in a) { m = a[k] < b[k] ? a[k] : b[k]; s += m }
		   printf "%d\n", tot ? s * 1000000 / tot : 0 }' "$1" "$2"
}

@test "dwarf capture: the same stacks, address for address, as perf script --no-inline" {
	need_capture
	local d=$BATS_FILE_TMPDIR
	perf2spaa --no-inline "$d/perf.data" > "$T/binary.spaa"
	perf2spaa "$d/perf-noinline.txt" > "$T/text.spaa"
	ip_fold "$T/binary.spaa" > "$T/binary.ip"
	ip_fold "$T/text.spaa" > "$T/text.ip"
	diff "$T/text.ip" "$T/binary.ip"
	# deep ones among them: 40 recursive calls and more
	run awk '{ n = gsub(/;/, ";"); if (n > m) m = n } END { print m }' "$T/binary.ip"
	[ "$output" -gt 45 ]
}

# Binary and text path of capture $1 (perf.data $1.data, text $1.txt):
# the same stacks, address for address.
same_ips() {
	local d=$BATS_FILE_TMPDIR
	[ -s "$d/$1.txt" ] || skip "no $1 capture"
	perf2spaa --no-inline "$d/$1.data" > "$T/binary.spaa"
	perf2spaa "$d/$1.txt" > "$T/text.spaa"
	ip_fold "$T/binary.spaa" > "$T/binary.ip"
	ip_fold "$T/text.spaa" > "$T/text.ip"
	diff "$T/text.ip" "$T/binary.ip"
}

@test "dwarf capture of 1 KB stacks: cut where perf script cuts them, with its frame at 0xffffffffffffffff" {
	need_capture
	same_ips cut
	run grep -c '^0xffffffffffffffff;' "$T/binary.ip"
	[ "$output" -gt 0 ]
}

@test "dwarf capture in pipe mode (perf record -o -): the same stacks as perf script" {
	need_capture
	same_ips pipe
	run grep -c ';0x[0-9a-f]*;0x[0-9a-f]*;0x[0-9a-f]*;0x[0-9a-f]*;0x[0-9a-f]*;0x[0-9a-f]*;' "$T/binary.ip"
	[ "$output" -gt 0 ]
}

# The vdso program's stacks, text ($T/text.ip) and binary ($T/binary.ip),
# the same, except that a sample whose leaf is in the program's .plt may
# have another address there: one CI run of several had a sample land in
# the PLT's lazy binding of clock_gettime (0x1026, the jump of PLT0), which
# perf script printed as 0x1030 (the next entry); the stacks must then be the
# same up to that leaf, with the same weight.  Differences go to standard
# error.
same_vdso_ips() {
	diff "$T/text.ip" "$T/binary.ip" >&2 && return 0
	local plt
	plt=$(readelf -SW "$BATS_FILE_TMPDIR/vdso" | awk '$2 == ".plt" { print $4, $6 } $3 == ".plt" { print $5, $7 }')
	[ -n "$plt" ] || fail "the stacks differ, and the program has no .plt"
	local f
	for f in text binary; do
		python3 -c '
import sys
lo, size = (int(x, 16) for x in sys.argv[1].split())
s = {}
for line in open(sys.argv[2]):
    path, w = line.rsplit(" ", 1)
    ips = path.split(";")
    if lo <= int(ips[-1], 16) < lo + size:
        ips[-1] = "PLT"
    k = ";".join(ips)
    s[k] = s.get(k, 0) + int(w)
for k in sorted(s):
    print(k, s[k])
' "$plt" "$T/$f.ip" > "$T/$f.plt"
	done
	diff "$T/text.plt" "$T/binary.plt"
}

@test "dwarf capture: samples in the [vdso], unwound through perf's copy of it, as perf script does" {
	need_capture
	local d=$BATS_FILE_TMPDIR
	[ -s "$d/vdso.txt" ] || skip "no capture of the vdso program"
	perf2spaa --no-inline "$d/vdso.data" > "$T/binary.spaa"
	perf2spaa "$d/vdso.txt" > "$T/text.spaa"
	ip_fold "$T/binary.spaa" > "$T/binary.ip"
	ip_fold "$T/text.spaa" > "$T/text.ip"
	same_vdso_ips
	run spaa-fold "$T/binary.spaa"
	assert_output --regexp ';main;outer[^;]*;tick[^;]*;[^;]*clock_gettime[^;]*;__vdso_clock_gettime [0-9]+'
}

@test "dwarf capture: samples in the [vdso], no build-id cache: unwound through this process's vdso (the same build id), the vdso itself unnamed as perf script leaves it" {
	need_capture
	local d=$BATS_FILE_TMPDIR
	[ -s "$d/vdso.txt" ] || skip "no capture of the vdso program"
	mkdir "$T/home"
	HOME=$T/home perf2spaa --no-inline "$d/vdso.data" > "$T/binary.spaa"
	perf2spaa "$d/vdso.txt" > "$T/text.spaa"
	# the frames in the vdso as one (ip_fold vdso): named by perf script
	# with its cache (one frame, its first address), unnamed here (one
	# frame an address), as perf script without the cache leaves them; the
	# stacks through and beyond them are those of perf script with the
	# cache (perf script without it stops at the vdso)
	ip_fold "$T/binary.spaa" vdso > "$T/binary.ip"
	ip_fold "$T/text.spaa" vdso > "$T/text.ip"
	same_vdso_ips
	run grep -c ';clock_gettime@@GLIBC_2.17;\[\[vdso\]\] [0-9]*$' <(spaa-fold "$T/binary.spaa")
	[ "$output" -gt 0 ]
}

@test "dwarf capture: the program and its library moved under --symfs, no build-id cache: the same stacks" {
	need_capture
	mkdir -p "$T/p" "$T/home"
	cc -O2 -g -fomit-frame-pointer -fPIC -shared -o "$T/p/liblib.so" "$D/unwind/lib.c"
	cc -O2 -g -fomit-frame-pointer -o "$T/p/prog" "$D/unwind/prog.c" -L"$T/p" -llib -Wl,-rpath,"$T/p"
	perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$T/perf.data" "$T/p/prog" 40 > /dev/null 2>&1
	perf script --no-inline -i "$T/perf.data" 2> /dev/null | perf2spaa > "$T/text.spaa"
	mkdir -p "$T/root$T"
	mv "$T/p" "$T/root$T/p"
	# the system's libraries the capture maps and their debug files by
	# build id, copied in (a link to the host's /usr would resolve inside
	# the root, as after chroot(2))
	perf buildid-list -i "$T/perf.data" 2> /dev/null | awk '$2 ~ /^\/usr\// { print $1, $2 }' |
		while read -r b f; do
			mkdir -p "$T/root${f%/*}" && cp "$f" "$T/root$f"
			g=/usr/lib/debug/.build-id/${b:0:2}/${b:2}.debug
			[ ! -f "$g" ] || { mkdir -p "$T/root${g%/*}" && cp "$g" "$T/root$g"; }
		done
	# (no kallsyms under the root: kernel frames are unnamed, and their
	# addresses differ from the named ones')
	HOME=$T/home perf2spaa --no-inline -q --symfs="$T/root" "$T/perf.data" > "$T/binary.spaa"
	ip_fold "$T/binary.spaa" user > "$T/binary.ip"
	ip_fold "$T/text.spaa" user > "$T/text.ip"
	# the same stacks, but for a sample or two of the dynamic linker
	# starting the program (or perf's unwinder giving up where this one
	# goes on): runs on a loaded machine had one of some 150 differ there,
	# with perf2spaa of before this test's last change too
	diff "$T/text.ip" "$T/binary.ip" >&2 || true
	[ "$(same_weight_ppm "$T/text.ip" "$T/binary.ip")" -ge 980000 ]
	run spaa-fold "$T/binary.spaa"
	assert_output --partial ';main;recurse;recurse;'
}

@test "dwarf capture: perf2spaa perf.data | spaa-fold equals perf script --no-inline | perf2spaa | spaa-fold" {
	need_capture
	local d=$BATS_FILE_TMPDIR
	perf2spaa --no-inline "$d/perf.data" | spaa-fold > "$T/binary.folded"
	perf2spaa "$d/perf-noinline.txt" | spaa-fold > "$T/text.folded"
	if ! cmp -s "$T/binary.folded" "$T/text.folded"; then
		diff "$T/text.folded" "$T/binary.folded" | head -n 20
		# a leaf in the PLT's lazy binding (PLT0, which follows _init)
		# perf script prints at the next entry (see same_vdso_ips): the
		# leaf's name then differs, _init here, NAME@plt there
		local f
		for f in text binary; do
			plt_as_one < "$T/$f.folded" > "$T/$f.plt"
		done
		run same_weight_ppm "$T/text.plt" "$T/binary.plt"
		[ "$output" -ge 999000 ]
	fi
	# the stacks went through the program's own functions, its library and libc
	run grep -c ';main;recurse;recurse;.*;lib_work;lib_middle;lib_inner [0-9]*$' "$T/binary.folded"
	[ "$output" -gt 0 ]
	run grep -c ';recurse;sorter[^;]*;.*;cmp [0-9]*$' "$T/binary.folded"
	[ "$output" -gt 0 ]
}

@test "dwarf capture: every sample of the text path, same total weight" {
	need_capture
	local d=$BATS_FILE_TMPDIR
	perf2spaa --no-inline "$d/perf.data" | spaa-fold | awk '{ s += $NF } END { print s }' > "$T/b"
	perf2spaa "$d/perf.txt" | spaa-fold | awk '{ s += $NF } END { print s }' > "$T/t"
	assert_equal "$(cat "$T/b")" "$(cat "$T/t")"
}

# LBR call stacks: LBR is Intel hardware, so the capture is made by
# tests/data/unwind/mklbr.py from the program's symbols.
make_lbr() {
	python3 "$D/unwind/mklbr.py" "$BATS_FILE_TMPDIR/prog" "$T/lbr.data" "$@"
}

@test "lbr capture (made): the stitched stacks, as the perf script path gives them" {
	make_lbr
	perf2spaa --no-inline "$T/lbr.data" | spaa-fold > "$T/binary.folded"
	assert_file_eq "$T/binary.folded" <<'OUT'
prog;main;recurse;recurse;sorter.constprop.0;cmp 500000
prog;main;recurse;recurse;sorter.constprop.0;cmp;[unknown] 100000
prog;recurse;sorter.constprop.0;cmp 100000
OUT
	command -v perf > /dev/null || skip "no perf"
	perf script -i "$T/lbr.data" 2> /dev/null | perf2spaa | spaa-fold > "$T/text.folded"
	cmp "$T/text.folded" "$T/binary.folded"
}

@test "lbr capture (made): an empty branch stack keeps the callchain (perf script reads past it)" {
	make_lbr empty
	perf2spaa --no-inline "$T/lbr.data" | spaa-fold > "$T/binary.folded"
	assert_file_eq "$T/binary.folded" <<'OUT'
prog;main 100000
prog;main;recurse;recurse;sorter.constprop.0;cmp 500000
prog;main;recurse;recurse;sorter.constprop.0;cmp;[unknown] 100000
prog;recurse;sorter.constprop.0;cmp 100000
OUT
}

@test "dwarf samples of a 32-bit process: the sampled address alone, with a warning" {
	python3 "$D/unwind/abi32.py" "$BATS_TEST_DIRNAME/../fuzz/seeds/perf2spaa/dwarf.perf.data" "$T/abi32.data"
	perf2spaa --no-inline "$T/abi32.data" > "$T/o.spaa" 2> "$T/err"
	assert_file_eq "$T/err" <<OUT
perf2spaa: $T/abi32.data: warning: 3 samples of 32-bit processes: their user stacks are the sampled address alone
OUT
	# every stack one frame deep (samples by stack depth)
	jq -r 'select(.type == "stack") | "\(.frames | length) \(.weights[0].value)"' "$T/o.spaa" |
		awk '{ n[$1] += $2 } END { for (k in n) print k, n[k] }' > "$T/depths"
	assert_file_eq "$T/depths" <<'OUT'
1 3
OUT
}

@test "dwarf capture: samples at a ret after leave (the frame pointer popped, its save slot below the stack pointer) unwind through to main" {
	need_capture
	cc -O2 -g -fno-omit-frame-pointer -o "$T/epilogue" "$D/unwind/epilogue.c"
	perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$T/ep.data" "$T/epilogue" 100 > /dev/null 2>&1 ||
		skip "perf record failed"
	perf2spaa --no-inline "$T/ep.data" | spaa-fold | grep -v 'asm_\|_dl_start' > "$T/ep.fold" || true
	# every sample in step or loop went through main (they made the frame
	# pointer 0, and the stack [unknown]: epilogue;[unknown];loop;step)
	run grep -c ';loop' "$T/ep.fold"
	[ "$output" -ge 1 ]
	run sh -c "grep ';loop' '$T/ep.fold' | grep -v ';main;loop\(;step\)\? [0-9]*\$'"
	assert_output ''
}

@test "dwarf capture, system-wide: every sample differing from perf script is one the man page explains (perf's frame-pointer fallback), and the program's stacks reach main" {
	need_capture
	record_sys
	perf2spaa --no-inline -q -s "$T/sys.data" | workload_only "$T/tids" > "$T/bin.spaa"
	perf script --no-inline -i "$T/sys.data" 2> /dev/null | perf2spaa -q -s | workload_only "$T/tids" > "$T/txt.spaa"
	run python3 "$D/unwind/dwarfcmp.py" "$T/bin.spaa" "$T/txt.spaa" prog
	echo "$output"
	assert_success
	# "samples N same S early E garbage G skipped K named M unexplained U short P"
	set -- ${lines[0]}
	assert_equal "$1 $3 $5 $7 $9 ${11} ${13} ${15}" "samples same early garbage skipped named unexplained short"
	[ "$2" -gt 0 ]
	assert_equal "${14}" 0
	assert_equal "${16}" 0
	# a garbage frame that happens to fall in a function: rare (4 of 24600
	# samples on three captures of a quiet machine), not common as an
	# unwinding fault of ours would make it
	[ "${12}" -le $(($2 / 50 + 5)) ]
}

@test "dwarf capture: a caller whose CFA is rbx (as _dl_runtime_resolve), its callee not saving rbx: unwound through to main, as perf script does" {
	need_capture
	[ "$(uname -m)" = x86_64 ] || skip "the test program is x86_64 assembly"
	cc -O2 -g -o "$T/realign" "$D/unwind/realign.c"
	perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$T/rb.data" "$T/realign" 2000 > /dev/null 2>&1 ||
		skip "perf record failed"
	perf2spaa --no-inline "$T/rb.data" | spaa-fold > "$T/rb.fold"
	# libdwfl lost rbx in spin, whose CFI does not save it (elfutils'
	# x86_64 defaults take rax for call-saved, not rbx): realign;spin
	run grep -c ';realign;spin' "$T/rb.fold"
	[ "$output" -ge 1 ]
	run sh -c "grep ';realign' '$T/rb.fold' | grep -v 'asm_' | grep -v ';main;realign\(;spin\)\? [0-9]*\$'"
	assert_output ''
	perf script --no-inline -i "$T/rb.data" 2> /dev/null | perf2spaa | spaa-fold > "$T/rb-text.fold"
	run grep -c ';main;realign;spin [0-9]*$' "$T/rb-text.fold"
	[ "$output" -ge 1 ]
}

@test "dwarf capture of node (JIT code, its program file mapped twice): converted alike at -j 1 and -j 2, no fault" {
	need_capture
	command -v node >/dev/null || fail "node is not installed (.ci/deps installs nodejs)"
	printf '%s\n' 'function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }' \
		'let s = 0; for (let i = 0; i < 30; i++) s += fib(25); console.log(s)' > "$T/fib.js"
	# (in $T: node writes an isolate-*-v8.log where it runs)
	(cd "$T" && perf record -q -e cpu-clock --call-graph dwarf -o node.data node --perf-basic-prof fib.js > /dev/null 2>&1)
	# libdwfl frees a module it takes for an overlap (node's text mapped
	# a second time); the unwinder used to go on with it, and aborted
	run perf2spaa --no-inline -q -j 1 "$T/node.data"
	assert_success
	echo "$output" > "$T/j1.spaa"
	grep -q '"type":"stack"' "$T/j1.spaa"
	perf2spaa --no-inline -q -j 2 "$T/node.data" | cmp - "$T/j1.spaa"
}

@test "dwarf capture with dlopen and dlclose churn (libz and libm in turn, threads, an exec): stacks whole to clone3 or _start, where perf script cuts many; each debug file read once, not again for each new thread or mapping" {
	need_capture
	cat > "$T/churn.c" <<'EOC'
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>
static volatile double sink;
static void *spin(void *a) { for (int i = 0; i < 200000; i++) sink += i; return a; }
int main(int argc, char **argv)
{
	for (int k = 0; k < 150; k++) {
		void *h = dlopen(k % 2 ? "libm.so.6" : "libz.so.1", RTLD_NOW);
		if (h && k % 2) {
			double (*c)(double) = (double (*)(double))dlsym(h, "cos");
			for (int i = 0; i < 20000; i++) sink += c(i);
		}
		if (h) dlclose(h);
		pthread_t t;
		pthread_create(&t, NULL, spin, NULL);
		pthread_join(t, NULL);
	}
	if (argc < 2) execl(argv[0], argv[0], "again", (char *)0);
	return 0;
}
EOC
	cc -O2 -g -o "$T/churn" "$T/churn.c" -ldl -lpthread
	perf record -q --call-graph dwarf -e cpu-clock -o "$T/churn.data" "$T/churn" > /dev/null 2>&1 || fail "perf record failed"
	command -v strace > /dev/null || fail "strace is not installed (.ci/deps installs it)"
	strace -f -e trace=openat,open -o "$T/trace" perf2spaa --no-inline -q -j 1 "$T/churn.data" > "$T/churn.spaa"
	# the program's stacks reach its threads' first frame, all but 1%
	# (perf script's reach fewer: it loses the thread start, clone3, in
	# many of them).  Not counted: samples with no user stack (an exec
	# under way, a fault before the first instruction), a new thread the
	# instant it leaves clone3 (its stack is still empty: below clone3 lies
	# whatever the new stack holds, [anon]), and a library's start-up code
	# that dlopen runs (_init and crt's frame_dummy, built without CFI, so
	# not unwound: perf script stops there too; in libz, which has no
	# symbols, unnamed); how many of these a run has depends on the
	# machine's load
	spaa-fold --kernel "$T/churn.spaa" | awk '/^churn;/ && !/^churn;[^;]*_\[k\][; ]/ &&
			!/^churn;(_init|\[libz[^;]*\])(;[^;]*_\[k\])* [0-9]+$/ {
			t += $NF; if (/^churn;(clone3|_start|\[anon\];clone3)[; ]/) w += $NF }
		END { print (t && w * 100 >= t * 99) ? "whole" : w " of " t }' > "$T/reach"
	assert_equal "$(cat "$T/reach")" whole
	# a debug file is opened once for the names and once for the unwinding
	# (libc's, looked at for a .debug_frame at clone3's first instructions,
	# where .eh_frame ends): each new thread and each mapping change used to
	# start libdwfl afresh, and with it the decompression of the file's
	# DWARF (five times perf script's time)
	grep -E '\.debug", [^)]*\) = [0-9]+$' "$T/trace" | grep -o '"[^"]*"' | sort | uniq -c | awk '$1 > 2' > "$T/again"
	[ ! -s "$T/again" ] || fail "debug files opened again: $(cat "$T/again")"
}

@test "dwarf sample of an aarch64 program (made under qemu and gdb: tests/data/perf/aarch64): its registers in perf's arm64 numbers, unwound through every frame gdb shows (the return address in x30, on the stack, a CFA from x29)" {
	local d=$D/perf/aarch64
	run perf2spaa --no-inline --symfs="$d" "$d/perf.data"
	assert_success
	echo "$output" > "$T/a64.spaa"
	# gdb's call stack, root first
	awk '/^#/ { f[n++] = $4 } END { s = "prog"; while (n--) s = s ";" f[n]; print s " 1000000" }' "$d/gdb.txt" > "$T/gdb.fold"
	assert_equal "$(cat "$T/gdb.fold")" "prog;_start;outer;framed;middle;middle;middle;middle;leaf 1000000"
	spaa-fold "$T/a64.spaa" | cmp - "$T/gdb.fold"
}

@test "dwarf capture of a program whose only CFI is the compressed .debug_frame of its separate debug file (.gnu_debuglink): unwound through it to main (perf script gives the sampled frame alone); without the debug file, the sampled frame alone" {
	need_capture
	cat > "$T/df.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void leaf(long n) { for (long i = 0; i < n; i++) sink += (unsigned long)i * i; }
__attribute__((noinline)) void middle(long n) { leaf(n); sink++; }
__attribute__((noinline)) void outer(long n) { for (int k = 0; k < 50; k++) middle(n); sink++; }
int main(int argc, char **argv) { outer(argc > 1 ? atol(argv[1]) : 2000000); printf("%lu\n", sink); return 0; }
EOC
	mkdir "$T/df"
	cc -O2 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables -o "$T/df/df" "$T/df.c"
	objcopy --only-keep-debug --compress-debug-sections=zlib "$T/df/df" "$T/df/df.debug"
	strip -g "$T/df/df"
	objcopy --add-gnu-debuglink="$T/df/df.debug" "$T/df/df"
	readelf -S "$T/df/df.debug" | grep -A1 '\.debug_frame' | grep -q ' C ' || fail "objcopy did not compress .debug_frame"
	perf record -q -N --call-graph dwarf -e cpu-clock -o "$T/df.data" "$T/df/df" 2000000 > /dev/null 2>&1 || fail "perf record failed"
	perf2spaa --no-inline -q "$T/df.data" | spaa-fold > "$T/with.fold"
	grep -q '^df;_start;.*;main;outer;middle;leaf [0-9]*$' "$T/with.fold"
	mv "$T/df/df.debug" "$T/df.debug"
	perf2spaa --no-inline -q "$T/df.data" | spaa-fold > "$T/without.fold"
	grep -q '^df;leaf [0-9]*$' "$T/without.fold"
	run grep -c ';middle;leaf ' "$T/without.fold"
	assert_output 0
}

@test "dwarf capture of a Go program (a compressed .debug_frame, no .eh_frame): its stacks unwound down to runtime.main, where perf script has the sampled frame alone" {
	need_capture
	command -v go >/dev/null || fail "go is not installed (.ci/deps installs golang-go)"
	mkdir -p "$T/g"
	printf '%s\n' 'package main' 'import ("crypto/sha256"; "fmt")' \
		'func main() { h := [32]byte{}; for i := 0; i < 1000000; i++ { h = sha256.Sum256(h[:]) }; fmt.Println(h[0]) }' > "$T/g/g.go"
	(cd "$T/g" && HOME=$T GOCACHE=$T/gocache GO111MODULE=off go build -o g g.go)
	perf record -q -e cpu-clock --call-graph dwarf -o "$T/go.data" "$T/g/g" > /dev/null 2>&1
	perf2spaa --no-inline -q "$T/go.data" | spaa-fold > "$T/go.fold"
	# most of the weight is under main.main, reached from runtime.main
	awk '/;runtime\.main;main\.main/ { m += $NF } { t += $NF } END { exit !(m * 2 > t) }' "$T/go.fold" ||
		fail "$(sort -t' ' -k2 -n "$T/go.fold" | tail -n 5)"
}

# --inline on dwarf captures: perf script names each dwarf-unwound address
# by addr2line's functions there (the DWARF function replacing the symbol
# when they differ, "(inlined)"); perf2spaa --inline must name them alike.
# Compared sample by sample (inlinecmp.py): each sample whose stack agrees
# with perf script's without --inline (not where perf's unwinding differs:
# a leaf in the PLT, a sample in __longjmp, its frame-pointer fallback)
# must agree with --inline.  $1: the capture; $2: a file of the threads to
# compare (workload_tids), or none for all; $T/bin.fold: ours, folded.
inline_cmp() {
	only() { if [ -n "${1:-}" ]; then workload_only "$1"; else cat; fi; }
	perf2spaa --inline -s "$1" | only "${2:-}" > "$T/bi.spaa"
	perf script -i "$1" 2> /dev/null | perf2spaa -s | only "${2:-}" > "$T/ti.spaa"
	perf2spaa --no-inline -s "$1" | only "${2:-}" > "$T/bn.spaa"
	perf script --no-inline -i "$1" 2> /dev/null | perf2spaa -s | only "${2:-}" > "$T/tn.spaa"
	spaa-fold "$T/bi.spaa" > "$T/bin.fold"
	run python3 "$D/unwind/inlinecmp.py" "$T/bi.spaa" "$T/ti.spaa" "$T/bn.spaa" "$T/tn.spaa"
	echo "$output"
	assert_success
	# "samples N alike A differing 0", most samples alike
	set -- ${lines[0]}
	[ "$4" -gt 0 ]
}

@test "dwarf capture --inline: a C program in libc and libm (dlopen, cos, strchr) folds as perf script, the functions named by DWARF (__libc_start_main_impl, ___dlopen, __GI__dl_catch_error)" {
	need_capture
	cat > "$T/dl.c" <<'EOC'
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	double s = 0;
	for (int i = 0; i < 20000; i++) {
		void *h = dlopen(i % 2 ? "libm.so.6" : "libnonexistent-x.so", RTLD_NOW);
		if (h) { double (*c)(double) = (double (*)(double))dlsym(h, "cos"); s += c(i); dlclose(h); }
	}
	for (long i = 0; i < 5000000; i++) s += cos(i * 0.001) + (strchr(argv[0], 'q') != 0);
	printf("%f\n", s);
	return 0;
}
EOC
	cc -O2 -g -fno-omit-frame-pointer -o "$T/dl" "$T/dl.c" -ldl -lm
	perf record -q --call-graph dwarf -e cpu-clock -o "$T/dl.data" "$T/dl" > /dev/null 2>&1 || skip "perf record failed"
	inline_cmp "$T/dl.data"
	# and in the program's own process all fold alike but for the PLT and
	# __longjmp
	spaa-fold "$T/ti.spaa" | plt_as_one | grep -v ';__longjmp [0-9]*$' > "$T/txt.fold"
	plt_as_one < "$T/bin.fold" | grep -v ';__longjmp [0-9]*$' > "$T/bin.cmp"
	run same_weight_ppm "$T/txt.fold" "$T/bin.cmp"
	[ "$output" -ge 990000 ]
	# the physical frame named by DWARF where its symbol differs
	grep -q '^dl;_start;__libc_start_main_impl;__libc_start_call_main;main' "$T/bin.fold"
	grep -q ';main;___dlopen;' "$T/bin.fold"
	grep -q ';__GI__dl_catch_error;' "$T/bin.fold"
	# without --inline: the symbols, as before
	perf2spaa --no-inline "$T/dl.data" | spaa-fold | grep -q '^dl;_start;__libc_start_main@@GLIBC_2.34;__libc_start_call_main;main'
}

@test "dwarf capture --inline: C++ with inlining, templates and a lambda folds as perf script (a name without linkage name taken from the symbol table the first time, as binutils does)" {
	need_capture
	command -v c++ > /dev/null || skip "no C++ compiler"
	cat > "$T/cxx.cc" <<'EOC'
#include <cstdio>
#include <functional>
#include <vector>
namespace ns { template <class T> struct Acc { T s{}; __attribute__((noinline)) void add(const std::vector<T> &v) { for (auto x : v) s += x * x; } }; }
static inline long sq(long x) { return x * x; }
__attribute__((noinline)) long work(std::function<long(long)> f, int n) { long s = 0; for (int i = 0; i < n; i++) s += f(i) + sq(i); return s; }
int main() { std::vector<long> v(100000, 3); ns::Acc<long> a; long t = 0; for (int k = 0; k < 1500; k++) { a.add(v); t += work([](long x) { return x ^ 7; }, 20000); } std::printf("%ld %ld\n", a.s, t); }
EOC
	c++ -O2 -g -fno-omit-frame-pointer -o "$T/cxx" "$T/cxx.cc"
	perf record -q --call-graph dwarf -e cpu-clock -o "$T/cxx.data" "$T/cxx" > /dev/null 2>&1 || skip "perf record failed"
	inline_cmp "$T/cxx.data"
	grep -q ';main;work;std::function<long (long)>::operator()' "$T/bin.fold"
	# -j: the same profile with 1 and 2 threads
	cmp <(perf2spaa --inline -j1 "$T/cxx.data") <(perf2spaa --inline -j2 "$T/cxx.data")
	# and without --inline (addr2line's names, whose C++ rule depends on
	# the order of the look-ups): the same with 1, 2 and 3 threads
	perf2spaa -j1 "$T/cxx.data" > "$T/cxx1.spaa"
	perf2spaa -j2 "$T/cxx.data" | cmp - "$T/cxx1.spaa"
	perf2spaa -j3 "$T/cxx.data" | cmp - "$T/cxx1.spaa"
	spaa-fold "$T/cxx1.spaa" | grep -q ';main;work;std::function<long (long)>::operator()'
}

@test "dwarf capture --inline, system-wide: every sample whose stack agrees with perf script's without --inline agrees with it (the others: perf's frame-pointer fallback, where it adds no inlined frames)" {
	need_capture
	record_sys
	inline_cmp "$T/sys.data" "$T/tids"
	# the test's own processes only: the program, the compiler's, and the
	# workload's shell before its exec (perf names it perf-exec)
	run sh -c "cut -d';' -f1 '$T/bin.fold' | sort -u | grep -vx 'prog\|sh\|cc\|cc1\|as\|perf-exec'"
	assert_output ''
	grep -q '^prog;.*;main;recurse;' "$T/bin.fold"
}

@test "dwarf capture -j N: the same profile byte for byte with 1, 2, 3 and 8 threads (several processes and threads, mappings changing between samples, -s, --inline, pipe mode, perf record -z, system-wide)" {
	need_capture
	# threads of one process, processes one after the other and at once
	# (their mmap, comm and fork records among the samples of the others),
	# a library opened and closed while the threads run
	cat > "$T/mt.c" <<'EOC'
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
static volatile double sink;
__attribute__((noinline)) static double leaf(int n) { double s = 0; for (int i = 0; i < n; i++) s += sqrt(i); return s; }
__attribute__((noinline)) static double rec(int d, int n) { return d ? rec(d - 1, n) + 1 : leaf(n); }
static void *spin(void *a)
{
	for (int k = 0; k < 6000; k++) sink += rec(k % 9 + (int)(long)a, 20000);
	return a;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	pthread_t t[8];
	for (long i = 0; i < n && i < 8; i++) pthread_create(&t[i], NULL, spin, (void *)i);
	for (int k = 0; k < 40; k++) {
		void *h = dlopen(k % 2 ? "libm.so.6" : "libz.so.1", RTLD_NOW);
		for (int i = 0; i < 20000; i++) sink += i;
		if (h) dlclose(h);
	}
	for (int i = 0; i < n && i < 8; i++) pthread_join(t[i], NULL);
	return 0;
}
EOC
	cc -O2 -g -fomit-frame-pointer -o "$T/mt" "$T/mt.c" -lm -ldl -lpthread
	printf '%s\n' '#!/bin/sh' "'$T/mt' 3 & '$T/mt' 1; seq 1 20000 | sort -r | cksum > /dev/null; '$T/mt' 2; wait" > "$T/run.sh"
	chmod +x "$T/run.sh"
	perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$T/mt.data" "$T/run.sh" > /dev/null 2>&1 ||
		fail "perf record failed"
	perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o - "$T/mt" 2 2> /dev/null > "$T/mtpipe.data"
	perf record -q -z -e cpu-clock -F 2000 --call-graph dwarf -o "$T/mtz.data" "$T/run.sh" > /dev/null 2>&1 ||
		fail "perf record -z failed"
	record_sys
	local n
	n=$(perf2spaa -q -s -j 1 "$T/mt.data" | grep -c '"type":"sample"')
	# (more samples than the batches the threads take in flight at -j 8)
	[ "$n" -gt 1200 ] || fail "only $n samples: too few for many batches"
	local f opts j
	for f in mt.data mtpipe.data mtz.data sys.data; do
		for opts in "" "-s" "--inline"; do
			# shellcheck disable=SC2086
			perf2spaa -q $opts -j 1 "$T/$f" > "$T/j1.spaa"
			grep -q '"comm":"mt"' "$T/j1.spaa" || grep -q '"comm":"prog"' "$T/j1.spaa"
			for j in 2 3 8; do
				# shellcheck disable=SC2086
				perf2spaa -q $opts -j "$j" "$T/$f" | cmp - "$T/j1.spaa" || fail "$f $opts: -j $j differs from -j 1"
			done
		done
	done
	# the pipe read from standard input too
	perf2spaa -q -s -j 2 < "$T/mtpipe.data" | cmp - <(perf2spaa -q -s -j 1 "$T/mtpipe.data")
	# the unwound stacks reach the threads' start
	perf2spaa -q -j 2 "$T/mt.data" | spaa-fold | grep -q '^mt;clone3;start_thread;spin;rec[.a-z0-9]*;rec[.a-z0-9]*;.*leaf'
}

@test "dwarf capture -j N, a record damaged part way: the message, exit status and empty output of -j 1 at 2, 3 and 8 threads (the samples read before it finished first, no hang)" {
	need_capture
	# the size of the record at about 60% of the data section set to 6
	# (shorter than a record header)
	python3 - "$BATS_FILE_TMPDIR/perf.data" "$T/bad.data" <<'EOP'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off, size = struct.unpack_from('<QQ', b, 40)
p, end, n = off, off + size, 0
while p < end:
    h = struct.unpack_from('<IHH', b, p)
    if p > off + size * 6 // 10 and h[0] == 9:
        struct.pack_into('<H', b, p + 6, 6)
        break
    p += h[2]
open(sys.argv[2], 'wb').write(b)
EOP
	local j rc=0
	perf2spaa -j 1 "$T/bad.data" 2> "$T/j1.err" > "$T/out" || rc=$?
	[ "$rc" -eq 1 ] && [ ! -s "$T/out" ] || fail "-j 1: exit $rc"
	grep -q "^perf2spaa: $T/bad.data" "$T/j1.err"
	for j in 2 3 8; do
		rc=0
		timeout 60 perf2spaa -j "$j" "$T/bad.data" > "$T/out" 2> "$T/err" || rc=$?
		[ "$rc" -eq 1 ] || fail "-j $j: exit $rc"
		[ ! -s "$T/out" ] || fail "-j $j: output written"
		cmp "$T/j1.err" "$T/err" || fail "-j $j: $(cat "$T/err")"
	done
}

@test "dwarf capture -j 2 from standard input, a pipe, <(...) and /dev/stdin (a file-mode capture spooled or mapped): -j 1's profile byte for byte" {
	need_capture
	local f=$BATS_FILE_TMPDIR/perf.data
	perf2spaa -q -j 1 "$f" > "$T/j1.spaa"
	perf2spaa -q -j 2 < "$f" | cmp - "$T/j1.spaa"
	cat "$f" | perf2spaa -q -j 2 | cmp - "$T/j1.spaa"
	perf2spaa -q -j 2 <(cat "$f") | cmp - "$T/j1.spaa"
	perf2spaa -q -j 2 /dev/stdin < "$f" | cmp - "$T/j1.spaa"
}

@test "dwarf capture of 64 KiB stacks (perf's largest) of a recursion 3000 deep: perf script's 127 frames, the same profile at -j 1, 2, 3 and 8" {
	need_capture
	cat > "$T/deep.c" <<'EOC'
#include <stdlib.h>
static volatile double sink;
__attribute__((noinline)) static double leaf(int n) { double s = 0; for (int i = 0; i < n; i++) s += i * 0.5; return s; }
__attribute__((noinline)) static double down(int d, int n)
{
	volatile char pad[48];
	pad[d % 48] = (char)d;
	return d ? down(d - 1, n) + pad[d % 48] : leaf(n);
}
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;
	for (int k = 0; k < rounds; k++) sink += down(3000 + k % 7, 20000);
	return 0;
}
EOC
	cc -O2 -g -fomit-frame-pointer -o "$T/deep" "$T/deep.c"
	perf record -q -e cpu-clock -F 2000 --call-graph dwarf,65528 -o "$T/deep.data" "$T/deep" 12000 > /dev/null 2>&1 ||
		fail "perf record failed"
	perf2spaa -q -s -j 1 "$T/deep.data" > "$T/j1.spaa"
	local n j
	n=$(grep -c '"type":"sample"' "$T/j1.spaa")
	# (more samples than the batches in flight at -j 8, each of 64 KiB)
	[ "$n" -gt 300 ] || fail "only $n samples"
	for j in 2 3 8; do
		perf2spaa -q -s -j "$j" "$T/deep.data" | cmp - "$T/j1.spaa" || fail "-j $j differs from -j 1"
	done
	# the stacks perf script unwinds from the same file, address for address
	perf script --no-inline -i "$T/deep.data" 2> /dev/null | perf2spaa > "$T/text.spaa"
	perf2spaa --no-inline "$T/deep.data" > "$T/binary.spaa"
	ip_fold "$T/text.spaa" > "$T/text.ip"
	ip_fold "$T/binary.spaa" > "$T/binary.ip"
	cmp "$T/text.ip" "$T/binary.ip" || { diff "$T/text.ip" "$T/binary.ip" | cut -c1-200 | head; fail "not perf script's stacks"; }
	# cut, as perf cuts them, at 127 frames from the leaf: the recursion's
	# root out of reach
	run awk '{ n = split($1, f, ";"); if (n > m) m = n } END { print m }' "$T/binary.ip"
	[ "$output" -ge 127 ] || fail "at most $output frames"
	spaa-fold "$T/binary.spaa" | grep -q '^deep;\(down[.a-z0-9]*;\)\{120,\}leaf[.a-z0-9]* [0-9]*$'
}
