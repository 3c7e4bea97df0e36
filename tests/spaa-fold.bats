#!/usr/bin/env bats
# spaa-fold: SPAA to folded stacks.

load common
bats_require_minimum_version 1.5.0


setup() {
	T=$BATS_TEST_TMPDIR
	F=$D/fold
	M=$F/mini.spaa
	WARN_EV="spaa-fold: $M:1: 2 events; folding only cycles, not malloc (use --event or --all-events)"
	WARN_PERIOD="spaa-fold: $M: 1 stack without metric period skipped"
}

@test "default: comm root, tidied names, bytewise order, one warning per kind" {
	run --separate-stderr spaa-fold "$M"
	assert_success
	assert_output - <<'EOF'
app;main;foo;do_syscall_64 2001
app;main;main.(*Server).Serve;std::(anonymous namespace)::bar;inl_helper 1000
app;main;name with:newline 500
worker_thread;main;LazyCompile:"f" /app.js:1;[unknown];[libc.so.6] 700
EOF
	assert_equal "$stderr" "$WARN_EV
$WARN_PERIOD"
}

@test "both frame orders fold the same" {
	spaa-fold "$M" >"$T/a" 2>/dev/null
	spaa-fold "$F/mini-root.spaa" >"$T/b" 2>/dev/null
	cmp "$T/a" "$T/b"
}

@test "--raw: names as stored, only ';' and line breaks replaced" {
	run --separate-stderr spaa-fold --raw "$M"
	assert_success
	assert_output - <<'EOF'
app;main;(skipped);name with:newline 500
app;main;foo(int, char const*);do_syscall_64 2001
app;main;main.(*Server).Serve;std::(anonymous namespace)::bar(long);inl_helper 1000
worker thread;main;LazyCompile:"f" /app.js:1;0x0;0x7f00dead 700
EOF
}

@test "--raw --inline=mark keeps the inline mark" {
	run --separate-stderr spaa-fold --raw --inline=mark --event cycles "$M"
	assert_success
	assert_line "app;main;main.(*Server).Serve;std::(anonymous namespace)::bar(long);inl_helper_[i] 1000"
}

@test "--no-comm" {
	run --separate-stderr spaa-fold --no-comm "$M"
	assert_success
	assert_output - <<'EOF'
main;LazyCompile:"f" /app.js:1;[unknown];[libc.so.6] 700
main;foo;do_syscall_64 2001
main;main.(*Server).Serve;std::(anonymous namespace)::bar;inl_helper 1000
main;name with:newline 500
EOF
}

@test "--pid: comm-PID, comm-? without a pid" {
	run --separate-stderr spaa-fold --pid "$M"
	assert_success
	assert_output - <<'EOF'
app-10;main;foo;do_syscall_64 2001
app-10;main;main.(*Server).Serve;std::(anonymous namespace)::bar;inl_helper 1000
app-10;main;name with:newline 500
worker_thread-?;main;LazyCompile:"f" /app.js:1;[unknown];[libc.so.6] 700
EOF
}

@test "--tid: comm-PID/TID splits threads" {
	run --separate-stderr spaa-fold --tid "$M"
	assert_success
	assert_output - <<'EOF'
app-10/11;main;foo;do_syscall_64 2000
app-10/11;main;name with:newline 500
app-10/12;main;foo;do_syscall_64 1
app-10/12;main;main.(*Server).Serve;std::(anonymous namespace)::bar;inl_helper 1000
worker_thread-?/11;main;LazyCompile:"f" /app.js:1;[unknown];[libc.so.6] 700
EOF
}

@test "--kernel, --jit, --all" {
	run --separate-stderr spaa-fold --kernel "$M"
	assert_line "app;main;foo;do_syscall_64_[k] 2001"
	assert_line "worker_thread;main;LazyCompile:\"f\" /app.js:1;[unknown];[libc.so.6] 700"
	run --separate-stderr spaa-fold --jit "$M"
	assert_line "app;main;foo;do_syscall_64 2001"
	assert_line "worker_thread;main;LazyCompile:\"f\" /app.js:1_[j];[unknown];[libc.so.6] 700"
	run --separate-stderr spaa-fold --all "$M"
	assert_line "app;main;foo;do_syscall_64_[k] 2001"
	assert_line "worker_thread;main;LazyCompile:\"f\" /app.js:1_[j];[unknown];[libc.so.6] 700"
}

@test "--addrs" {
	run --separate-stderr spaa-fold --addrs "$M"
	assert_line "worker_thread;main;LazyCompile:\"f\" /app.js:1;[unknown <0>];[libc.so.6 <7f00dead>] 700"
}

@test "--inline (mark), --inline=plain (the default for perf) and --inline=hide" {
	run --separate-stderr spaa-fold --inline "$M"
	assert_line "app;main;main.(*Server).Serve;std::(anonymous namespace)::bar;inl_helper_[i] 1000"
	run --separate-stderr spaa-fold --inline=mark "$M"
	assert_line "app;main;main.(*Server).Serve;std::(anonymous namespace)::bar;inl_helper_[i] 1000"
	run --separate-stderr spaa-fold --inline=plain "$M"
	assert_line "app;main;main.(*Server).Serve;std::(anonymous namespace)::bar;inl_helper 1000"
	run --separate-stderr spaa-fold --inline=hide "$M"
	assert_line "app;main;main.(*Server).Serve;std::(anonymous namespace)::bar 1000"
}

@test "--metric samples: java L prefix dropped, zero-period stack now shown" {
	run --separate-stderr spaa-fold --metric samples "$M"
	assert_success
	assert_output - <<'EOF'
app;main 1
app;main;foo;do_syscall_64 3
app;main;main.(*Server).Serve;std::(anonymous namespace)::bar;inl_helper 1
app;main;name with:newline 1
java;java/lang/Thread:::run 3
worker_thread;main;LazyCompile:"f" /app.js:1;[unknown];[libc.so.6] 1
EOF
	assert_equal "$stderr" "$WARN_EV"
}

