#!/usr/bin/env bats
# spaa-diff: inferno-diff-folded's results, naming options, --top, --json,
# matching by content, errors, compressed input, -o, write errors.
load common
bats_require_minimum_version 1.5.0

DD=$BATS_TEST_DIRNAME/data/diff
B=$DD/before.spaa
A=$DD/after.spaa

# before/after.spaa are folded2spaa conversions of inferno's
# tests/data/diff-folded inputs; results/ are inferno-diff-folded's outputs,
# sorted (inferno writes them in no particular order).

@test "default: inferno-diff-folded results/default.txt" {
	run spaa-diff "$B" "$A"
	assert_success
	assert_output "$(cat "$DD/results/default.txt")"
}

@test "--normalize: results/normalize.txt" {
	run spaa-diff --normalize "$B" "$A"
	assert_success
	assert_output "$(cat "$DD/results/normalize.txt")"
	run spaa-diff --normalize "$B" "$A"
	assert_output "$(cat "$DD/results/normalize.txt")"
}

@test "--strip-hex: results/strip_hex.txt" {
	run spaa-diff --strip-hex "$B" "$A"
	assert_success
	assert_output "$(cat "$DD/results/strip_hex.txt")"
}

@test "fractional weights are truncated with a warning: results/fractionals.txt" {
	spaa-diff "$DD/before_fractionals.spaa" "$A" > "$T/out" 2> "$T/err"
	run cat "$T/out"
	assert_output "$(cat "$DD/results/fractionals.txt")"
	run cat "$T/err"
	assert_output "spaa-diff: $DD/before_fractionals.spaa:20: fractional weights truncated to integers"
}

@test "inlined frames are named as spaa-fold names them: plain by default, _[i] with --inline" {
	assert_equal "$(spaa-diff "$EX/perf-cpu.spaa" "$EX/perf-cpu.spaa" | cut -d' ' -f1)" "$(spaa-fold "$EX/perf-cpu.spaa" | cut -d' ' -f1)"
	assert_equal "$(spaa-diff --inline "$EX/perf-cpu.spaa" "$EX/perf-cpu.spaa" | cut -d' ' -f1)" "$(spaa-fold --inline "$EX/perf-cpu.spaa" | cut -d' ' -f1)"
	run sh -c 'spaa-diff --inline "$1" "$1" | grep -c "_\[i\]"' sh "$EX/perf-cpu.spaa"
	assert_output 3
}

@test "stacks match by names, not ids: a renumbered profile of another tool" {
	run spaa-diff "$DD/small.spaa" "$DD/renum.spaa"
	assert_success
	assert_output "app;main;parse_file 200 200
app;main;parse_file;malloc 300 600
app_worker;main;Memcpy 50 100
app_worker;main;parse_file;read;sys_read 500 1000"
	run spaa-diff --normalize "$DD/small.spaa" "$DD/renum.spaa"
	assert_output "app;main;parse_file 361 200
app;main;parse_file;malloc 542 600
app_worker;main;Memcpy 90 100
app_worker;main;parse_file;read;sys_read 904 1000"
}

@test "naming options as spaa-fold: --raw --pid, --tid --all, --no-comm --metric, --event" {
	run spaa-diff --pid --raw "$DD/small.spaa" "$DD/renum.spaa"
	assert_output "app worker-100;main;Memcpy 50 100
app worker-100;main;parse_file;read;sys_read 500 1000
app-100;main;parse_file 200 200
app-100;main;parse_file;malloc 300 600"
	run spaa-diff --tid --all --event cycles "$DD/small.spaa" "$DD/renum.spaa"
	assert_output "app-100/100;main;parse_file 200 200
app-100/100;main;parse_file;malloc 300 600
app_worker-100/101;main;Memcpy 50 100
app_worker-100/101;main;parse_file;read;sys_read_[k] 500 1000"
	# a metric one file has not at all is an error naming the metrics it has
	# (it compared against 0)
	run --separate-stderr spaa-diff --no-comm -m samples "$DD/small.spaa" "$DD/renum.spaa"
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "spaa-diff: $DD/renum.spaa: no stack of event cycles has metric 'samples' (metrics: period)"
	run spaa-diff --all-events --no-comm "$DD/small.spaa" "$DD/renum.spaa"
	assert_line --index 0 "cycles;main;Memcpy 50 100"
	run spaa-diff --event nope "$DD/small.spaa" "$DD/renum.spaa"
	assert_failure 1
	assert_output "spaa-diff: $DD/small.spaa:1: event nope is not declared in the header (events: cycles)"
}

