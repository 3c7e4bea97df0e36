#!/usr/bin/env bats
# safari2spaa: Safari's timeline recordings.  Safari is not on Linux: the
# ground truth is speedscope's sample recording (Safari 13.1,
# tests/data/speedscope-samples/README.md) and the figures of speedscope's
# importer (src/import/safari.ts), its test snapshot
# (tests/data/safari/simple.html-recording.expected: "self total function" in
# seconds, from src/import/__snapshots__/safari.test.ts.snap), and a reading
# of the JSON in python (below).
load common

S=$D/speedscope-samples
R=$S/simple.html-recording.json

rows() { # METRIC: "self total function" of the SPAA on stdin
	spaa-top -n 0 --json -m "$1" | jq -r 'select(.type == "row") | "\(.self) \(.total) \(.name)"' | LC_ALL=C sort -k3
}

# Every function's self and total nanoseconds (each sample's duration
# rounded to the nanosecond) or samples, from the recording itself.
py_rows() { # FILE METRIC
	python3 - "$1" "$2" <<-'PY'
	import json, sys
	from collections import defaultdict
	d = json.load(open(sys.argv[1]))["recording"]
	selfw, totw = defaultdict(int), defaultdict(int)
	for s, dur in zip(d["sampleStackTraces"], d["sampleDurations"]):
	    w = round(dur * 1e9) if sys.argv[2] == "wall_ns" else 1
	    names = []
	    for f in s["stackFrames"]:
	        n = f["name"] or ("(anonymous %s:%d)" % (f["url"].split("/")[-1], f["line"]) if f["url"] else "(anonymous)")
	        names.append(n)
	    if not names:
	        names = ["(no frames)"]
	    selfw[names[0]] += w
	    for n in set(names):
	        totw[n] += w
	for n in totw:
	    print(selfw[n], totw[n], n)
	PY
}

@test "speedscope's sample recording: each function's self and total time are speedscope's (to the microsecond)" {
	safari2spaa "$R" | rows wall_ns | awk '{ printf "%d %d", ($1 + 500) / 1000, ($2 + 500) / 1000; $1 = $2 = ""; print }' |
		sed 's/  */ /g' > "$T/got"
	awk '{ printf "%d %d", $1 * 1e6 + 0.5, $2 * 1e6 + 0.5; $1 = $2 = ""; print }' "$D/safari/simple.html-recording.expected" |
		sed 's/  */ /g' | LC_ALL=C sort -k3 > "$T/want"
	run diff "$T/want" "$T/got"
	assert_success
}

@test "speedscope's sample recording: nanoseconds and samples exactly as a reading of the JSON gives them" {
	for m in wall_ns samples; do
		py_rows "$R" $m | LC_ALL=C sort -k3 > "$T/want"
		safari2spaa "$R" | rows $m > "$T/got"
		run diff "$T/want" "$T/got"
		assert_success
	done
	run sh -c "safari2spaa '$R' | spaa-fold"
	assert_output - <<-'EOF'
	(program);alpha;beta;gamma 12376888
	(program);alpha;delta 3094222
	(program);alpha;delta;gamma 17018221
	firstOpenSearchURLString 517424
	injectModule;(anonymous __InjectedScript_CommandLineAPIModuleSource.js:2) 1000000
	EOF
	run sh -c "safari2spaa '$R' | spaa-validate --verbose --strict"
	assert_success
	assert_output "-: valid: 1 header, 4 dso, 8 frame, 0 thread, 5 stack, 0 sample, 0 window, 0 other; 0 errors, 0 warnings"
}

@test "the header: event cpu, the recording's name and time range; frames with the script's URL and position" {
	run sh -c "safari2spaa '$R' | head -1"
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"safari","frame_order":"leaf_to_root","events":[{"name":"cpu","kind":"timer","sampling":{"mode":"period","primary_metric":"wall_ns"}}],"time_range":{"start":4.163978071999736,"end":6.692470462992787,"unit":"seconds"},"source":{"tool":"safari","name":"Grabación de Control temporal 1"},"stack_id_mode":"content_addressable"}'
	run sh -c "safari2spaa '$R' | grep -F '\"func\":\"gamma\"'"
	assert_output '{"type":"frame","id":3,"func":"gamma","dso":3,"srcline":"file:///speedscope/sample/programs/javascript/simple.js:20:15","kind":"user"}'
}

@test "-s: a sample record per sample, at its timestamp" {
	run sh -c "safari2spaa -s '$R' | jq -r 'select(.type == \"sample\") | .timestamp' | head -3"
	assert_output - <<-'EOF'
	4.472667262976756
	4.514140182000119
	4.516020926996134
	EOF
	run sh -c "safari2spaa -s '$R' | jq -r 'select(.type == \"sample\")' | grep -c stack_id"
	assert_output 23
	# each sample carries its weights: spaa-window cuts the time, not only the count
	run sh -c "safari2spaa -s '$R' | spaa-window --list --every 0.5"
	assert_output - <<-'EOF'
	start	end	weight	top_weight	top_function
	+0ms	+500ms	33489.33us	29395.11us	gamma
	+500ms	+1000ms	517.42us	517.42us	firstOpenSearchURLString
	+1000ms	+1500ms	0	0	-
	+1500ms	+2000ms	0	0	-
	+2000ms	+2500ms	0	0	-
	+2500ms	+2528.492391ms	0	0	-
	EOF
}

