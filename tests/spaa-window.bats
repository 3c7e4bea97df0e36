#!/usr/bin/env bats
load common
bats_require_minimum_version 1.5.0

# small.spaa: time_range 100..110, stacks 0xa (work), 0xb (parse), 0xc
# (idle) and 7 samples with periods.  early.spaa: no time_range, root_to_leaf,
# samples before the stacks, numeric stack ids, an x_cost metric.

head7() { head -n 7 "$D/window/small.spaa" | tail -n 6; }

@test "spaa-window: --from +T --to T rewrites weights, drops empty stacks, narrows the header" {
	run spaa-window --from +2 --to 105 "$D/window/small.spaa"
	assert_success
	assert_output - <<OUT
{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"cycles","kind":"hardware","sampling":{"mode":"period","primary_metric":"period"}}],"time_range":{"start":102,"end":105,"unit":"seconds"},"source":{"tool":"perf","command":"perf record -g ./app"},"stack_id_mode":"content_addressable"}
$(head7)
{"type":"stack","id":"0xa","frames":[2,1],"context":{"event":"cycles","pid":7,"tid":7,"x_note":"kept"},"weights":[{"metric":"samples","value":1},{"metric":"period","value":100,"unit":"events"}],"exclusive":{"frame":2,"weights":[{"metric":"period","value":100}]},"x_extra":[1,2]}
{"type":"stack","id":"0xb","frames":[4,2,1],"context":{"event":"cycles","pid":7,"tid":7},"weights":[{"metric":"samples","value":1},{"metric":"period","value":150,"unit":"events"}]}
{"type":"sample","timestamp":102.0,"pid":7,"tid":7,"event":"cycles","period":100,"stack_id":"0xa"}
{"type":"sample","timestamp":104.75,"pid":7,"tid":7,"event":"cycles","period":150,"stack_id":"0xb"}
OUT
	spaa-window --from +2 --to 105 "$D/window/small.spaa" | spaa-validate -q -
}

@test "spaa-window: --every adds windows, stacks unchanged" {
	run spaa-window --every 5 "$D/window/small.spaa"
	assert_success
	assert_equal "$(echo "$output" | head -n 17)" "$(cat "$D/window/small.spaa")"
	assert_equal "$(echo "$output" | tail -n +18)" '{"type":"window","id":"w1","start":100,"end":105,"unit":"seconds","by_stack":[{"stack_id":"0xa","weights":[{"metric":"samples","value":2},{"metric":"period","value":200}]},{"stack_id":"0xb","weights":[{"metric":"samples","value":2},{"metric":"period","value":250}]}]}
{"type":"window","id":"w2","start":105,"end":110,"unit":"seconds","by_stack":[{"stack_id":"0xa","weights":[{"metric":"samples","value":1},{"metric":"period","value":100}]},{"stack_id":"0xc","weights":[{"metric":"samples","value":2},{"metric":"period","value":20}]}]}'
}

@test "spaa-window: --list" {
	run spaa-window --every 2.5 --list "$D/window/small.spaa"
	assert_success
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n0\t2.5\t300\t200\twork\n2.5\t5\t150\t150\tparse\n5\t7.5\t10\t10\tidle\n7.5\t10\t110\t100\twork')"
	run spaa-window --from 104 --every 2 --list --event cycles "$D/window/small.spaa"
	assert_success
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n0\t2\t160\t150\tparse\n2\t4\t100\t100\twork\n4\t6\t10\t10\tidle')"
}

@test "spaa-window: empty window in --list, last window clipped to --to" {
	run spaa-window --from 100 --to 107 --every 3 --list "$D/window/small.spaa"
	assert_success
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n0\t3\t300\t200\twork\n3\t6\t160\t150\tparse\n6\t7\t0\t0\t-')"
}

