#!/usr/bin/env bats
load common

@test "spaa-window is a placeholder" {
	run spaa-window
	assert_failure 2
}
