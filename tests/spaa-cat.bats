#!/usr/bin/env bats
load common


setup() {
	T=$BATS_TEST_TMPDIR
	C=$D/cat
}

@test "spaa-cat: a single valid file passes byte for byte" {
	run spaa-cat "$C/a.spaa"
	assert_success
	assert_output "$(cat "$C/a.spaa")"
	spaa-cat "$C/a.spaa" | cmp - "$C/a.spaa"
	spaa-cat < "$C/b.spaa" | cmp - "$C/b.spaa"
	spaa-cat - < "$C/c.spaa" | cmp - "$C/c.spaa"
}

@test "spaa-cat: a single file keeps unknown record types and fields" {
	printf '%s\n' "$(head -1 "$C/a.spaa")" '{"type":"x_note","text":"kept"}' > "$T/x.spaa"
	spaa-cat "$T/x.spaa" | cmp - "$T/x.spaa"
}

@test "spaa-cat: blank lines are dropped" {
	{ head -3 "$C/a.spaa"; echo; echo; } > "$T/blank.spaa"
	run spaa-cat "$T/blank.spaa"
	assert_success
	assert_output "$(head -3 "$C/a.spaa")"
}

@test "spaa-cat: two files with colliding dso and frame ids" {
	run spaa-cat "$C/a.spaa" "$C/b.spaa"
	assert_success
	assert_output "$(cat "$C/ab.expected")"
}

@test "spaa-cat: the merged header unites events and widens the time range" {
	run sh -c 'spaa-cat "$1/a.spaa" "$1/b.spaa" | head -1' sh "$C"
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"cycles","kind":"hardware","sampling":{"mode":"period","primary_metric":"period","sample_period":1000}},{"name":"cache-misses","kind":"hardware","sampling":{"mode":"period","primary_metric":"period"}}],"time_range":{"start":10.5,"end":30.5,"unit":"seconds"},"source":{"tool":"perf","command":"perf record -g ./app"},"stack_id_mode":"content_addressable"}'
}

@test "spaa-cat: a stack id in two files is an error without --merge" {
	run spaa-cat "$C/a.spaa" "$C/a.spaa"
	assert_failure 1
	assert_output "spaa-cat: $C/a.spaa:8: stack id s1 is also in $C/a.spaa (line 8); use --merge to sum stacks of the same identity"
}

@test "spaa-cat --merge: sums stacks by content id across files, local ids and frame orders" {
	run spaa-cat --merge "$C/a.spaa" "$C/c.spaa" "$C/b.spaa"
	assert_success
	assert_output "$(cat "$C/merge-acb.expected")"
}

@test "spaa-cat -m: one file with local ids, samples before their stack" {
	run spaa-cat --merge "$C/c.spaa"
	assert_success
	assert_output "$(cat "$C/merge-c.expected")"
}

@test "spaa-cat --merge: a file with itself doubles every weight" {
	run sh -c 'spaa-cat --merge "$1" "$1" | grep "\"type\":\"stack\""' sh "$C/a.spaa"
	assert_success
	assert_output '{"type":"stack","id":"0xf62a2372bfd88243","frames":[2,1],"context":{"event":"cycles","pid":100,"tid":100},"weights":[{"metric":"samples","value":6},{"metric":"period","value":6000,"unit":"events"}],"exclusive":{"frame":2,"weights":[{"metric":"period","value":6000}]},"x_tag":"a"}
{"type":"stack","id":"0x4c073505be7837a2","frames":[3,2,1],"context":{"event":"cycles","pid":100,"tid":100},"weights":[{"metric":"samples","value":2},{"metric":"period","value":2000}]}'
}

@test "spaa-cat --merge: window stack ids are rewritten" {
	run spaa-cat --merge "$C/window-record.spaa" "$C/two-events.spaa"
	assert_success
	assert_output "$(cat "$C/window.expected")"
}

@test "spaa-cat --merge: content ids already right pass unchanged" {
	spaa-cat --merge "$C/merge-c.expected" | cmp - "$C/merge-c.expected"
}

