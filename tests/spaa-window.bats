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
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n+0s\t+2.5s\t300\t200\twork\n+2.5s\t+5s\t150\t150\tparse\n+5s\t+7.5s\t10\t10\tidle\n+7.5s\t+10s\t110\t100\twork')"
	run spaa-window --from 104 --every 2 --list --event cycles "$D/window/small.spaa"
	assert_success
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n+4s\t+6s\t160\t150\tparse\n+6s\t+8s\t100\t100\twork\n+8s\t+10s\t10\t10\tidle')"
}

@test "spaa-window: empty window in --list, last window clipped to --to" {
	run spaa-window --from 100 --to 107 --every 3 --list "$D/window/small.spaa"
	assert_success
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n+0s\t+3s\t300\t200\twork\n+3s\t+6s\t160\t150\tparse\n+6s\t+7s\t0\t0\t-')"
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
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n+0s\t+1s\t2\t1\tread\n+1s\t+2s\t2\t1\tread')"
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
	assert_line --index 0 "spaa-window: --from: 'x' is not a time (a number with a unit: 500ms, 2s, 1.5m, 1h, 250us, 10ns; a bare number is in the unit of the header's time_range)"
	run spaa-window --from 105 --to +1 "$D/window/small.spaa"
	assert_failure 2
	assert_output "spaa-window: --from (105) must be before --to (+1)"
	run spaa-window --to 1 --event cycles "$D/window/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-window: --event goes with --list"
	run spaa-window --to 1 a b
	assert_failure 1
	assert_line --index 0 "spaa-window: a: No such file or directory"
}

@test "spaa-window: write error" {
	run sh -c 'spaa-window --every 1 "$1" > /dev/full' sh "$D/window/small.spaa"
	assert_failure 1
	assert_output "spaa-window: standard output: write error: No space left on device"
}

@test "spaa-window: --help and --version" {
	run spaa-window --help
	assert_success
	assert_line --index 0 "Usage: spaa-window [OPTION]... [FILE]..."
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
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n+0us\t+40us\t70us\t50us\tmain\n+40us\t+80us\t30us\t20us\ta\n+80us\t+100us\t0\t0\t-')"
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
	run spaa-validate --verbose "$T/cut.spaa"
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
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n+60472336286.992ms\t+60472336291.992ms\t8.35ms\t2.40ms\tWsfSimulation::AdvanceTime\n+60472336291.992ms\t+60472336296.992ms\t3.34ms\t1.03ms\tline-of-sight\n+60472336296.992ms\t+60472336301.992ms\t3.34ms\t1.45ms\tWsfPlatform::Update\n+60472336301.992ms\t+60472336303.785ms\t0\t0\t-')"
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
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n+1.988ms\t+2.988ms\t2,503,311\t2,503,311\tcore::hash::BuildHasher::hash_one\n+2.988ms\t+3.988ms\t4,291,216\t2,488,004\tcore::str::<impl str>::to_lowercase')"
}

