#!/usr/bin/env bats
load common
bats_require_minimum_version 1.5.0

P=$D/perf
FILES="perf-cycles-instructions-01 perf-dd-stacks-01 perf-funcab-cmd-01 perf-iperf-stacks-pidtid-01 perf-java-stacks-02 perf-js-stacks-01 perf-rust-Yamakaky-dcpu"

# perf2spaa FILE | spaa-fold OPT == stackcollapse-perf.pl@57207af OPT, for
# the six options of FlameGraph's test.sh, once the quotes the script deletes
# are deleted (spaa-fold keeps them, as inferno does; inferno's own tests
# compare with these files the same way).
check_corpus() {
	local b=$1 o
	perf2spaa "$P/$b.txt" > "$T/p.spaa"
	for o in pid tid kernel jit all addrs; do
		spaa-fold --$o "$T/p.spaa" 2>/dev/null | tr -d "'\"" > "$T/out-$o.txt"
		cmp "$T/out-$o.txt" "$P/results-57207af/$b-collapsed-$o.txt" || {
			echo "mismatch: $b --$o"
			diff "$T/out-$o.txt" "$P/results-57207af/$b-collapsed-$o.txt" | head -20
			return 1
		}
	done
	run spaa-validate -q "$T/p.spaa"
	assert_success
}

# The same against inferno-collapse-perf 0.11.21 (results-inferno-0.11.21/,
# made with it), where its names differ from the script's: quotes kept, Rust
# hashes dropped and escapes resolved.  sed: rustc-demangle's legacy scheme
# drops the '_' of "_$" at the start of every path element (inferno: only at
# the start of the name), "::{{closure}}" and "::<impl ...>" as rustfilt
# prints them.
check_inferno() {
	local b=$1 o
	perf2spaa "$P/$b.txt" > "$T/p.spaa"
	for o in pid tid kernel jit all addrs; do
		spaa-fold --$o "$T/p.spaa" 2>/dev/null > "$T/out-$o.txt"
		sed 's/::_\([<{]\)/::\1/g' "$P/results-inferno-0.11.21/$b-collapsed-$o.txt" > "$T/want-$o.txt"
		cmp "$T/out-$o.txt" "$T/want-$o.txt" || {
			echo "mismatch: $b --$o"
			diff "$T/out-$o.txt" "$T/want-$o.txt" | head -20
			return 1
		}
	done
}

@test "corpus: perf-cycles-instructions-01, all options" { check_corpus perf-cycles-instructions-01; }
@test "corpus: perf-dd-stacks-01, all options" { check_corpus perf-dd-stacks-01; }
@test "corpus: perf-funcab-cmd-01, all options" { check_corpus perf-funcab-cmd-01; }
@test "corpus: perf-iperf-stacks-pidtid-01, all options" { check_corpus perf-iperf-stacks-pidtid-01; }
@test "corpus: perf-java-stacks-02, all options" { check_corpus perf-java-stacks-02; }
@test "corpus: perf-js-stacks-01, all options" { check_corpus perf-js-stacks-01; }
@test "corpus: perf-js-stacks-01, all options, as inferno (quotes kept)" { check_inferno perf-js-stacks-01; }
@test "corpus: perf-rust-Yamakaky-dcpu, all options, as inferno (Rust names repaired)" { check_inferno perf-rust-Yamakaky-dcpu; }

@test "--samples output validates for every corpus file" {
	for f in $FILES; do
		perf2spaa --samples "$P/$f.txt" > "$T/s.spaa"
		run spaa-validate -q "$T/s.spaa"
		assert_success
	done
	run grep -c '"type":"sample"' "$T/s.spaa"
	assert_output 58
}

@test "header: events in order of appearance, kinds, metrics, time range, --header comments" {
	run sh -c "perf2spaa '$P/perf-cycles-instructions-01.txt' | head -1"
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"instructions","kind":"hardware","sampling":{"mode":"period","primary_metric":"samples"}},{"name":"cycles","kind":"hardware","sampling":{"mode":"period","primary_metric":"samples"}}],"time_range":{"start":1410597.984841,"end":1410598.977322,"unit":"seconds"},"source":{"tool":"perf","tool_version":"4.13.0-rc1","command":"/usr/bin/perf record -e cycles -e instructions -c 100000000 -a --call-graph=lbr -- sleep 1"},"stack_id_mode":"content_addressable"}'
}

@test "dso, frames and a stack with period weights" {
	perf2spaa "$P/perf-dd-stacks-01.txt" > "$T/o"
	run grep -c '"type":"dso"' "$T/o"
	assert_output 4
	run grep -F -x '{"type":"dso","id":1,"name":"/lib/modules/4.1.0-virtual/build/vmlinux","is_kernel":true}' "$T/o"
	assert_success
	run grep -F -x '{"type":"frame","id":6,"func":"0x0","func_resolved":false,"dso":3,"ip":"0x0","kind":"unknown"}' "$T/o"
	assert_success
	run grep -F '"frames":[11,1,8,9,4,10,6]' "$T/o"
	assert_output '{"type":"stack","id":"0xe351e45e3c40849a","frames":[11,1,8,9,4,10,6],"context":{"event":"cpu-clock","tid":29776,"comm":"dd"},"weights":[{"metric":"samples","value":2},{"metric":"period","value":20202020}],"exclusive":{"frame":11,"weights":[{"metric":"samples","value":2},{"metric":"period","value":20202020}]},"x_path_id":"0x9a84841668af6ea8"}'
}