@test "spaa-cat --merge: a sum beyond 64 bits is an error" {
	{ head -4 "$C/c.spaa"
	  echo '{"type":"stack","id":1,"frames":[10],"context":{"event":"cycles"},"weights":[{"metric":"period","value":18446744073709551615}]}'
	  echo '{"type":"stack","id":2,"frames":[10],"context":{"event":"cycles"},"weights":[{"metric":"period","value":1}]}'
	} > "$T/big.spaa"
	run spaa-cat --merge "$T/big.spaa"
	assert_failure 1
	assert_output "spaa-cat: $T/big.spaa:6: stack 2: the sum of metric period overflows 64 bits"
}

@test "spaa-cat --merge: a sample or window of an unknown stack is an error" {
	grep -v '"id":"0xd3bec3265ff773b3"' "$EX/perf-cpu.spaa" > "$T/nostack.spaa"
	run spaa-cat --merge "$T/nostack.spaa"
	assert_failure 1
	assert_output "spaa-cat: $T/nostack.spaa:35: sample refers to unknown stack 0xd3bec3265ff773b3"
	{ head -4 "$C/c.spaa"
	  echo '{"type":"stack","id":1,"frames":[10],"context":{"event":"cycles"},"weights":[{"metric":"period","value":5}]}'
	  echo '{"type":"window","id":"w","start":0,"end":1,"by_stack":[{"stack_id":7,"weights":[{"metric":"period","value":5}]}]}'
	} > "$T/win.spaa"
	run spaa-cat --merge "$T/win.spaa"
	assert_failure 1
	assert_output "spaa-cat: $T/win.spaa:6: window refers to unknown stack 7"
}

@test "spaa-cat: conflicting primary metrics are an error naming both files" {
	run spaa-cat "$C/a.spaa" "$C/conflict.spaa"
	assert_failure 1
	assert_output "spaa-cat: $C/conflict.spaa:1: event cycles: primary metric samples conflicts with primary metric period in $C/a.spaa: choose one for the output with -m METRIC (e.g. -m samples), or convert the inputs alike"
}

@test "spaa-cat: conflicting event kinds are an error naming both files" {
	run spaa-cat --merge "$C/a.spaa" "$C/kind.spaa"
	assert_failure 1
	assert_output "spaa-cat: $C/kind.spaa:1: event cycles: kind software conflicts with kind hardware in $C/a.spaa"
}

@test "spaa-cat: a different thread record for the same tid is dropped with a warning" {
	run sh -c 'spaa-cat "$1/b.spaa" "$1/thread.spaa" 2>&1 >/dev/null' sh "$C"
	assert_success
	assert_output "spaa-cat: $C/thread.spaa:2: thread 100 differs from the one in $C/b.spaa (line 8); the first is kept"
	run sh -c 'spaa-cat "$1/b.spaa" "$1/thread.spaa" 2>/dev/null | grep -c "\"type\":\"thread\""' sh "$C"
	assert_output 2
	run sh -c 'spaa-cat "$1/b.spaa" "$1/thread.spaa" 2>/dev/null | head -1' sh "$C"
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"cycles","kind":"hardware","sampling":{"mode":"period","primary_metric":"period"}},{"name":"cache-misses","kind":"hardware","sampling":{"mode":"period","primary_metric":"period"}}],"time_range":{"start":15,"end":30.5,"unit":"seconds"},"stack_id_mode":"local"}'
}

@test "spaa-cat: gzip and zstd inputs" {
	gzip -c "$C/a.spaa" > "$T/a.spaa.gz"
	zstd -q -c "$C/b.spaa" > "$T/b.spaa.zst"
	run spaa-cat "$T/a.spaa.gz" "$T/b.spaa.zst"
	assert_success
	assert_output "$(cat "$C/ab.expected")"
	spaa-cat "$T/a.spaa.gz" | cmp - "$C/a.spaa"
}

@test "spaa-cat: standard input among several inputs" {
	run sh -c 'gzip -c "$1/b.spaa" | spaa-cat "$1/a.spaa" -' sh "$C"
	assert_success
	assert_output "$(cat "$C/ab.expected")"
	run sh -c 'spaa-cat --merge "$1/a.spaa" - "$1/b.spaa" < "$1/c.spaa"' sh "$C"
	assert_success
	assert_output "$(cat "$C/merge-acb.expected")"
}

