#!/usr/bin/env bats
# Every man page is lint-clean and every command has one.
load common

@test "mandoc -T lint is clean on every page" {
	command -v "${MANDOC:-mandoc}" >/dev/null || skip "mandoc not installed"
	run "${MANDOC:-mandoc}" -T lint -W warning "$SPAA_MANDIR"/*.[157]
	assert_success
	assert_output ""
}

@test "every command has a man page" {
	for c in spaa-cat spaa-validate spaa-fold folded2spaa spaa-grep spaa-diff \
		spaa-window spaa-top spaa-stat perf2spaa dtrace2spaa spall2spaa \
		spx2spaa afperf2spaa; do
		[ -f "$SPAA_MANDIR/$c.1" ] || fail "no man page for $c"
	done
}