# Real captures: node-cpu.cpuprofile is `node --cpu-prof node-cpu.js`
# (Chrome's clock: nanoseconds), gzip.perf.data `perf record -F 499 -g --
# gzip -9 -c` of 4 MB (perf's clock: seconds).  Their own figures: the
# cpuprofile's timeDeltas added up from startTime, each sample lasting to the
# next (the last to endTime, as DevTools reads it), and `perf script -F
# time,period`, give 494571, 498503, 501090, 27951 us of wall time (271,
# 215, 197, 9 samples) per 500 ms and 52104208, 56112224, 58116232,
# 58116232, 8016032 ns of cpu-clock per 100 ms.
@test "spaa-window: times take units and mean the same whatever the clock (node --cpu-prof in ns, perf in s)" {
	chrome2spaa -s "$D/window/node-cpu.cpuprofile" > "$T/c.spaa"
	perf2spaa -s "$D/window/gzip.perf.data" > "$T/p.spaa"
	want=$(printf 'start\tend\tweight\ttop_weight\ttop_function\n+0ms\t+500ms\t494.57ms\t415.53ms\t(anonymous)\n+500ms\t+1000ms\t498.50ms\t421.27ms\t(anonymous)\n+1000ms\t+1500ms\t501.09ms\t451.32ms\t(anonymous)\n+1500ms\t+1529.185ms\t27.95ms\t15.58ms\t(anonymous)')
	for every in 500ms 0.5s 500000us 500000000ns 0.5e3ms 0.00833333333333333333m 500000000; do
		run spaa-window --every "$every" --list "$T/c.spaa"
		assert_success
		assert_output "$want"
	done
	run sh -c 'spaa-window --every 100ms --list "$1" | cut -f 1-3' sh "$T/p.spaa"
	assert_output "$(printf 'start\tend\tweight\n+0ms\t+100ms\t52.10ms\n+100ms\t+200ms\t56.11ms\n+200ms\t+300ms\t58.12ms\n+300ms\t+400ms\t58.12ms\n+400ms\t+414.738ms\t8.02ms')"
	run sh -c 'spaa-window --every 0.1 --raw-units --list "$1" | cut -f 1-3' sh "$T/p.spaa"
	assert_output "$(printf 'start\tend\tweight\n+0ms\t+100ms\t52104208\n+100ms\t+200ms\t56112224\n+200ms\t+300ms\t58116232\n+300ms\t+400ms\t58116232\n+400ms\t+414.738ms\t8016032')"
	# --from/--to with units: the same cut on either clock
	assert_equal "$(spaa-window --from +0.2s --to +300ms "$T/p.spaa" | spaa-fold)" "$(spaa-window --from +0.2 --to +0.3 "$T/p.spaa" | spaa-fold)"
	assert_equal "$(spaa-window --from +1.5s "$T/c.spaa" --every 1m --list)" "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n+1.5s\t+1.529185s\t27.95ms\t15.58ms\t(anonymous)')"
	run sh -c 'spaa-window --every 500ms --list --raw-units "$1" | cut -f 3 | tr "\n" " "' sh "$T/c.spaa"
	assert_output "weight 494571 498503 501090 27951 "
	# a cut of the Chrome profile: its wall time and samples rebuilt from the samples'
	run sh -c 'spaa-window --from +500ms --to +1000ms "$1" | spaa-top -n 0 --raw-units | head -n 1' sh "$T/c.spaa"
	assert_output "cpu/wall_us, total 498503"
	run sh -c 'spaa-window --from +500ms --to +1000ms "$1" | spaa-top -n 0 -m samples | head -n 1' sh "$T/c.spaa"
	assert_output "cpu/samples, total 215"
	# and a cut over everything gives back chrome2spaa's stacks
	spaa-window --from +0 --to +1h "$T/c.spaa" > "$T/call.spaa"
	cmp "$T/c.spaa" "$T/call.spaa"
	# a bare number is in the header's unit: nanoseconds here, and said so
	run spaa-window --every 0.5 --list "$T/c.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-window: --every 0.5 makes 3058370000 windows of the 1.52918e+09 nanoseconds range (at most 100000; a bare number is in nanoseconds, the unit of the header's time_range: write a unit, as in 0.5s)"
}

@test "spaa-window: --list prints times --from and --to take as they are" {
	perf2spaa -s "$D/window/gzip.perf.data" > "$T/p.spaa"
	# (not the last window, which has the sample at the very end: --to
	# keeps the samples before it)
	spaa-window --every 100ms --list "$T/p.spaa" | sed '1d;$d' | while IFS=$'\t' read -r from to weight _; do
		run sh -c 'spaa-window --from "$1" --to "$2" --every 100ms --list "$3" | tail -n 1 | cut -f 1-3' sh "$from" "$to" "$T/p.spaa"
		assert_output "$(printf '%s\t%s\t%s' "$from" "$to" "$weight")"
	done
	run spaa-window --every 100ms --list -J "$T/p.spaa"
	assert_line --index 1 '{"start":0.1,"end":0.2,"unit":"seconds","weight":56112224,"top_weight":54108216,"weight_unit":"nanoseconds","top_function":"[gzip]"}'
}

@test "spaa-window: bad times: an unknown unit, a unit without a number, a unit on a clock that is not a time" {
	run spaa-window --every 5sec "$D/window/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-window: --every: '5sec' is not a time (a number with a unit: 500ms, 2s, 1.5m, 1h, 250us, 10ns; a bare number is in the unit of the header's time_range)"
	run spaa-window --from +ms "$D/window/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-window: --from: '+ms' is not a time (a number with a unit: 500ms, 2s, 1.5m, 1h, 250us, 10ns; a bare number is in the unit of the header's time_range)"
	run spaa-window --every '2 s' "$D/window/small.spaa"
	assert_failure 2
	sed 's/"unit":"seconds"/"unit":"ticks"/' "$D/window/small.spaa" > "$T/ticks.spaa"
	run spaa-window --every 2s "$T/ticks.spaa"
	assert_failure 1
	assert_output "spaa-window: $T/ticks.spaa: --every 2s: the header's time_range unit 'ticks' is not a time: give a bare number"
	run spaa-window --every 1e300h --list "$D/window/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-window: --every: '1e300h' is out of range"
	run spaa-window --every 1e-300s --list "$D/window/small.spaa"
	assert_failure 2
	assert_line --index 0 --regexp '^spaa-window: --every 1e-300s makes [0-9]+ windows of the 10 seconds range \(at most 100000\)$'
	run spaa-window --from 2s "$D/window/small.spaa"
	assert_failure 1
	assert_output "spaa-window: $D/window/small.spaa: --from 2s is before the profile's start (100 seconds): times are absolute; write --from +2s for 2s after the start (or give --allow-empty)"
}