@test "comm with spaces, single frame on the header line, srcline, tracepoint, --samples" {
	run perf2spaa -s "$P/mixed.txt"
	assert_success
	assert_output - <<'OUT'
{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"cycles:u","kind":"hardware","sampling":{"mode":"period","primary_metric":"period"}},{"name":"sched:sched_switch","kind":"probe","sampling":{"mode":"event","primary_metric":"period"}}],"time_range":{"start":10.000001,"end":11.25,"unit":"seconds"},"source":{"tool":"perf"},"stack_id_mode":"content_addressable"}
{"type":"dso","id":1,"name":"/bin/app","is_kernel":false}
{"type":"dso","id":2,"name":"/lib/libc.so.6","is_kernel":false}
{"type":"dso","id":3,"name":"[kernel.kallsyms]","is_kernel":true}
{"type":"frame","id":1,"func":"leaf","dso":1,"ip":"0x401000","symoff":"0x10","srcline":"app.c:12","kind":"user"}
{"type":"frame","id":2,"func":"main","dso":1,"ip":"0x401100","symoff":"0x20","srcline":"app.c:40","kind":"user"}
{"type":"frame","id":3,"func":"poll","dso":2,"ip":"0x401200","symoff":"0x4","kind":"user"}
{"type":"frame","id":4,"func":"__schedule","dso":3,"ip":"0xffffffff81000010","symoff":"0x2d0","kind":"kernel"}
{"type":"frame","id":5,"func":"schedule","dso":3,"ip":"0xffffffff81000020","symoff":"0x40","kind":"kernel"}
{"type":"thread","pid":100,"tid":101,"comm":"app"}
{"type":"thread","pid":200,"tid":201,"comm":"Web Content"}
{"type":"thread","pid":300,"tid":300,"comm":"perf"}
{"type":"stack","id":"0x1002ecf0b96a88dd","frames":[1,2],"context":{"event":"cycles:u","pid":100,"tid":101,"comm":"app"},"weights":[{"metric":"samples","value":1},{"metric":"period","value":5}],"exclusive":{"frame":1,"weights":[{"metric":"samples","value":1},{"metric":"period","value":5}]},"x_path_id":"0xa5d44381d973acab"}
{"type":"stack","id":"0x3fbdc0710075eb6f","frames":[3],"context":{"event":"cycles:u","pid":200,"tid":201,"comm":"Web Content"},"weights":[{"metric":"samples","value":1},{"metric":"period","value":7}],"exclusive":{"frame":3,"weights":[{"metric":"samples","value":1},{"metric":"period","value":7}]},"x_path_id":"0xa6479f1caf96c101"}
{"type":"stack","id":"0xe1e96d9984fa62d9","frames":[4,5],"context":{"event":"sched:sched_switch","pid":300,"tid":300,"comm":"perf"},"weights":[{"metric":"samples","value":1},{"metric":"period","value":1}],"exclusive":{"frame":4,"weights":[{"metric":"samples","value":1},{"metric":"period","value":1}]},"x_path_id":"0x6f0e1ab9b6c14023"}
{"type":"sample","pid":100,"tid":101,"timestamp":10.000001,"cpu":1,"period":5,"event":"cycles:u","stack_id":"0x1002ecf0b96a88dd"}
{"type":"sample","pid":200,"tid":201,"timestamp":10.5,"cpu":0,"period":7,"event":"cycles:u","stack_id":"0x3fbdc0710075eb6f"}
{"type":"sample","pid":300,"tid":300,"timestamp":11.25,"cpu":2,"period":1,"x_trace_fields":"prev_comm=perf prev_pid=300 ==> next_comm=swapper/2 next_pid=0","event":"sched:sched_switch","stack_id":"0xe1e96d9984fa62d9"}
OUT
}