@test "spaa-window: samples before stacks, no time_range, other metrics dropped" {
	run spaa-window --from +1 "$D/window/early.spaa"
	assert_success
	assert_output - <<'OUT'
{"type":"header","format":"spaa","version":"1.0","source_tool":"dtrace","frame_order":"root_to_leaf","events":[{"name":"profile-97","kind":"timer","sampling":{"mode":"frequency","primary_metric":"samples","frequency_hz":97}}],"stack_id_mode":"local","time_range":{"start":6,"end":7,"unit":"seconds"}}
{"type":"dso","id":"k","name":"genunix","is_kernel":true}
{"type":"frame","id":10,"func":"syscall","dso":"k","kind":"kernel"}
{"type":"frame","id":11,"func":"read","dso":"k","kind":"kernel"}
{"type":"frame","id":12,"func":"write","dso":"k","kind":"kernel"}
{"type":"sample","timestamp":6.25,"stack_id":1}
{"type":"sample","timestamp":7.0,"stack_id":2}
{"type":"stack","id":1,"frames":[10,11],"context":{"event":"profile-97"},"weights":[{"metric":"samples","value":1}]}
{"type":"stack","id":2,"frames":[10,12],"context":{"event":"profile-97"},"weights":[{"metric":"samples","value":1}]}
OUT
	run spaa-window --every 1 --list "$D/window/early.spaa"
	assert_success
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n0\t1\t2\t1\tread\n1\t2\t2\t1\tread')"
}

@test "spaa-window: stdin, gzip, zstd, -o, -z" {
	gzip -c "$D/window/small.spaa" > "$T/s.gz"
	zstd -q -c "$D/window/small.spaa" > "$T/s.zst"
	want=$(spaa-window --every 2.5 --list "$D/window/small.spaa")
	run spaa-window --every 2.5 --list "$T/s.gz"
	assert_output "$want"
	run sh -c 'spaa-window --every 2.5 --list < "$1"' sh "$T/s.zst"
	assert_output "$want"
	run sh -c 'cat "$1" | spaa-window --every 2.5 --list -' sh "$T/s.gz"
	assert_output "$want"
	run spaa-window --to 101 -o "$T/out.spaa" "$D/window/small.spaa"
	assert_success
	assert_output ""
	assert_equal "$(tail -n 1 "$T/out.spaa")" '{"type":"sample","timestamp":100.5,"pid":7,"tid":7,"event":"cycles","period":100,"stack_id":"0xa"}'
	run spaa-window --to 101 -z -o "$T/out.zst" "$D/window/small.spaa"
	assert_success
	assert_equal "$(zstd -dc "$T/out.zst")" "$(cat "$T/out.spaa")"
}

@test "spaa-window: no samples" {
	head -n 10 "$D/window/small.spaa" > "$T/nos.spaa"
	run spaa-window --to 105 "$T/nos.spaa"
	assert_failure 1
	assert_output "spaa-window: $T/nos.spaa: no sample records: spaa-window needs samples (perf2spaa --samples)"
}

@test "spaa-window: bad data" {
	{ head -n 10 "$D/window/small.spaa"; echo '{"type":"sample","timestamp":101,"stack_id":"0xz"}'; } > "$T/u.spaa"
	run spaa-window --every 1 "$T/u.spaa"
	assert_failure 1
	assert_output "spaa-window: $T/u.spaa:11: sample refers to unknown stack 0xz"
	{ head -n 10 "$D/window/small.spaa"; echo '{"type":"sample","stack_id":"0xa"}'; } > "$T/t.spaa"
	run spaa-window --every 1 "$T/t.spaa"
	assert_failure 1
	assert_output "spaa-window: $T/t.spaa:11: sample has no timestamp"
	{ head -n 10 "$D/window/small.spaa"; echo '{"type":"sample","timestamp":101,"stack_id":"0xa"}'; } > "$T/p.spaa"
	run spaa-window --to 105 "$T/p.spaa"
	assert_failure 1
	assert_output "spaa-window: $T/p.spaa:11: sample has no period: the period weight of stack 0xa cannot be rebuilt"
	sed 's/"primary_metric":"period"/"primary_metric":"x_cost"/' "$D/window/small.spaa" > "$T/m.spaa"
	run spaa-window --to 105 "$T/m.spaa"
	assert_failure 1
	assert_output "spaa-window: $T/m.spaa:8: stack 0xa: the primary metric 'x_cost' of event 'cycles' cannot be rebuilt from samples (only samples, count, period and the metrics of their x_weights)"
	run spaa-window --every 1 --list --event nosuch "$D/window/small.spaa"
	assert_failure 1
	assert_output "spaa-window: $D/window/small.spaa: event 'nosuch' is not declared in the header"
	run spaa-window --to 1 /nonexistent
	assert_failure 1
	assert_output "spaa-window: /nonexistent: No such file or directory"
}

