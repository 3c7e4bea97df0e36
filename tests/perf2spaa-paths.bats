#!/usr/bin/env bats
# perf2spaa and the files a capture names (the mapped files, their debug
# files, perf's build-id cache, perf maps, kallsyms): only regular files
# are opened, never blocking (a FIFO there is not read), and under --symfs
# a path resolves as after chroot(2): "..", absolute symbolic links and
# link loops lead nowhere out of the root.  Real captures made here with
# perf; skipped, saying why, only where perf cannot record.  Each command
# that could block runs under timeout, so that a regression fails.
load common

# record_prog [-N]: the program, recorded from a long directory name
# ($T/$LONG/prog, renamed in place by a test) into $T/fp.data (frame
# pointers), perf's build-id cache in $T/home/.debug (none with -N);
# $T/nocache: an empty build-id cache, $T/empty: an empty root.
LONG=a_directory_whose_long_name_leaves_room_to_patch_xxxxxxxxxxxxxxxx
record_prog() {
	mkdir -p "$T/$LONG" "$T/nocache" "$T/empty"
	prog_c "$T/prog.c"
	cc -O2 -fno-omit-frame-pointer -o "$T/$LONG/prog" "$T/prog.c"
	mkdir -p "$T/home"
	HOME=$T/home perf record -q $1 -e cpu-clock -g -o "$T/fp.data" "$T/$LONG/prog" 200 >/dev/null 2>&1
}

# p2s OUT [OPTION...]: perf2spaa OPTION... $T/fp.data, folded into $T/OUT
# (at most 60 s: a FIFO opened would block)
p2s() {
	local out=$1
	shift
	timeout 60 perf2spaa "$@" "$T/fp.data" > "$T/$out.spaa"
	spaa-fold "$T/$out.spaa" | sort > "$T/$out"
}

@test "perf2spaa perf.data: a mapped file that is a FIFO now is not opened (no hang): its frames unnamed, as when it is gone" {
	can_record
	record_prog -N
	p2s named --debug-dir="$T/nocache"
	grep -q ';main;leaf [0-9]*$' "$T/named"
	rm "$T/$LONG/prog"
	p2s gone --debug-dir="$T/nocache"
	mkfifo "$T/$LONG/prog"
	run p2s fifo --debug-dir="$T/nocache"
	assert_success
	assert_output "perf2spaa: $T/fp.data: warning: frames in $T/$LONG/prog left unnamed: a FIFO, not a regular file"
	cmp "$T/gone" "$T/fifo"
	! grep -q 'main' "$T/fifo"
	# --inline too (the file read with libdw)
	mv "$T/$LONG/prog" "$T/fifo.keep"
	p2s gone-inl --inline --debug-dir="$T/nocache"
	mv "$T/fifo.keep" "$T/$LONG/prog"
	run p2s fifo-inl --inline --debug-dir="$T/nocache"
	assert_success
	cmp "$T/gone-inl" "$T/fifo-inl"
	# the same under --symfs, the root holding the FIFO
	mkdir -p "$T/root$T"
	mv "$T/$LONG" "$T/root$T/"
	rm "$T/root$T/$LONG/prog"
	p2s gone2 --symfs="$T/root" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms
	mkfifo "$T/root$T/$LONG/prog"
	run p2s fifo2 --symfs="$T/root" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms
	assert_success
	assert_output "perf2spaa: $T/fp.data: warning: frames in $T/root$T/$LONG/prog left unnamed: a FIFO, not a regular file"
	cmp "$T/gone2" "$T/fifo2"
}

@test "perf2spaa perf.data: a debug file by build id under --symfs, or perf's build-id cache copy, that is a FIFO is not opened (no hang)" {
	can_record
	record_prog
	bid=$(perf buildid-list -i "$T/fp.data" 2>/dev/null | awk -v p="$T/$LONG/prog" '$2 == p { print $1 }')
	[ -n "$bid" ]
	mkdir -p "$T/root$T"
	cp -r "$T/$LONG" "$T/root$T/"
	p2s plain --symfs="$T/root" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms
	grep -q ';main;leaf [0-9]*$' "$T/plain"
	mkdir -p "$T/root/usr/lib/debug/.build-id/${bid:0:2}"
	mkfifo "$T/root/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
	run p2s dbg --symfs="$T/root" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms
	assert_success
	cmp "$T/plain" "$T/dbg"
	# perf's build-id cache: its copy of the program a FIFO
	mkdir -p "$T/cache/.build-id/${bid:0:2}/${bid:2}"
	mkfifo "$T/cache/.build-id/${bid:0:2}/${bid:2}/elf" "$T/cache/.build-id/${bid:0:2}/${bid:2}/debug"
	p2s host --debug-dir="$T/nocache"
	run p2s incache --debug-dir="$T/cache"
	assert_success
	cmp "$T/host" "$T/incache"
}