@test "spaa-cat: errors in standard input name it -" {
	run sh -c 'spaa-cat "$1/a.spaa" - < "$1/bad.spaa"' sh "$C"
	assert_failure 1
	assert_output "spaa-cat: -:3: invalid JSON at byte 59: unexpected end of line"
}

@test "spaa-cat -z: zstd output" {
	spaa-cat -z "$C/a.spaa" "$C/b.spaa" | zstd -d -c | cmp - "$C/ab.expected"
	spaa-cat --zstd "$C/a.spaa" | zstd -d -c | cmp - "$C/a.spaa"
	spaa-cat -o "$T/out.spaa.zst" "$C/a.spaa"
	zstd -d -c "$T/out.spaa.zst" | cmp - "$C/a.spaa"
}

@test "spaa-cat -o: writes the file" {
	run spaa-cat -o "$T/out.spaa" --merge "$C/c.spaa"
	assert_success
	assert_output ""
	cmp "$T/out.spaa" "$C/merge-c.expected"
	spaa-cat --output="$T/out2.spaa" "$C/a.spaa" "$C/b.spaa"
	cmp "$T/out2.spaa" "$C/ab.expected"
}

@test "spaa-cat -o: no partial file on error, an old file stays" {
	run spaa-cat -o "$T/out.spaa" "$C/a.spaa" "$C/bad.spaa"
	assert_failure 1
	assert_output "spaa-cat: $C/bad.spaa:3: invalid JSON at byte 59: unexpected end of line"
	[ ! -e "$T/out.spaa" ]
	echo old > "$T/old.spaa"
	run spaa-cat -o "$T/old.spaa" "$C/bad.spaa"
	assert_failure 1
	assert_equal "$(cat "$T/old.spaa")" old
	assert_equal "$(ls "$T")" old.spaa
}

@test "spaa-cat: write error on /dev/full" {
	run sh -c 'spaa-cat "$1" > /dev/full' sh "$C/a.spaa"
	assert_failure 1
	assert_output "spaa-cat: standard output: write error: No space left on device"
	run sh -c 'spaa-cat --merge "$1" "$1" > /dev/full' sh "$C/a.spaa"
	assert_failure 1
	assert_output "spaa-cat: standard output: write error: No space left on device"
}

@test "spaa-cat: bad JSON at line 3" {
	run spaa-cat "$C/bad.spaa"
	assert_failure 1
	assert_output "spaa-cat: $C/bad.spaa:3: invalid JSON at byte 59: unexpected end of line"
}

@test "spaa-cat: the first record must be the header" {
	tail -n +2 "$C/a.spaa" > "$T/nohdr.spaa"
	run spaa-cat "$C/a.spaa" "$T/nohdr.spaa"
	assert_failure 1
	assert_output "spaa-cat: $T/nohdr.spaa:1: the first record is a dso, not the header"
}

@test "spaa-cat: empty input" {
	run spaa-cat "$C/empty.spaa"
	assert_failure 1
	assert_output "spaa-cat: $C/empty.spaa: no header record (empty input)"
	run spaa-cat "$C/a.spaa" "$C/empty.spaa"
	assert_failure 1
	assert_output "spaa-cat: $C/empty.spaa: no header record (empty input)"
}

@test "spaa-cat: a missing file" {
	run spaa-cat "$C/a.spaa" "$T/nope.spaa"
	assert_failure 1
	assert_output "spaa-cat: $T/nope.spaa: No such file or directory"
}

@test "spaa-cat: usage errors" {
	run spaa-cat --bogus
	assert_failure 2
	assert_line -n 1 "Try 'spaa-cat --help' for more information."
	run spaa-cat - -
	assert_failure 2
	assert_output "spaa-cat: standard input (-) can be read only once
Try 'spaa-cat --help' for more information."
}

@test "spaa-cat --help and --version" {
	run spaa-cat --help
	assert_success
	assert_line -n 0 "Usage: spaa-cat [OPTION]... [FILE]..."
	assert_line "      --merge          sum the stacks of the same identity (content id and"
	run spaa-cat -V
	assert_success
	assert_output --regexp '^spaa-cat \(spaa-tools\) '
}

