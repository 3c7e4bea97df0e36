#!/usr/bin/env bats
# perf2spaa reading perf.data itself: real captures made here with perf (as
# root) of programs built here, against the text path (perf script |
# perf2spaa) on the same capture.  Skipped, saying why, only where perf
# cannot record.
load common

# fold_both DATA [OPTION...]: $T/bin.fold (perf2spaa DATA) and $T/txt.fold
# (perf script -i DATA | perf2spaa), the options given to both
fold_both() {
	local data=$1
	shift
	perf2spaa "$@" "$data" | spaa-fold > "$T/bin.fold"
	perf script "$@" -i "$data" 2>/dev/null | perf2spaa | spaa-fold > "$T/txt.fold"
	[ -s "$T/txt.fold" ]
}

# alike_in_cache DATA DIR: perf2spaa --debug-dir=DIR DATA folds as perf
# --buildid-dir DIR script does ($T/bin.fold, $T/txt.fold), >= 99.9% of
# the weight (a kernel frame at an address of several symbols, picked by
# perf's search tree, under load: see perf2spaa(1)); the differences go to
# standard error.  A frame in the PLT (_init in one, NAME@plt in the
# other) counts as one (plt_as_one).
alike_in_cache() {
	perf2spaa --debug-dir="$2" "$1" | spaa-fold | plt_as_one > "$T/bin.fold"
	perf --buildid-dir "$2" script -i "$1" 2>/dev/null | perf2spaa | spaa-fold | plt_as_one > "$T/txt.fold"
	diff "$T/txt.fold" "$T/bin.fold" >&2 && return 0
	local w
	w=$(weight_in_common "$T/bin.fold" "$T/txt.fold")
	awk -v p="$w" 'BEGIN { exit !(p >= 99.9) }' || fail "only $w% of the weight alike"
}

# the share of weight of B's lines that A has too (percent, 4 decimals)
weight_in_common() {
	awk '{ w = $NF; sub(/ [0-9]+$/, ""); if (FILENAME == ARGV[1]) a[$0] += w; else b[$0] += w }
	     END { for (k in b) { t += b[k]; c += (a[k] < b[k] ? a[k] : b[k]) }; printf "%.4f\n", 100 * c / t }' "$1" "$2"
}

# record_sys DATA [PERF-RECORD-OPTION...] -- SHELL-COMMANDS: a system-wide
# capture (perf record -a -g -e cpu-clock) of sh -c SHELL-COMMANDS, then dd
# (its reads and writes: kernel stacks), or the test is skipped; $T/tids:
# the threads of that shell and of what it ran (workload_tids), the part of
# the capture the tests compare (what else runs on the machine is left out)
record_sys() {
	local data=$1
	shift
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	perf record -q -a -g -e cpu-clock "${opts[@]}" -o "$data" -- \
		sh -c "echo \$\$ > '$T/root.pid'; $1; dd if=/dev/zero of=/dev/null bs=512 count=50000 2>/dev/null" >/dev/null 2>&1 ||
		skip "perf cannot record system-wide here (perf record -a ${opts[*]})"
	workload_tids "$data" "$T/root.pid" > "$T/tids" || fail "no sample of the test's processes in the capture"
}

# own_fold_both DATA [OPTION...]: fold_both, of the test's own threads
# ($T/tids) only
own_fold_both() {
	local data=$1
	shift
	perf2spaa "$@" "$data" | workload_only "$T/tids" | spaa-fold > "$T/bin.fold"
	perf script "$@" -i "$data" 2>/dev/null | perf2spaa | workload_only "$T/tids" | spaa-fold > "$T/txt.fold"
	[ -s "$T/txt.fold" ]
}

# alike_but_empty_chains: $T/txt.fold and $T/bin.fold are the same but
# for the samples perf script prints with no frame (an empty or dropped
# callchain: the comm alone in the text's fold), which perf.data credits
# to their sampled address, as perf report does (see perf2spaa(1)): the
# weight only the text has is in such lines, and equals what only
# perf.data has; the differences go to standard error
alike_but_empty_chains() {
	diff "$T/txt.fold" "$T/bin.fold" >&2 && return 0
	awk '{ w = $NF; sub(/ [0-9]+$/, ""); if (FILENAME == ARGV[1]) a[$0] += w; else b[$0] += w }
	     END { for (k in a) if (a[k] > b[k]) { if (index(k, ";")) bad = 1; minus += a[k] - b[k] }
	           for (k in b) if (b[k] > a[k]) plus += b[k] - a[k]
	           exit bad || plus != minus }' "$T/txt.fold" "$T/bin.fold" ||
		fail "the folds differ otherwise than by samples of no callchain"
}

# sys_alike DATA: a system-wide capture of prog (record_sys): the test's
# own processes fold byte for byte as the text path, kernel frames among
# them named (but for the samples of no callchain:
# alike_but_empty_chains), and the whole capture's total period is perf
# report's
sys_alike() {
	own_fold_both "$1"
	alike_but_empty_chains
	grep -q '^prog;.*;main;leaf [0-9]*$' "$T/bin.fold"
	grep -q '^dd;.*;entry_SYSCALL_64.*;ksys_read;' "$T/bin.fold"
	local want
	want=$(perf report --stdio --no-children -g none -i "$1" 2>/dev/null |
		awk '/^# Event count/ { print $NF; exit }')
	assert_equal "$(perf2spaa "$1" | spaa-fold | awk '{ t += $NF } END { printf "%.0f\n", t }')" "$want"
}


@test "perf2spaa perf.data: a frame-pointer capture of C folds as perf script's text does, byte for byte" {
	can_record
	c_prog
	perf record -q -N -e cpu-clock -g -o "$T/fp.data" "$T/prog" 400 >/dev/null
	fold_both "$T/fp.data"
	cmp "$T/bin.fold" "$T/txt.fold"
	grep -q '^prog;.*;main;leaf [0-9]*$' "$T/bin.fold"
}

@test "perf2spaa perf.data: C++ with inlining and templates, byte for byte (a sample in the PLT named as one: perf's _init, NAME@plt here)" {
	can_record
	command -v c++ >/dev/null || skip "no C++ compiler"
	cat > "$T/cxx.cc" <<'EOF'
#include <cstdio>
#include <functional>
#include <vector>
namespace ns { template <class T> struct Acc { T s{}; __attribute__((noinline)) void add(const std::vector<T> &v) { for (auto x : v) s += x * x; } }; }
static inline long sq(long x) { return x * x; }
__attribute__((noinline)) long work(std::function<long(long)> f, int n) { long s = 0; for (int i = 0; i < n; i++) s += f(i) + sq(i); return s; }
int main() { std::vector<long> v(100000, 3); ns::Acc<long> a; long t = 0; for (int k = 0; k < 1500; k++) { a.add(v); t += work([](long x) { return x ^ 7; }, 20000); } std::printf("%ld %ld\n", a.s, t); }
EOF
	c++ -O2 -g -fno-omit-frame-pointer -o "$T/cxx" "$T/cxx.cc"
	perf record -q -N -e cpu-clock -g -o "$T/cxx.data" "$T/cxx" >/dev/null
	fold_both "$T/cxx.data"
	# A sample in printf@plt (main's one printf, whose first call goes
	# through the entry's lazy binding, 0x1036 and on): perf names it
	# _init, the size-less symbol before the PLT, which perf stretches to
	# the next .symtab symbol over the PLT's entries, its search tree
	# reaching _init first in this program; here printf@plt.  At perf's
	# 4000 Hz about one run in fifty has one (at 50000 Hz, 4 of 15), and
	# the test used to fail then; such a leaf counts as one, all else
	# byte for byte.
	diff "$T/txt.fold" "$T/bin.fold" >&2 ||
		diff <(plt_as_one < "$T/txt.fold") <(plt_as_one < "$T/bin.fold")
	grep -q ';ns::Acc<long>::add [0-9]*$' "$T/bin.fold"
}

@test "perf2spaa perf.data: a stripped binary named through its debug file by build id (--symfs)" {
	can_record
	c_prog
	local bid sym=$T/sym
	bid=$(readelf -n "$T/prog" | awk '/Build ID/ { print $3 }')
	[ -n "$bid" ] || skip "the compiler writes no build id"
	mkdir -p "$sym$T" "$sym/usr/lib/debug/.build-id/${bid:0:2}"
	objcopy --only-keep-debug "$T/prog" "$sym/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
	strip -o "$T/stripped" "$T/prog"
	cp "$T/stripped" "$T/prog"
	cp "$T/stripped" "$sym$T/prog"
	perf record -q -N -e cpu-clock -g -o "$T/s.data" "$T/prog" 400 >/dev/null
	fold_both "$T/s.data" --symfs="$sym"
	diff "$T/txt.fold" "$T/bin.fold"
	grep -q '^prog;.*;main;leaf [0-9]*$' "$T/bin.fold"
	# without the debug file: the frames are the binary's own, unnamed
	perf2spaa "$T/s.data" | spaa-fold > "$T/plain.fold"
	run grep -c ';leaf ' "$T/plain.fold"
	assert_output 0
}

@test "perf2spaa perf.data: a system-wide capture with kernel frames: every sample of the text path in its order, the test's own processes byte for byte as the text path, same totals as perf report" {
	can_record
	c_prog
	record_sys "$T/sys.data" -N -- "'$T/prog' 300"
	samples_alike "$T/sys.data"
	sys_alike "$T/sys.data"
	perf2spaa "$T/sys.data" | spaa-top -n 1 > "$T/top"
	[ -s "$T/top" ]
}

@test "perf2spaa perf.data: without the kernel's symbols (--symfs with no kallsyms) the kernel mapping ends where it was recorded, as perf's: its init text is [unknown]" {
	can_record
	c_prog
	record_sys "$T/sys.data" -N -- "'$T/prog' 300"
	mkdir "$T/empty"
	own_fold_both "$T/sys.data" --symfs="$T/empty"
	alike_but_empty_chains
	grep -q ';\[\[kernel.kallsyms\]\]' "$T/bin.fold"
}

