#!/usr/bin/env bats
load common

@test "spaa-diff is a placeholder" {
	run spaa-diff
	assert_failure 2
}
