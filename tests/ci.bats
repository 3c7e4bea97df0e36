#!/usr/bin/env bats
# .ci/summary: the end of .ci/run's output (the failing tests and stages,
# the "ci: N passed, M failed, K skipped" line, the exit status), on made
# stage lists and test logs.
load common

SUMMARY=$BATS_TEST_DIRNAME/../.ci/summary

# log DIR/FILE: a test log with standard input's lines
log() {
	mkdir -p "$(dirname "$1")"
	cat > "$1"
}

@test ".ci/summary: every stage passed: the tests of the counted builds' logs, exit 0" {
	log "$T/normal/tests/a.bats.log" <<'EOF'
1..3
ok 1 one
ok 2 two # skip no perf here
ok 3 three
EOF
	log "$T/normal/tests/unit/test_json.log" <<'EOF'
ok 1 - parses
ok 2 - refuses
1..2
EOF
	log "$T/asan/tests/a.bats.log" <<'EOF'
1..1
ok 1 one
EOF
	# the harness's summary log and configure's are not read
	log "$T/normal/tests/test-suite.log" <<'EOF'
not ok 9 counted twice
EOF
	log "$T/normal/tests/config.log" <<'EOF'
ok 1 not a test
EOF
	printf '%s\n' "deps 0" "sources 0" "build-normal 0" "check-normal 0 $T/normal/tests" \
		"check-asan 0 $T/asan/tests" "distcheck 0" > "$T/stages"
	run sh "$SUMMARY" "$T/stages"
	assert_success
	assert_output "ci: 5 passed, 0 failed, 1 skipped"
}

@test ".ci/summary: a failing bats test is named with its stage, file and line, and counted; exit 1" {
	log "$T/normal/tests/a.bats.log" <<'EOF'
1..3
ok 1 one
not ok 2 two breaks
# (in test file tests/a.bats, line 9)
ok 3 three
EOF
	log "$T/normal/tests/b.bats.log" <<'EOF'
1..2
not ok 1 known # TODO not yet
not ok 2 in a helper
# (from function `helper' in file tests/b.bats, line 5,
#  in test file /src/x/tests/b.bats, line 12)
EOF
	printf '%s\n' "deps 0" "check-normal 2 $T/normal/tests" > "$T/stages"
	run sh "$SUMMARY" "$T/stages"
	assert_failure 1
	assert_output "ci: check-normal: tests/a.bats:9: not ok 2 two breaks
ci: check-normal: tests/b.bats:12: not ok 2 in a helper
ci: stage check-normal failed (exit 2)
ci: 2 passed, 2 failed, 0 skipped"
}

@test ".ci/summary: a stage failing without a failing test (deps, a broken build, the fuzz run) counts as one failure each, named; the tests run still counted" {
	log "$T/asan/tests/a.bats.log" <<'EOF'
1..2
ok 1 one
ok 2 two
EOF
	printf '%s\n' "deps 100" "sources 0" "build-normal 2" "build-asan 0" \
		"check-asan 0 $T/asan/tests" "fuzz-replay 1" > "$T/stages"
	run sh "$SUMMARY" "$T/stages"
	assert_failure 1
	assert_output "ci: stage deps failed (exit 100), no failing test named: counted as one failure
ci: stage build-normal failed (exit 2), no failing test named: counted as one failure
ci: stage fuzz-replay failed (exit 1), no failing test named: counted as one failure
ci: 2 passed, 3 failed, 0 skipped"
}

@test ".ci/summary: distcheck's tests (mode failures): their failures named and counted, their passes not (the builds' runs count them); a unit test that crashed before its TAP lines counts as its stage's failure" {
	log "$T/dist/_build/sub/tests/a.bats.log" <<'EOF'
1..2
ok 1 one
not ok 2 two
EOF
	log "$T/normal/tests/unit/test_common.log" <<'EOF'
ok 1 - fine
EOF
	printf '%s\n' "check-normal 2 $T/normal/tests" "fuzz 0" "distcheck 1 $T/dist failures" > "$T/stages"
	run sh "$SUMMARY" "$T/stages"
	assert_failure 1
	assert_output "ci: distcheck: _build/sub/tests/a.bats.log: not ok 2 two
ci: stage check-normal failed (exit 2), no failing test named: counted as one failure
ci: stage distcheck failed (exit 1)
ci: 1 passed, 2 failed, 0 skipped"
}

@test ".ci/summary: no stage list is a usage error, exit 2" {
	run sh "$SUMMARY"
	assert_failure 2
	assert_output "usage: .ci/summary STAGES"
}
