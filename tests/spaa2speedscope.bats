#!/usr/bin/env bats
# spaa2speedscope: SPAA to speedscope's file format, checked as written and
# as speedscope itself shows it (its npm package, in headless Chromium).
load common

@test "one sampled profile per event: frames named as spaa-fold names them, exact weights, the unit" {
	perf2spaa "$EX/parser.perf.txt" > "$T/p.spaa"
	spaa2speedscope "$T/p.spaa" > "$T/p.json"
	run jq -c '{schema: ."$schema", name, exporter, profiles: [.profiles[] | {type, name, unit, startValue, endValue, n: (.samples | length), w: .weights}]}' "$T/p.json"
	assert_output '{"schema":"https://www.speedscope.app/file-format-schema.json","name":"p.spaa","exporter":"spaa-tools@'"$(spaa-fold --version | sed 's/.* //')"'","profiles":[{"type":"sampled","name":"cpu-clock:pppH","unit":"nanoseconds","startValue":0,"endValue":7007007,"n":5,"w":[2002002,1001001,2002002,1001001,1001001]}]}'
	# the stacks, root first, are spaa-fold's lines
	jq -r '.shared.frames as $f | .profiles[0] | [.samples, .weights] | transpose[] | "\([.[0][] | $f[.].name] | join(";")) \(.[1])"' "$T/p.json" | LC_ALL=C sort > "$T/a"
	spaa-fold "$T/p.spaa" > "$T/b"
	cmp "$T/a" "$T/b"
}

@test "--threads: a profile per event and thread; -s: profiles in time order from the sample records" {
	perf2spaa -s "$EX/parser.perf.txt" > "$T/p.spaa"
	run sh -c "spaa2speedscope --threads '$T/p.spaa' | jq -c '.profiles[] | [.name, .endValue, (.samples | length)]'"
	assert_output - <<'END'
["cpu-clock:pppH: parser 41207/41207",5005005,3]
["cpu-clock:pppH: parser 41207/41209",1001001,1]
["cpu-clock:pppH: kworker/2:1 ?/187",1001001,1]
END
	# one speedscope sample per sample record, in time order, weighted by its period
	run sh -c "spaa2speedscope -s '$T/p.spaa' | jq -c '.profiles[] | [.name, .endValue, .weights]'"
	assert_output '["cpu-clock:pppH",7007007,[1001001,1001001,1001001,1001001,1001001,1001001,1001001]]'
	spaa2speedscope -s "$T/p.spaa" | jq -r '.shared.frames as $f | .profiles[0].samples[] | [.[] | $f[.].name] | .[-1]' > "$T/leaves"
	grep '"sample"' "$T/p.spaa" | jq -r .timestamp > "$T/ts"
	LC_ALL=C sort -c -n "$T/ts"
	assert_file_eq "$T/leaves" <<'END'
check_bounds
check_bounds
copy_user_enhanced_fast_string
tokenize
tokenize
[libc.so.6]
process_one_work
END
}

@test "weights stay exact integers beyond 2^53" {
	printf 'main;big 18446744073709551615\n' | folded2spaa > "$T/b.spaa"
	run sh -c "spaa2speedscope '$T/b.spaa' | grep -o '\"weights\":\[[0-9]*\]'"
	assert_output '"weights":[18446744073709551615]'
}

@test "an unknown event is an error that lists the ones the file has" {
	run spaa2speedscope --event=nope "$EX/perf-cpu.spaa"
	assert_failure 1
	assert_output --partial 'nope'
	assert_output --partial 'cycles'
}

@test "round trip through speedscope2spaa gives the same folded stacks" {
	for f in "$EX/perf-cpu.spaa" "$EX/parser.spaa" "$EX/memory.spaa"; do
		spaa-fold "$f" > "$T/a"
		spaa2speedscope "$f" | speedscope2spaa | spaa-fold > "$T/b"
		cmp "$T/a" "$T/b"
	done
}

@test "speedscope opens it: the sandwich view shows every function's total and self, the console stays quiet" {
	command -v chromium >/dev/null || fail "chromium is missing: sh .ci/deps installs it"
	perf2spaa -s "$EX/parser.perf.txt" > "$T/p.spaa"
	for opt in "" -s; do
		spaa2speedscope $opt "$T/p.spaa" > "$T/p.json"
		sh "$BATS_TEST_DIRNAME/speedscope-view.sh" "$T/p.json" sandwich "$T/v"
		spaa-fold "$T/p.spaa" | python3 "$BATS_TEST_DIRNAME/speedscope-expect.py" nanoseconds | LC_ALL=C sort > "$T/want"
		LC_ALL=C sort "$T/v.rows" > "$T/got"
		[ -s "$T/want" ]
		diff "$T/want" "$T/got"
		assert_file_eq "$T/v.console" < /dev/null
		assert_file_eq "$T/v.title" <<< 'p.spaa - speedscope'
	done
	# a heap profile, in bytes
	spaa2speedscope "$EX/memory.spaa" > "$T/m.json"
	sh "$BATS_TEST_DIRNAME/speedscope-view.sh" "$T/m.json" sandwich "$T/v"
	spaa-fold "$EX/memory.spaa" | python3 "$BATS_TEST_DIRNAME/speedscope-expect.py" bytes | LC_ALL=C sort > "$T/want"
	LC_ALL=C sort "$T/v.rows" > "$T/got"
	diff "$T/want" "$T/got"
	assert_file_eq "$T/v.console" < /dev/null
}