@test "spaa-cat: the examples pass unchanged, with and without --merge" {
	spaa-cat "$EX/perf-cpu.spaa" | cmp - "$EX/perf-cpu.spaa"
	spaa-cat --merge "$EX/perf-cpu.spaa" | cmp - "$EX/perf-cpu.spaa"
	spaa-cat --merge "$EX/memory.spaa" | cmp - "$EX/memory.spaa"
}

@test "spaa-cat: a CPU and a memory profile in one file" {
	spaa-cat "$EX/perf-cpu.spaa" "$EX/memory.spaa" > "$T/both.spaa"
	run head -1 "$T/both.spaa"
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"cycles","kind":"hardware","sampling":{"mode":"frequency","primary_metric":"period","frequency_hz":999}},{"name":"malloc","kind":"allocation","sampling":{"mode":"event","primary_metric":"alloc_bytes"},"allocation_tracking":{"tracks_frees":true,"has_timestamps":false}}],"time_range":{"start":52310.001012,"end":52310.011016,"unit":"seconds"},"source":{"tool":"perf","command":"perf record -F 999 -g --call-graph dwarf ./wordfreq input.txt","tool_version":"6.1.76"},"stack_id_mode":"content_addressable"}'
	run grep -c '"type":"dso"' "$T/both.spaa"
	assert_output 5
	run sh -c 'spaa-cat --merge "$1" | grep -c "\"type\":\"stack\""' sh "$T/both.spaa"
	assert_output 11
}

@test "-o: FILE.gz is gzip, FILE.zst zstd; a replaced file keeps its mode; a symlink stays one" {
	spaa-cat -o "$T/o.gz" "$EX/perf-cpu.spaa"
	gzip -dc "$T/o.gz" | cmp - "$EX/perf-cpu.spaa"
	spaa-cat -o "$T/o.zst" "$EX/perf-cpu.spaa"
	zstd -dcq "$T/o.zst" | cmp - "$EX/perf-cpu.spaa"
	: >"$T/kept" && chmod 640 "$T/kept" && ln -s kept "$T/link"
	spaa-cat -o "$T/link" "$EX/perf-cpu.spaa"
	[ -L "$T/link" ]
	cmp "$T/kept" "$EX/perf-cpu.spaa"
	run stat -c %a "$T/kept"
	assert_output 640
}

@test "-m/--metric: inputs whose primary metrics differ are put together under the one chosen" {
	run spaa-cat -m samples "$C/a.spaa" "$C/conflict.spaa"
	assert_success
	run sh -c 'spaa-cat -m samples "$1" "$2" | head -1 | grep -o "\"sampling\":{[^}]*}"' sh "$C/a.spaa" "$C/conflict.spaa"
	assert_output '"sampling":{"primary_metric":"samples","mode":"period","sample_period":1000}'
}

@test "spaa-cat --merge: 2^64-1 and 0.5 sum to a double that spaa-validate accepts (issue 20)" {
	H='{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"e","kind":"software","sampling":{"mode":"event","primary_metric":"bytes"}}],"stack_id_mode":"local"}'
	for v in 18446744073709551615 0.5; do
		printf '%s\n' "$H" '{"type":"dso","id":1,"name":"a"}' '{"type":"frame","id":1,"func":"f","dso":1}' \
			'{"type":"stack","id":"s1","frames":[1],"context":{"event":"e"},"weights":[{"metric":"bytes","value":'$v'}]}' > "$T/$v.spaa"
	done
	spaa-cat --merge -o "$T/m.spaa" "$T/18446744073709551615.spaa" "$T/0.5.spaa"
	run tail -n 1 "$T/m.spaa"
	assert_output '{"type":"stack","id":"0x73adf9a66b5b8208","frames":[1],"context":{"event":"e"},"weights":[{"metric":"bytes","value":18446744073709551616.0}]}'
	run spaa-validate -q "$T/m.spaa"
	assert_success
}