@test "the README example: inlined frames, kernel frames, kworker comm" {
	run sh -c "perf2spaa '$EX/parser.perf.txt' | spaa-fold"
	assert_success
	assert_output - <<'OUT'
kworker/2:1;ret_from_fork;kthread;worker_thread;process_one_work 1001001
parser;__clone3;start_thread;worker_loop;[libc.so.6] 1001001
parser;_start;__libc_start_main_impl;__libc_start_call_main;main;parse_file;tokenize 2002002
parser;_start;__libc_start_main_impl;__libc_start_call_main;main;parse_file;validate_token;check_bounds 2002002
parser;_start;__libc_start_main_impl;__libc_start_call_main;main;read_input;__GI___libc_read;entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_read;vfs_read;filemap_read;copy_user_enhanced_fast_string 1001001
OUT
	run sh -c "perf2spaa '$EX/parser.perf.txt' | spaa-fold --inline | grep parse_file"
	assert_output - <<'OUT'
parser;_start;__libc_start_main_impl;__libc_start_call_main;main;parse_file;tokenize 2002002
parser;_start;__libc_start_main_impl;__libc_start_call_main;main;parse_file;validate_token_[i];check_bounds_[i] 2002002
OUT
	run sh -c "perf2spaa '$EX/parser.perf.txt' | grep -F '\"inlined\":true'"
	assert_output - <<'OUT'
{"type":"frame","id":1,"func":"check_bounds","dso":1,"ip":"0x55d3c1a0f1b0","symoff":"0x60","inlined":true,"inline_depth":2,"kind":"user"}
{"type":"frame","id":2,"func":"validate_token","dso":1,"ip":"0x55d3c1a0f1b0","symoff":"0x60","inlined":true,"inline_depth":1,"kind":"user"}
OUT
	run sh -c "perf2spaa '$EX/parser.perf.txt' | spaa-validate -q"
	assert_success
}

@test "one number in the header: tid only, no pid, no thread record" {
	printf 'prog 42 cycles:\n\t1000 f (/bin/prog)\n' | perf2spaa > "$T/o"
	run grep -c '"type":"thread"' "$T/o"
	assert_output 0
	run grep -o '"context":{[^}]*}' "$T/o"
	assert_output '"context":{"event":"cycles","tid":42,"comm":"prog"}'
	run sh -c "spaa-fold --pid '$T/o'"
	assert_output 'prog-?;f 1'
}

@test "a garbage line is a warning with its line number; the sample keeps its other frames" {
	printf 'a 1 b:\n\tgarbage here\n\t 400 f (/x)\n' > "$T/in.txt"
	run perf2spaa "$T/in.txt"
	assert_success
	assert_line --index 0 "perf2spaa: $T/in.txt:2: warning: cannot read this line (not a frame): ignored"
	perf2spaa -q "$T/in.txt" 2>"$T/err" | spaa-fold > "$T/out"
	assert_file_eq "$T/out" <<<'a;f 1'
	assert_file_eq "$T/err" </dev/null
}

@test "a truncated sample header is a warning; the samples before it count" {
	head -n 16 "$P/perf-dd-stacks-01.txt" > "$T/cut.txt"
	printf 'dd 29776 666709.7' >> "$T/cut.txt"
	run perf2spaa "$T/cut.txt"
	assert_success
	assert_line --index 0 "perf2spaa: $T/cut.txt:17: warning: cannot read this line (not a sample header): ignored"
	run sh -c "perf2spaa -q '$T/cut.txt' | spaa-fold -m samples | awk '{s+=\$NF} END {print s}'"
	assert_output 2
}

@test "the last sample without a blank line after it is counted" {
	printf 'a 1 cycles:\n\t10 f (/x)\n\na 1 cycles:\n\t10 f (/x)' | perf2spaa | spaa-fold > "$T/out"
	assert_file_eq "$T/out" <<<'a;f 2'
}

@test "more than 20 unreadable lines: 20 warnings and a count" {
	{ echo 'a 1 cycles:'; for i in $(seq 1 25); do echo '	???'; done; } > "$T/in.txt"
	run perf2spaa "$T/in.txt"
	assert_success
	assert_line --index 20 "perf2spaa: $T/in.txt: warning: 25 unreadable lines in all"
}

@test "empty input is an error" {
	run perf2spaa /dev/null
	assert_failure 1
	assert_output 'perf2spaa: /dev/null: empty input: no profile written'
	printf '# comment\n\n' > "$T/none.txt"
	run perf2spaa "$T/none.txt"
	assert_failure 1
	assert_output "perf2spaa: $T/none.txt: no stacks found: 2 lines, none of them a perf sample header (is it 'perf script' output?) (no profile written)"
}

@test "gzip and zstd input, several files, stdin" {
	gzip -c "$P/perf-dd-stacks-01.txt" > "$T/a.gz"
	zstd -q -c "$P/perf-dd-stacks-01.txt" > "$T/a.zst"
	perf2spaa "$P/perf-dd-stacks-01.txt" > "$T/plain"
	perf2spaa "$T/a.gz" > "$T/gz"
	perf2spaa - < "$T/a.zst" > "$T/zst"
	cmp "$T/plain" "$T/gz"
	cmp "$T/plain" "$T/zst"
	perf2spaa "$T/a.gz" "$T/a.zst" | spaa-fold -m samples > "$T/two"
	run awk '{s+=$NF} END {print s}' "$T/two"
	assert_output 22
}

@test "-o writes the file, -z compresses" {
	run perf2spaa -o "$T/o.spaa" "$P/perf-dd-stacks-01.txt"
	assert_success
	assert_output ''
	perf2spaa -z "$P/perf-dd-stacks-01.txt" > "$T/o.zst"
	run sh -c "zstd -dc '$T/o.zst' | cmp - '$T/o.spaa'"
	assert_success
}

@test "write error on /dev/full" {
	run sh -c "perf2spaa '$P/perf-dd-stacks-01.txt' > /dev/full"
	assert_failure 1
	assert_output 'perf2spaa: standard output: write error: No space left on device'
}

