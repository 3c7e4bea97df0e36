#!/usr/bin/env bats
load common

@test "perf2spaa is a placeholder" {
	run perf2spaa
	assert_failure 2
}