@test "members in any order, durations before the stacks; a sample without frames keeps its time" {
	jq -c '.recording |= {sampleDurations, displayName, sampleStackTraces, startTime, endTime} | {overview: {}, recording, version}' "$R" > "$T/reordered.json"
	safari2spaa "$R" | tail -n +2 > "$T/want"
	safari2spaa "$T/reordered.json" | tail -n +2 > "$T/got"
	cmp "$T/want" "$T/got"
	jq -c '.recording.sampleStackTraces[0].stackFrames = []' "$R" > "$T/empty-stack.json"
	run sh -c "safari2spaa '$T/empty-stack.json' | spaa-fold | grep '^(no frames) '"
	assert_output "(no frames) 1000000"
}

@test "damaged recordings: errors that say what is wrong" {
	jq -c '.recording.sampleDurations |= .[1:]' "$R" > "$T/fewer.json"
	run safari2spaa "$T/fewer.json"
	assert_failure 1
	assert_output "safari2spaa: $T/fewer.json: 23 samples (sampleStackTraces) but 22 sampleDurations"
	jq -c '.recording.sampleDurations[3] = -1' "$R" > "$T/negative.json"
	run safari2spaa "$T/negative.json"
	assert_failure 1
	assert_output --regexp "^safari2spaa: $T/negative.json:1: a sample duration that is not a number of seconds from 0 to 9e9 \(byte [0-9]+\)$"
	jq -c '.recording.sampleStackTraces[2] |= del(.stackFrames)' "$R" > "$T/nostack.json"
	run safari2spaa "$T/nostack.json"
	assert_failure 1
	assert_output --regexp "^safari2spaa: $T/nostack.json:1: a sample without stackFrames \(an array\) \(byte [0-9]+\)$"
	jq -c '.recording |= del(.sampleStackTraces, .sampleDurations)' "$R" > "$T/nosamples.json"
	run safari2spaa "$T/nosamples.json"
	assert_failure 1
	assert_output "safari2spaa: $T/nosamples.json: no stacks found: a recording without JavaScript samples (sampleStackTraces); record with the JavaScript & Events timeline on (no profile written)"
	jq -c '.version = 2' "$R" > "$T/v2.json"
	run safari2spaa -o "$T/v2.spaa" "$T/v2.json"
	assert_success
	assert_output "safari2spaa: $T/v2.json: a recording of version 2, not 1: read as version 1"
	head -c 20000 "$R" > "$T/cut.json"
	run safari2spaa "$T/cut.json"
	assert_failure 1
	assert_output --regexp "^safari2spaa: $T/cut.json:[0-9]+: input ends inside "
	: > "$T/empty"
	run safari2spaa "$T/empty"
	assert_failure 1
	assert_output --partial "$T/empty"
}

@test "--max-frames: longer stacks keep their innermost frames under [truncated]" {
	run sh -c "safari2spaa --max-frames=2 '$R' 2> '$T/err' | spaa-fold"
	assert_output - <<-'EOF'
	[truncated];alpha;delta 3094222
	[truncated];beta;gamma 12376888
	[truncated];delta;gamma 17018221
	firstOpenSearchURLString 517424
	injectModule;(anonymous __InjectedScript_CommandLineAPIModuleSource.js:2) 1000000
	EOF
	run cat "$T/err"
	assert_output "safari2spaa: $R: 21 samples of more than 2 frames: cut to the 2 innermost under [truncated] (--max-frames)"
}

@test "another format is refused, naming its converter; any2spaa sends recordings here" {
	run safari2spaa "$EX/stackprof-cpu.json"
	assert_failure 1
	assert_output "safari2spaa: $EX/stackprof-cpu.json: this is a Ruby stackprof profile (JSON), not a Safari timeline recording: run stackprof2spaa"
	safari2spaa "$R" > "$T/want"
	any2spaa "$R" > "$T/got"
	cmp "$T/want" "$T/got"
	# the filters read it in process (safari2spaa's output)
	[ "$(spaa-fold "$R")" = "$(safari2spaa "$R" | spaa-fold)" ]
}

@test "a timestamp of 1e400 (written as 0) and keys given twice (JSON.parse takes the last, we took the first): errors" {
	bad() { printf '{"version":1,"recording":{%s"sampleStackTraces":[%s],"sampleDurations":[0.001]}}' "$3" "$1" > "$T/b.json"
		run safari2spaa -s -o "$T/out" "$T/b.json"; assert_failure 1
		assert_output "safari2spaa: $T/b.json:$2"; [ ! -e "$T/out" ]; }
	bad '{"timestamp":1e400,"stackFrames":[{"name":"f"}]}' '1: a sample timestamp that is not a finite number (byte 95)'
	bad '{"timestamp":1,"timestamp":2,"stackFrames":[{"name":"f"}]}' '1: a sample with "timestamp" twice (byte 105)'
	bad '{"timestamp":1,"stackFrames":[{"name":"f","name":"g"}]}' '1: a stack frame with "name" twice (byte 102)'
	bad '{"timestamp":1,"stackFrames":[{"name":"f"}]}' '1: a second displayName (byte 58)' '"displayName":"a","displayName":"b",'
}