@test "missing file, bad option, --help, --version" {
	run perf2spaa "$T/nope"
	assert_failure 1
	assert_output "perf2spaa: $T/nope: No such file or directory"
	run perf2spaa --bogus
	assert_failure 2
	assert_line --index 1 "Try 'perf2spaa --help' for more information."
	run perf2spaa --help
	assert_success
	assert_line --index 0 'Usage: perf2spaa [OPTION]... [FILE]...'
	run perf2spaa --version
	assert_success
	assert_output --regexp '^perf2spaa \(spaa-tools\) '
}

# stackcollapse-perf.pl's rules on layouts the FlameGraph corpus files do not
# all show: a uprobe sample whose leaf perf prints "(inlined)" at the probe
# address, frames with no symbol at all ("IP  (DSO)", perf 3.x: named " "),
# symbols with "->" (split into frames), "comm  PID" and "swapper     0".
@test "uprobe (inlined) leaf, no-symbol frames, '->' in symbols" {
	perf2spaa "$P/quirks.txt" > "$T/q.spaa"
	run spaa-validate --verbose "$T/q.spaa"
	assert_success
	assert_output --partial "0 errors, 0 warnings"
	run spaa-fold "$T/q.spaa"
	assert_output - <<'OUT'
app;main;make_node;alloc_fast 2
java;start_thread;java/lang/Thread:.run; ; ;pthread_cond_signal@@GLIBC_2.3.2 1
swapper;[app];outer;middle_[i];inner_[i];Ptr<Node>::operator-> 1
OUT
	run spaa-fold --inline --addrs "$T/q.spaa"
	assert_output - <<'OUT'
app;main;make_node;alloc_fast 2
java;start_thread;java/lang/Thread:.run; ; ;pthread_cond_signal@@GLIBC_2.3.2 1
swapper;[app <400a00>];outer;middle_[i];inner_[i];Ptr<Node>::operator-> 1
OUT
	run spaa-fold --all --tid "$T/q.spaa"
	assert_output - <<'OUT'
app-?/4242;main;make_node;alloc_fast 2
java-?/4243;start_thread;java/lang/Thread:.run_[j]; ; ;pthread_cond_signal@@GLIBC_2.3.2 1
swapper-?/0;[app];outer;middle_[i];inner_[i];Ptr<Node>::operator-> 1
OUT
	run spaa-fold --raw "$T/q.spaa"
	assert_output - <<'OUT'
app;main;make_node;alloc_fast 2
java;start_thread;Ljava/lang/Thread:.run(Ljava/lang/Runnable:)V;0x7f1e2215d0aa;0x7f1e2215d058;pthread_cond_signal@@GLIBC_2.3.2 1
swapper;0x400a00;outer->middle->inner;Ptr<Node>::operator->() const 1
OUT
	run grep -F '"func":"alloc_fast"' "$T/q.spaa"
	assert_output '{"type":"frame","id":1,"func":"alloc_fast","dso":1,"ip":"0x4005d0","symoff":"0x0","kind":"unknown"}'
	run grep -F '"x_perf_nosym"' "$T/q.spaa"
	assert_output - <<'OUT'
{"type":"frame","id":5,"func":"0x7f1e2215d058","func_resolved":false,"dso":4,"ip":"0x7f1e2215d058","kind":"user","x_perf_nosym":true}
{"type":"frame","id":6,"func":"0x7f1e2215d0aa","func_resolved":false,"dso":4,"ip":"0x7f1e2215d0aa","kind":"user","x_perf_nosym":true}
OUT
}

@test "--pid/--tid: a PID/0 header (idle swapper 0/0) reads as inferno reads it (stackcollapse-perf.pl: swapper-?/0)" {
	perf2spaa "$P/pid-tid-zero.txt" > "$T/z.spaa"
	run spaa-fold --tid "$T/z.spaa"
	assert_output - <<'OUT'
sh-5/0;main 1
sh-7/8;main 1
swapper-0/0;native_safe_halt 1
OUT
	run spaa-fold --pid "$T/z.spaa"
	assert_output - <<'OUT'
sh-5;main 1
sh-7;main 1
swapper-0;native_safe_halt 1
OUT
	run spaa-fold --tid --raw "$T/z.spaa"
	assert_line "swapper-0/0;native_safe_halt 1"
	run grep -c '"pid":0,"tid":0' "$T/z.spaa"
	assert_output 2
}

@test "a capture recorded without -g: one line per sample, the comm right-aligned, the frame on the header line" {
	run sh -c 'perf2spaa "$1" | spaa-fold' sh "$P/no-callgraph.txt"
	assert_success
	assert_output "sh;__strchr_evex 1001001
sh;__strcmp_evex 2002002
sh;pvm_irq_enable 1001001
sh;strncpy_from_user 1001001
sh;update_active.constprop.0 1001001"
	perf2spaa "$P/no-callgraph.txt" | spaa-validate -q --strict -
}

