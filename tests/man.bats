#!/usr/bin/env bats
# Every man page is lint-clean and every command has one.
load common

@test "mandoc -T lint is clean on every page" {
	command -v "${MANDOC:-mandoc}" >/dev/null || skip "mandoc not installed"
	run "${MANDOC:-mandoc}" -T lint -W warning "$SPAA_MANDIR"/*.[157]
	assert_success
	assert_output ""
}

@test "every command has a man page" {
	local c n=0
	for c in "$BATS_TEST_DIRNAME"/../cmd/*.c; do
		c=$(basename "$c" .c)
		n=$((n + 1))
		[ -f "$SPAA_MANDIR/$c.1" ] || fail "no man page for $c"
	done
	[ "$n" -ge 23 ] || fail "only $n commands found in $BATS_TEST_DIRNAME/../cmd"
}

@test "spaa(7) is the toolbox and spaa(5) the format; the README names both by section" {
	grep -qx '.Dt SPAA 7' "$SPAA_MANDIR/spaa.7"
	grep -qx '.Dt SPAA 5' "$SPAA_MANDIR/spaa.5"
	grep -q 'man 7 spaa' "$SPAA_MANDIR/../README.md"
	grep -q 'man 5 spaa' "$SPAA_MANDIR/../README.md"
	run grep -n 'man spaa' "$SPAA_MANDIR/../README.md"
	# plain `man spaa` opens section 5: never offered for the pipelines
	refute_output --partial 'pipelines'
}

@test "every cross-reference to a page of spaa-tools (.Xr, 'man N page' in the READMEs) names a page that exists" {
	local ref
	for ref in $(grep -ho '^\.Xr [a-z0-9-]* [1-8]' "$SPAA_MANDIR"/*.[157] | sed 's/^\.Xr //; s/ /./' | sort -u) \
		$(grep -o 'man [1-8] [a-z0-9-]*' "$SPAA_MANDIR/../README.md" "$SPAA_EXAMPLES/README.md" |
			sed 's/.*man \([1-8]\) \(.*\)/\2.\1/' | sort -u); do
		case ${ref%.*} in spaa | spaa-* | *2spaa) ;; *) continue ;; esac
		[ -f "$SPAA_MANDIR/$ref" ] || fail "a page refers to $ref, which is not in man/"
	done
}

@test "the converters' and filters' lists of spaa(7) name every page of section 1" {
	local p
	for p in "$SPAA_MANDIR"/*.1; do
		p=$(basename "$p" .1)
		grep -qx ".It Xr $p 1" "$SPAA_MANDIR/spaa.7" || fail "spaa(7) does not list $p"
	done
}

@test "spaa(7)'s SEE ALSO names every page of section 1" {
	local p see
	see=$(sed -n '/^\.Sh SEE ALSO/,$p' "$SPAA_MANDIR/spaa.7")
	for p in "$SPAA_MANDIR"/*.1; do
		p=$(basename "$p" .1)
		printf '%s\n' "$see" | grep -q "^\.Xr $p 1" || fail "spaa(7) SEE ALSO does not name $p"
	done
}

@test "README's table has a row for every command" {
	local c
	for c in "$BATS_TEST_DIRNAME"/../cmd/*.c; do
		c=$(basename "$c" .c)
		grep -q "^| \`$c\` |" "$BATS_TEST_DIRNAME/../README.md" || fail "README.md has no row for $c"
	done
}
