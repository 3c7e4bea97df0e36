#!/usr/bin/env bats
load common

@test "spall2spaa is a placeholder" {
	run spall2spaa
	assert_failure 2
}