@test "an empty callchain gets a placeholder frame that validates and that spaa-fold leaves out; pid -1 (comm ':-1')" {
	printf 'sh 1 1.0: 1 cpu-clock:\n\nsh 1 2.0: 1 cpu-clock:\n\tffffffff8225fd19 pvm_irq_enable+0x19 ([kernel.kallsyms])\n\n:-1    -1 [000]  5989.865198:     500250 cpu-clock: \n\tffffffff8225fd19 pvm_irq_enable+0x19 ([kernel.kallsyms])\n' > "$T/in.txt"
	perf2spaa "$T/in.txt" | spaa-validate -q --strict -
	run sh -c 'perf2spaa "$1" | spaa-fold' sh "$T/in.txt"
	assert_output ":-1;pvm_irq_enable 500250
sh 1
sh;pvm_irq_enable 1"
	run sh -c 'perf2spaa "$1" | grep -c "\"func\":\"\[unknown\]\",\"dso\":[0-9]*,\"kind\":\"unknown\",\"x_perf_no_callchain\":true"' sh "$T/in.txt"
	assert_output 1
	run sh -c 'perf2spaa "$1" | spaa-fold --raw | head -n 2 | tail -n 1' sh "$T/in.txt"
	assert_output "sh;[unknown] 1"
}

@test "the primary metric: period with a period column, samples without (1 per sample is no period), period 1 a sample kept; inlined frames are one per depth and address" {
	printf 'a 1 1.0: cycles:\n\t10 f+0x1 (/bin/a)\n\n' > "$T/noperiod.txt"
	printf 'a 1 1.0: 7 cycles:\n\t10 f+0x1 (/bin/a)\n\n' > "$T/period.txt"
	run sh -c 'perf2spaa "$1" | head -n 1 | grep -o "\"primary_metric\":\"[a-z]*\""; perf2spaa "$2" | head -n 1 | grep -o "\"primary_metric\":\"[a-z]*\""' sh "$T/noperiod.txt" "$T/period.txt"
	assert_output '"primary_metric":"samples"
"primary_metric":"period"'
	perf2spaa "$T/noperiod.txt" > "$T/a.spaa"
	perf2spaa "$T/period.txt" > "$T/b.spaa"
	run spaa-diff "$T/a.spaa" "$T/b.spaa"
	assert_failure 1
	run spaa-diff -m samples "$T/a.spaa" "$T/b.spaa"
	assert_output "a;f 1 1"
	run spaa-diff -m period "$T/a.spaa" "$T/b.spaa"
	assert_output "a;f 1 7"
	# the same inlined function at one address, at depth 1 and 2
	printf 'p 1 1.0: 1 cycles:\n\t20 g (inlined)\n\t20 m+0x2 (/bin/p)\n\n' > "$T/inl.txt"
	printf 'p 1 2.0: 1 cycles:\n\t20 g (inlined)\n\t20 h (inlined)\n\t20 m+0x2 (/bin/p)\n\n' >> "$T/inl.txt"
	perf2spaa "$T/inl.txt" | spaa-validate -q --strict -
	run sh -c 'perf2spaa "$1" | grep -o "\"func\":\"g\",[^}]*\"inline_depth\":[0-9]"' sh "$T/inl.txt"
	assert_output '"func":"g","dso":1,"ip":"0x20","symoff":"0x2","inlined":true,"inline_depth":1
"func":"g","dso":1,"ip":"0x20","symoff":"0x2","inlined":true,"inline_depth":2'
}

@test "a time printed with a trailing dot ('107.:') is written as a valid JSON number (found by fuzz_perf2spaa)" {
	printf 'sh 8/8 [001] 107.: 1 cycles:\n\t401000 main (/bin/sh)\n' > "$T/t.txt"
	perf2spaa --samples "$T/t.txt" | spaa-validate -q --strict -
	run sh -c 'perf2spaa --samples "$1" | grep -o "\"timestamp\":[^,]*"' sh "$T/t.txt"
	assert_output '"timestamp":107'
}

@test "a NUL byte in a line is a warning with its line, never a name cut short" {
	printf 'a 1 1.0: 1 cyc\000les:\n\t10 f (/bin/a)\n\na 1 2.0: 1 cycles:\n\t10 f (/bin/a)\n' > "$T/nul.txt"
	run --separate-stderr sh -c 'perf2spaa "$1" | spaa-fold' sh "$T/nul.txt"
	assert_success
	assert_output "a;f 1"
	assert_equal "$stderr" "perf2spaa: $T/nul.txt:1: warning: NUL byte in the line: ignored
perf2spaa: $T/nul.txt:2: warning: cannot read this line (not a sample header): ignored"
}

@test "a period sum beyond 64 bits is an error naming the sample's line" {
	printf 'a 1 1.0: 18446744073709551615 cycles:\n\t10 f (/bin/a)\n\na 1 2.0: 5 cycles:\n\t10 f (/bin/a)\n' > "$T/ov.txt"
	run perf2spaa "$T/ov.txt"
	assert_failure 1
	assert_output "perf2spaa: $T/ov.txt:4: metric period of a stack overflows 64 bits"
}

