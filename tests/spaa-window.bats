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
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n100\t102.5\t300\t200\twork\n102.5\t105\t150\t150\tparse\n105\t107.5\t10\t10\tidle\n107.5\t110\t110\t100\twork')"
	run spaa-window --from 104 --every 2 --list --event cycles "$D/window/small.spaa"
	assert_success
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n104\t106\t160\t150\tparse\n106\t108\t100\t100\twork\n108\t110\t10\t10\tidle')"
}

@test "spaa-window: empty window in --list, last window clipped to --to" {
	run spaa-window --from 100 --to 107 --every 3 --list "$D/window/small.spaa"
	assert_success
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n100\t103\t300\t200\twork\n103\t106\t160\t150\tparse\n106\t107\t0\t0\t-')"
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
	assert_output "$(printf 'start\tend\tweight\ttop_weight\ttop_function\n5\t6\t2\t1\tread\n6\t7\t2\t1\tread')"
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
	assert_output --partial "write error"
}

@test "spaa-window: --help and --version" {
	run spaa-window --help
	assert_success
	assert_line --index 0 "Usage: spaa-window [OPTIONS] [FILE]"
	run spaa-window --version
	assert_success
	assert_output --regexp '^spaa-window \(spaa-tools\) '
}
