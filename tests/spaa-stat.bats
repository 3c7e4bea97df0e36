#!/usr/bin/env bats
load common
bats_require_minimum_version 1.5.0

@test "spaa-stat: the summary" {
	run spaa-stat "$D/stat/small.spaa"
	assert_success
	assert_output - <<OUT
file:        $D/stat/small.spaa
source:      perf 6.1.0: perf record -g ./app
frame order: leaf_to_root
stack ids:   content_addressable
time range:  100 .. 110 (10 seconds)
events:      cycles (kind hardware, mode period, primary metric period)
records:     header 1, dso 1, frame 4, thread 1, stack 3, sample 7, window 1, other 1
weights:     cycles: samples 7, period 570
threads:     1 (app 7/7)
hottest:     cycles/period, total 570 in 3 stacks
self    self%  total   total%  function
 300   52.63%    550   96.49%  work
 250   43.86%    250   43.86%  parse
  20    3.51%     20    3.51%  idle
   0    0.00%    570  100.00%  main
OUT
}

@test "spaa-stat: several events, --event, --metric, -n; no time range" {
	run --separate-stderr spaa-stat -e instructions -m samples -n 1 "$D/top/small.spaa"
	assert_success
	assert_output - <<OUT
file:        $D/top/small.spaa
source:      perf
frame order: leaf_to_root
stack ids:   local
time range:  0 .. 2 (2 seconds)
events:      cycles (kind hardware, mode period, primary metric period)
             instructions (kind hardware, mode period, primary metric period)
records:     header 1, dso 3, frame 6, thread 0, stack 7, sample 0, window 0, other 0
weights:     cycles: samples 12, period 2000
             instructions: samples 5, period 5000
threads:     0
hottest:     instructions/samples, total 5 in 1 stack
self    self%  total   total%  function
   5  100.00%      5  100.00%  parse
OUT
	assert_equal "$stderr" ""
	run spaa-stat "$D/window/early.spaa"
	assert_success
	assert_line --index 4 "time range:  (none)"
	assert_line --index 1 "source:      dtrace"
	assert_line --index 3 "stack ids:   local"
	assert_line --index 2 "frame order: root_to_leaf"
}

@test "spaa-stat: --json" {
	run spaa-stat --json -n 2 "$D/stat/small.spaa"
	assert_success
	assert_output '{"file":"'"$D"'/stat/small.spaa","source_tool":"perf","command":"perf record -g ./app","tool_version":"6.1.0","frame_order":"leaf_to_root","stack_id_mode":"content_addressable","time_range":{"start":100,"end":110,"unit":"seconds"},"events":[{"name":"cycles","kind":"hardware","mode":"period","primary_metric":"period"}],"records":{"header":1,"dso":1,"frame":4,"thread":1,"stack":3,"sample":7,"window":1,"other":1},"weights":[{"event":"cycles","metric":"samples","value":7},{"event":"cycles","metric":"period","value":570}],"threads":[{"pid":7,"tid":7,"comm":"app"}],"hottest":{"event":"cycles","metric":"period","total":570,"stacks":3,"functions":[{"rank":1,"name":"work","self":300,"self_percent":52.63,"total":550,"total_percent":96.49},{"rank":2,"name":"parse","self":250,"self_percent":43.86,"total":250,"total_percent":43.86}]}}'
}

@test "spaa-stat: stdin, gzip, zstd, -o" {
	gzip -c "$D/stat/small.spaa" > "$T/s.gz"
	zstd -q -c "$D/stat/small.spaa" > "$T/s.zst"
	want=$(spaa-stat - < "$D/stat/small.spaa")
	assert_equal "$(echo "$want" | head -n 1)" "file:        -"
	run spaa-stat - < "$T/s.gz"
	assert_output "$want"
	run sh -c 'spaa-stat < "$1"' sh "$T/s.zst"
	assert_output "$want"
	run spaa-stat -o "$T/out" - < "$D/stat/small.spaa"
	assert_success
	assert_output ""
	assert_equal "$(cat "$T/out")" "$want"
}

@test "spaa-stat: bad input" {
	printf '{"type":"stack"}\n' > "$T/bad.spaa"
	run spaa-stat "$T/bad.spaa"
	assert_failure 1
	assert_output "spaa-stat: $T/bad.spaa:1: the first record is a stack, not the header"
	: > "$T/empty"
	run spaa-stat "$T/empty"
	assert_failure 1
	assert_output "spaa-stat: $T/empty: empty input: no header"
	run spaa-stat -e nosuch "$D/stat/small.spaa"
	assert_failure 1
	assert_output "spaa-stat: $D/stat/small.spaa:1: event nosuch is not declared in the header (events: cycles)"
	run spaa-stat /nonexistent
	assert_failure 1
	assert_output "spaa-stat: /nonexistent: No such file or directory"
}

@test "spaa-stat: bad options" {
	run spaa-stat -n -1 "$D/stat/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-stat: -n: '-1' is not a non-negative integer"
	run spaa-stat a b
	assert_failure 2
	assert_line --index 0 "spaa-stat: one input file at most"
	run spaa-stat --bogus
	assert_failure 2
}

@test "spaa-stat: write error" {
	run sh -c 'spaa-stat "$1" > /dev/full' sh "$D/stat/small.spaa"
	assert_failure 1
	assert_output --partial "write error"
}

@test "spaa-stat: --help and --version" {
	run spaa-stat --help
	assert_success
	assert_line --index 0 "Usage: spaa-stat [OPTIONS] [FILE]"
	run spaa-stat --version
	assert_success
	assert_output --regexp '^spaa-stat \(spaa-tools\) '
}
