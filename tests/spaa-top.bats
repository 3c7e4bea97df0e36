#!/usr/bin/env bats
load common

@test "spaa-top is a placeholder" {
	run spaa-top
	assert_failure 2
}