@test "--metric with non-integer values sums them in plain decimals" {
	run --separate-stderr spaa-fold -m cpu_util "$M"
	assert_success
	assert_output "app;main;foo;do_syscall_64 0.75"
	assert_equal "$stderr" "$WARN_EV
spaa-fold: $M: 5 stacks without metric cpu_util skipped"
}

@test "--event picks one event and its primary metric" {
	run --separate-stderr spaa-fold --event malloc "$M"
	assert_success
	assert_output "app;main;foo 4096"
	assert_equal "$stderr" "spaa-fold: $M: 1 stack without metric alloc_bytes skipped"
}

@test "--all-events: the event is the root frame" {
	run --separate-stderr spaa-fold --all-events "$M"
	assert_success
	assert_output - <<'EOF'
cycles;app;main;foo;do_syscall_64 2001
cycles;app;main;main.(*Server).Serve;std::(anonymous namespace)::bar;inl_helper 1000
cycles;app;main;name with:newline 500
cycles;worker_thread;main;LazyCompile:"f" /app.js:1;[unknown];[libc.so.6] 700
malloc;app;main;foo 4096
EOF
	assert_equal "$stderr" "spaa-fold: $M: 2 stacks without its event's primary metric skipped"
}

@test "unknown event is an error" {
	run spaa-fold --event nope "$M"
	assert_failure 1
	assert_output "spaa-fold: $M:1: event nope is not declared in the header (events: cycles, malloc)"
}

@test "usage errors" {
	run spaa-fold --inline=x "$M"
	assert_failure 2
	assert_output "spaa-fold: --inline: unknown mode 'x' (mark, plain or hide)
Try 'spaa-fold --help' for more information."
	run spaa-fold --event cycles --all-events "$M"
	assert_failure 2
	assert_line -n 0 "spaa-fold: --event and --all-events exclude each other"
	run spaa-fold --bogus
	assert_failure 2
}

@test "--help and --version" {
	run spaa-fold --help
	assert_success
	assert_line -n 0 "Usage: spaa-fold [OPTION]... [FILE]..."
	run spaa-fold --version
	assert_success
	assert_output --regexp '^spaa-fold \(spaa-tools\) '
}

# stackcollapse-perf.pl compatibility on perf-derived SPAA (FlameGraph tests)
fold_perf() { # NAME OPT
	local in
	in=$(ls "$F/$1".spaa*)
	# (quotes deleted: spaa-fold keeps them, as inferno does)
	spaa-fold "--$2" "$in" 2>/dev/null | tr -d "'\"" >"$T/out"
	cmp "$T/out" "$F/expected/$1-collapsed-$2.txt"
}

@test "perf-java-stacks-02: all six stackcollapse-perf options" {
	for o in pid tid kernel jit all addrs; do fold_perf perf-java-stacks-02 $o; done
}

@test "perf-js-stacks-01: all six options (JIT maps, quotes, C++ signatures)" {
	for o in pid tid kernel jit all addrs; do fold_perf perf-js-stacks-01 $o; done
}

@test "perf-dd-stacks-01: all six options (periods, vmlinux, single pid number)" {
	for o in pid tid kernel jit all addrs; do fold_perf perf-dd-stacks-01 $o; done
}

@test "perf-iperf (zstd input): all six options (pid/tid pairs)" {
	for o in pid tid kernel jit all addrs; do fold_perf perf-iperf-stacks-pidtid-01 $o; done
}

@test "perf-cycles-instructions (gzip input): first event, with a warning" {
	run --separate-stderr spaa-fold --pid "$F/perf-cycles-instructions-01.spaa.gz"
	assert_success
	assert_equal "$stderr" "spaa-fold: $F/perf-cycles-instructions-01.spaa.gz:1: 2 events; folding only instructions, not cycles (use --event or --all-events)"
	for o in pid tid kernel jit all addrs; do fold_perf perf-cycles-instructions-01 $o; done
}

@test "several events: --event cycles and --all-events totals" {
	run sh -c "spaa-fold --event cycles '$F/perf-cycles-instructions-01.spaa.gz' | awk '{s+=\$NF} END {print NR, s}'"
	assert_output "8 111"
	run sh -c "spaa-fold --all-events '$F/perf-cycles-instructions-01.spaa.gz' | awk '{s+=\$NF} END {print NR, s}'"
	assert_output "14 444"
}

@test "DTrace-sourced SPAA folds like stackcollapse.pl" {
	spaa-fold "$F/dtrace-stacks.spaa.gz" >"$T/out"
	cmp "$T/out" "$F/expected/example-dtrace-stacks-collapsed.txt"
}

@test "many distinct stacks, then repeated ones: the same sums whether stacks repeat or not" {
	# 6000 distinct call paths in thread 1 (past the point where spaa-fold
	# stops caching stack keys that never repeat), then the same paths
	# again in thread 2: every folded line sums both
	awk 'BEGIN { for (i = 0; i < 6000; i++) printf "main;f%d;g%d %d\n", i % 97, i, i + 1 }' > "$T/a.folded"
	folded2spaa "$T/a.folded" > "$T/a.spaa"
	sed -n '/"type":"stack"/p' "$T/a.spaa" | sed 's/"id":"0x/"id":"0xb/; s/"context":{"event":"cpu"}/"context":{"event":"cpu","tid":2}/' > "$T/b.part"
	cat "$T/a.spaa" "$T/b.part" > "$T/ab.spaa"
	spaa-validate -q "$T/ab.spaa"
	awk '{ $2 = 2 * $2; print }' "$T/a.folded" | LC_ALL=C sort > "$T/want"
	spaa-fold --no-comm "$T/ab.spaa" > "$T/got"
	cmp "$T/want" "$T/got"
	run sh -c 'spaa-fold --no-comm "$1" | wc -l' sh "$T/ab.spaa"
	assert_output 6000
}