@test "perf2spaa perf.data: --kallsyms naming a FIFO or a directory is an error (no hang), exit 1; a relative one is from the current directory, also under --symfs" {
	can_record
	mkdir -p "$T/nocache"
	perf record -q -N -e cpu-clock -g -o "$T/fp.data" -- dd if=/dev/zero of=/dev/null bs=512 count=200000 >/dev/null 2>&1
	mkfifo "$T/k"
	run timeout 60 perf2spaa --kallsyms="$T/k" -o "$T/out.spaa" "$T/fp.data"
	assert_failure 1
	assert_output "perf2spaa: $T/k: cannot read the kernel's symbols: a FIFO, not a regular file"
	[ ! -e "$T/out.spaa" ]
	run timeout 60 perf2spaa --kallsyms="$T" "$T/fp.data"
	assert_failure 1
	assert_output "perf2spaa: $T: cannot read the kernel's symbols: a directory, not a regular file"
	# a relative --kallsyms is from the current directory, not under --symfs
	mkdir -p "$T/empty" "$T/d"
	cp /proc/kallsyms "$T/d/k.txt"
	timeout 60 perf2spaa --symfs="$T/empty" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms "$T/fp.data" |
		spaa-fold | sort > "$T/want"
	grep -q 'do_syscall_64\|asm_sysvec\|entry_SYSCALL' "$T/want"
	cd "$T/d"
	run timeout 60 perf2spaa --symfs="$T/empty" --debug-dir="$T/nocache" --kallsyms=k.txt -o "$T/rel.spaa" "$T/fp.data"
	assert_success
	assert_output ''
	spaa-fold "$T/rel.spaa" | sort | cmp - "$T/want"
}

@test "perf2spaa perf.data --symfs: a recorded path with '..' stays under the root, as after chroot(2): nothing of the host is read" {
	can_record
	record_prog -N
	mkdir -p "$T/h"
	cp "$T/$LONG/prog" "$T/h/prog"
	p2s plain --symfs="$T/empty" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms
	# the mapping (and its build-id entry) renamed, in place:
	# ///../../..$T/h/prog, the host's copy of the program from no root
	python3 - "$T/fp.data" "$T/$LONG/prog" "$T/h/prog" <<'EOF'
import sys
f, old, host = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
new = b"/.." * 12 + host
assert len(new) <= len(old)
new = b"/" * (len(old) - len(new)) + new
d = open(f, "rb").read()
assert d.count(old) >= 1
open(f, "wb").write(d.replace(old, new))
EOF
	p2s host --debug-dir="$T/nocache"
	grep -q ';main;leaf [0-9]*$' "$T/host"
	p2s dots --symfs="$T/empty" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms
	cmp "$T/plain" "$T/dots"
	! grep -qE '(^|;)main(;| )' "$T/dots" # (a kernel frame may hold 'main': domain...)
}

@test "perf2spaa perf.data --symfs: absolute symbolic links resolve inside the root, a link loop is no file (no hang): the host's libraries are not read" {
	can_record
	record_prog -N
	p2s unrooted --symfs="$T/empty" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms
	grep -q '^prog;\[libc.so.6\];' "$T/unrooted"
	# every top directory a link to the host's own
	mkdir -p "$T/root"
	for d in usr lib lib64 tmp; do ln -s "/$d" "$T/root/$d"; done
	p2s abs --symfs="$T/root" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms
	cmp "$T/unrooted" "$T/abs"
	# links out by '..' after a link, and a loop
	rm "$T/root"/*
	mkdir -p "$T/root/x/y"
	ln -s x/y "$T/root/down"
	ln -s down/../../../../../../../../usr "$T/root/usr"
	ln -s lib64 "$T/root/lib"
	ln -s lib "$T/root/lib64"
	ln -s "$T/root/tmp" "$T/root/tmp"
	run p2s rel --symfs="$T/root" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms
	assert_success
	# (the file named is the first whose symbols are sought: the program or
	# a library, as the first sample of the capture falls)
	assert_output --regexp "^perf2spaa: $T/fp.data: warning: frames in $T/root/[^ ]*/(lib[^ ]*\.so[^ ]*|prog) left unnamed: too many symbolic links \(and in [0-9]+ more files not read: only regular files are\)\$"
	cmp "$T/unrooted" "$T/rel"
}

