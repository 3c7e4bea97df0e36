#!/usr/bin/env bats
load common

@test "spx2spaa is a placeholder" {
	run spx2spaa
	assert_failure 2
}