@test "perf2spaa perf.data: the kernel of a capture made elsewhere is named from the copy of its symbols in perf's build-id cache (perf record's, or perf archive's), as perf script names it; with none, its frames stay unnamed, with a note" {
	can_record
	perf record -q -N -g -e cpu-clock -o "$T/k.data" -- dd if=/dev/zero of=/dev/null bs=512 count=400000 >/dev/null 2>&1
	# the kernel of another machine: its build id changed
	local off bid
	off=$(hostile kernel-build-id "$T/k.data")
	bid=$(od -A n -t x1 -j "$off" -N 20 "$T/k.data" | tr -d ' \n')
	case $bid in ff*) patch_at "$T/k.data" "$off" '\001' ;; *) patch_at "$T/k.data" "$off" '\377' ;; esac
	bid=$(od -A n -t x1 -j "$off" -N 20 "$T/k.data" | tr -d ' \n')
	mkdir "$T/cache"
	run perf2spaa --debug-dir="$T/cache" -o "$T/none.spaa" "$T/k.data"
	assert_success
	assert_output "perf2spaa: $T/k.data: warning: kernel frames left unnamed: the capture's kernel (build id $bid) is not this one, and perf's build-id cache has no copy of its symbols (give --kallsyms)"
	run grep -c '"func_resolved":false,.*"kind":"kernel"' "$T/none.spaa"
	[ "$output" -gt 0 ]
	mkdir -p "$T/cache/[kernel.kallsyms]/$bid"
	cp /proc/kallsyms "$T/cache/[kernel.kallsyms]/$bid/kallsyms"
	alike_in_cache "$T/k.data" "$T/cache"
	grep -q '^dd;.*;entry_SYSCALL_64_after_hwframe;.*;ksys_read;' "$T/bin.fold"
}

@test "perf2spaa perf.data: a [vdso] the capture names a build id for is named from perf's build-id cache only, as perf script names it ([[vdso]] without it); one of no build id (perf record -B) from this process's vdso, as perf takes its own" {
	can_record
	cat > "$T/vd.c" <<'EOF2'
#include <stdio.h>
#include <time.h>
int main(void)
{
	struct timespec t;
	long s = 0;
	for (long i = 0; i < 20000000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		s += t.tv_nsec;
	}
	printf("%ld\n", s);
	return 0;
}
EOF2
	cc -O2 -fno-omit-frame-pointer -o "$T/vd" "$T/vd.c"
	mkdir "$T/cache"
	local mode
	for mode in N B; do
		# shellcheck disable=SC2046
		perf record -q -N $([ $mode = B ] && echo -B) -g -e cpu-clock -o "$T/$mode.data" "$T/vd" > /dev/null 2>&1
		alike_in_cache "$T/$mode.data" "$T/cache"
		cp "$T/bin.fold" "$T/$mode.bin"
	done
	grep -q ';clock_gettime@@GLIBC_2.17;\[\[vdso\]\] [0-9]*$' "$T/N.bin"
	grep -q ';clock_gettime@@GLIBC_2.17;__vdso_clock_gettime [0-9]*$' "$T/B.bin"
}

@test "perf2spaa perf.data: pipe mode (perf record -o -), from a file and from standard input" {
	can_record
	c_prog
	perf record -q -N -e cpu-clock -g -o - "$T/prog" 300 2>/dev/null > "$T/pipe.data"
	fold_both "$T/pipe.data"
	cmp "$T/bin.fold" "$T/txt.fold"
	perf2spaa < "$T/pipe.data" | spaa-fold | cmp - "$T/txt.fold"
	perf record -q -N -e cpu-clock -g -o - "$T/prog" 100 2>/dev/null | perf2spaa | spaa-validate -q
}

@test "perf2spaa perf.data: --samples gives the text path's sample records (time, cpu, period), and the same time range" {
	can_record
	c_prog
	perf record -q -N -e cpu-clock -g -o "$T/fp.data" "$T/prog" 200 >/dev/null
	perf2spaa -s "$T/fp.data" > "$T/bin.spaa"
	perf script -i "$T/fp.data" | perf2spaa -s > "$T/txt.spaa"
	spaa-validate -q "$T/bin.spaa"
	diff <(sample_rows "$T/bin.spaa") <(sample_rows "$T/txt.spaa")
	diff <(head -n 1 "$T/bin.spaa" | grep -o '"time_range":{[^}]*}') <(head -n 1 "$T/txt.spaa" | grep -o '"time_range":{[^}]*}')
	# the capture's machine and command in the header
	head -n 1 "$T/bin.spaa" | grep -q '"command":"[^"]*perf record -q -N -e cpu-clock -g -o '
}

@test "perf2spaa perf.data: truncated and corrupt files are errors naming the offset, exit 1" {
	can_record
	c_prog
	perf record -q -N -e cpu-clock -g -o "$T/fp.data" "$T/prog" 50 >/dev/null
	head -c 50 "$T/fp.data" > "$T/short.data"
	run perf2spaa "$T/short.data"
	assert_failure 1
	assert_output "perf2spaa: $T/short.data: byte 50: truncated: 50 bytes, shorter than the 104-byte header"
	local size doff
	size=$(stat -c %s "$T/fp.data")
	head -c $((size - 1000)) "$T/fp.data" > "$T/cut.data"
	run perf2spaa "$T/cut.data"
	assert_failure 1
	assert_output --regexp "^perf2spaa: $T/cut.data: byte [0-9]+: truncated: "
	# a record of size 0 at the start of the data section
	doff=$(od -An -t u8 -j 40 -N 8 "$T/fp.data" | tr -d ' ')
	cp "$T/fp.data" "$T/bad.data"
	printf '\0\0' | dd of="$T/bad.data" bs=1 seek=$((doff + 6)) conv=notrunc 2>/dev/null
	run perf2spaa "$T/bad.data"
	assert_failure 1
	assert_output --regexp "^perf2spaa: $T/bad.data: byte $doff: record of type [0-9]+ with size 0 \(corrupt\)$"
	# pipe mode, cut inside a record
	perf record -q -N -e cpu-clock -g -o - "$T/prog" 50 2>/dev/null > "$T/pipe.data"
	head -c 3000 "$T/pipe.data" > "$T/pcut.data"
	run perf2spaa - < "$T/pcut.data"
	assert_failure 1
	assert_output --regexp '^perf2spaa: -: byte [0-9]+: truncated: '

	# the other byte order
	{ printf '2ELIFREP'; tail -c +9 "$T/fp.data"; } > "$T/swapped.data"
	run perf2spaa "$T/swapped.data"
	assert_failure 1
	assert_output "perf2spaa: $T/swapped.data: a perf.data of the other byte order (big-endian machine): not supported; convert it with 'perf script' on a machine of that order"
}

@test "perf2spaa perf.data: a capture without a sample record (an event that never fired) is an error saying so, not 'empty input', exit 1, file and pipe mode" {
	can_record
	# true forks nothing: no sched_process_fork sample
	perf record -q -e sched:sched_process_fork -o "$T/none.data" -- true >/dev/null 2>&1 ||
		skip "perf cannot record sched:sched_process_fork here"
	[ "$(wc -c < "$T/none.data")" -gt 1000 ]
	run perf2spaa "$T/none.data"
	assert_failure 1
	assert_output "perf2spaa: $T/none.data: no stacks found: no sample record in the perf.data (no profile written)"
	perf record -q -e sched:sched_process_fork -o - -- true 2>/dev/null > "$T/none.pipe"
	run sh -c "perf2spaa < '$T/none.pipe'"
	assert_failure 1
	assert_output "perf2spaa: -: no stacks found: no sample record in the perf.data (no profile written)"
}

@test "perf2spaa perf.data --inline: the calls inlined at each address, from DWARF, as inlined frames" {
	can_record
	c_prog
	perf record -q -N -e cpu-clock -g -o "$T/fp.data" "$T/prog" 400 >/dev/null
	perf2spaa --inline "$T/fp.data" > "$T/inl.spaa"
	spaa-validate -q "$T/inl.spaa"
	# inl() is inlined into main: its samples stay main's without --inline
	grep -q '^prog;.*;main;inl_\[i\] [0-9]*$' <(spaa-fold --inline "$T/inl.spaa")
	# and fold alike with the inlined frames hidden
	spaa-fold --inline=hide "$T/inl.spaa" > "$T/hidden.fold"
	perf2spaa "$T/fp.data" | spaa-fold | cmp - "$T/hidden.fold"
}

@test "perf2spaa perf.data --inline: a callchain is cut at perf's 127 entries however many calls are inlined at them, so that hiding the inlined frames gives the profile made without --inline" {
	can_record
	# a recursion deeper than perf's callchains, its leaf's loop inlined:
	# a sample is 127 entries, its leaf two frames with --inline
	cat > "$T/deep.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
void rec(int n);
static inline __attribute__((always_inline)) void step(int n)
{
	if (n > 0) rec(n - 1);
	else for (int i = 0; i < 200000; i++) sink += (unsigned long)i * i;
}
__attribute__((noinline)) void rec(int n) { step(n); sink++; }
int main(int argc, char **argv)
{
	int r = argc > 1 ? atoi(argv[1]) : 800;
	for (int k = 0; k < r; k++) rec(200);
	printf("%lu\n", sink);
	return 0;
}
EOC
	cc -O2 -g -fno-omit-frame-pointer -o "$T/deep" "$T/deep.c"
	perf record -q -N -e cpu-clock -g -o "$T/deep.data" "$T/deep" >/dev/null
	perf2spaa "$T/deep.data" | spaa-fold --no-comm > "$T/plain.fold"
	# the same depth read in process, on one thread and on two
	spaa-fold --no-comm -j 1 "$T/deep.data" | cmp - "$T/plain.fold"
	spaa-fold --no-comm -j 2 "$T/deep.data" | cmp - "$T/plain.fold"
	perf2spaa --inline "$T/deep.data" > "$T/inl.spaa"
	spaa-fold --no-comm --inline=hide "$T/inl.spaa" | cmp - "$T/plain.fold"
	grep -q ';step_\[i\] [0-9]*$' <(spaa-fold --inline "$T/inl.spaa")
	# as deep as perf script's deepest sample (its entries, one a line)
	local want got
	want=$(perf script -i "$T/deep.data" -F ip 2>/dev/null | awk 'BEGIN { RS = "" } { n = split($0, l, "\n"); if (n > m) m = n } END { print m }')
	got=$(awk '{ n = split($1, f, ";"); if (n > m) m = n } END { print m }' "$T/plain.fold")
	assert_equal "$got" "$want"
	[ "$want" -ge 100 ]
}

@test "perf2spaa perf.data: a binary rebuilt since the capture is named from perf's build-id cache (--debug-dir)" {
	can_record
	c_prog
	perf --buildid-dir "$T/cache" record -q -e cpu-clock -g -o "$T/fp.data" "$T/prog" 300 >/dev/null 2>&1 ||
		skip "perf --buildid-dir does not work here"
	# the same path, other code: its symbols are not the capture's
	sed 's/\bleaf\b/other/g; s/\bmid\b/middle/g' "$T/prog.c" > "$T/prog2.c"
	cc -O2 -g -fno-omit-frame-pointer -o "$T/prog" "$T/prog2.c"
	perf2spaa --debug-dir="$T/cache" "$T/fp.data" | spaa-fold > "$T/bin.fold"
	perf --buildid-dir "$T/cache" script -i "$T/fp.data" 2>/dev/null | perf2spaa | spaa-fold > "$T/txt.fold"
	cmp "$T/bin.fold" "$T/txt.fold"
	grep -q '^prog;.*;main;leaf [0-9]*$' "$T/bin.fold"
}