@test "perf2spaa perf.data: perf's build-id cache (--debug-dir) is a root of its own: an absolute link in it leads nowhere out" {
	can_record
	record_prog
	[ -d "$T/home/.debug/.build-id" ]
	rm "$T/$LONG/prog"
	p2s cached --debug-dir="$T/home/.debug"
	grep -q ';main;leaf [0-9]*$' "$T/cached"
	p2s none --debug-dir="$T/nocache"
	# a cache whose .build-id is an absolute link to the real one's
	mkdir -p "$T/cache"
	ln -s "$T/home/.debug/.build-id" "$T/cache/.build-id"
	p2s abs --debug-dir="$T/cache"
	cmp "$T/none" "$T/abs"
	# the same by a relative --debug-dir
	cd "$T"
	p2s rel --debug-dir=home/.debug
	cmp "$T/cached" "$T/rel"
}

@test "perf2spaa perf.data --symfs: a JIT's perf map is read under the root only, a FIFO there not at all (no hang)" {
	can_record
	[ "$(uname -m)" = x86_64 ] || skip "the test's JIT code is x86_64's"
	mkdir -p "$T/nocache" "$T/empty"
	cat > "$T/jit.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
/* mov $N, %rcx; 1: dec %rcx; jnz 1b; ret */
static const unsigned char code[] = { 0x48, 0xb9, 0, 0, 0, 0x10, 0, 0, 0, 0, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };
int main(void)
{
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) return 1;
	memcpy(p, code, sizeof code);
	char name[64];
	snprintf(name, sizeof name, "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(name, "w");
	if (!f) return 1;
	fprintf(f, "%lx %zx jitted_spin\n", (unsigned long)p, sizeof code);
	fclose(f);
	((void (*)(void))p)();
	printf("%d\n", (int)getpid());
	return 0;
}
EOF
	cc -O2 -o "$T/jit" "$T/jit.c"
	perf record -q -N -e cpu-clock -o "$T/fp.data" "$T/jit" > "$T/pid" 2>/dev/null
	pid=$(cat "$T/pid")
	p2s host --debug-dir="$T/nocache"
	grep -q 'jitted_spin [0-9]*$' "$T/host"
	p2s unrooted --symfs="$T/empty" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms
	! grep -q "jitted_spin" "$T/unrooted"
	# the root's map an absolute link to the host's (a link to the
	# host's whole /tmp would also hide $T/jit when $T is under /tmp,
	# and samples of the binary itself come and go)
	mkdir -p "$T/root/tmp"
	ln -s "/tmp/perf-$pid.map" "$T/root/tmp/perf-$pid.map"
	run p2s abs --symfs="$T/root" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms
	assert_success
	assert_output "perf2spaa: $T/fp.data: warning: frames in $T/root/tmp/perf-$pid.map left unnamed: too many symbolic links"
	cmp "$T/unrooted" "$T/abs"
	# a FIFO there
	rm "$T/root/tmp/perf-$pid.map"
	mkfifo "$T/root/tmp/perf-$pid.map"
	run p2s fifo --symfs="$T/root" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms
	assert_success
	assert_output "perf2spaa: $T/fp.data: warning: frames in $T/root/tmp/perf-$pid.map left unnamed: a FIFO, not a regular file"
	cmp "$T/unrooted" "$T/fifo"
	rm -f "/tmp/perf-$pid.map"
}

@test "perf2spaa perf.data --call-graph dwarf: the debug file the unwinder seeks by .gnu_debuglink is not opened when a FIFO (no hang), nor outside --symfs" {
	can_record
	case $(uname -m) in x86_64 | aarch64) ;; *) skip "the unwinder knows x86_64's and aarch64's registers" ;; esac
	mkdir -p "$T/nocache" "$T/p"
	cat > "$T/prog.c" <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void leaf(int n) { for (int i = 0; i < n; i++) sink += (unsigned long)i * i; }
