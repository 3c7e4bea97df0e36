#!/usr/bin/env bats
load common

@test "spaa-fold is a placeholder" {
	run spaa-fold
	assert_failure 2
}
