#!/usr/bin/env bats
load common

@test "folded2spaa is a placeholder" {
	run folded2spaa
	assert_failure 2
}
