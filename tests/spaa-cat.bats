#!/usr/bin/env bats
load common

@test "spaa-cat is a placeholder" {
	run spaa-cat
	assert_failure 2
}