@test "perf2spaa perf.data -j N: the same profile byte for byte with 1, 2, 3 and 8 threads (system-wide, --samples, --inline, pipe mode)" {
	can_record
	c_prog
	# several processes (the compiler too), kernel frames, and more samples
	# than one batch between the threads (1024)
	record_sys "$T/sys.data" -F 4000 -- "'$T/prog' 1500 & cc -O2 -c -o '$T/x.o' '$T/prog.c'; '$T/prog' 1000; wait"
	perf record -q -N -e cpu-clock -g -F 4000 -o - "$T/prog" 300 2>/dev/null > "$T/pipe.data"
	local n
	n=$(perf2spaa -s -j 1 "$T/sys.data" | grep -c '"type":"sample"')
	[ "$n" -gt 2048 ] || fail "only $n samples: too few for several batches"
	# the whole capture converted, the test's own processes compared (a
	# file of another process, such as another test's program, can be
	# deleted between two conversions, which then name its frames apart)
	own() { if [ "$1" = sys.data ]; then workload_only "$T/tids"; else cat; fi; }
	local f opts j
	for f in sys.data pipe.data; do
		for opts in "" "-s" "--inline -s"; do
			# shellcheck disable=SC2086
			perf2spaa $opts -j 1 "$T/$f" | own "$f" > "$T/j1.spaa"
			grep -q '"comm":"prog"' "$T/j1.spaa"
			for j in 2 3 8; do
				# shellcheck disable=SC2086
				perf2spaa $opts -j "$j" "$T/$f" | own "$f" | cmp - "$T/j1.spaa" || fail "$f $opts: -j $j differs from -j 1"
				# the stack records rendered in runs of 2 on the threads
				# shellcheck disable=SC2086
				SPAA_WRITE_RUN=2 perf2spaa $opts -j "$j" "$T/$f" | own "$f" | cmp - "$T/j1.spaa" || fail "$f $opts: -j $j, runs of 2, differs from -j 1"
			done
		done
	done
	# the default (the online cores) too
	perf2spaa "$T/sys.data" | own sys.data | cmp - <(perf2spaa -j 1 "$T/sys.data" | own sys.data)
}

@test "perf2spaa perf.data: a fixed period (perf record -c N, or an event's period=N) weighs every sample N, as perf script prints it" {
	can_record
	c_prog
	local ev n
	for ev in "-c 100000 -e cpu-clock" "-e cpu-clock/period=200000/"; do
		# shellcheck disable=SC2086
		perf record -q -N -g $ev -o "$T/c.data" "$T/prog" 200 >/dev/null
		fold_both "$T/c.data"
		cmp "$T/bin.fold" "$T/txt.fold" || fail "$ev: the paths differ"
		n=$(perf script -i "$T/c.data" 2>/dev/null | grep -c ' cpu-clock')
		assert_equal "$(awk '{ t += $NF } END { printf "%.0f\n", t }' "$T/bin.fold")" \
			"$((n * ${ev//[!0-9]/}))"
	done
}

@test "perf2spaa perf.data: with perf record -d, data mappings are no JIT code: an address there is [anon], as perf script names it" {
	can_record
	# dash keeps no frame pointers: its callchains run into the heap
	perf record -q -N -g -d -e cpu-clock -o "$T/d.data" -- \
		sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done' >/dev/null
	fold_both "$T/d.data"
	grep -q ';\[anon\]' "$T/txt.fold" || fail "perf script named no address //anon: nothing to check"
	cmp "$T/bin.fold" "$T/txt.fold"
	run grep -c 'perf-[0-9]*\.map' "$T/bin.fold"
	assert_output 0
}

@test "perf2spaa perf.data: C++ names with the standard library's abbreviations (std::ostream), as perf demangles them" {
	can_record
	command -v c++ >/dev/null || skip "no C++ compiler"
	cat > "$T/os.cc" <<'CC'
#include <sstream>
#include <iostream>
int main() {
	unsigned long n = 0;
	for (long i = 0; i < 3000000; i++) { std::ostringstream os; os << i; n += os.str().size(); }
	std::cout << n << "\n";
}
CC
	c++ -O2 -g -fno-omit-frame-pointer -o "$T/os" "$T/os.cc"
	perf record -q -N -g -e cpu-clock -o "$T/os.data" "$T/os" >/dev/null
	fold_both "$T/os.data"
	grep -q 'std::ostream::_M_insert<long>' "$T/txt.fold" || fail "perf script named no std::ostream::_M_insert<long>"
	cmp "$T/bin.fold" "$T/txt.fold"
}

# fold_all DATA [OPTION...]: $T/bin.fold (perf2spaa DATA) and
# $T/txt.fold (perf script -i DATA | perf2spaa), every event folded
fold_all() {
	local data=$1
	shift
	perf2spaa "$@" "$data" | spaa-fold --all-events > "$T/bin.fold"
	perf script "$@" -i "$data" 2>/dev/null | perf2spaa | spaa-fold --all-events > "$T/txt.fold"
	[ -s "$T/txt.fold" ]
}

# report_totals DATA: "EVENT TOTAL" a line, each event's period as perf
# report counts it, and as spaa-top totals perf2spaa's profile of DATA
report_totals() {
	perf report --stdio --no-group --no-children -g none -i "$1" 2>/dev/null |
		awk '/^# Samples: .* of event/ { e = $NF; gsub(/\047/, "", e) } /^# Event count/ { print e, $NF }' > "$T/want.totals"
	[ -s "$T/want.totals" ]
	local ev n
	while read -r ev n; do
		echo "$ev $(perf2spaa "$1" | spaa-top --raw-units --event="$ev" -n 1 | awk '/, total / { print $NF }')"
	done < "$T/want.totals" > "$T/got.totals"
	diff "$T/want.totals" "$T/got.totals"
}

# sample_records DATA: perf2spaa -s's sample records of both paths in
# $T/bin.samples and $T/txt.samples, without what only one path has
sample_records() {
	perf2spaa -s "$1" | sample_rows - > "$T/bin.samples"
	perf script -i "$1" | perf2spaa -s | sample_rows - > "$T/txt.samples"
	[ -s "$T/txt.samples" ]
}

@test "perf2spaa perf.data: a group sampled by its leader ({a,b}:S, PERF_SAMPLE_READ) gives a sample a member, the growth of its counter as the period, as perf script does: byte for byte, -s, -j N, pipe mode, perf report's totals" {
	can_record
	c_prog
	# page-faults mostly has not grown since the last sample: those give none
	perf record -q -N -g -e '{cpu-clock,page-faults}:S' -o "$T/grp.data" "$T/prog" 300 >/dev/null 2>&1 ||
		skip "perf cannot record a group with leader sampling here"
	fold_all "$T/grp.data"
	cmp "$T/bin.fold" "$T/txt.fold"
	grep -q '^cpu-clock;prog;.*;main;leaf [0-9]*$' "$T/bin.fold"
	grep -q '^page-faults;prog;' "$T/bin.fold"
	report_totals "$T/grp.data"
	sample_records "$T/grp.data"
	cmp "$T/bin.samples" "$T/txt.samples"
	local j
	perf2spaa -s -j 1 "$T/grp.data" > "$T/j1.spaa"
	for j in 2 7; do
		perf2spaa -s -j "$j" "$T/grp.data" | cmp - "$T/j1.spaa" || fail "-j $j differs from -j 1"
	done
	perf record -q -N -g -e '{cpu-clock,task-clock}:S' -o - "$T/prog" 200 2>/dev/null > "$T/pipe.data"
	fold_all "$T/pipe.data"
	# (once in hundreds of runs, in a loaded CI run, one line differed
	# here: the lines and the capture's records at hand when it does)
	cmp -s "$T/bin.fold" "$T/txt.fold" ||
		fail "pipe mode: the folds differ: $(diff "$T/bin.fold" "$T/txt.fold" | head -n 8)
$(perf script -i "$T/pipe.data" -F comm,pid,tid,time,event,period 2>&1 | head -n 5)
$(perf2spaa "$T/pipe.data" 2>&1 >/dev/null | head -n 3)"
	grep -q '^task-clock;prog;.*;main;leaf [0-9]*$' "$T/bin.fold"
	perf2spaa < "$T/pipe.data" | spaa-fold --all-events | cmp - "$T/txt.fold"
}

@test "perf2spaa perf.data: one event with its value (cpu-clock:S), values with their times (perf record -s), a group read with a fixed period (-c), and a group without :S, as perf script gives them, with perf report's totals" {
	can_record
	c_prog
	perf record -q -N -g -e 'cpu-clock:S' -o "$T/one.data" "$T/prog" 200 >/dev/null 2>&1 ||
		skip "perf cannot record cpu-clock:S here"
	perf record -q -N -g -c 200000 -e '{cpu-clock,task-clock}:S' -o "$T/fixed.data" "$T/prog" 200 >/dev/null
	perf record -q -N -g -e '{cpu-clock,task-clock}' -o "$T/nos.data" "$T/prog" 200 >/dev/null
	# -s: TOTAL_TIME_ENABLED and TOTAL_TIME_RUNNING in the read format
	perf record -q -N -g -s -e 'cpu-clock:S' -o "$T/onetimes.data" "$T/prog" 200 >/dev/null
	perf record -q -N -g -s -e '{cpu-clock,task-clock}:S' -o "$T/grptimes.data" "$T/prog" 200 >/dev/null
	local f
	for f in one fixed nos onetimes grptimes; do
		fold_all "$T/$f.data"
		cmp "$T/bin.fold" "$T/txt.fold" || fail "$f.data folds otherwise"
		report_totals "$T/$f.data" || fail "$f.data: other totals than perf report's"
		sample_records "$T/$f.data"
		cmp "$T/bin.samples" "$T/txt.samples" || fail "$f.data: other sample records"
	done
}

@test "perf2spaa perf.data: a group sampled by its leader under --call-graph dwarf, as perf script --no-inline gives it" {
	can_record
	c_prog
	perf record -q -N --call-graph dwarf -e '{cpu-clock,task-clock}:S' -o "$T/dw.data" "$T/prog" 200 >/dev/null 2>&1 ||
		skip "perf cannot record a dwarf group here"
	fold_all "$T/dw.data" --no-inline
	cmp "$T/bin.fold" "$T/txt.fold"
	grep -q '^task-clock;prog;.*;main;mid;leaf [0-9]*$' "$T/bin.fold"
	report_totals "$T/dw.data"
}