@test "--top: functions ranked by the change of self weight; recursion counted once" {
	run spaa-diff --top=10 "$DD/rec-before.spaa" "$DD/rec-after.spaa"
	assert_success
	assert_output "cpu/samples: before 11, after 12, delta +1 (+9.1%)
SELF_DELTA   SELF_%  TOTAL_DELTA  TOTAL_%  SELF_BEFORE  SELF_AFTER  TOTAL_BEFORE  TOTAL_AFTER  FUNCTION
        +6      new           +6      new            0           6             0            6  d
        -4  -100.0%           -4  -100.0%            4           0             4            0  0x7f00beef
        -2   -40.0%           -2   -40.0%            5           3             5            3  b
        +1      new           +1      new            0           1             0            1  0x7f00cafe
         0     0.0%           -3   -75.0%            0           0             4            1  c
         0     0.0%           -2   -28.6%            2           2             7            5  a
         0     0.0%           +1    +9.1%            0           0            11           12  main"
}

@test "--top N --sort total" {
	run spaa-diff -n 3 --sort total "$B" "$A"
	assert_success
	assert_output "cpu/samples: before 65, after 80, delta +15 (+23.1%)
SELF_DELTA  SELF_%  TOTAL_DELTA  TOTAL_%  SELF_BEFORE  SELF_AFTER  TOTAL_BEFORE  TOTAL_AFTER  FUNCTION
        +4  +36.4%          +16  +145.5%           11          15            11           27  __fdget_pos_[k]
         0    0.0%          +15   +23.1%            0           0            65           80  dd
       +12     new          +12      new            0          12             0           12  __fget_light_[k]"
	# --top alone: 10 rows; -n 0 and --top=0: every function (18 here)
	run spaa-diff --top "$B" "$A"
	assert_equal "${#lines[@]}" 12
	run spaa-diff -n 0 "$B" "$A"
	assert_equal "${#lines[@]}" 20
	run spaa-diff --top=0 "$B" "$A"
	assert_equal "${#lines[@]}" 20
}