@test "the extremes read back through speedscope2spaa: 2^64-1, 2^63, 2.75, 1e30 (a total past 64 bits as a double endValue)" {
	printf 'main;big 18446744073709551615\nmain;mid 9223372036854775808\nmain;frac 2.75\nmain;huge 1e30\n' | folded2spaa > "$T/b.spaa"
	spaa-fold "$T/b.spaa" > "$T/a"
	spaa2speedscope "$T/b.spaa" > "$T/b.json"
	grep -o '"endValue":[^,]*' "$T/b.json" > "$T/end"
	assert_file_eq "$T/end" <<< '"endValue":1.0000000000276701e+30'
	speedscope2spaa "$T/b.json" | spaa-fold > "$T/b"
	assert_file_eq "$T/b" <<'END'
main;big 18446744073709551615
main;frac 2.75
main;huge 1e+30
main;mid 9223372036854775808
END
	cmp "$T/a" "$T/b"
	# one path past 64 bits: refused, as spaa-fold refuses it
	printf 'main;big 18446744073709551615\n' | folded2spaa > "$T/c.spaa"
	run spaa2speedscope -o "$T/out.json" "$T/c.spaa" "$T/c.spaa"
	assert_failure 1
	assert_output "spaa2speedscope: $T/c.spaa:5: weight overflow: the stacks of one path of profile cpu add up beyond 64 bits"
	[ ! -e "$T/out.json" ]
}

@test "a negative weight (a memory delta) is refused: speedscope has none, speedscope2spaa refuses them" {
	printf 'main;grow 4096\nmain;shrink -512\n' | folded2spaa > "$T/n.spaa"
	run spaa2speedscope -o "$T/out.json" "$T/n.spaa"
	assert_failure 1
	id=$(jq -r 'select(.type == "stack" and .weights[0].value < 0) | .id' "$T/n.spaa")
	assert_output "spaa2speedscope: $T/n.spaa:7: stack $id: weight -512 of metric samples is negative: speedscope has no negative weights"
	[ ! -e "$T/out.json" ]
}

@test "-s: sample records that do not add up to the stacks: written from the stacks, whose totals the man page promises" {
	perf2spaa -s "$EX/parser.perf.txt" > "$T/p.spaa"
	# the second sample record left out: 6 periods where the stacks have 7
	awk '!/"type":"sample"/ || ++n != 2' "$T/p.spaa" > "$T/q.spaa"
	spaa2speedscope -s "$T/q.spaa" 2> "$T/err" | jq -c '.profiles[] | [.name, .endValue, .weights]' > "$T/w"
	assert_file_eq "$T/w" <<< '["cpu-clock:pppH",7007007,[2002002,1001001,2002002,1001001,1001001]]'
	assert_file_eq "$T/err" <<< "spaa2speedscope: $T/q.spaa: profile cpu-clock:pppH: its sample records do not add up to its stacks; written from its stacks, not in time order"
	spaa2speedscope -s "$T/q.spaa" 2> /dev/null | speedscope2spaa | spaa-fold > "$T/b"
	spaa-fold "$T/q.spaa" > "$T/a"
	cmp "$T/a" "$T/b"
}

@test "nothing to write (no stack with the metric, every stack weighing 0): an error, not an empty speedscope file with exit 0" {
	run spaa2speedscope -m nope -o "$T/out.json" "$EX/perf-cpu.spaa"
	assert_failure 1
	assert_output "spaa2speedscope: $EX/perf-cpu.spaa: 7 stacks without metric nope skipped
spaa2speedscope: $EX/perf-cpu.spaa: no stacks found: no stack has the metric asked for (no profile written)"
	[ ! -e "$T/out.json" ]
	printf 'main;a 0\n' | folded2spaa > "$T/z.spaa"
	run spaa2speedscope "$T/z.spaa"
	assert_failure 1
	assert_output "spaa2speedscope: $T/z.spaa: no stacks found: every stack weighs 0 (no profile written)"
}

@test "-s on a profile without sample records: silent (UBSan: qsort of a null array)" {
	run spaa2speedscope -s -o "$T/out.json" "$EX/memory.spaa"
	assert_success
	assert_output ""
	spaa2speedscope "$EX/memory.spaa" | cmp - "$T/out.json"
}