@test "perf2spaa perf.data: cpu-clock:S of several processes (inherited counters): each thread's counter apart, the total of each thread's last value in perf's dump" {
	can_record
	c_prog
	perf record -q -N -g -e 'cpu-clock:S' -o "$T/fork.data" -- \
		sh -c "'$T/prog' 150 & '$T/prog' 150 & '$T/prog' 150; wait" >/dev/null 2>&1 ||
		skip "perf cannot record cpu-clock:S here"
	# the counter of an inherited event is each thread's own; perf 6.1
	# takes the deltas of one id across its threads (wrapping below 0),
	# later perf keeps each thread's: so is the total each thread's last
	# value, summed, a counter per thread and id (an event per cpu: a
	# thread that ran on two cpus has two)
	local want got
	want=$(perf report -D -i "$T/fork.data" 2>/dev/null |
		awk '/PERF_RECORD_SAMPLE/ { t = $0; sub(/.*: [0-9]+\//, "", t); sub(/:.*/, "", t) }
		     /^\.\.\.\.\. id .*value/ { i = $3; v = $5; sub(/,$/, "", i); sub(/,$/, "", v); print t "/" i, v }' |
		while read -r t v; do echo "$t $((16#$v))"; done |
		awk '{ if ($2 > m[$1]) m[$1] = $2 } END { for (t in m) s += m[t]; printf "%.0f\n", s }')
	got=$(perf2spaa "$T/fork.data" | spaa-fold | awk '{ t += $NF } END { printf "%.0f\n", t }')
	assert_equal "$got" "$want"
	[ "$(perf2spaa "$T/fork.data" | spaa-fold | grep -c '^prog;.*;main;leaf [0-9]*$')" -ge 1 ]
}

