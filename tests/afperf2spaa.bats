#!/usr/bin/env bats
load common

@test "afperf2spaa is a placeholder" {
	run afperf2spaa
	assert_failure 2
}