@test "symbols and comms that are not UTF-8 are written with U+FFFD, one frame per written name, with the content ids of the file as written" {
	printf 'pr\377g 123 [000] 1.000001: 1 cpu-clock:\n\t    1000 f\377oo+0x1 (/bin/x)\n\t    2000 main+0x2 (/bin/x)\n\npr\376g 123 [000] 1.000002: 1 cpu-clock:\n\t    1000 f\376oo+0x1 (/bin/x)\n\t    2000 main+0x2 (/bin/x)\n\n' > "$T/u.txt"
	run perf2spaa -o "$T/u.spaa" "$T/u.txt"
	assert_success
	run grep -c '"type":"frame"' "$T/u.spaa"
	assert_output 2
	run grep -c $'"type":"stack".*"comm":"pr\xef\xbf\xbdg".*"value":2' "$T/u.spaa"
	assert_output 1
	grep -o '"type":"stack","id":"0x[0-9a-f]*"' "$T/u.spaa" > "$T/ids"
	spaa-cat --merge "$T/u.spaa" | grep -o '"type":"stack","id":"0x[0-9a-f]*"' > "$T/merged"
	run diff "$T/ids" "$T/merged"
	assert_success
	run spaa-validate -q "$T/u.spaa"
	assert_success
}

@test "one inlined function sampled at two addresses of its caller is one stack (no 'stack id collision')" {
	printf 'parser 1/1 [002] 1.000001:    1 cpu-clock: \n\t    55d3c1a0f1b0 check_bounds (inlined)\n\t    55d3c1a0f1b0 parse_file+0x60 (/opt/parser)\n\t    55d3c1a0e2c4 main+0x34 (/opt/parser)\n\nparser 1/1 [002] 1.000002:    1 cpu-clock: \n\t    55d3c1a0f1c8 check_bounds (inlined)\n\t    55d3c1a0f1c8 parse_file+0x78 (/opt/parser)\n\t    55d3c1a0e2c4 main+0x34 (/opt/parser)\n\n' > "$T/inl.txt"
	run sh -c "perf2spaa '$T/inl.txt' | spaa-fold --inline"
	assert_success
	assert_output "parser;main;parse_file;check_bounds_[i] 2"
	run sh -c "perf2spaa '$T/inl.txt' | spaa-validate --strict"
	assert_success
}

# A thread with no part left to take cuts the part with the most left to
# read and reads its back (with SPAA_CHUNK, parts of half a chunk left are
# cut, a claim is an eighth of one): where the cuts fall follows the
# threads' speeds, so each run cuts elsewhere; the bytes are the same.
@test "-j 2, 3 and 8 on parts cut while they are read: the same bytes and warnings as -j 1, run after run" {
	local cap=$BATS_TEST_DIRNAME/../bench/data/build.perf.txt.zst j i
	zstd -dqc "$cap" | "$BATS_TEST_DIRNAME/../bench/perftext-copies.sh" 2 > "$T/two.txt"
	perf2spaa -j 1 "$T/two.txt" > "$T/1.spaa" 2> "$T/1.err"
	for i in 1 2 3 4; do
		for j in 2 3 8; do
			SPAA_CHUNK=200000 perf2spaa -j $j "$T/two.txt" > "$T/$j.spaa" 2> "$T/$j.err"
			cmp "$T/1.spaa" "$T/$j.spaa"
			cmp "$T/1.err" "$T/$j.err"
		done
	done
	SPAA_CHUNK=200000 spaa-fold -j 3 "$T/two.txt" > "$T/3.fold"
	spaa-fold "$T/1.spaa" | cmp - "$T/3.fold"
}