@test "--json: summary, functions and stacks as NDJSON (--strip-hex, --top)" {
	run spaa-diff --json --strip-hex --top=3 "$DD/rec-before.spaa" "$DD/rec-after.spaa"
	assert_success
	assert_output "{\"type\":\"summary\",\"before\":\"$DD/rec-before.spaa\",\"after\":\"$DD/rec-after.spaa\",\"event_before\":\"cpu\",\"metric_before\":\"samples\",\"event_after\":\"cpu\",\"metric_after\":\"samples\",\"unit\":\"count\",\"normalized\":false,\"total_before\":11,\"total_after\":12,\"total_delta\":1,\"functions\":6,\"stacks\":5}
{\"type\":\"function\",\"name\":\"d\",\"self_before\":0,\"self_after\":6,\"self_delta\":6,\"total_before\":0,\"total_after\":6,\"total_delta\":6}
{\"type\":\"function\",\"name\":\"0x...\",\"self_before\":4,\"self_after\":1,\"self_delta\":-3,\"total_before\":4,\"total_after\":1,\"total_delta\":-3}
{\"type\":\"function\",\"name\":\"b\",\"self_before\":5,\"self_after\":3,\"self_delta\":-2,\"total_before\":5,\"total_after\":3,\"total_delta\":-2}
{\"type\":\"stack\",\"stack\":\"main;d\",\"before\":0,\"after\":6,\"delta\":6}
{\"type\":\"stack\",\"stack\":\"main;a;b;a;b\",\"before\":5,\"after\":0,\"delta\":-5}
{\"type\":\"stack\",\"stack\":\"main;a;b\",\"before\":0,\"after\":3,\"delta\":3}"
}

@test "--json --normalize scales the before figures" {
	run spaa-diff --json --normalize "$B" "$A"
	assert_success
	assert_line --index 0 --partial '"normalized":true,"total_before":80,"total_after":80,"total_delta":0,"functions":18,"stacks":9}'
	assert_line --index 2 '{"type":"function","name":"__srcu_read_unlock_[k]","self_before":33,"self_after":21,"self_delta":-12,"total_before":33,"total_after":21,"total_delta":-12}'
	run bash -c "spaa-diff --json '$B' '$A' | grep -c '\"type\":\"stack\"'"
	assert_output "9"
}

@test "stdin, gzip and zstd input" {
	gzip -c "$B" > "$T/b.gz"
	zstd -q -c "$A" > "$T/a.zst"
	run spaa-diff "$T/b.gz" "$T/a.zst"
	assert_output "$(cat "$DD/results/default.txt")"
	run bash -c "spaa-diff - '$T/a.zst' < '$T/b.gz'"
	assert_output "$(cat "$DD/results/default.txt")"
}

@test "-o FILE" {
	run spaa-diff -o "$T/out.txt" "$B" "$A"
	assert_success
	assert_output ""
	run cmp "$T/out.txt" "$DD/results/default.txt"
	assert_success
}

@test "write error" {
	run bash -c "spaa-diff '$B' '$A' > /dev/full"
	assert_failure 1
	assert_output "spaa-diff: standard output: write error: No space left on device"
}

@test "bad input: missing file, bad JSON at line N, no header" {
	run spaa-diff "$B" "$T/missing.spaa"
	assert_failure 1
	assert_output "spaa-diff: $T/missing.spaa: No such file or directory"
	{ head -3 "$A"; echo '{"type":"stack",'; } > "$T/bad.spaa"
	run spaa-diff "$B" "$T/bad.spaa"
	assert_failure 1
	assert_output "spaa-diff: $T/bad.spaa:4: invalid JSON at byte 17: unexpected end of line"
	: > "$T/empty.spaa"
	run spaa-diff "$T/empty.spaa" "$A"
	assert_failure 1
	assert_output "spaa-diff: $T/empty.spaa: no header record (empty input)"
}

@test "usage errors exit 2" {
	run spaa-diff "$B"
	assert_failure 2
	assert_line --index 0 "spaa-diff: two files needed: BEFORE AFTER"
	assert_line --index 1 "Try 'spaa-diff --help' for more information."
	run spaa-diff
	assert_failure 2
	run spaa-diff "$B" "$A" "$A"
	assert_failure 2
	assert_line --index 0 "spaa-diff: too many arguments (two files: BEFORE AFTER)"
	run spaa-diff - -
	assert_failure 2
	assert_line --index 0 "spaa-diff: standard input (-) can be read only once"
	run spaa-diff --sort size "$B" "$A"
	assert_failure 2
	assert_line --index 0 "spaa-diff: --sort: unknown key 'size' (self or total)"
	run spaa-diff --top x "$B" "$A"
	assert_failure 2
	run spaa-diff --event x --all-events "$B" "$A"
	assert_failure 2
	assert_line --index 0 "spaa-diff: --event and --all-events exclude each other"
	run spaa-diff --inline=foo "$B" "$A"
	assert_failure 2
	run spaa-diff --bogus "$B" "$A"
	assert_failure 2
}

@test "--help and --version" {
	run spaa-diff --help
	assert_success
	assert_line --index 0 "Usage: spaa-diff [OPTION]... BEFORE AFTER"
	run spaa-diff --version
	assert_success
	assert_output --regexp "^spaa-diff \(spaa-tools\) "
}

@test "the corpus's folded pairs through folded2spaa: every MANIFEST.tsv row" {
	C=$D/folded # the corpus's folded/, as it is
	n=0
	while IFS=$'\t' read -r input expected tool options; do
		[ "$input" = input ] && continue
		set -- $input
		folded2spaa "$C/$1" >"$T/1.spaa"
		folded2spaa "$C/$2" >"$T/2.spaa"
		spaa-diff $options "$T/1.spaa" "$T/2.spaa" >"$T/out" 2>/dev/null
		LC_ALL=C sort "$C/$expected" | cmp - "$T/out"
		n=$((n + 1))
	done <"$C/MANIFEST.tsv"
	[ "$n" -eq 4 ]
}

@test "a differential flame graph: spaa-diff | flamegraph.pl, when installed" {
	command -v flamegraph.pl >/dev/null || skip "flamegraph.pl not installed"
	spaa-diff "$B" "$A" | flamegraph.pl >"$T/diff.svg"
	grep -q '<svg' "$T/diff.svg"
	grep -q 'fsnotify_' "$T/diff.svg"
	spaa-diff --normalize "$B" "$A" | flamegraph.pl --negate >"$T/neg.svg"
	grep -q '<svg' "$T/neg.svg"
}

@test "header only; weights of 2^64-1 stay exact, also with -n and --json" {
	printf 'a;b 18446744073709551615\n' | folded2spaa >"$T/b.spaa"
	printf 'a;b 3\na;c 18446744073709551612\n' | folded2spaa >"$T/a.spaa"
	head -n 1 "$T/b.spaa" >"$T/h.spaa"
	run spaa-diff "$T/h.spaa" "$T/h.spaa"
	assert_success
	assert_output ""
	run --separate-stderr spaa-diff --normalize "$T/h.spaa" "$T/b.spaa"
	assert_success
	assert_output "a;b 0 18446744073709551615"
	assert_equal "$stderr" "spaa-diff: $T/h.spaa: total weight is 0: --normalize leaves the weights as they are"
	run spaa-diff --normalize "$T/b.spaa" "$T/a.spaa"
	assert_success
	assert_output "a;b 18446744073709551615 3
a;c 0 18446744073709551612"
	run spaa-diff --json "$T/b.spaa" "$T/a.spaa"
	assert_line --index 1 '{"type":"function","name":"b","self_before":18446744073709551615,"self_after":3,"self_delta":-18446744073709551612,"total_before":18446744073709551615,"total_after":3,"total_delta":-18446744073709551612}'
	run spaa-diff -o "$T/no/dir/x.txt" "$T/b.spaa" "$T/a.spaa"
	assert_failure 1
	assert_output "spaa-diff: $T/no/dir/x.txt: No such file or directory"
}

@test "profiles weighed by different metrics are refused; a root frame on one side only suggests --no-comm" {
	spaa-fold "$EX/parser.spaa" | folded2spaa >"$T/f.spaa"
	run spaa-diff "$EX/parser.spaa" "$T/f.spaa"
	assert_failure 1
	assert_output "spaa-diff: $EX/parser.spaa is weighed by period, $T/f.spaa by samples: compare one metric both have with -m METRIC (e.g. -m samples)"
	spaa-fold --no-comm "$EX/parser.spaa" | folded2spaa >"$T/g.spaa"
	run spaa-diff -m samples "$EX/parser.spaa" "$T/g.spaa"
	assert_failure 1
	assert_output "spaa-diff: $EX/parser.spaa and $T/g.spaa have no stack in common, but would match without their first frame: one has a process-name root frame, the other not; try --no-comm"
	run spaa-diff -m samples --no-comm "$EX/parser.spaa" "$T/g.spaa"
	assert_success
	assert_line --index 0 "__clone3;start_thread;worker_loop;[libc.so.6] 1 1001001"
}

@test "--top: both totals above the table; figures in the metric's unit as pprof prints them; --raw-units; -J names the unit" {
	perf2spaa "$EX/parser2.perf.txt" > "$T/p2.spaa"
	run --separate-stderr spaa-diff -n 3 "$EX/parser.spaa" "$T/p2.spaa"
	assert_success
	assert_output - <<'OUT'
cpu-clock:pppH/period: before 7.01ms, after 8.01ms, delta +1ms (+14.3%)
SELF_DELTA   SELF_%  TOTAL_DELTA  TOTAL_%  SELF_BEFORE  SELF_AFTER  TOTAL_BEFORE  TOTAL_AFTER  FUNCTION
      +2ms  +100.0%         +2ms  +100.0%          2ms         4ms           2ms          4ms  tokenize
      +1ms  +100.0%         +1ms  +100.0%          1ms         2ms           1ms          2ms  [libc.so.6]
      -1ms   -50.0%         -1ms   -50.0%          2ms         1ms           2ms          1ms  check_bounds
OUT
	run --separate-stderr spaa-diff -n 1 --raw-units "$EX/parser.spaa" "$T/p2.spaa"
	assert_output - <<'OUT'
cpu-clock:pppH/period: before 7007007, after 8008008, delta +1001001 (+14.3%)
SELF_DELTA   SELF_%  TOTAL_DELTA  TOTAL_%  SELF_BEFORE  SELF_AFTER  TOTAL_BEFORE  TOTAL_AFTER  FUNCTION
  +2002002  +100.0%     +2002002  +100.0%      2002002     4004004       2002002      4004004  tokenize
OUT
	run --separate-stderr spaa-diff -n 0 -J "$EX/parser.spaa" "$T/p2.spaa"
	assert_line --index 0 --partial '"metric_after":"period","unit":"nanoseconds","normalized":false,"total_before":7007007,"total_after":8008008,"total_delta":1001001,'
	# pprof's names for a metric: a Go heap profile against itself
	pprof2spaa "$EX/go-heap.pprof" > "$T/h.spaa"
	run --separate-stderr spaa-diff -n 1 -m inuse_space "$T/h.spaa" "$T/h.spaa"
	assert_success
	assert_line --index 0 "heap/live_bytes: before 1181.80kB, after 1181.80kB, delta 0 (0.0%)"
	# C++ names shortened in the table only; --full-names keeps them
	perf2spaa "$EX/shapes.perf.txt" | spaa-demangle > "$T/s.spaa"
	run --separate-stderr spaa-diff -n 0 "$T/s.spaa" "$T/s.spaa"
	assert_line --partial "shapes::Box::spin"
	refute_line --partial "shapes::Box<double>::spin"
	run --separate-stderr spaa-diff -n 0 --full-names "$T/s.spaa" "$T/s.spaa"
	assert_line --partial "shapes::Box<double>::spin"
	run --separate-stderr spaa-diff "$T/s.spaa" "$T/s.spaa"
	assert_output --partial "shapes::Box<double>::spin"
}

@test "--normalize with weights beyond 64 bits: an error naming both files" {
	printf 'a 1\nb 2\n' | folded2spaa > "$T/before.spaa"
	printf 'a 9223372036854775808\nb 9223372036854775808\n' | folded2spaa > "$T/after.spaa"
	run spaa-diff --normalize "$T/before.spaa" "$T/after.spaa"
	assert_failure 1
	assert_output "spaa-diff: $T/before.spaa, $T/after.spaa: weights too large to normalize (beyond 64 bits)"
}

@test "fractional times (speedscope's and Firefox's milliseconds of 1e-6 and 5e-7) compare exactly, in the decimals they have: not total_before 0, total_after 0" {
	local b=$DD/ms-before.spaa a=$DD/ms-after.spaa
	run --separate-stderr spaa-diff "$b" "$a"
	assert_success
	assert_equal "$stderr" ""
	assert_output "main 0.0000005 0.0000005
main;work 0.000001 0.000003"
	run --separate-stderr spaa-diff -J "$b" "$a"
	assert_success
	assert_line --index 0 "{\"type\":\"summary\",\"before\":\"$b\",\"after\":\"$a\",\"event_before\":\"cpu\",\"metric_before\":\"wall_ms\",\"event_after\":\"cpu\",\"metric_after\":\"wall_ms\",\"unit\":\"milliseconds\",\"normalized\":false,\"total_before\":0.0000015,\"total_after\":0.0000035,\"total_delta\":0.000002,\"functions\":2,\"stacks\":2}"
	assert_line --index 1 '{"type":"function","name":"work","self_before":0.000001,"self_after":0.000003,"self_delta":0.000002,"total_before":0.000001,"total_after":0.000003,"total_delta":0.000002}'
	assert_line --index 4 '{"type":"stack","stack":"main","before":0.0000005,"after":0.0000005,"delta":0}'
	run --separate-stderr spaa-diff --top "$b" "$a"
	assert_output - <<'OUT'
cpu/wall_ms: before 1.50ns, after 3.50ns, delta +2ns (+133.3%)
SELF_DELTA   SELF_%  TOTAL_DELTA  TOTAL_%  SELF_BEFORE  SELF_AFTER  TOTAL_BEFORE  TOTAL_AFTER  FUNCTION
      +2ns  +200.0%         +2ns  +200.0%          1ns         3ns           1ns          3ns  work
         0     0.0%         +2ns  +133.3%       0.50ns      0.50ns        1.50ns       3.50ns  main
OUT
	# int(w * 3.5 / 1.5) at the seventh decimal place
	run --separate-stderr spaa-diff --normalize "$b" "$a"
	assert_output "main 0.0000011 0.0000005
main;work 0.0000023 0.000003"
	# against whole milliseconds: the same decimals
	sed 's/"value":0.000003,/"value":2,/g' "$a" > "$T/whole.spaa"
	run --separate-stderr spaa-diff "$b" "$T/whole.spaa"
	assert_output "main 0.0000005 0.0000005
main;work 0.000001 2"
}