__attribute__((noinline)) void mid(int n) { leaf(n); sink++; }
int main(int argc, char **argv)
{
	int r = argc > 1 ? atoi(argv[1]) : 300;
	for (int k = 0; k < r; k++) mid(100000);
	printf("%lu\n", sink);
	return 0;
}
EOF2
	# the program's call frame information only in its debug file
	# (.debug_frame), which its .gnu_debuglink names
	cc -O2 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables -o "$T/p/prog" "$T/prog.c"
	objcopy --only-keep-debug "$T/p/prog" "$T/p/prog.debug"
	objcopy --strip-debug --add-gnu-debuglink="$T/p/prog.debug" "$T/p/prog"
	perf record -q -N -e cpu-clock --call-graph dwarf -o "$T/fp.data" "$T/p/prog" 100 >/dev/null 2>&1
	p2s linked --debug-dir="$T/nocache"
	grep -q ';main;mid;leaf [0-9]*$' "$T/linked"
	mv "$T/p/prog.debug" "$T/prog.debug"
	p2s gone --debug-dir="$T/nocache"
	! grep -q ';main;mid;leaf [0-9]*$' "$T/gone"
	mkfifo "$T/p/prog.debug"
	run p2s fifo --debug-dir="$T/nocache"
	assert_success
	cmp "$T/gone" "$T/fifo"
	# under --symfs, the debug file an absolute link to the one outside
	mkdir -p "$T/root$T"
	cp -r "$T/p" "$T/root$T/"
	rm "$T/root$T/p/prog.debug"
	p2s gone2 --symfs="$T/root" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms
	ln -s "$T/prog.debug" "$T/root$T/p/prog.debug"
	p2s abs --symfs="$T/root" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms
	cmp "$T/gone2" "$T/abs"
	# and one inside, by a relative link, is read
	mkdir "$T/root/d"
	mv "$T/prog.debug" "$T/root/d/"
	ln -sf ../../../../../../../../../../d/prog.debug "$T/root$T/p/prog.debug"
	p2s rel --symfs="$T/root" --debug-dir="$T/nocache" --kallsyms=/proc/kallsyms
	grep -q ';main;mid;leaf [0-9]*$' "$T/rel"
}

@test "v8log2spaa: a shared library the log names is read only when a regular file (a FIFO: no hang), and under --root as after chroot(2)" {
	command -v cc >/dev/null || skip "no C compiler"
	mkdir -p "$T/l"
	echo 'int fn_here(int x) { return x * 3 + 1; }' > "$T/l.c"
	cc -O2 -fPIC -shared -o "$T/l/lib.so" "$T/l.c"
	vaddr=$(nm -D --defined-only "$T/l/lib.so" | awk '$3 == "fn_here" { print $1 }')
	# log: the library at 0x7f0000000000 (its file offsets are its addresses here)
	log() { printf 'v8-version,11,3,244,8,,0\nshared-library,%s,0x7f0000000000,0x7f0001000000,0\ntick,0x%x,1,0,0x0,0\n' \
		"$1" $(( 0x7f0000000000 + 0x$vaddr + 1 )) > "$T/n.v8log"; }
	funcs() { timeout 60 v8log2spaa "$@" "$T/n.v8log" | jq -r 'select(.type == "frame") | .func'; }
	log "$T/l/lib.so"
	run funcs
	assert_output fn_here
	log "$T/gone.so"
	want=$(funcs)
	assert_equal "$want" "0x$(printf %x $(( 0x$vaddr + 1 )))"
	mkfifo "$T/fifo.so"
	log "$T/fifo.so"
	run funcs
	assert_success
	assert_output "$want"
	# under --root: '..' stays there, an absolute link starts there again
	mkdir -p "$T/root/x"
	log "/../../../../../../../..$T/l/lib.so"
	run funcs --root="$T/root"
	assert_output "$want"
	ln -s "$T/l/lib.so" "$T/root/x/abs.so"
	log /x/abs.so
	run funcs --root="$T/root"
	assert_output "$want"
	ln -s ../../../../../../../../x/../../.."$T"/l/lib.so "$T/root/x/up.so"
	log /x/up.so
	run funcs --root="$T/root"
	assert_output "$want"
	# one inside, by an absolute link, is read
	cp "$T/l/lib.so" "$T/root/x/in.so"
	ln -s /x/in.so "$T/root/x/inside.so"
	log /x/inside.so
	run funcs --root="$T/root"
	assert_output fn_here
}
