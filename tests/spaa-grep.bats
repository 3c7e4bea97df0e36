#!/usr/bin/env bats
load common

@test "spaa-grep is a placeholder" {
	run spaa-grep
	assert_failure 2
}