@test "bytewise order with names that are prefixes of others (' ', '!', digits, ':' below ';'; '<', letters, UTF-8 above)" {
	# 3000 random paths of 1 to 5 names over a small alphabet, so that many
	# names are prefixes of others and paths share prefixes; the expected
	# order is sort(1)'s in the C locale
	awk 'BEGIN { srand(7); split("a|b|ab|a b|a!|a0|a:|a<|é|aé|b9|b=", al, "|")
		for (i = 0; i < 3000; i++) { n = 1 + int(rand() * 5); p = ""
			for (j = 0; j < n; j++) p = p (j ? ";" : "") al[1 + int(rand() * 12)] al[1 + int(rand() * 12)]
			print p, 1 + int(rand() * 9) } }' > "$T/r.folded"
	awk '{ c = $NF; sub(/ [^ ]*$/, ""); s[$0] += c } END { for (k in s) print k, s[k] }' "$T/r.folded" |
		LC_ALL=C sort > "$T/want"
	folded2spaa "$T/r.folded" | spaa-fold --raw > "$T/got"
	cmp "$T/want" "$T/got"
	[ "$(wc -l < "$T/got")" -gt 2000 ]
}

@test "several inputs and stdin are summed" {
	run sh -c "spaa-fold --metric samples '$M' - <'$F/mini-root.spaa' 2>/dev/null"
	assert_success
	assert_line "app;main;foo;do_syscall_64 6"
	assert_line "java;java/lang/Thread:::run 6"
}

@test "-o FILE" {
	run spaa-fold -o "$T/out.folded" "$F/perf-dd-stacks-01.spaa"
	assert_success
	assert_output ""
	grep -q '^dd;\[unknown\];read 10101010$' "$T/out.folded"
}

@test "write error on /dev/full" {
	run sh -c "spaa-fold '$F/perf-dd-stacks-01.spaa' >/dev/full"
	assert_failure 1
	assert_output --partial "write error"
}

@test "stack referring to an unknown frame" {
	printf '%s\n' '{"type":"header","format":"spaa","version":"1.0","frame_order":"leaf_to_root","events":[{"name":"c","kind":"software","sampling":{"mode":"event","primary_metric":"samples"}}],"stack_id_mode":"local"}' \
		'{"type":"dso","id":1,"name":"x"}' '{"type":"frame","id":1,"func":"f","dso":1}' \
		'{"type":"stack","id":"0x1e","frames":[1],"context":{"event":"c"},"weights":[{"metric":"samples","value":1}]}' \
		'{"type":"stack","id":"0x1f","frames":[1,42],"context":{"event":"c"},"weights":[{"metric":"samples","value":1}]}' >"$T/x.spaa"
	run spaa-fold "$T/x.spaa"
	assert_failure 1
	assert_output "spaa-fold: $T/x.spaa:5: stack 0x1f refers to unknown frame 42"
}

@test "missing header" {
	printf '%s\n' '{"type":"dso","id":1,"name":"x"}' >"$T/x.spaa"
	run spaa-fold "$T/x.spaa"
	assert_failure 1
	assert_output "spaa-fold: $T/x.spaa:1: the first record is a dso, not the header"
	: >"$T/empty.spaa"
	run spaa-fold "$T/empty.spaa"
	assert_failure 1
	assert_output "spaa-fold: $T/empty.spaa: no header record (empty input)"
}

@test "bad JSON" {
	head -3 "$M" >"$T/x.spaa"
	echo '{"type":"frame","id":1,' >>"$T/x.spaa"
	run spaa-fold --event cycles "$T/x.spaa"
	assert_failure 1
	assert_output "spaa-fold: $T/x.spaa:4: invalid JSON at byte 24: unexpected end of line"
}

@test "bad weight value" {
	head -1 "$M" >"$T/x.spaa"
	echo '{"type":"stack","id":1,"frames":[],"context":{"event":"cycles"},"weights":[{"metric":"period","value":"7"}]}' >>"$T/x.spaa"
	run spaa-fold --event cycles "$T/x.spaa"
	assert_failure 1
	assert_output "spaa-fold: $T/x.spaa:2: stack 1: weights[0] needs a \"metric\" string and a numeric \"value\""
}

@test "weight overflow is an error" {
	head -1 "$F/perf-dd-stacks-01.spaa" >"$T/x.spaa"
	for i in 1 2; do
		echo '{"type":"stack","id":'$i',"frames":[],"context":{"event":"cpu-clock","comm":"a"},"weights":[{"metric":"period","value":18446744073709551615}]}' >>"$T/x.spaa"
	done
	run spaa-fold "$T/x.spaa"
	assert_failure 1
	assert_output "spaa-fold: $T/x.spaa:3: weight overflow: the sum for stack a exceeds 64 bits"
}

@test "a DTrace stack with no frames folds to \" COUNT\", as stackcollapse.pl and inferno-collapse-dtrace write it; folded2spaa reads it back" {
	printf 'CPU     ID                    FUNCTION:NAME\n  0  64091                        :tick-60s \n\n\n' >"$T/d.txt"
	printf '              libc.so.1`__read+0x15\n              a.out`main+0x10\n               30\n\n               12\n' >>"$T/d.txt"
	run spaa-fold "$T/d.txt"
	assert_success
	assert_output "$(printf ' 12\na.out`main;libc.so.1`__read 30')"
	spaa-fold "$T/d.txt" | folded2spaa | spaa-fold >"$T/again"
	spaa-fold "$T/d.txt" | cmp - "$T/again"
}