@test "-m takes pprof's, heaptrack's and V8's names for a metric: inuse_space is live_bytes (issue 19)" {
	pprof2spaa "$EX/go-heap.pprof" > "$T/h.spaa"
	spaa-cat --merge -m live_bytes "$T/h.spaa" "$T/h.spaa" > "$T/a.spaa"
	spaa-cat --merge -m inuse_space "$T/h.spaa" "$T/h.spaa" > "$T/b.spaa"
	cmp "$T/a.spaa" "$T/b.spaa"
	grep -q '"primary_metric":"live_bytes"' "$T/b.spaa"
	spaa-validate --strict "$T/b.spaa"
}

@test "inputs of different clocks (seconds, nanoseconds) are put together in the finest unit, exactly" {
	H='{"type":"header","format":"spaa","version":"1.0","source_tool":"x","frame_order":"leaf_to_root","events":[{"name":"e","kind":"software","sampling":{"mode":"event","primary_metric":"samples"}}],"time_range":{"start":%s,"end":%s,"unit":"%s"},"stack_id_mode":"local"}\n'
	R='{"type":"dso","id":1,"name":"a"}\n{"type":"frame","id":1,"func":"%s","dso":1}\n{"type":"stack","id":"s1","frames":[1],"context":{"event":"e"},"weights":[{"metric":"samples","value":1}]}\n{"type":"sample","timestamp":%s,"stack_id":"s1"}\n{"type":"window","id":"w1","start":%s,"end":%s,"unit":"%s","by_stack":[{"stack_id":"s1","weights":[{"metric":"samples","value":1}]}]}\n'
	{ printf "$H" 12528.785416 12529.200154 seconds; printf "$R" f 12529.200154 12528.785416 1.25e4 seconds; } > "$T/s.spaa"
	{ printf "$H" 12524574462000 12526103647000 nanoseconds; printf "$R" g 12524581532000 12524574462000 12524574463000 nanoseconds; } | sed 's/"s1"/"s2"/' > "$T/ns.spaa"
	{ printf "$H" 1.5 2 ms; printf "$R" h 1.75 1 2 ms; } | sed 's/"s1"/"s3"/' > "$T/ms.spaa"
	for m in "" --merge; do
		run spaa-cat $m "$T/s.spaa" "$T/ns.spaa" "$T/ms.spaa"
		assert_success
		assert_line --index 0 '{"type":"header","format":"spaa","version":"1.0","source_tool":"x","frame_order":"leaf_to_root","events":[{"name":"e","kind":"software","sampling":{"mode":"event","primary_metric":"samples"}}],"time_range":{"start":1500000,"end":12529200154000,"unit":"nanoseconds"},"stack_id_mode":"'"$([ -n "$m" ] && echo content_addressable || echo local)"'"}'
		run sh -c 'spaa-cat $1 "$2" "$3" "$4" | grep -v "\"type\":\"stack\"" | grep -o "\"\(timestamp\|start\|end\|unit\)\":[^,]*" | tr "\n" " "' sh "$m" "$T/s.spaa" "$T/ns.spaa" "$T/ms.spaa"
		assert_output '"start":1500000 "end":12529200154000 "unit":"nanoseconds"} "timestamp":12529200154000 "start":12528785416000 "end":12500000000000 "unit":"nanoseconds" "timestamp":12524581532000 "start":12524574462000 "end":12524574463000 "unit":"nanoseconds" "timestamp":1750000 "start":1000000 "end":2000000 "unit":"nanoseconds" '
		spaa-cat $m "$T/s.spaa" "$T/ns.spaa" "$T/ms.spaa" | spaa-validate -q -
	done
	# one input, or inputs that agree: unchanged
	run spaa-cat --merge "$T/s.spaa" "$T/s.spaa"
	assert_line --index 0 --partial '"time_range":{"start":12528.785416,"end":12529.200154,"unit":"seconds"}'
	# a unit that is not a power of ten from the others is still refused
	{ printf "$H" 1 2 hours; printf "$R" k 1.5 1 2 hours; } > "$T/h.spaa"
	run spaa-cat "$T/s.spaa" "$T/h.spaa"
	assert_failure 1
	assert_output "spaa-cat: $T/h.spaa:1: time_range unit hours conflicts with unit seconds in $T/s.spaa (not a power of ten apart)"
}