@test "spaa-window: bad options" {
	run spaa-window "$D/window/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-window: nothing to do: give --from, --to or --every"
	run spaa-window --list "$D/window/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-window: --list needs --every"
	run spaa-window --every 0 "$D/window/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-window: --every: '0' is not a positive duration"
	run spaa-window --from x "$D/window/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-window: --from: 'x' is not a number"
	run spaa-window --from 105 --to +1 "$D/window/small.spaa"
	assert_failure 2
	assert_output "spaa-window: --from (105) must be before --to (+1)"
	run spaa-window --to 1 --event cycles "$D/window/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-window: --event goes with --list"
	run spaa-window --to 1 a b
	assert_failure 2
	assert_line --index 0 "spaa-window: one input file at most"
}

@test "spaa-window: write error" {
	run sh -c 'spaa-window --every 1 "$1" > /dev/full' sh "$D/window/small.spaa"
	assert_failure 1
	assert_output "spaa-window: standard output: write error: No space left on device"
}

@test "spaa-window: --help and --version" {
	run spaa-window --help
	assert_success
	assert_line --index 0 "Usage: spaa-window [OPTION]... [FILE]"
	run spaa-window --version
	assert_success
	assert_output --regexp '^spaa-window \(spaa-tools\) '
}

# spans.spaa: spall2spaa --samples of spans.json (main 0-100 us; a 10-30 with
# b 15-20; a 50-80 with c 60-70): samples carry each span's self cost as
# x_weights.
@test "spaa-window: span samples (x_weights): a cut rebuilds wall_ns and calls" {
	run spaa-window --from 0.00004 "$D/window/spans.spaa"
	assert_success
	assert_output - <<'OUT'
{"type":"header","format":"spaa","version":"1.0","source_tool":"spall","frame_order":"leaf_to_root","events":[{"name":"span","kind":"probe","sampling":{"mode":"event","primary_metric":"wall_ns"}}],"time_range":{"start":0.00004,"end":0.0001,"unit":"seconds"},"source":{"tool":"spall","format":"chrome-json"},"stack_id_mode":"content_addressable"}
{"type":"dso","id":1,"name":"[unknown]","is_kernel":false}
{"type":"frame","id":1,"func":"main","dso":1,"kind":"user"}
{"type":"frame","id":2,"func":"a","dso":1,"kind":"user"}
{"type":"frame","id":3,"func":"b","dso":1,"kind":"user"}
{"type":"frame","id":4,"func":"c","dso":1,"kind":"user"}
{"type":"thread","pid":1,"tid":1}
{"type":"stack","id":"0xe6434f8165c647bc","frames":[2,1],"context":{"event":"span","pid":1,"tid":1},"weights":[{"metric":"wall_ns","value":20000,"unit":"nanoseconds"},{"metric":"calls","value":1,"unit":"count"}],"exclusive":{"frame":2,"weights":[{"metric":"wall_ns","value":20000,"unit":"nanoseconds"},{"metric":"calls","value":1,"unit":"count"}]},"x_path_id":"0x38f13f4ca10e3dc9"}
{"type":"stack","id":"0x8aa87dfce1620fe3","frames":[4,2,1],"context":{"event":"span","pid":1,"tid":1},"weights":[{"metric":"wall_ns","value":10000,"unit":"nanoseconds"},{"metric":"calls","value":1,"unit":"count"}],"exclusive":{"frame":4,"weights":[{"metric":"wall_ns","value":10000,"unit":"nanoseconds"},{"metric":"calls","value":1,"unit":"count"}]},"x_path_id":"0x48da331144f23f34"}
{"type":"sample","timestamp":0.00006,"pid":1,"tid":1,"x_dur_ns":10000,"x_weights":[{"metric":"wall_ns","value":10000},{"metric":"calls","value":1}],"event":"span","stack_id":"0x8aa87dfce1620fe3"}
{"type":"sample","timestamp":0.00005,"pid":1,"tid":1,"x_dur_ns":30000,"x_weights":[{"metric":"wall_ns","value":20000},{"metric":"calls","value":1}],"event":"span","stack_id":"0xe6434f8165c647bc"}
OUT
	spaa-window --from 0.00004 "$D/window/spans.spaa" | spaa-validate -q -
	run sh -c 'spaa-window --to 0.00004 "$1" | spaa-fold -m wall_ns' sh "$D/window/spans.spaa"
	assert_output "main 50000
main;a 15000
main;a;b 5000"
	# the converter's own output, from the trace
	run sh -c 'spall2spaa --samples "$1" | spaa-window --from 0.00004 - | spaa-fold -m calls' sh "$D/window/spans.json"
	assert_output "main;a 1
main;a;c 1"
}