@test "output loads in flamegraph.pl / inferno-flamegraph when installed" {
	if command -v flamegraph.pl >/dev/null; then
		spaa-fold "$F/perf-dd-stacks-01.spaa" | flamegraph.pl >"$T/a.svg"
		grep -q '<svg' "$T/a.svg"
	elif command -v inferno-flamegraph >/dev/null; then
		spaa-fold "$F/perf-dd-stacks-01.spaa" | inferno-flamegraph >"$T/a.svg"
		grep -q '<svg' "$T/a.svg"
	else
		skip "neither flamegraph.pl nor inferno-flamegraph installed"
	fi
}

@test "not SPAA: every filter reads the format in process, as the converter's output (spaa-validate says what to run)" {
	# (tests/readany.bats: every command on every format)
	same_as() { # same_as CONVERTER FILE CMD [ARG]...: CMD FILE == CONVERTER FILE | CMD
		local conv=$1 file=$2
		shift 2
		local out
		out=$("$@" "$file" 2>/dev/null) || fail "$* $file: exit $?"
		# (the same file name in both: spaa-stat prints it)
		[ "$out" = "$($conv "$file" > "$T/conv.spaa" && cd "$T" && "$@" conv.spaa 2>/dev/null | sed "s|conv.spaa|$file|")" ] ||
			fail "$* $file differs from $conv $file | $*"
	}
	same_as perf2spaa "$EX/parser.perf.txt" spaa-fold
	same_as dtrace2spaa "$EX/dtrace-stacks.txt" spaa-top
	same_as folded2spaa "$EX/dd.folded" spaa-grep -e x
	same_as spall2spaa "$EX/small-trace.spall" spaa-stat
	same_as spx2spaa "$EX/spx-small.json" spaa-cat
	same_as afperf2spaa "$EX/basic.afperf" spaa-top
	same_as "perf2spaa -s" "$EX/parser.perf.txt" spaa-window --list --every 0.05
	run spaa-validate "$EX/parser.perf.txt"
	assert_failure 1
	assert_output "spaa-validate: $EX/parser.perf.txt:1: this is 'perf script' text, not SPAA: run perf2spaa first
$EX/parser.perf.txt: invalid: 0 header, 0 dso, 0 frame, 0 thread, 0 stack, 0 sample, 0 window, 0 other; 1 error, 0 warnings"
	# what no converter reads is still refused as not SPAA
	printf 'hello\n' > "$T/x.txt"
	run spaa-fold "$T/x.txt"
	assert_failure 1
	assert_output --partial "spaa-fold: $T/x.txt:1: "
}

@test "a line longer than SPAA_MAX_LINE is an error with its line, in the filters and the converters" {
	{ printf '{"type":"header","format":"spaa","version":"1.0","events":[]}\n'; head -c 3000 /dev/zero | tr '\0' a; } > "$T/long.spaa"
	SPAA_MAX_LINE=1000 run spaa-fold "$T/long.spaa"
	assert_failure 1
	assert_output "spaa-fold: $T/long.spaa:2: line longer than 1000 bytes, the limit (SPAA_MAX_LINE=BYTES raises it)"
	head -c 3000 /dev/zero | tr '\0' a > "$T/long.folded"
	SPAA_MAX_LINE=1000 run folded2spaa "$T/long.folded"
	assert_failure 1
	assert_output "folded2spaa: $T/long.folded:1: line longer than 1000 bytes, the limit (SPAA_MAX_LINE=BYTES raises it)"
	SPAA_MAX_LINE=1000 run perf2spaa "$T/long.folded"
	assert_failure 1
	assert_output "perf2spaa: $T/long.folded:1: line longer than 1000 bytes, the limit (SPAA_MAX_LINE=BYTES raises it)"
}

@test "another major version of SPAA is refused; control bytes and bad UTF-8 from the input are shown as \\xNN in messages" {
	printf '{"type":"header","format":"spaa","version":"\\u001b[31m2.0\\u0007","frame_order":"leaf_to_root","events":[]}\n' > "$T/v2.spaa"
	run spaa-fold "$T/v2.spaa"
	assert_failure 1
	assert_output "spaa-fold: $T/v2.spaa:1: header: unsupported SPAA version \"\\x1b[31m2.0\\x07\" (this program reads 1.x)"
	printf 'a;b 1\n' | folded2spaa > "$T/ok.spaa"
	run spaa-fold --event $'x\377\033y' "$T/ok.spaa"
	assert_failure 1
	assert_output --partial 'event x\xff\x1by is not'
}

@test "spaa-fold -m: pprof's, heaptrack's and V8's metric names; a metric no stack has is an error listing the file's" {
	pprof2spaa "$EX/go-heap.pprof" > "$T/h.spaa"
	run spaa-fold -m live_bytes "$T/h.spaa"
	want=$output
	run spaa-fold -m inuse_space "$T/h.spaa"
	assert_success
	assert_output "$want"
	run spaa-fold -m leaked "$T/h.spaa"
	assert_output "$want"
	run spaa-fold -m cpu "$EX/perf-cpu.spaa"
	assert_success
	assert_output "$(spaa-fold -m period "$EX/perf-cpu.spaa")"
	run spaa-fold -m bogus "$EX/perf-cpu.spaa"
	assert_failure 1
	assert_output "spaa-fold: $EX/perf-cpu.spaa: no stack of event cycles has metric 'bogus' (metrics: samples, period)"
}

# Names as good as the best collapser (inferno's collapse-perf, or better):
# tests/data/perf/naming.txt holds one frame per rule, naming-cppfn.perf.txt.gz
# is `perf script` of naming-cppfn.cc (g++ -O0 -fno-omit-frame-pointer,
# perf record -g -F 499).  spaa-fold(1) lists every difference from
# stackcollapse-perf.pl.
@test "names: C++ template arguments keep their parentheses; only the trailing argument list is cut" {
	perf2spaa "$D/perf/naming.txt" > "$T/n.spaa"
	run spaa-fold "$T/n.spaa"
	assert_line "cxxapp;main;(anonymous namespace)::helper;std::operator<< <std::char_traits<char> >;operator new;RegExp:[&<>\"'];net/http.(*Client).Do;Shape::area;run(int)::{lambda(int)#1}::operator();Ptr<Node>::operator->;<std::collections::hash::map::HashMap<K, V, S> as core::iter::traits::Extend<(K, V)>>::extend 250000"
}

