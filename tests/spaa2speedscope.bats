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
