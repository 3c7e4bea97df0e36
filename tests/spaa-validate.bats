#!/usr/bin/env bats
load common

@test "spaa-validate is a placeholder" {
	run spaa-validate
	assert_failure 2
}