@test "spaa-window: span samples: --every windows and --list by wall_ns" {
	run spaa-window --every 0.00004 "$D/window/spans.spaa"
	assert_success
	assert_equal "$(echo "$output" | head -n 16)" "$(cat "$D/window/spans.spaa")"
	assert_equal "$(echo "$output" | tail -n +17)" '{"type":"window","id":"w1","start":0,"end":0.00004,"unit":"seconds","by_stack":[{"stack_id":"0x8fb67e72042cdcec","weights":[{"metric":"wall_ns","value":5000},{"metric":"calls","value":1}]},{"stack_id":"0xe6434f8165c647bc","weights":[{"metric":"wall_ns","value":15000},{"metric":"calls","value":1}]},{"stack_id":"0x6922d393462d9fb1","weights":[{"metric":"wall_ns","value":50000},{"metric":"calls","value":1}]}]}
{"type":"window","id":"w2","start":0.00004,"end":0.00008,"unit":"seconds","by_stack":[{"stack_id":"0xe6434f8165c647bc","weights":[{"metric":"wall_ns","value":20000},{"metric":"calls","value":1}]},{"stack_id":"0x8aa87dfce1620fe3","weights":[{"metric":"wall_ns","value":10000},{"metric":"calls","value":1}]}]}
{"type":"window","id":"w3","start":0.00008,"end":0.0001,"unit":"seconds","by_stack":[]}'
	spaa-window --every 0.00004 "$D/window/spans.spaa" | spaa-validate -q -
	run spaa-window --every 0.00004 --list "$D/window/spans.spaa"
	assert_success
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n0\t0.00004\t70000\t50000\tmain\n0.00004\t0.00008\t30000\t20000\ta\n0.00008\t0.0001\t0\t0\t-')"
}