# -j N: the text cut into chunks (SPAA_CHUNK bytes, small here so that even
# the corpus files make many), parsed on N threads, merged in input order.
@test "-j 1, 2, 3, 7 and 8 write the same bytes, and the same warnings, on a real capture of a build cut into chunks or parts" {
	local cap=$BATS_TEST_DIRNAME/../bench/data/build.perf.txt.zst j
	perf2spaa -j 1 "$cap" > "$T/1.spaa" 2> "$T/1.err"
	for j in 2 7; do
		SPAA_CHUNK=262144 perf2spaa -j $j "$cap" > "$T/$j.spaa" 2> "$T/$j.err"
		cmp "$T/1.spaa" "$T/$j.spaa"
		cmp "$T/1.err" "$T/$j.err"
	done
	run spaa-validate --strict -q "$T/7.spaa"
	assert_success
	# a plain file: cut into parts read by their threads, at the default
	# size (15 MB: two parts, the second merged) and small ones; two
	# copies, the second's pids shifted (bench/perftext-copies.sh), so
	# that the parts hold the same frames in stacks of other processes
	zstd -dqc "$cap" | "$BATS_TEST_DIRNAME/../bench/perftext-copies.sh" 2 > "$T/two.txt"
	perf2spaa -j 1 "$T/two.txt" > "$T/t1.spaa" 2> "$T/t1.err"
	for j in 2 3 8; do
		perf2spaa -j $j "$T/two.txt" > "$T/t$j.spaa" 2> "$T/t$j.err"
		cmp "$T/t1.spaa" "$T/t$j.spaa"
		cmp "$T/t1.err" "$T/t$j.err"
		SPAA_CHUNK=1000000 perf2spaa -j $j "$T/two.txt" > "$T/t$j.spaa" 2> "$T/t$j.err"
		cmp "$T/t1.spaa" "$T/t$j.spaa"
		cmp "$T/t1.err" "$T/t$j.err"
	done
	assert_equal "$(grep -c '"type":"stack"' "$T/t1.spaa")" $((2 * $(grep -c '"type":"stack"' "$T/1.spaa")))
	# the corpus, with unreadable lines, header comments and events whose
	# first sample is in another chunk
	{
		echo "# perf version : 6.1"
		awk 'NR % 97 == 0 { print "garbage line here" } { print }' "$P/perf-iperf-stacks-pidtid-01.txt"
		echo "# cmdline : perf record -g"
		cat "$P/perf-cycles-instructions-01.txt" "$P/mixed.txt" "$P/quirks.txt" "$P/naming.txt"
		awk 'NR % 50 == 0 { print "zzz bad" } { print }' "$P/perf-dd-stacks-01.txt"
	} > "$T/mix.txt"
	perf2spaa -j 1 "$T/mix.txt" > "$T/m1.spaa" 2> "$T/m1.err"
	for j in 2 3 7 8; do
		SPAA_CHUNK=3000 perf2spaa -j $j "$T/mix.txt" > "$T/m$j.spaa" 2> "$T/m$j.err"
		cmp "$T/m1.spaa" "$T/m$j.spaa"
		cmp "$T/m1.err" "$T/m$j.err"
	done
	assert_equal "$(tail -1 "$T/m7.err")" "perf2spaa: $T/mix.txt: warning: 38 unreadable lines in all"
}

# -j N: the stack records rendered on N threads in runs (SPAA_WRITE_RUN
# stacks, small here so that the runs go round the ring of buffers many
# times), written in order by one
@test "-j 2, 3 and 8 render the stack records on the threads in runs written in order: the same bytes as -j 1, to standard output, to a file and compressed" {
	local cap=$BATS_TEST_DIRNAME/../bench/data/build.perf.txt.zst j r
	perf2spaa -j 1 "$cap" > "$T/1.spaa"
	[ "$(grep -c '"type":"stack"' "$T/1.spaa")" -gt 4096 ] || fail "too few stacks for several runs of 1024"
	for j in 2 3 8; do
		for r in 1 5 1024; do
			SPAA_WRITE_RUN=$r perf2spaa -j $j "$cap" | cmp - "$T/1.spaa" || fail "-j $j, runs of $r: not the bytes of -j 1"
		done
		SPAA_WRITE_RUN=3 perf2spaa -j $j -o "$T/o$j.spaa" "$cap"
		cmp "$T/o$j.spaa" "$T/1.spaa"
		SPAA_WRITE_RUN=3 perf2spaa -j $j -z "$cap" | zstd -dq | cmp - "$T/1.spaa"
	done
	# -s: the sample records after them, as they came
	perf2spaa -s -j 1 "$cap" > "$T/s1.spaa"
	SPAA_WRITE_RUN=2 perf2spaa -s -j 2 "$cap" | cmp - "$T/s1.spaa"
}

@test "a sample without a period is a warning once, whichever chunk the event's first sample is in" {
	for i in $(seq 0 99); do
		p=" 1000"
		[ "$i" = 60 ] || [ "$i" = 61 ] && p=
		printf 'app 100/101 [000] 1.%06d:%s cycles: \n\t    4005d6 main+0x10 (/bin/app)\n\n' "$i" "$p"
	done > "$T/p.txt"
	for j in 1 2 3; do
		SPAA_CHUNK=500 run perf2spaa -j $j "$T/p.txt"
		assert_success
		assert_line --index 0 "perf2spaa: $T/p.txt:181: warning: sample without a period in an event with periods: counted as period 1"
		assert_line --partial '{"metric":"period","value":98002}'
	done
}

@test "-j 3: a file whose one sample is longer than its parts is read whole on one thread, the same bytes" {
	{
		printf 'app 100/101 [000] 1.000001: 1000 cycles: \n'
		for i in $(seq 1 400); do printf '\t    4005%02x f%d+0x10 (/bin/app)\n' $((i % 256)) "$i"; done
		printf '\n'
	} > "$T/one.txt"
	perf2spaa -j 1 "$T/one.txt" > "$T/1.spaa"
	SPAA_CHUNK=500 perf2spaa -j 3 "$T/one.txt" | cmp - "$T/1.spaa"
	# and parts that begin at a header line that follows a frame line
	# with no blank line between (each header ends the sample before it)
	sed '/^$/d' "$P/perf-dd-stacks-01.txt" > "$T/nb.txt"
	perf2spaa -j 1 "$T/nb.txt" > "$T/nb1.spaa" 2> "$T/nb1.err"
	for j in 2 3 8; do
		SPAA_CHUNK=700 perf2spaa -j $j "$T/nb.txt" > "$T/nb$j.spaa" 2> "$T/nb$j.err"
		cmp "$T/nb1.spaa" "$T/nb$j.spaa"
		cmp "$T/nb1.err" "$T/nb$j.err"
	done
}

