#!/usr/bin/env bats
load common

@test "dtrace2spaa is a placeholder" {
	run dtrace2spaa
	assert_failure 2
}