@test "spaa-window: a cut covering everything gives back the converters' stacks exactly" {
	spall2spaa --samples "$D/spall/small-trace.json" > "$T/s.spaa" 2>/dev/null
	spaa-window --from +0 --to 1e300 "$T/s.spaa" > "$T/all.spaa"
	assert_equal "$(spaa-fold -m wall_ns "$T/all.spaa")" "$(spaa-fold -m wall_ns "$T/s.spaa")"
	cmp "$T/s.spaa" "$T/all.spaa"
	for f in "$D"/spx/0*/*.json; do
		spx2spaa --samples "$f" > "$T/x.spaa"
		spaa-window --from +0 --to 1e300 "$T/x.spaa" > "$T/xall.spaa"
		assert_equal "$(spaa-fold -m wt "$T/xall.spaa")" "$(spaa-fold -m wt "$T/x.spaa")"
		cmp "$T/x.spaa" "$T/xall.spaa"
	done
}

@test "spaa-window: spx2spaa --samples cut in time (wt, zm, calls)" {
	spx2spaa --samples "$D/spx/tiny.json" > "$T/x.spaa"
	run sh -c 'spaa-window --from +0.0000004 "$1" | spaa-fold -m wt' sh "$T/x.spaa"
	assert_output "php;/srv/app/index.php;Foo::{closure} 110
php;/srv/app/index.php;Foo::{closure};::gc_collect_cycles 90"
	run sh -c 'spaa-window --from +0.0000004 "$1" | spaa-fold -m zm' sh "$T/x.spaa"
	assert_output "php;/srv/app/index.php;Foo::{closure};::gc_collect_cycles -1024"
	run sh -c 'spaa-window --to +0.0000004 "$1" | spaa-fold -m wt' sh "$T/x.spaa"
	assert_output "php;/srv/app/index.php 500
php;/srv/app/index.php;fib 200
php;/srv/app/index.php;fib;fib 100"
	spaa-window --to +0.0000004 "$T/x.spaa" | spaa-validate -q -
}

@test "spaa-window: afperf2spaa --samples cut in time; region counters and section intervals cut too" {
	afperf2spaa --samples "$D/afperf/basic_two_runs.afperf" > "$T/a.spaa"
	spaa-window --from 1700000000.005 "$T/a.spaa" > "$T/cut.spaa"
	run spaa-validate "$T/cut.spaa"
	assert_output "$T/cut.spaa: valid: 1 header, 1 dso, 22 frame, 2 thread, 12 stack, 20 sample, 0 window, 0 other; 0 errors, 0 warnings"
	run spaa-fold --event region -m wall_ns "$T/cut.spaa"
	assert_output "mission;WsfSimulation::AdvanceTime;WsfPlatform::Update 1445000
mission;WsfSimulation::AdvanceTime;WsfPlatform::Update;ballistic, RK4 504000
mission;WsfSimulation::AdvanceTime;event dispatch;line-of-sight 894000
mission;WsfSimulation::AdvanceTime;event dispatch;line-of-sight;detect 892000
mission;WsfSimulation::AdvanceTime;event dispatch;line-of-sight;line-of-sight 132000
mission;WsfSimulation::AdvanceTime;event dispatch;line-of-sight;task assign 781000
mission;WsfSimulation::AdvanceTime;event dispatch;log flush;log flush 644000
mission;WsfSimulation::AdvanceTime;quoted \"radar\" sweep 506000
mission;WsfSimulation::AdvanceTime;Ω-band jammer 887000"
	run spaa-fold --event region -m 'Bytes sent' "$T/cut.spaa"
	assert_output "spaa-fold: $T/cut.spaa: 6 stacks without metric Bytes sent skipped
mission;WsfSimulation::AdvanceTime;WsfPlatform::Update 1039533389606
mission;WsfSimulation::AdvanceTime;event dispatch;line-of-sight 799974932952
mission;WsfSimulation::AdvanceTime;quoted \"radar\" sweep 532812492572
mission;WsfSimulation::AdvanceTime;Ω-band jammer 303655627857"
	run spaa-fold --event section -m wall_ns "$T/cut.spaa"
	assert_output "mission;guidance loop, fast #1 11108000
mission;événement #0 20000000"
	run spaa-window --from 1700000000 --every 0.005 --list "$T/a.spaa"
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n0\t0.005\t8345000\t2402000\tWsfSimulation::AdvanceTime\n0.005\t0.01\t3343000\t1026000\tline-of-sight\n0.01\t0.015\t3342000\t1445000\tWsfPlatform::Update\n0.015\t0.016793\t0\t0\t-')"
}

@test "spaa-window: x_weights errors: bad arrays, a metric some samples of a stack lack" {
	s='"stack_id":"0xe6434f8165c647bc"'
	{ head -n 11 "$D/window/spans.spaa"; echo "{\"type\":\"sample\",\"timestamp\":0.00009,\"x_weights\":{},$s}"; } > "$T/a.spaa"
	run spaa-window --to 1 "$T/a.spaa"
	assert_failure 1
	assert_output "spaa-window: $T/a.spaa:12: sample: x_weights must be an array"
	{ head -n 11 "$D/window/spans.spaa"; echo "{\"type\":\"sample\",\"timestamp\":0.00009,\"x_weights\":[{\"metric\":\"wall_ns\"}],$s}"; } > "$T/b.spaa"
	run spaa-window --every 1 "$T/b.spaa"
	assert_failure 1
	assert_output "spaa-window: $T/b.spaa:12: sample: x_weights[0] needs a \"metric\" string and a numeric \"value\""
	{ head -n 11 "$D/window/spans.spaa"; echo "{\"type\":\"sample\",\"timestamp\":0.00009,\"x_weights\":[{\"metric\":\"wall_ns\",\"value\":7}],$s}"; tail -n 5 "$D/window/spans.spaa"; } > "$T/c.spaa"
	run spaa-window --to 1 "$T/c.spaa"
	assert_failure 1
	assert_output "spaa-window: $T/c.spaa:12: sample has no calls: the calls weight of stack 0xe6434f8165c647bc cannot be rebuilt"
	# a window leaves out what not all its samples give
	run sh -c 'spaa-window --every 0.0001 "$1" | tail -n 1' sh "$T/c.spaa"
	assert_output --partial '{"stack_id":"0xe6434f8165c647bc","weights":[{"metric":"wall_ns","value":35007}]}'
	# without x_weights the primary metric wall_ns cannot be rebuilt
	sed 's/,"x_weights":\[[^]]*\]//' "$D/window/spans.spaa" > "$T/d.spaa"
	run spaa-window --to 1 "$T/d.spaa"
	assert_failure 1
	assert_output "spaa-window: $T/d.spaa:8: stack 0x8fb67e72042cdcec: the primary metric 'wall_ns' of event 'span' cannot be rebuilt from samples (only samples, count, period and the metrics of their x_weights)"
}

@test "spaa-window: a cut outside the time range: exit 1; with --allow-empty no stacks, an empty (not reversed) range" {
	run spaa-window --from 200 "$D/window/small.spaa"
	assert_failure 1
	assert_output "spaa-window: $D/window/small.spaa: no sample between 200 and the end: the cut would be empty (times are absolute, '+T' relative to the start; --allow-empty writes it anyway)"
	run spaa-window --from 200 --allow-empty "$D/window/small.spaa"
	assert_success
	assert_output - <<OUT
{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"cycles","kind":"hardware","sampling":{"mode":"period","primary_metric":"period"}}],"time_range":{"start":200,"end":200,"unit":"seconds"},"source":{"tool":"perf","command":"perf record -g ./app"},"stack_id_mode":"content_addressable"}
$(head7)
OUT
	run spaa-window --to 5 "$D/window/small.spaa"
	assert_failure 1
	assert_output "spaa-window: $D/window/small.spaa: no sample between the start and 5: the cut would be empty (times are absolute, '+T' relative to the start; --allow-empty writes it anyway)"
	run sh -c 'spaa-window --allow-empty --to 5 "$1" | head -n 1' sh "$D/window/small.spaa"
	assert_output --partial '"time_range":{"start":100,"end":100,"unit":"seconds"}'
}

@test "spaa-window: huge periods: exact up to 2^64-1, then an error naming the line" {
	{ head -n 10 "$D/window/small.spaa"
	  echo '{"type":"sample","timestamp":101,"period":18446744073709551615,"stack_id":"0xa"}'
	  echo '{"type":"sample","timestamp":102,"period":18446744073709551615,"stack_id":"0xa"}'; } >"$T/huge.spaa"
	run sh -c 'head -n 11 "$1" | spaa-window --to 105 - | grep "\"id\":\"0xa\""' sh "$T/huge.spaa"
	assert_output '{"type":"stack","id":"0xa","frames":[2,1],"context":{"event":"cycles","pid":7,"tid":7,"x_note":"kept"},"weights":[{"metric":"samples","value":1},{"metric":"period","value":18446744073709551615,"unit":"events"}],"exclusive":{"frame":2,"weights":[{"metric":"period","value":18446744073709551615}]},"x_extra":[1,2]}'
	run spaa-window --to 105 "$T/huge.spaa"
	assert_failure 1
	assert_output "spaa-window: $T/huge.spaa:12: the periods of stack 0xa add up beyond 64 bits"
}

@test "spaa-window: empty input, bad JSON, -o in a missing directory" {
	run spaa-window --to 1 </dev/null
	assert_failure 1
	assert_output "spaa-window: -: no header record (empty input)"
	{ head -n 1 "$D/window/small.spaa"; echo '{"type":'; } >"$T/bad.spaa"
	run spaa-window --every 1 "$T/bad.spaa"
	assert_failure 1
	assert_output "spaa-window: $T/bad.spaa:2: invalid JSON at byte 9: unexpected end of line"
	run spaa-window --every 1 -o "$T/no/dir/x.spaa" "$D/window/small.spaa"
	assert_failure 1
	assert_output "spaa-window: $T/no/dir/x.spaa: No such file or directory"
}

@test "spaa-window: --from/--to with --every make exactly the windows between them (no rounding window past --to)" {
	run spaa-window --from 52310.003 --to 52310.005 --every 0.001 --list "$EX/perf-cpu.spaa"
	assert_success
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n0\t0.001\t2503311\t2503311\tcore::hash::BuildHasher::hash_one\n0.001\t0.002\t4291216\t2488004\tcore::str::<impl str>::to_lowercase')"
}