@test "names: a real capture of std::function and a lambda (perf script text)" {
	perf2spaa "$D/perf/naming-cppfn.perf.txt.gz" > "$T/c.spaa"
	run sh -c "spaa-fold '$T/c.spaa' | sed 's/ [0-9]*\$//' | tr ';' '\n' | grep -e '(' | sort -u"
	assert_output - <<'OUT'
(anonymous namespace)::spin
main::{lambda(long, long)#1}::operator()
std::_Function_base::_Base_manager<main::{lambda(long, long)#1}>::_M_get_pointer
std::_Function_handler<long (long, long), main::{lambda(long, long)#1}>::_M_invoke
std::__invoke_impl<long, main::{lambda(long, long)#1}&, long, long>
std::__invoke_r<long, main::{lambda(long, long)#1}&, long, long>
std::forward<main::{lambda(long, long)#1}&>
std::function<long (long, long)>::operator()
OUT
}

@test "names: --kernel marks versioned vmlinux images and kernel modules (.ko, .ko.xz, [name])" {
	perf2spaa "$D/perf/naming.txt" > "$T/n.spaa"
	run spaa-fold --kernel "$T/n.spaa"
	assert_line "swapper;cpu_startup_entry_[k];e1000_clean_[k];ext4_map_blocks_[k];nf_hook_slow_[k];__softirqentry_text_start_[k] 250000"
	run jq -c 'select(.type == "frame" and .kind == "kernel") | .func' "$T/n.spaa"
	assert_output - <<'OUT'
"__softirqentry_text_start"
"nf_hook_slow"
"ext4_map_blocks"
"e1000_clean"
"cpu_startup_entry"
OUT
}

@test "names: --jit marks jitdump objects (jitted-PID-N.so) as it marks /tmp/perf-PID.map" {
	perf2spaa "$D/perf/naming.txt" > "$T/n.spaa"
	run spaa-fold --jit "$T/n.spaa"
	assert_line "node;main;tool_main;LazyCompile:~main /app/x.js:1_[j];Function:^loop /app/x.js:9_[j];Function:^run /app/x.js:3_[j] 250000"
}

@test "names: Rust names perf left half-demangled are repaired, their hash dropped" {
	perf2spaa "$D/perf/naming.txt" > "$T/n.spaa"
	run spaa-fold "$T/n.spaa"
	assert_line "rustapp;main;std::rt::lang_start;<std::collections::HashMap<K,V,S> as core::iter::Extend<(K,V)>>::extend;core::ptr::drop_in_place<*mut u8>;<&std::fs::File as std::io::Read>::read;gc::gc::GcBox<T>::new::{{closure}} 250000"
	# --raw: as perf printed them
	run spaa-fold --raw "$T/n.spaa"
	assert_line --partial ';gc::gc::GcBox$LT$T$GT$::new::_$u7b$$u7b$closure$u7d$$u7d$::h0123456789abcdef 250000'
}

@test "names: --pid/--tid of a PID/0 header (idle swapper 0/0) is comm-PID/0, as inferno writes it" {
	perf2spaa "$D/perf/naming.txt" > "$T/n.spaa"
	run spaa-fold --tid "$T/n.spaa"
	assert_line --partial "swapper-0/0;cpu_startup_entry;"
}

@test "names: a live capture of the std::function program keeps std::function<long (long, long)>::operator()" {
	g++ -O0 -fno-omit-frame-pointer -o "$T/cppfn" "$D/perf/naming-cppfn.cc"
	perf record -q -e cpu-clock -F 499 -g -o "$T/perf.data" "$T/cppfn" > /dev/null 2> "$T/err" ||
		skip "perf record does not work here: $(head -n 1 "$T/err")"
	perf script -i "$T/perf.data" 2> /dev/null | perf2spaa > "$T/c.spaa"
	run sh -c "spaa-fold '$T/c.spaa' | grep -c ';std::function<long (long, long)>::operator();std::_Function_handler<long (long, long), main::{lambda(long, long)#1}>::_M_invoke;'"
	assert_success
}

@test "spaa-fold: frame ids read fast (integers in order) and slow (strings, out of order) mixed, with stacks that name them either way; a duplicate id found either way" {
	H='{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","events":[{"name":"cpu","sampling":{"mode":"period","primary_metric":"period"}}]}'
	cat > "$T/m.spaa" <<SPAA
$H
{"type":"dso","id":1,"name":"/bin/x","is_kernel":false}
{"type":"frame","id":1,"func":"a","dso":1,"ip":"0x1","kind":"user"}
{"type":"frame","id":2,"func":"b","dso":1,"ip":"0x2","kind":"user"}
{"type":"stack","id":"0x1","frames":[1,2],"context":{"event":"cpu","tid":1,"comm":"x"},"weights":[{"metric":"period","value":5}]}
{"type":"stack","id":"0x2","frames":["1", "2"],"context":{"event":"cpu","tid":1,"comm":"x"},"weights":[{"metric":"period","value":7}]}
{"type":"frame","id":"3","func":"c","dso":1,"ip":"0x3","kind":"user"}
{"type":"frame","id":4,"func":"d","dso":1,"ip":"0x4","kind":"user"}
{"type":"frame","id":9,"func":"e","dso":1,"ip":"0x9","kind":"user"}
{"type":"stack","id":"0x3","frames":[4,3,1],"context":{"event":"cpu","tid":1,"comm":"x"},"weights":[{"metric":"period","value":9}]}
{"type":"stack","id":"0x4","frames":[9,2],"context":{"event":"cpu","tid":1,"comm":"x"},"weights":[{"metric":"period","value":1}]}
SPAA
	run spaa-fold "$T/m.spaa"
	assert_success
	assert_output "x;a;c;d 9
x;b;a 12
x;b;e 1"
	sed 's/"id":"3"/"id":"2"/' "$T/m.spaa" > "$T/d1.spaa"
	run spaa-fold "$T/d1.spaa"
	assert_failure 1
	assert_output "spaa-fold: $T/d1.spaa:7: duplicate frame id 2"
	sed 's/"id":4,/"id":2,/' "$T/m.spaa" > "$T/d2.spaa"
	run spaa-fold "$T/d2.spaa"
	assert_failure 1
	assert_output "spaa-fold: $T/d2.spaa:8: duplicate frame id 2"
	sed 's/"id":1,"func"/"id":"9","func"/' "$T/m.spaa" > "$T/d3.spaa"
	run spaa-fold "$T/d3.spaa"
	assert_failure 1
	assert_output --partial "spaa-fold: $T/d3.spaa:5: stack 0x1 refers to unknown frame 1"
}

@test "spaa-fold -j: a real capture folds to the same bytes at -j 1, 2 and 7 (file, stdin, several FILEs, options)" {
	local R=$F/perf-build-5000.spaa.zst
	# the sums of the spaa-fold before -j
	spaa-fold -j1 "$R" > "$T/one"
	[ "$(sha256sum < "$T/one")" = "05133f4493f86f1eb55d5a1771ceea66a243685c8fe016c4036f03c8ccbfb71b  -" ]
	[ "$(wc -l < "$T/one")" -eq 1854 ]
	for j in 1 2 7; do
		spaa-fold -j $j "$R" | cmp - "$T/one"
		zstd -dc "$R" | spaa-fold --jobs=$j | cmp - "$T/one"
		spaa-fold -j$j "$R" - "$R" < "$R" > "$T/three"
		spaa-fold -j1 "$R" "$R" "$R" | cmp - "$T/three"
		[ "$(spaa-fold -j $j --all-events --pid "$R" | sha256sum)" = "d256851b620f446fbf3fd9c84498c9481d068cff62ef35fa09e544126bf0e0f0  -" ]
	done
	run spaa-fold -j0 "$R"
	assert_failure 2
	assert_output --partial "spaa-fold: --jobs: '0' is not a number of threads from 1 to 256"
}

@test "spaa-fold -j 2: a bad record, or a sum that overflows, in the middle gives the message of -j 1 (line, exit 1)" {
	zstd -dc "$F/perf-build-5000.spaa.zst" > "$T/r.spaa"
	# line 13207: a stack naming a frame no record declares (the reader)
	sed '13207s/"frames":\[6277,669\]/"frames":[6277,99999999]/' "$T/r.spaa" > "$T/bad.spaa"
	# the same stack twice with a period of 2^64-1 (the folder: the second
	# overflows), and a bad record later (the reader must not report it first)
	sed -e '13207s/"period","value":1001001}\],"exclusive"/"period","value":18446744073709551615}],"exclusive"/' \
	    -e '13207p' -e '13500s/"frames":\[/"frames":[99999999,/' "$T/r.spaa" > "$T/over.spaa"
	for j in 1 2; do
		run spaa-fold -j $j "$T/bad.spaa"
		assert_failure 1
		assert_output "spaa-fold: $T/bad.spaa:13207: stack 0x33e726231ae2fa3f refers to unknown frame 99999999"
		run spaa-fold -j $j - < "$T/bad.spaa"
		assert_failure 1
		assert_output "spaa-fold: -:13207: stack 0x33e726231ae2fa3f refers to unknown frame 99999999"
		run spaa-fold -j $j "$T/over.spaa"
		assert_failure 1
		assert_output "spaa-fold: $T/over.spaa:13208: weight overflow: the sum for stack cc1;[unknown];operator_cast::inside_domain_p exceeds 64 bits"
	done
}

@test "spaa-fold -j on a plain file: the stack records read in chunks on the threads give the bytes and messages of -j 1" {
	spaapar_variants
	# what -j 1 gives is what -j 1 gave before
	spaa-fold -j1 "$T/r.spaa" | cmp - <(spaa-fold -j1 "$F/perf-build-5000.spaa.zst")
	local L=$(wc -l < "$T/r.spaa")
	spaapar_same spaa-fold "r bad over frame dup blank nonl cut long sample neg big missing deep" \
		"" "--all-events --tid" "--kernel --raw -m samples"
	# what they say, at -j 7
	run env SPAA_PAR_MIN=0 spaa-fold -j 7 "$T/bad.spaa"
	assert_failure 1
	assert_output "spaa-fold: $T/bad.spaa:13207: stack 0x33e726231ae2fa3f refers to unknown frame 99999999"
	run env SPAA_PAR_MIN=0 spaa-fold -j 7 "$T/over.spaa"
	assert_failure 1
	assert_output "spaa-fold: $T/over.spaa:13208: weight overflow: the sum for stack cc1;[unknown];operator_cast::inside_domain_p exceeds 64 bits"
	run env SPAA_PAR_MIN=0 spaa-fold -j 7 "$T/dup.spaa"
	assert_failure 1
	assert_output --partial "spaa-fold: $T/dup.spaa:13000: duplicate frame id"
	run env SPAA_MAX_LINE=1500 SPAA_PAR_MIN=0 spaa-fold -j 7 "$T/long.spaa"
	assert_failure 1
	assert_output --partial "spaa-fold: $T/long.spaa:13300: line longer than 1500 bytes"
	run env SPAA_PAR_MIN=0 spaa-fold -j 7 "$T/cut.spaa"
	assert_failure 1
	assert_output --partial "spaa-fold: $T/cut.spaa:$L: invalid JSON"
}

# ---- the frame filters (common/analysis/filter.c): pprof's verbs ---------------------

@test "the frame filters: --focus, --ignore, --hide, --show, --show-from, --prune-from, alone and together, in pprof's order" {
	local S=$D/top/small.spaa
	run --separate-stderr spaa-fold --event cycles --hide=fib "$S"
	assert_success
	assert_output "main 700
main;memcpy 200
main;parse 100
main;parse;memcpy;page_fault 1000"
	run --separate-stderr spaa-fold --event cycles --prune-from=fib "$S"
	assert_output "main;fib 400
main;fib;fib 500
main;parse 100
main;parse;memcpy;page_fault 1000"
	run --separate-stderr spaa-fold --event cycles --show-from=fib "$S"
	assert_output "fib 400
fib;fib 300
fib;fib;memcpy 200"
	run --separate-stderr spaa-fold --event cycles --focus=memcpy "$S"
	assert_output "main;fib;fib;memcpy 200
main;parse;memcpy;page_fault 1000"
	# --ignore is its own option, not an abbreviation of another
	run --separate-stderr spaa-fold --event cycles --ignore=memcpy "$S"
	assert_output "main;fib 400
main;fib;fib 300
main;parse 100"
	# a stack left with no frame (main;parse) is dropped
	run --separate-stderr spaa-fold --event cycles --show='fib|memcpy' "$S"
	assert_output "fib 400
fib;fib 300
fib;fib;memcpy 200
memcpy 1000"
	# focus on the whole stack, then hide, then prune-from
	run --separate-stderr spaa-fold --event cycles --focus=fib --hide=main --prune-from='^fib$' "$S"
	assert_output "fib 400
fib;fib 500"
	run spaa-fold --focus='(' "$S"
	assert_failure 2
	assert_line --index 0 --partial "spaa-fold: --focus '(': "
}

@test "the frame filters: the same folded stacks from spaa-fold --F, from spaa-grep --F | spaa-fold, with -j 1 and 2 (a Go profile)" {
	pprof2spaa "$D/filters/cpu.pprof" -o "$T/cpu.spaa"
	local f
	for f in --focus=fib --ignore=mix --hide='square|twice' --show='main\.' --show-from=gamma --prune-from=mix \
		 "--focus=main --hide=fib --show-from=main.main --prune-from=twice"; do
		# shellcheck disable=SC2086
		spaa-fold -j 1 $f "$T/cpu.spaa" > "$T/a"
		# shellcheck disable=SC2086
		spaa-fold -j 2 $f "$T/cpu.spaa" | cmp - "$T/a" || fail "$f: -j 2 differs"
		# shellcheck disable=SC2086
		spaa-grep $f "$T/cpu.spaa" | spaa-fold | cmp - "$T/a" || fail "$f: spaa-grep | spaa-fold differs"
		[ -s "$T/a" ] || fail "$f: nothing folded"
	done
}

@test "spaa-fold -j on a plain file: a line past the limit holding most of the file (300 MB of NULs) ends the reading as with -j 1" {
	zstd -dc "$F/perf-build-5000.spaa.zst" > "$T/sparse.spaa"
	truncate -s +300M "$T/sparse.spaa"
	echo '{"type":"stack"}' >> "$T/sparse.spaa"
	for j in 1 2 7; do
		run timeout 20 spaa-fold -j $j "$T/sparse.spaa"
		assert_failure 1
		assert_output "spaa-fold: $T/sparse.spaa:13708: line longer than 67108864 bytes, the limit (SPAA_MAX_LINE=BYTES raises it)"
	done
}

@test "spaa-fold -j on a plain file: standard input (a file, a file opened part way, /dev/stdin) read in parts, a pipe and a FIFO as before: the bytes of -j 1" {
	zstd -dc "$F/perf-build-5000.spaa.zst" > "$T/r.spaa"
	{ echo 'not read: the line before standard input starts'; cat "$T/r.spaa"; } > "$T/after.spaa"
	spaa-fold -j 1 "$T/r.spaa" > "$T/one"
	export SPAA_PAR_MIN=0
	spaa-fold -j 3 < "$T/r.spaa" | cmp - "$T/one"
	{ read -r line; spaa-fold -j 3; } < "$T/after.spaa" | cmp - "$T/one"
	spaa-fold -j 3 /dev/stdin < "$T/r.spaa" | cmp - "$T/one"
	spaa-fold -j 3 <(cat "$T/r.spaa") | cmp - "$T/one"
	cat "$T/r.spaa" | spaa-fold -j 3 | cmp - "$T/one"
	mkfifo "$T/fifo"
	cat "$T/r.spaa" > "$T/fifo" &
	spaa-fold -j 3 "$T/fifo" | cmp - "$T/one"
	wait
}

@test "spaa-fold, spaa-top, spaa-flamegraph on a perf.data: the addresses no symbol names kept as one frame a library in process, yet named as the pipeline names them, and each shown with --addrs and --raw" {
	# a capture with frame-pointer chains through code of no symbols and
	# addresses in no mapping ([unknown]: 49 frames of the pipeline's);
	# the perf.data in a/, its SPAA in b/ under the same name (messages
	# name the file)
	mkdir "$T/a" "$T/b"
	cp "$D/window/gzip.perf.data" "$T/a/g.data"
	perf2spaa "$T/a/g.data" > "$T/b/g.data"
	both() { # both COMMAND [ARG]...: its output and messages the same on each
		cmp <(cd "$T/a" && "$@" g.data 2>&1) <(cd "$T/b" && "$@" g.data 2>&1)
	}
	for o in "" --raw --addrs "--kernel --jit" --tid; do
		# shellcheck disable=SC2086
		both spaa-fold $o
		# shellcheck disable=SC2086
		both spaa-top -n 0 $o
	done
	both spaa-flamegraph
	both spaa-flamegraph --addrs
	# with --addrs, each address of no mapping its own name
	[ "$(spaa-fold --addrs "$T/a/g.data" | grep -o '\[unknown <[0-9a-f]*>\]' | sort -u | wc -l)" -ge 40 ]
	[ "$(spaa-fold "$T/a/g.data" | grep -c '\[unknown\]')" -ge 1 ]
}

@test "spaa-fold on a perf.data with a callchain of a context perf drops it for (a guest's marker after kernel frames): those frames left out, the sampled address in their place, alike at -j 1, 2 and 3 and through perf2spaa" {
	# the first user-context marker that follows a kernel address made a
	# guest's
	python3 -c '
import sys
d = bytearray(open(sys.argv[1], "rb").read())
u = (0xfffffffffffffe00).to_bytes(8, "little")
i = d.find(u)
while not 0xffff800000000000 <= int.from_bytes(d[i - 8:i], "little") < 0xfffffffffffff000:
    i = d.find(u, i + 1)
d[i:i + 8] = (0xfffffffffffff800).to_bytes(8, "little")
open(sys.argv[2], "wb").write(d)' "$D/window/gzip.perf.data" "$T/g.data"
	spaa-fold -j 1 "$T/g.data" > "$T/one"
	! cmp -s "$T/one" <(spaa-fold "$D/window/gzip.perf.data")
	for j in 2 3; do cmp "$T/one" <(spaa-fold -j "$j" "$T/g.data"); done
	cmp "$T/one" <(perf2spaa "$T/g.data" | spaa-fold)
}

@test "spaa-fold and spaa-top on a perf.data at -j 1 and 2 (read in process, on threads at 2): standard input, /dev/stdin, <(...) and a FIFO give the file's bytes; a file cut at any record, a callchain longer than its record and a period summed past 2^64 are perf2spaa's errors, exit 1, nothing written; --symfs reads nothing outside its root" {
	local g="$D/window/gzip.perf.data" cmd j n o
	for cmd in spaa-fold spaa-top; do
		$cmd -j 1 "$g" > "$T/want"
		for j in 1 2; do
			$cmd -j $j < "$g" | cmp - "$T/want"
			cat "$g" | $cmd -j $j | cmp - "$T/want"
			$cmd -j $j /dev/stdin < "$g" | cmp - "$T/want"
			$cmd -j $j <(cat "$g") | cmp - "$T/want"
			rm -f "$T/fifo"
			mkfifo "$T/fifo"
			cat "$g" > "$T/fifo" &
			timeout 20 $cmd -j $j "$T/fifo" | cmp - "$T/want"
			wait
		done
	done
	# cut at every record of the data section and in the features after it
	local cuts
	cuts=$(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
doff, dsize = struct.unpack_from("<QQ", b, 40)
o, cuts = doff, []
while o < doff + dsize:
    cuts.append(o)
    o += struct.unpack_from("<H", b, o + 6)[0]
print(" ".join(str(c) for c in cuts + [doff + dsize + 8, len(b) - 1]))' "$g")
	[ "$(echo $cuts | wc -w)" -ge 20 ]
	# perf2spaa's error on $1, exit 1, nothing written: spaa-fold's and
	# spaa-top's too, at -j 1 and 2 (in want, after the name)
	local want
	same_error() {
		run perf2spaa -o "$T/out" "$1"
		assert_failure 1
		want=${output#perf2spaa: }
		[ -n "$want" ] && [ ! -e "$T/out" ]
		for cmd in spaa-fold spaa-top; do
			for j in 1 2; do
				run $cmd -j $j -o "$T/out" "$1"
				assert_failure 1
				assert_output "$cmd: $want"
				[ ! -e "$T/out" ]
			done
		done
	}
	for n in $cuts; do
		head -c "$n" "$g" > "$T/cut.data"
		same_error "$T/cut.data"
	done
	# the first sample's callchain claiming 2^60 entries; then the first
	# sample twice, of period 2^63 each
	o=$(python3 "$D/perf/hostile.py" sample-field "$g" callchain)
	python3 -c '
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<Q", b, int(sys.argv[2]), 1 << 60)
open(sys.argv[3], "wb").write(b)' "$g" "$o" "$T/lie.data"
	o=$(python3 "$D/perf/hostile.py" dup-first "$g" "$T/dup.data" 9223372036854775808)
	same_error "$T/lie.data"
	case $want in
	"$T/lie.data: byte "*": sample record: a callchain of 1152921504606846976 entries past its end") ;;
	*) fail "$want" ;;
	esac
	same_error "$T/dup.data"
	assert_equal "$want" "$T/dup.data: byte $o: metric period of a stack overflows 64 bits"
	# a root whose links lead out (to /, and a loop): what an empty root
	# gives, as perf2spaa gives it, no file of the host's read
	mkdir -p "$T/root" "$T/empty"
	ln -s / "$T/root/usr"
	ln -s lib "$T/root/lib64"
	ln -s lib64 "$T/root/lib"
	for j in 1 2; do
		spaa-fold -j $j --symfs="$T/empty" "$g" > "$T/empty.fold" 2> /dev/null
		spaa-fold -j $j --symfs="$T/root" "$g" > "$T/root.fold" 2> "$T/root.err"
		cmp "$T/empty.fold" "$T/root.fold"
		perf2spaa --symfs="$T/root" "$g" 2> "$T/p2s.err" | spaa-fold | cmp - "$T/root.fold"
		sed 's/^perf2spaa: /spaa-fold: /' "$T/p2s.err" | cmp - "$T/root.err"
	done
	! cmp -s "$T/root.fold" <(spaa-fold "$g")
}