# gen_samples N [LINE:PERIOD...]: N samples of stack "main" (period 1),
# every 7th sample preceded by an unreadable line; the sample at LINE (of
# the loop, 1-based) has stack "big" with period PERIOD.
gen_samples() {
	awk -v n="$1" -v spec="${*:2}" 'BEGIN {
		k = split(spec, a, " ")
		for (i = 1; i <= k; i++) { split(a[i], f, ":"); big[f[1]] = f[2] }
		for (i = 1; i <= n; i++) {
			if (i % 7 == 0) print "zzz not a sample"
			if (i in big) printf "app 100/101 [000] %d.000001: %s cycles: \n\t    4005d6 big+0x10 (/bin/app)\n\n", i, big[i]
			else printf "app 100/101 [000] %d.000001: 1 cycles: \n\t    4005e6 main+0x10 (/bin/app)\n\n", i
		}
	}'
}

# run_j ENV... -- FILE: perf2spaa with -j 1, 2, 3 and 8 (ENV, then SPAA_CHUNK
# small: many chunks); the same stderr and exit status for each, kept in
# $T/err and $rc.
run_j() {
	local j c
	rc=0
	env "$@" perf2spaa -j 1 "$F" > /dev/null 2> "$T/err" || rc=$?
	for c in 200 2000; do
		for j in 2 3 8; do
			local r=0
			env "$@" SPAA_CHUNK=$c perf2spaa -j $j "$F" > /dev/null 2> "$T/err.$j" || r=$?
			[ "$r" = "$rc" ] || fail "-j $j, chunks of $c bytes: exit $r, -j 1: exit $rc"
			diff "$T/err" "$T/err.$j" || fail "-j $j, chunks of $c bytes: not the stderr of -j 1"
		done
	done
}

@test "-j 1, 2, 3 and 8: a line longer than SPAA_MAX_LINE is the same error, on the same line, after the same warnings" {
	# a frame line of 300 bytes in the middle (-j 1 let it pass when the
	# read buffer held it whole), then one at the end without its newline
	{ gen_samples 40; printf 'app 100/101 [000] 99.000001: 1 cycles: \n\t    4005d6 %0300d (/bin/app)\n\n' 0; gen_samples 40; } > "$T/long.txt"
	{ gen_samples 60; printf 'app 100/101 [000] 99.000001: 1 cycles: \n\t    4005d6 %0300d (/bin/app)' 0; } > "$T/end.txt"
	F=$T/long.txt run_j SPAA_MAX_LINE=100
	assert_equal "$rc" 1
	assert_equal "$(tail -1 "$T/err")" "perf2spaa: $T/long.txt:127: line longer than 100 bytes, the limit (SPAA_MAX_LINE=BYTES raises it)"
	assert_equal "$(grep -c warning "$T/err")" 5
	F=$T/end.txt run_j SPAA_MAX_LINE=100
	assert_equal "$rc" 1
	assert_equal "$(tail -1 "$T/err")" "perf2spaa: $T/end.txt:190: line longer than 100 bytes, the limit (SPAA_MAX_LINE=BYTES raises it)"
}

@test "-j 1, 2, 3 and 8: a period sum beyond 64 bits is the same error, naming the same sample, after the same warnings" {
	# the two samples of the sum in one chunk, in two, the second the
	# input's last sample; and a file of more than one read buffer
	for spec in "20:18446744073709551615 24:5" "3:18446744073709551615 70:5" "10:18446744073709551614 45:1 80:1" \
		"1:18446744073709551615 90:1"; do
		gen_samples 90 $spec > "$T/ov.txt"
		F=$T/ov.txt run_j
		assert_equal "$rc" 1
		assert_equal "$(grep -vc warning "$T/err")" 1
	done
	assert_equal "$(tail -1 "$T/err")" "perf2spaa: $T/ov.txt:280: metric period of a stack overflows 64 bits"
	gen_samples 12000 "9000:18446744073709551615 11000:1" > "$T/ov.txt"
	F=$T/ov.txt run_j
	assert_equal "$rc" 1
	assert_equal "$(tail -1 "$T/err")" "perf2spaa: $T/ov.txt:34569: metric period of a stack overflows 64 bits"
}

@test "perf2spaa -j N: a number of threads from 1 to 256, else a usage error (exit 2)" {
	run perf2spaa -j 0 /dev/null
	assert_failure 2
	assert_line --index 0 "perf2spaa: -j: '0' is not a number of threads from 1 to 256"
	assert_line --index 1 "Try 'perf2spaa --help' for more information."
	run perf2spaa --jobs=257 /dev/null
	assert_failure 2
	assert_line --index 0 "perf2spaa: -j: '257' is not a number of threads from 1 to 256"
	run perf2spaa -j two /dev/null
	assert_failure 2
	assert_line --index 0 "perf2spaa: -j: 'two' is not a non-negative integer"
	run perf2spaa -j
	assert_failure 2
}