@test "perf2spaa perf.data: counter values whose ids no event has are counted in a warning, their samples left out; the others' stay" {
	can_record
	c_prog
	perf record -q -N -g -e '{cpu-clock,task-clock}:S' -o "$T/grp.data" "$T/prog" 100 >/dev/null 2>&1 ||
		skip "perf cannot record a group with leader sampling here"
	# task-clock's ids (the second attribute's) made other ids
	local asz aoff ioff isz k n
	asz=$(od -An -t u8 -j 16 -N 8 "$T/grp.data" | tr -d ' ')
	aoff=$(od -An -t u8 -j 24 -N 8 "$T/grp.data" | tr -d ' ')
	ioff=$(od -An -t u8 -j $((aoff + 2 * asz - 16)) -N 8 "$T/grp.data" | tr -d ' ')
	isz=$(od -An -t u8 -j $((aoff + 2 * asz - 8)) -N 8 "$T/grp.data" | tr -d ' ')
	cp "$T/grp.data" "$T/unknown.data"
	for ((k = 0; k < isz; k += 8)); do
		printf '\177\177\177\177\177\177\177\177' | dd of="$T/unknown.data" bs=1 seek=$((ioff + k)) conv=notrunc 2>/dev/null
	done
	n=$(perf report -D -i "$T/grp.data" 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE')
	perf2spaa "$T/unknown.data" 2> "$T/err" | spaa-fold --all-events > "$T/unknown.fold"
	assert_equal "$(cat "$T/err")" "perf2spaa: $T/unknown.data: warning: $n counter values read by samples have ids of no event in the header: their samples are not in the profile"
	# cpu-clock's samples are all there, task-clock's none
	perf2spaa "$T/grp.data" | spaa-fold --all-events | grep '^cpu-clock;' | cmp - "$T/unknown.fold"
	perf2spaa -q "$T/unknown.data" | spaa-fold --all-events | cmp - "$T/unknown.fold"
}

# first_record TYPE DATA: the offset of DATA's first record of TYPE (a
# file-mode perf.data), from the record headers of its data section
first_record() {
	local off end t sz
	off=$(od -An -t u8 -j 40 -N 8 "$2" | tr -d ' ')
	end=$((off + $(od -An -t u8 -j 48 -N 8 "$2" | tr -d ' ')))
	while [ "$off" -lt "$end" ]; do
		t=$(od -An -t u4 -j "$off" -N 4 "$2" | tr -d ' ')
		[ "$t" = "$1" ] && { echo "$off"; return 0; }
		sz=$(od -An -t u2 -j $((off + 6)) -N 2 "$2" | tr -d ' ')
		[ "$sz" -ge 8 ] || return 1
		off=$((off + sz))
	done
	return 1
}

@test "perf2spaa perf.data: perf record -z (zstd-compressed records) folds as perf script's text does, byte for byte, the same with -j 1, 2 and 7 and with -s" {
	can_record
	c_prog
	perf record -q -N -z -g -e cpu-clock -o "$T/z.data" "$T/prog" 400 >/dev/null 2>&1 ||
		skip "perf record -z does not work here (perf built without zstd)"
	first_record 81 "$T/z.data" > /dev/null || fail "no COMPRESSED record in the capture"
	perf2spaa "$T/z.data" | spaa-fold --all-events > "$T/bin.fold"
	perf script -i "$T/z.data" 2>/dev/null | perf2spaa | spaa-fold --all-events > "$T/txt.fold"
	[ -s "$T/txt.fold" ]
	cmp "$T/bin.fold" "$T/txt.fold"
	grep -q '^cpu-clock;prog;.*;main;leaf [0-9]*$' "$T/bin.fold"
	# the sample records too
	perf2spaa -s "$T/z.data" > "$T/bin.spaa"
	perf script -i "$T/z.data" | perf2spaa -s > "$T/txt.spaa"
	diff <(sample_rows "$T/bin.spaa") <(sample_rows "$T/txt.spaa")
	local opts j
	for opts in "" "-s"; do
		# shellcheck disable=SC2086
		perf2spaa $opts -j 1 "$T/z.data" > "$T/j1.spaa"
		for j in 2 7; do
			# shellcheck disable=SC2086
			perf2spaa $opts -j "$j" "$T/z.data" | cmp - "$T/j1.spaa" || fail "$opts: -j $j differs from -j 1"
		done
	done
}

@test "perf2spaa perf.data: perf record -z --call-graph dwarf (records split across compressed records) folds as perf script --no-inline does, byte for byte" {
	can_record
	c_prog
	perf record -q -N -z --call-graph dwarf -e cpu-clock -o "$T/zd.data" "$T/prog" 300 >/dev/null 2>&1 ||
		skip "perf record -z --call-graph dwarf does not work here"
	# samples of 8 KiB of stack each: the compressed stream's records
	# straddle the COMPRESSED records that carry it
	perf2spaa --no-inline "$T/zd.data" | spaa-fold --all-events > "$T/bin.fold"
	perf script --no-inline -i "$T/zd.data" 2>/dev/null | perf2spaa | spaa-fold --all-events > "$T/txt.fold"
	[ -s "$T/txt.fold" ]
	cmp "$T/bin.fold" "$T/txt.fold"
	grep -q '^cpu-clock;prog;.*;main;mid;leaf [0-9]*$' "$T/bin.fold"
	perf2spaa -s -j 2 "$T/zd.data" | cmp - <(perf2spaa -s -j 1 "$T/zd.data")
}

@test "perf2spaa perf.data: a system-wide perf record -a -z capture: every sample of the text path, in its order, the test program's stacks byte for byte, same totals as perf report, the same with -j 1 and 2" {
	can_record
	c_prog
	record_sys "$T/zsys.data" -N -z -- "'$T/prog' 600 & cc -O2 -c -o '$T/x.o' '$T/prog.c'; wait"
	# what decompression gives: the records themselves, every one
	samples_alike "$T/zsys.data"
	sys_alike "$T/zsys.data"
	local opts
	for opts in "" "-s"; do
		# shellcheck disable=SC2086
		perf2spaa $opts -j 2 "$T/zsys.data" | workload_only "$T/tids" |
			cmp - <(perf2spaa $opts -j 1 "$T/zsys.data" | workload_only "$T/tids") || fail "$opts: -j 2 differs"
	done
}

@test "perf2spaa perf.data: pipe mode with -z (perf record -z -o -), from a file and from standard input, byte for byte" {
	can_record
	c_prog
	perf record -q -N -z -e cpu-clock -g -o - "$T/prog" 300 2>/dev/null > "$T/zpipe.data"
	[ -s "$T/zpipe.data" ] || skip "perf record -z -o - does not work here"
	perf2spaa "$T/zpipe.data" | spaa-fold > "$T/bin.fold"
	perf script -i "$T/zpipe.data" 2>/dev/null | perf2spaa | spaa-fold > "$T/txt.fold"
	[ -s "$T/txt.fold" ]
	cmp "$T/bin.fold" "$T/txt.fold"
	perf2spaa < "$T/zpipe.data" | spaa-fold | cmp - "$T/txt.fold"
	perf2spaa -s -j 2 < "$T/zpipe.data" | cmp - <(perf2spaa -s -j 1 "$T/zpipe.data")
	perf record -q -N -z -e cpu-clock -g -o - "$T/prog" 100 2>/dev/null | perf2spaa | spaa-validate -q
}

@test "perf2spaa perf.data: a corrupt or truncated compressed record (perf record -z) is an error naming its offset, exit 1" {
	can_record
	c_prog
	perf record -q -N -z -g -e cpu-clock -o "$T/z.data" "$T/prog" 100 >/dev/null 2>&1 ||
		skip "perf record -z does not work here (perf built without zstd)"
	local off size
	off=$(first_record 81 "$T/z.data")
	# the zstd frame's magic number, at the head of the first payload, zeroed
	cp "$T/z.data" "$T/bad.data"
	printf '\0\0\0\0' | dd of="$T/bad.data" bs=1 seek=$((off + 8)) conv=notrunc 2>/dev/null
	run perf2spaa "$T/bad.data"
	assert_failure 1
	assert_output "perf2spaa: $T/bad.data: byte $off: compressed record: corrupt zstd data: Unknown frame descriptor"
	# pipe mode: cut inside the compressed record
	perf record -q -N -z -e cpu-clock -g -o - "$T/prog" 100 2>/dev/null > "$T/zpipe.data"
	size=$(stat -c %s "$T/zpipe.data")
	head -c $((size - 200)) "$T/zpipe.data" > "$T/zcut.data"
	run perf2spaa - < "$T/zcut.data"
	assert_failure 1
	assert_output --regexp '^perf2spaa: -: byte [0-9]+: truncated: '
}

@test "perf2spaa perf.data: the committed -z capture (records split between compressed records) gives every sample, in perf script's order, at -j 1 and 2" {
	local seed=$BATS_TEST_DIRNAME/../fuzz/seeds/perf2spaa/compressed.perf.data
	mkdir "$T/empty"
	perf2spaa -s -j 1 --symfs="$T/empty" "$seed" > "$T/z.spaa"
	perf2spaa -s -j 2 --symfs="$T/empty" "$seed" | cmp - "$T/z.spaa"
	sed -n 's/.*"tid":\([0-9]*\),"timestamp":\([0-9.]*\),"period":\([0-9]*\).*/\1 \2 \3/p' "$T/z.spaa" > "$T/bin.txt"
	run wc -l < "$T/bin.txt"
	assert_output 22
	run sed -n '1p;$p' "$T/bin.txt"
	assert_output "32096 44043.099219 500000
32096 44043.117688 500000"
	# the stream cut after the COMPRESSED record at 2034, whose data ends
	# with the first 32 bytes of a record: its last two COMPRESSED records
	# (at 2227 and 2281) made FINISHED_INIT records (82), which are skipped
	cp "$seed" "$T/cut.data"
	printf '\122' | dd of="$T/cut.data" bs=1 seek=2227 conv=notrunc 2>/dev/null
	printf '\122' | dd of="$T/cut.data" bs=1 seek=2281 conv=notrunc 2>/dev/null
	run perf2spaa "$T/cut.data"
	assert_failure 1
	assert_output "perf2spaa: $T/cut.data: byte 2034: truncated: the compressed data ends inside a record (32 bytes of it)"
	command -v perf >/dev/null || return 0
	perf script -i "$seed" -F tid,time,period 2>/dev/null | awk '{ sub(/:$/, "", $2); print $1, $2, $3 }' > "$T/txt.txt"
	diff "$T/txt.txt" "$T/bin.txt"
}

@test "perf2spaa perf.data: COMPRESSED2 records (newer perf's, 8-byte aligned with a data size) read as the COMPRESSED records they were made from, file and pipe mode" {
	local seed=$BATS_TEST_DIRNAME/../fuzz/seeds/perf2spaa/compressed.perf.data
	mkdir "$T/empty"
	python3 "$D/perf/compressed2.py" "$seed" "$T/c2.data"
	perf2spaa -s --symfs="$T/empty" "$T/c2.data" > "$T/c2.spaa"
	perf2spaa -s --symfs="$T/empty" "$seed" | cmp - "$T/c2.spaa"
	perf2spaa -s -j 2 --symfs="$T/empty" "$T/c2.data" | cmp - "$T/c2.spaa"
	# a data size past the record's end (the first COMPRESSED2 record, at
	# 632, of 960 bytes)
	cp "$T/c2.data" "$T/bad.data"
	printf '\377\377' | dd of="$T/bad.data" bs=1 seek=$((632 + 8)) conv=notrunc 2>/dev/null
	run perf2spaa "$T/bad.data"
	assert_failure 1
	assert_output "perf2spaa: $T/bad.data: byte 632: compressed record: 65535 bytes of data in a record of 960"
	# pipe mode, where perf can record
	command -v perf >/dev/null && command -v cc >/dev/null || return 0
	c_prog
	perf record -q -N -z -e cpu-clock -g -o - "$T/prog" 100 2>/dev/null > "$T/zpipe.data" || return 0
	python3 "$D/perf/compressed2.py" "$T/zpipe.data" "$T/c2pipe.data"
	perf2spaa -s < "$T/c2pipe.data" | cmp - <(perf2spaa -s "$T/zpipe.data")
}

# sample_rows SPAA (- standard input): the sample records of perf2spaa -s,
# in their order, without the ids that differ between the two paths
# samples_alike DATA: the sample records (-s) of both paths, in order, alike
samples_alike() {
	perf2spaa -s "$1" > "$T/bin.spaa"
	perf script -i "$1" 2>/dev/null | perf2spaa -s > "$T/txt.spaa"
	diff <(sample_rows "$T/bin.spaa") <(sample_rows "$T/txt.spaa")
}

sample_rows() {
	grep '"type":"sample"' "$1" | sed 's/"pid":-\{0,1\}[0-9]*,//; s/,"stack_id":"[^"]*"//'
}

@test "perf2spaa perf.data: a --threads capture (a directory: data, data.N) folds as perf script's text does, byte for byte, its samples in perf's order, the same with -j 1, 2 and 7" {
	can_record
	c_prog
	# two processes at once, so that both cpus' files (data.0, data.1) get samples
	perf record -q -g --threads -e cpu-clock -F 2000 -o "$T/dir.data" -- \
		sh -c "'$T/prog' 300 & '$T/prog' 200; wait" >/dev/null 2>&1 ||
		skip "perf cannot record with --threads here"
	[ -d "$T/dir.data" ] && [ -f "$T/dir.data/data" ] && [ -f "$T/dir.data/data.0" ]
	# (a frame in the PLT as one: perf's _init, NAME@plt here; plt_as_one)
	perf2spaa "$T/dir.data" | spaa-fold --all-events | plt_as_one > "$T/bin.fold"
	perf script -i "$T/dir.data" 2>/dev/null | perf2spaa | spaa-fold --all-events | plt_as_one > "$T/txt.fold"
	[ -s "$T/txt.fold" ]
	diff "$T/txt.fold" "$T/bin.fold"
	grep -q '^cpu-clock;prog;.*;main;leaf [0-9]*$' "$T/bin.fold"
	# every sample, in the order perf delivers them (by time over the files)
	perf2spaa -s -j 1 "$T/dir.data" > "$T/j1.spaa"
	perf script -i "$T/dir.data" 2>/dev/null | perf2spaa -s > "$T/txt.spaa"
	diff <(sample_rows "$T/j1.spaa") <(sample_rows "$T/txt.spaa")
	local j
	for j in 2 7; do
		perf2spaa -s -j "$j" "$T/dir.data" | cmp - "$T/j1.spaa" || fail "-s -j $j differs from -j 1"
		perf2spaa -j "$j" "$T/dir.data" | cmp - <(perf2spaa -j 1 "$T/dir.data") || fail "-j $j differs from -j 1"
	done
}

@test "perf2spaa perf.data: a system-wide --threads=cpu capture, its samples in perf's order, the test's own processes byte for byte as the text path, same totals as perf report" {
	can_record
	c_prog
	record_sys "$T/sysdir.data" --threads=cpu -- "'$T/prog' 300 & cc -O2 -c -o '$T/x.o' '$T/prog.c'; wait"
	samples_alike "$T/sysdir.data"
	sys_alike "$T/sysdir.data"
}

@test "perf2spaa perf.data: a directory that is not a perf.data directory is an error, exit 1" {
	mkdir "$T/empty" "$T/other"
	run perf2spaa "$T/empty"
	assert_failure 1
	assert_output "perf2spaa: $T/empty: a directory, but not a perf.data directory (perf record --threads): no file 'data' in it"
	echo 'not perf' > "$T/other/data"
	run perf2spaa "$T/other"
	assert_failure 1
	assert_output "perf2spaa: $T/other: a directory, but not a perf.data directory: its file 'data' is not a perf.data file (no PERFILE2 magic)"
}

@test "perf2spaa perf.data: a --threads directory without its data.N files, or with one cut short, or its header file given alone, is an error, exit 1" {
	can_record
	c_prog
	perf record -q -g --threads -e cpu-clock -o "$T/dir.data" "$T/prog" 100 >/dev/null 2>&1 ||
		skip "perf cannot record with --threads here"
	mkdir "$T/headonly"
	cp "$T/dir.data/data" "$T/headonly/"
	run perf2spaa "$T/headonly"
	assert_failure 1
	assert_output "perf2spaa: $T/headonly: a perf.data directory (perf record --threads) without its data.N files, which hold the samples"
	# its header file alone (perf script asserts on it): the directory named
	run perf2spaa "$T/dir.data/data"
	assert_failure 1
	assert_output "perf2spaa: $T/dir.data/data: the header file 'data' of a perf record --threads directory: its samples are in the data.N files beside it; convert the directory ('perf2spaa $T/dir.data')"
	run sh -c "cd '$T/dir.data' && perf2spaa < data"
	assert_failure 1
	assert_output "perf2spaa: -: the header file 'data' of a perf record --threads directory: its samples are in the data.N files beside it; convert the directory ('perf2spaa DIR')"
	# the data.N file of the cpu the program ran on: the largest
	local f size
	f=$(ls -S "$T/dir.data"/data.* | head -n 1)
	size=$(stat -c %s "$f")
	[ "$size" -gt 0 ]
	truncate -s $((size - 3)) "$f"
	run perf2spaa "$T/dir.data"
	assert_failure 1
	assert_output --regexp "^perf2spaa: $f: byte [0-9]+: truncated: "
}

@test "perf2spaa perf.data: --threads files with equal times: perf's order, its 2 MiB turns over the files first, then the files' order" {
	can_record
	[ "$(nproc)" -ge 2 ] || skip "needs two cpus for two data.N files"
	# deep stacks (big records) in two busy processes, sampled often: each
	# cpu's file passes perf's 2 MiB turn several times over
	cat > "$T/deep.c" <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void down(int d, int n)
{
	if (d > 0) down(d - 1, n);
	else for (int i = 0; i < n; i++) sink += (unsigned long)i * i;
	sink++;
}
int main(int argc, char **argv)
{
	int r = argc > 1 ? atoi(argv[1]) : 100;
	for (int k = 0; k < r; k++) down(40 + k % 8, 200000);
	printf("%lu\n", sink);
	return 0;
}
EOF2
	cc -O2 -fno-omit-frame-pointer -o "$T/deep" "$T/deep.c"
	# one on each cpu: their samples in one file each, telling the files apart
	command -v taskset >/dev/null || skip "no taskset"
	perf record -q -g --threads -F 25000 -e cpu-clock -o "$T/dir.data" -- \
		sh -c "taskset -c 0 '$T/deep' 1500 & taskset -c 1 '$T/deep' 1500; wait" >/dev/null 2>&1 ||
		skip "perf cannot record with --threads here"
	local f
	for f in data.0 data.1; do
		[ "$(stat -c %s "$T/dir.data/$f")" -gt $((2 << 20)) ] ||
			skip "$f under 2 MiB: the cpus too busy with other work to test perf's turns"
	done
	# the samples of one file take the times of the other's, half a turn
	# on: equal times across the files, one in a later turn than the other
	cat > "$T/retime.py" <<'EOF2'
import os, struct, sys
d, donor, target = sys.argv[1:4]
def samples(b):
    off, pos, first = 0, [], 0
    while off + 8 <= len(b):
        t, m, s = struct.unpack_from('<IHH', b, off)
        if t == 9:  # PERF_RECORD_SAMPLE: ip, pid/tid, then the time
            pos.append(off + 24)
            if off < 2 << 20: first += 1
        off += s
    return pos, first
a = open(os.path.join(d, donor), 'rb').read()
b = bytearray(open(os.path.join(d, target), 'rb').read())
pa, first = samples(a)
pb, _ = samples(b)
for p, q in zip(pa[first // 2:], pb):
    b[q:q + 8] = a[p:p + 8]
open(os.path.join(d, target), 'wb').write(b)
EOF2
	local way
	for way in "data.0 data.1" "data.1 data.0"; do
		rm -rf "$T/tie.data"
		cp -r "$T/dir.data" "$T/tie.data"
		# shellcheck disable=SC2086
		python3 "$T/retime.py" "$T/tie.data" $way
		perf2spaa -s "$T/tie.data" > "$T/bin.spaa"
		perf script -i "$T/tie.data" 2>/dev/null | perf2spaa -s > "$T/txt.spaa"
		diff <(sample_rows "$T/bin.spaa") <(sample_rows "$T/txt.spaa") > "$T/order.diff" ||
			fail "times of $way: not perf's order: $(head -n 4 "$T/order.diff")"
	done
}

@test "perf2spaa perf.data: a --threads capture with -z (compressed records in the data.N files) is refused, naming what to run instead, exit 1" {
	can_record
	c_prog
	perf record -q -z -g --threads -e cpu-clock -o "$T/zdir.data" "$T/prog" 100 >/dev/null 2>&1 ||
		skip "perf cannot record with --threads -z here"
	run perf2spaa "$T/zdir.data"
	assert_failure 1
	assert_output --regexp "^perf2spaa: $T/zdir.data/data\.[0-9]+: byte 0: compressed records \(perf record -z\) in a perf.data directory: not supported; record without -z, or convert it with 'perf script -i $T/zdir.data \| perf2spaa'$"
}

# Hostile files: real captures with a count or size patched past the
# bytes there are, or with what a reader might hold or redo for each
# repetition repeated (tests/data/perf/hostile.py makes them).
hostile() { python3 "$D/perf/hostile.py" "$@"; }

# patch_at FILE OFFSET BYTES: BYTES (printf's escapes) written at OFFSET
patch_at() {
	# shellcheck disable=SC2059
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

@test "perf2spaa perf.data: counts and sizes a file claims past its bytes (cmdline and event description counts, a string's length, a callchain's, a user stack's, a group's values, a branch stack's, a pipe-mode attribute's size and feature records' counts) are errors naming the offset, exit 1, at once and in small memory" {
	can_record
	c_prog
	perf record -q -N -e cpu-clock -g -o "$T/fp.data" "$T/prog" 50 >/dev/null
	local o
	# HEADER_CMDLINE (feature 11): nr = 0xffffffff arguments
	o=$(hostile feature "$T/fp.data" 11)
	cp "$T/fp.data" "$T/h.data"
	patch_at "$T/h.data" "$o" '\377\377\377\377'
	run bounded 100 10 perf2spaa "$T/h.data"
	assert_failure 1
	assert_output --regexp "^perf2spaa: $T/h.data: byte $o: cmdline feature: 4294967295 arguments, more than its [0-9]+ bytes hold$"
	# HEADER_EVENT_DESC (feature 12): nr = 0xffffffff events, then an
	# attribute size of 0xffffffff
	o=$(hostile feature "$T/fp.data" 12)
	cp "$T/fp.data" "$T/h.data"
	patch_at "$T/h.data" "$o" '\377\377\377\377'
	run bounded 100 10 perf2spaa "$T/h.data"
	assert_failure 1
	assert_output --regexp "^perf2spaa: $T/h.data: byte $o: event description feature: 4294967295 events of [0-9]+ bytes each, more than its [0-9]+ bytes hold$"
	cp "$T/fp.data" "$T/h.data"
	patch_at "$T/h.data" $((o + 4)) '\377\377\377\377'
	run bounded 100 10 perf2spaa "$T/h.data"
	assert_failure 1
	assert_output --regexp "^perf2spaa: $T/h.data: byte $o: event description feature: 1 events of 4294967295 bytes each, more than its [0-9]+ bytes hold$"
	# HEADER_HOSTNAME (feature 3): a string of 0xffffffff bytes
	o=$(hostile feature "$T/fp.data" 3)
	cp "$T/fp.data" "$T/h.data"
	patch_at "$T/h.data" "$o" '\377\377\377\377'
	run bounded 100 10 perf2spaa "$T/h.data"
	assert_failure 1
	assert_output "perf2spaa: $T/h.data: byte $o: string of 4294967295 bytes past the end of its feature section"
	# a sample's callchain nr = 2^64 - 1 (the message names the record)
	o=$(hostile sample-field "$T/fp.data" callchain)
	cp "$T/fp.data" "$T/h.data"
	patch_at "$T/h.data" "$o" '\377\377\377\377\377\377\377\377'
	run bounded 100 10 perf2spaa "$T/h.data"
	assert_failure 1
	assert_output --regexp "^perf2spaa: $T/h.data: byte [0-9]+: sample record: a callchain of 18446744073709551615 entries past its end$"
	# --call-graph dwarf: a user stack of 2^64 - 1 bytes
	perf record -q -N -e cpu-clock --call-graph dwarf -o "$T/dw.data" "$T/prog" 20 >/dev/null 2>&1
	o=$(hostile sample-field "$T/dw.data" stack)
	cp "$T/dw.data" "$T/h.data"
	patch_at "$T/h.data" "$o" '\377\377\377\377\377\377\377\377'
	run bounded 100 10 perf2spaa "$T/h.data"
	assert_failure 1
	assert_output --regexp "^perf2spaa: $T/h.data: byte [0-9]+: sample record of [0-9]+ bytes too short for its user stack \(18446744073709551615 bytes\)$"
	# a group read by its leader: nr = 2^64 - 1 values
	perf record -q -N -e '{cpu-clock,task-clock}:S' -g -o "$T/grp.data" "$T/prog" 20 >/dev/null 2>&1
	o=$(hostile sample-field "$T/grp.data" read)
	cp "$T/grp.data" "$T/h.data"
	patch_at "$T/h.data" "$o" '\377\377\377\377\377\377\377\377'
	run bounded 100 10 perf2spaa "$T/h.data"
	assert_failure 1
	assert_output --regexp "^perf2spaa: $T/h.data: byte [0-9]+: sample record: 18446744073709551615 read values past its end$"
	# a branch stack's nr = 2^64 - 1 (the samples' callchains read as
	# branch stacks, each nr patched: no LBR to record one with here)
	hostile branch "$T/fp.data" "$T/h.data"
	for o in $(hostile sample-field "$T/fp.data" callchain all); do
		patch_at "$T/h.data" "$o" '\377\377\377\377\377\377\377\377'
	done
	run bounded 100 10 perf2spaa "$T/h.data"
	assert_failure 1
	assert_output --regexp "^perf2spaa: $T/h.data: byte [0-9]+: sample record: a branch stack of 18446744073709551615 entries past its end$"
	# pipe mode: a HEADER_ATTR record's attribute size, HEADER_FEATURE
	# records' cmdline and event description counts, 0xffffffff each
	perf record -q -N -e cpu-clock -g -o - "$T/prog" 50 2>/dev/null > "$T/pipe.data"
	# pipe_patched AT TYPE [FEATURE]: $T/h.data, pipe.data with
	# 0xffffffff AT bytes into its record of TYPE (HEADER_FEATURE: of
	# FEATURE); the record's offset printed
	pipe_patched() {
		local at=$1 r
		shift
		r=$(hostile pipe-record "$T/pipe.data" "$@")
		cp "$T/pipe.data" "$T/h.data"
		patch_at "$T/h.data" $((r + at)) '\377\377\377\377'
		echo "$r"
	}
	o=$(pipe_patched 12 64)
	run bounded 100 10 perf2spaa - < "$T/h.data"
	assert_failure 1
	assert_output --regexp "^perf2spaa: -: byte $o: attribute record: attribute of 4294967295 bytes in a record of [0-9]+$"
	o=$(pipe_patched 16 80 11)
	run bounded 100 10 perf2spaa - < "$T/h.data"
	assert_failure 1
	assert_output --regexp "^perf2spaa: -: byte $((o + 16)): cmdline feature: 4294967295 arguments, more than its [0-9]+ bytes hold$"
	o=$(pipe_patched 16 80 12)
	run bounded 100 10 perf2spaa - < "$T/h.data"
	assert_failure 1
	assert_output --regexp "^perf2spaa: -: byte $((o + 16)): event description feature: 4294967295 events of [0-9]+ bytes each, more than its [0-9]+ bytes hold$"
}

@test "perf2spaa perf.data: attributes whose ids sections overlap (each claiming the whole file) are refused in small memory, not held many times the file's size, exit 1" {
	can_record
	c_prog
	perf record -q -N -e cpu-clock -g -o "$T/fp.data" "$T/prog" 50 >/dev/null
	local size asz
	size=$(stat -c %s "$T/fp.data")
	asz=$(od -An -t u8 -j 16 -N 8 "$T/fp.data" | tr -d ' ')
	# 2000 attributes (of asz bytes) appended, each with the whole file
	# (of size + 2000 asz bytes) as its ids: 600 MB of ids before
	hostile ids-overlap "$T/fp.data" "$T/ids.data" 2000
	run bounded 100 10 perf2spaa "$T/ids.data"
	assert_failure 1
	local all=$((size + 2000 * asz))
	assert_output "perf2spaa: $T/ids.data: byte $((size + 2 * asz - 16)): attribute ids: $((2 * all)) bytes in all so far, more than the file's $all (ids sections that overlap: corrupt)"
}

@test "perf2spaa perf.data: pipe mode with tens of thousands of HEADER_ATTR records takes each once (no slower for each), more than 65536 event attributes are refused, exit 1" {
	can_record
	c_prog
	perf record -q -N -e cpu-clock -g -o - "$T/prog" 50 2>/dev/null > "$T/pipe.data"
	perf2spaa "$T/pipe.data" | spaa-fold > "$T/plain.fold"
	# 60000 copies of its attribute record: the same profile, at once
	# (each record went over all the attributes before: 12 s)
	hostile pipe-attrs "$T/pipe.data" "$T/attrs.data" 60000
	run bounded 200 5 perf2spaa -o "$T/attrs.spaa" "$T/attrs.data"
	assert_success
	spaa-fold "$T/attrs.spaa" | cmp - "$T/plain.fold"
	# 70000: beyond the limit, at the 65537th
	hostile pipe-attrs "$T/pipe.data" "$T/attrs.data" 70000
	local rsz
	rsz=$(od -An -t u2 -j 22 -N 2 "$T/pipe.data" | tr -d ' ')
	run bounded 200 5 perf2spaa "$T/attrs.data"
	assert_failure 1
	assert_output "perf2spaa: $T/attrs.data: byte $((16 + 65536 * rsz)): more than 65536 event attributes: not a capture of perf's (corrupt)"
}

@test "perf2spaa perf.data: pipe mode with a HEADER_BUILD_ID record before each sample takes each build id once (no slower for each)" {
	can_record
	c_prog
	perf record -q -N -e cpu-clock -g -o - "$T/prog" 50 2>/dev/null > "$T/pipe.data"
	local n
	n=$(perf2spaa -s "$T/pipe.data" | grep -c '"type":"sample"')
	# 20000 times a build id record, a sample, a FINISHED_ROUND (all the
	# build ids were taken again before each sample: minutes)
	hostile pipe-buildids "$T/pipe.data" "$T/bids.data" 20000
	run bounded 200 10 perf2spaa -s -o "$T/bids.spaa" "$T/bids.data"
	assert_success
	assert_equal "$(grep -c '"type":"sample"' "$T/bids.spaa")" $((n + 20000))
}

# maps_alike N F OPT MB SECONDS: a pipe-mode capture of the C program with
# N mappings and F forks added (hostile.py pipe-maps, OPT: "", write or
# falling) is converted within MB of memory and SECONDS, and folds as the
# capture itself does
maps_alike() {
	c_prog
	perf record -q -N -e cpu-clock -g -o - "$T/prog" 50 2>/dev/null > "$T/pipe.data"
	perf2spaa "$T/pipe.data" | spaa-fold > "$T/plain.fold"
	hostile pipe-maps "$T/pipe.data" "$T/maps.data" "$1" "$2" $3
	run bounded "$4" "$5" perf2spaa -o "$T/maps.spaa" "$T/maps.data"
	assert_success
	spaa-fold "$T/maps.spaa" | cmp - "$T/plain.fold"
}

@test "perf2spaa perf.data: a process of 100000 mappings forked 20000 times (a pid reused each time) is read at once, in small memory: the mappings found by bisection, shared by parent and child until either changes them" {
	can_record
	# (before: 5 s for the mappings, each a pass over those before it, and
	# for the forks a copy of them each, made by 100000 inserts: minutes,
	# gigabytes)
	maps_alike 100000 20000 "" 200 10
}

@test "perf2spaa perf.data: a process of 100000 mappings met at falling addresses (as mmap places them, top down) is read at once: each insert moves the mappings on its shorter side" {
	can_record
	# (before: each insert moved every mapping above it, 5.9 s)
	maps_alike 100000 0 falling 200 3
}

# perf (dso__load) makes a file's NAME@plt symbols only when its symbol
# table (.symtab, else .dynsym) gave it some: a stripped executable that
# exports nothing has its PLT unnamed (binutils' addr2line, started by perf
# script in a system-wide capture, had a sample in bfd_check_format@plt's
# lazy binding that perf script printed as [unknown])
@test "perf2spaa perf.data: the PLT of a stripped executable with no symbol at all is [unknown], as perf leaves it; one exporting a function names it NAME@plt" {
	can_record
	cat > "$T/plt.c" <<'EOF2'
#include <stdlib.h>
#ifdef EXPORT
__attribute__((visibility("default"))) void exported(void) {}
#endif
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000000, s = 0;
	for (long i = 0; i < n; i++) s += labs(i - n / 2);
	return (int)(s & 1);
}
EOF2
	local x flags
	for x in bare exports; do
		flags=
		[ "$x" = bare ] || flags="-DEXPORT -rdynamic"
		# shellcheck disable=SC2086
		cc -O1 -fno-builtin -fno-omit-frame-pointer $flags -o "$T/$x" "$T/plt.c"
		strip "$T/$x"
		perf record -q -N -e cpu-clock -g -o "$T/$x.data" "$T/$x" >/dev/null
		fold_both "$T/$x.data"
		diff "$T/txt.fold" "$T/bin.fold"
		cp "$T/bin.fold" "$T/$x.fold"
	done
	# no frame of the bare executable's own PLT is named (a sample in a
	# library's PLT, named from its .dynsym, may come now and then)
	run sh -c "perf2spaa '$T/bare.data' | jq -s --arg f '$T/bare' '([.[] | select(.type == \"dso\" and .name == \$f) | .id]) as \$d | [.[] | select(.type == \"frame\" and (.func | endswith(\"@plt\")) and ([.dso] | inside(\$d)))] | length'"
	assert_output 0
	grep -q "^exports;.*;labs@plt [0-9]*$" "$T/exports.fold"
}

@test "perf2spaa perf.data: a process of 50000 mappings forked 200 times (a pid reused each time), each child mapping a file of its own: the mappings of each process gone are freed, memory holds those of the processes there are" {
	can_record
	# (before: each child's copy of the 50000 kept, 335 MB of a 5.6 MB file)
	maps_alike 50000 200 write 100 10
}

# self_by_report DATA COMM: perf report's self period of each function of
# command COMM, "NAME PERIOD" a line, sorted; self_by_fold COMM: the same of
# the folded stacks on standard input (their leaves)
self_by_report() {
	perf report -i "$1" --stdio --no-children -q -g none --comm "$2" -F period,sym 2>/dev/null |
		awk 'NF == 3 { print $3, $1 }' | LC_ALL=C sort
}
self_by_fold() {
	awk -v c="$1" 'index($0, c ";") == 1 { w = $NF; sub(/ [0-9]+$/, ""); n = split($0, a, ";"); s[a[n]] += w }
		END { for (k in s) printf "%s %.0f\n", k, s[k] }' | LC_ALL=C sort
}

@test "perf2spaa perf.data: a sample whose callchain perf drops (an unknown context marker in it) is the sampled address's, as perf report credits it: each function's self period is perf report's" {
	can_record
	# bad() spins with %rbp at a fake frame whose caller's return address
	# is no address but an unknown context marker (-16): the kernel's
	# frame-pointer walk stores it, and perf takes the chain for corrupt
	cat > "$T/bad.c" <<'EOC'
#include <stdio.h>
static volatile unsigned long sink;
__attribute__((noinline)) void good(long n) { for (long i = 0; i < n; i++) sink += (unsigned long)i * i; }
__attribute__((noinline)) void bad(long n)
{
	static unsigned long fake2[2] = { 0, 0xfffffffffffffff0UL };
	unsigned long fake[2] = { (unsigned long)fake2, 0xfffffffffffffff0UL };
	__asm__ volatile("push %%rbp\n\tmov %1, %%rbp\n1:\n\tdec %0\n\tjnz 1b\n\tpop %%rbp"
			 : "+r"(n) : "r"(fake) : "memory", "cc");
}
int main(void)
{
	for (int k = 0; k < 20; k++) { good(5000000); bad(20000000); }
	printf("%lu\n", sink);
	return 0;
}
EOC
	[ "$(uname -m)" = x86_64 ] || skip "the fake frame is x86-64 code"
	cc -O2 -g -fno-omit-frame-pointer -o "$T/bad" "$T/bad.c"
	perf record -q -e cpu-clock -g -o "$T/bad.data" "$T/bad" >/dev/null
	# perf script prints no frame for those samples
	perf script -i "$T/bad.data" 2>/dev/null | awk 'BEGIN { RS = ""; FS = "\n" } NF == 1 && /^bad / { n++ } END { exit !(n > 50) }'
	self_by_report "$T/bad.data" bad > "$T/want"
	perf2spaa "$T/bad.data" | spaa-fold | self_by_fold bad > "$T/got"
	grep -q '^bad [0-9]' "$T/got"
	diff "$T/want" "$T/got"
	perf2spaa -j 2 "$T/bad.data" | spaa-fold | self_by_fold bad > "$T/got2"
	diff "$T/want" "$T/got2"
}

@test "perf2spaa perf.data: several events (perf record -e cpu-clock,task-clock,page-faults): the first is perf's first, as perf report shows them, whatever sampled first; a count event's primary metric is count, each event's total perf report's event count" {
	can_record
	c_prog
	# page-faults samples first (the program's loading), cpu-clock later
	perf record -q -e cpu-clock,task-clock,page-faults -g -o "$T/ev.data" "$T/prog" 200 >/dev/null
	perf report -i "$T/ev.data" --stdio --no-children -g none 2>/dev/null |
		awk '/^# Samples: .* of event / { e = $NF; gsub(/\x27/, "", e) } /^# Event count/ { print e, $NF }' > "$T/want"
	for j in 1 2; do
		perf2spaa -j $j "$T/ev.data" > "$T/ev.spaa"
		spaa-validate "$T/ev.spaa" >/dev/null
		jq -r 'select(.type == "header") | .events[] | "\(.name) \(.sampling.primary_metric)"' "$T/ev.spaa" > "$T/events"
		assert_file_eq "$T/events" <<-'EOT'
			cpu-clock period
			task-clock period
			page-faults count
		EOT
		spaa-top -n 0 "$T/ev.spaa" | head -1 | grep -q '^cpu-clock/period, total'
		spaa-top -n 0 --event=page-faults "$T/ev.spaa" | head -1 | grep -q '^page-faults/count, total [0-9,]*$'
		while read -r e _; do
			echo "$e $(spaa-fold --event="$e" "$T/ev.spaa" | awk '{ t += $NF } END { printf "%.0f\n", t }')"
		done < "$T/want" > "$T/got"
		diff "$T/want" "$T/got"
	done
	# the text path names the count the same
	perf script -i "$T/ev.data" 2>/dev/null | perf2spaa | jq -r 'select(.type == "header") | .events[] | select(.name == "page-faults") | .sampling.primary_metric' > "$T/m"
	assert_file_eq "$T/m" <<< count
}

@test "perf2spaa perf.data: by default the stacks perf script gives by default: a dwarf capture's user frames with their inlined calls (main;inl_[i]), a frame-pointer capture's without (perf adds none there); --no-inline as perf script --no-inline; --inline adds them to frame-pointer callchains too" {
	can_record
	c_prog
	perf record -q -N -e cpu-clock -g -o "$T/fp.data" "$T/prog" 400 >/dev/null
	perf record -q -N -e cpu-clock --call-graph dwarf -o "$T/dw.data" "$T/prog" 400 >/dev/null 2>&1 ||
		skip "perf cannot record --call-graph dwarf here"
	# frame pointers: perf script adds no inlined calls, by default or not
	perf2spaa "$T/fp.data" | spaa-fold --inline | plt_as_one > "$T/bin.fold"
	perf script -i "$T/fp.data" 2>/dev/null | perf2spaa | spaa-fold --inline | plt_as_one > "$T/txt.fold"
	diff "$T/txt.fold" "$T/bin.fold"
	! grep -q '_\[i\]' "$T/bin.fold"
	assert_equal "$(perf2spaa "$T/fp.data" | jq -c 'select(.type == "stack")' | wc -l)" \
		"$(perf script -i "$T/fp.data" 2>/dev/null | perf2spaa | jq -c 'select(.type == "stack")' | wc -l)"
	perf2spaa --inline "$T/fp.data" | spaa-fold --inline | grep -q ';main;inl_\[i\] [0-9]*$'
	# dwarf: perf script adds them by default; >= 99% of the weight alike
	# (libdw's lines against perf's addr2line, in the dynamic loader)
	perf2spaa "$T/dw.data" | spaa-fold --inline | plt_as_one > "$T/bin.fold"
	perf script -i "$T/dw.data" 2>/dev/null | perf2spaa | spaa-fold --inline | plt_as_one > "$T/txt.fold"
	grep -q '^prog;.*;main;inl_\[i\] [0-9]*$' "$T/bin.fold"
	w=$(weight_in_common "$T/bin.fold" "$T/txt.fold")
	awk -v p="$w" 'BEGIN { exit !(p >= 99) }' || fail "default: only $w% of the weight alike"
	perf2spaa -j 2 "$T/dw.data" | spaa-fold --inline | plt_as_one | cmp - "$T/bin.fold"
	perf2spaa --no-inline "$T/dw.data" | spaa-fold --inline | plt_as_one > "$T/bin.fold"
	perf script --no-inline -i "$T/dw.data" 2>/dev/null | perf2spaa | spaa-fold --inline | plt_as_one > "$T/txt.fold"
	! grep -q '_\[i\]' "$T/bin.fold"
	w=$(weight_in_common "$T/bin.fold" "$T/txt.fold")
	awk -v p="$w" 'BEGIN { exit !(p >= 99) }' || fail "--no-inline: only $w% of the weight alike"
}

@test "perf2spaa perf.data: a JIT's inlined calls in a perf map (perf-map-agent's unfolded names, outer->middle->inner) fold as stackcollapse-perf.pl and inferno fold them, the inlined ones marked _[i], through perf.data and perf script's text alike" {
	can_record
	command -v javac >/dev/null || skip "no java compiler"
	cat > "$T/Hot.java" <<'EOJ'
public class Hot {
    static long sink;
    static long inner(long x) { return x * 31 + (x >>> 3); }
    static long middle(long x) { return inner(x) ^ inner(x + 1); }
    static long outer(long n) { long s = 0; for (long i = 0; i < n; i++) s += middle(i); return s; }
    public static void main(String[] a) {
        for (int k = 0; k < 200; k++) sink += outer(2_000_000);
        System.out.println(sink);
    }
}
EOJ
	(cd "$T" && javac Hot.java)
	perf record -q -g -e cpu-clock -o "$T/java.data" -- sh -c "echo \$\$ > '$T/pid'; exec java -XX:+PreserveFramePointer \
		-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -cp '$T' Hot" >/dev/null
	map=/tmp/perf-$(cat "$T/pid").map
	[ -f "$map" ] || skip "the JVM wrote no perf map"
	# The JVM writes each method's code once, without the calls inlined
	# in it: the map rewritten as perf-map-agent's unfolding names code
	# of inlined calls (no agent here to write it), C2 having inlined
	# middle and inner into outer
	sed -E -i 's/ long Hot\.outer\(long\)$/ LHot;::outer->LHot;::middle->LHot;::inner/;
		s/ long Hot\.middle\(long\)$/ LHot;::middle->LHot;::inner/; s/ long Hot\.inner\(long\)$/ LHot;::inner/' "$map"
	perf script -i "$T/java.data" 2>/dev/null > "$T/java.txt"
	perf2spaa "$T/java.data" | spaa-fold | grep 'LHot' > "$T/bin.fold" || true
	rm -f "$map"
	perf2spaa "$T/java.txt" | spaa-fold | grep 'LHot' > "$T/txt.fold"
	diff "$T/txt.fold" "$T/bin.fold"
	grep -q ';LHot:::outer;LHot:::middle_\[i\];LHot:::inner_\[i\] [0-9]*$' "$T/txt.fold"
	! grep -q 'LHot:::middle;\|LHot:::inner;\|LHot:::middle [0-9]\|LHot:::inner [0-9]' "$T/txt.fold"
	# --inline=plain as before: the parts unmarked
	perf2spaa "$T/java.txt" | spaa-fold --inline=plain | grep -q ';LHot:::outer;LHot:::middle;LHot:::inner [0-9]*$'
	# stackcollapse-perf.pl, where it is at hand, folds them alike
	if command -v stackcollapse-perf.pl >/dev/null; then
		stackcollapse-perf.pl "$T/java.txt" | grep 'LHot' | sort > "$T/pl.fold"
		sort "$T/txt.fold" | diff "$T/pl.fold" -
	fi
}

@test "perf2spaa: perf script text without the period field (-F comm,tid,time,event,ip,sym,dso) counts samples: its primary metric is samples, each function's self samples perf report's" {
	can_record
	c_prog
	perf record -q -N -e cpu-clock -g -o "$T/fp.data" "$T/prog" 300 >/dev/null
	perf script -F comm,tid,time,event,ip,sym,dso -i "$T/fp.data" 2>/dev/null > "$T/nop.txt"
	perf2spaa "$T/nop.txt" > "$T/nop.spaa"
	jq -r 'select(.type == "header") | .events[] | "\(.name) \(.sampling.primary_metric)"' "$T/nop.spaa" > "$T/ev"
	assert_file_eq "$T/ev" <<< 'cpu-clock samples'
	# the samples perf script prints, thousands grouped as spaa-top does
	n=$(perf script -F comm -i "$T/fp.data" 2>/dev/null | grep -c . | sed ':a; s/\B[0-9]\{3\}\>/,&/; ta')
	spaa-top -n 1 "$T/nop.spaa" | head -1 > "$T/top"
	assert_file_eq "$T/top" <<< "cpu-clock/samples, total $n"
	perf report -i "$T/fp.data" --stdio --no-children -q -g none --comm prog -F sample,sym 2>/dev/null |
		awk 'NF == 3 { print $3, $1 }' | LC_ALL=C sort > "$T/want"
	spaa-fold "$T/nop.spaa" | self_by_fold prog > "$T/got"
	diff "$T/want" "$T/got"
	# -j 2 alike
	perf2spaa -j 2 "$T/nop.txt" | cmp - "$T/nop.spaa"
}

@test "perf2spaa: perf script -F+srcline text reads without a warning: a kernel frame's line of no source ([kernel.kallsyms][ADDR]) is its frame's, no source line; perf report --sort srcline's figures" {
	can_record
	c_prog
	# (and a program that is mostly the kernel's, copying 300 MB: kernel
	# frames in every run)
	perf record -q -N -e cpu-clock -g -o "$T/fp.data" sh -c '"$1" 300; head -c 300000000 /dev/zero > /dev/null' sh "$T/prog" >/dev/null
	perf script -F+srcline -i "$T/fp.data" 2>/dev/null > "$T/src.txt"
	grep -q '^  \[kernel.kallsyms\]\[[0-9a-f]*\]$' "$T/src.txt"
	run perf2spaa -o "$T/src.spaa" "$T/src.txt"
	assert_success
	assert_output ""
	# the program's lines weigh what perf report --sort srcline says
	perf report -i "$T/fp.data" --stdio --no-children -g none --sort srcline -q 2>/dev/null |
		awk '$2 ~ /^prog\.c:[0-9]+$/ { printf "%s %.2f%%\n", $2, $1 }' | sort > "$T/want"
	spaa-top -n 0 --by=srcline --raw-units "$T/src.spaa" | awk '$1 != "0" && $NF ~ /^prog\.c:[0-9]+$/ { printf "%s %.2f%%\n", $NF, $2 }' | sort > "$T/got"
	[ -s "$T/want" ]
	diff "$T/want" "$T/got"
}

@test "perf2spaa perf.data --srcline: each frame's source line from DWARF: spaa-top --by=srcline gives perf report --sort srcline's figures, on frame-pointer and dwarf captures; -j 1 and 2 alike" {
	can_record
	c_prog
	perf record -q -N -e cpu-clock -g -o "$T/fp.data" "$T/prog" 300 >/dev/null
	perf record -q -N -e cpu-clock --call-graph dwarf -o "$T/dw.data" "$T/prog" 300 >/dev/null 2>&1 || true
	for d in fp dw; do
		[ -s "$T/$d.data" ] || continue
		perf report -i "$T/$d.data" --stdio --no-children -g none --sort srcline -q 2>/dev/null |
			awk '$2 ~ /^[^ ]+\.[ch]:[0-9]+$/ { printf "%s %.2f%%\n", $2, $1 }' | sort > "$T/want"
		perf2spaa --srcline "$T/$d.data" > "$T/$d.spaa"
		spaa-top -n 0 --by=srcline --raw-units "$T/$d.spaa" |
			awk '$1 != "0" && $NF ~ /^[^ ]+\.[ch]:[0-9]+$/ { printf "%s %.2f%%\n", $NF, $2 }' | sort > "$T/got"
		grep -q '^prog\.c:4 ' "$T/want"
		diff "$T/want" "$T/got"
		perf2spaa --srcline -j 2 "$T/$d.data" | cmp - "$T/$d.spaa"
	done
	# without --srcline: none, and the hint names the option
	perf2spaa "$T/fp.data" > "$T/no.spaa"
	run spaa-top --by=srcline "$T/no.spaa"
	assert_line --index 0 --partial "no frame has a source line: convert a perf.data with 'perf2spaa --srcline'"
}

@test "perf2spaa perf.data: samples whose callchains perf drops, the sampled address not in them (every entry made an unknown marker): each credited to its own address, as perf report does, not to the first address of a like chain" {
	can_record
	# two functions called from one place: chains of one depth
	cat > "$T/two.c" <<'EOC'
#include <stdio.h>
static volatile unsigned long sink;
__attribute__((noinline)) void one(long n) { for (long i = 0; i < n; i++) sink += (unsigned long)i * i; }
__attribute__((noinline)) void two(long n) { for (long i = 0; i < n; i++) sink ^= (unsigned long)i + 7; }
int main(void)
{
	for (int k = 0; k < 40; k++) { void (*f)(long) = k & 1 ? two : one; f(5000000); }
	printf("%lu\n", sink);
	return 0;
}
EOC
	cc -O2 -fno-omit-frame-pointer -o "$T/two" "$T/two.c"
	perf record -q -N -e cpu-clock -g -o "$T/fp.data" "$T/two" >/dev/null
	cp "$T/fp.data" "$T/h.data"
	python3 "$D/perf/hostile.py" sample-field "$T/h.data" callchain all > "$T/offs"
	python3 - "$T/h.data" "$T/offs" <<'EOP'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
for o in map(int, open(sys.argv[2]).read().split()):
    for i in range(struct.unpack_from("<Q", b, o)[0]):
        struct.pack_into("<Q", b, o + 8 + 8 * i, 0xfffffffffffffff0)
open(sys.argv[1], "wb").write(b)
EOP
	self_by_report "$T/h.data" two > "$T/want"
	grep -q '^one [0-9]' "$T/want"
	grep -q '^two [0-9]' "$T/want"
	perf2spaa "$T/h.data" | spaa-fold | self_by_fold two > "$T/got"
	diff "$T/want" "$T/got"
}
