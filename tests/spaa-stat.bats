#!/usr/bin/env bats
load common

@test "spaa-stat is a placeholder" {
	run spaa-stat
	assert_failure 2
}
