#!/usr/bin/env bats
# Every command's --help against the option list of spaa(7), section
# "OPTIONS EVERY COMMAND FOLLOWS" (read from the page itself, the one source
# of truth): a letter means the same long option in every command, no
# command uses a letter the list does not have, the list's long-only options
# have no letter, options with a value are written --name=VALUE, the first
# line is the usage line and the last the exit status sentence.
load common

SPAA7=$SPAA_MANDIR/spaa.7
EXIT_SENTENCE='Exit status: 0 ok, 1 bad input or write error, 2 usage error.'

# The list, one option a line: "SHORT LONG VALUE" (common.bash).
table() { spaa7_option_table; }

# The commands, from the lists of spaa(7) (".It Xr NAME 1").
commands() {
	awk '/^\.Sh /{ d = ($0 ~ /^\.Sh DESCRIPTION/) } d && /^\.It Xr [^ ]+ 1$/ { print $3 }' "$SPAA7"
}

@test "spaa(7) has the option list and the list of commands" {
	run table
	assert_success
	assert_line 'o output 1'
	assert_line 'e regexp 1'
	assert_line '- event 1'
	assert_line '- normalize 0'
	assert_line 'V version 0'
	# one long option per letter, one letter per long option
	[ -z "$(table | awk '$1 != "-"' | cut -d' ' -f1 | sort | uniq -d)" ]
	[ -z "$(table | cut -d' ' -f2 | sort | uniq -d)" ]
	run commands
	assert_line spaa-cat
	assert_line perf2spaa
	[ "$(commands | wc -l)" -ge 14 ]
}

@test "every command in cmd/ is listed in spaa(7)" {
	local c
	for c in "${SPAA_CMDDIR:-$BATS_TEST_DIRNAME/../cmd}"/*; do
		[ -f "$c" ] && [ -x "$c" ] || continue
		case ${c##*/} in *.*) continue ;; esac
		commands | grep -qx "${c##*/}" || fail "${c##*/} is not listed in spaa(7)"
	done
}

# check_help PROG: prints one line per disagreement with the list
check_help() {
	local prog=$1 help first last
	help=$("$prog" --help) || { echo "$prog --help: exit $?"; return; }
	first=$(printf '%s\n' "$help" | head -n 1)
	last=$(printf '%s\n' "$help" | tail -n 1)
	if [ "$prog" = spaa-diff ] || [ "$prog" = spaa-heapdiff ]; then
		[ "$first" = "Usage: $prog [OPTION]... BEFORE AFTER" ] ||
			echo "$prog: first line is '$first', not 'Usage: $prog [OPTION]... BEFORE AFTER'"
	elif [ "$prog" = spaa-annotate ]; then
		[ "$first" = "Usage: $prog [OPTION]... REGEX [FILE]..." ] ||
			echo "$prog: first line is '$first', not 'Usage: $prog [OPTION]... REGEX [FILE]...'"
	elif [ "$prog" = spaa-grep ]; then
		[ "$first" = "Usage: $prog [OPTION]... PATTERN [FILE]..." ] ||
			echo "$prog: first line is '$first', not 'Usage: $prog [OPTION]... PATTERN [FILE]...'"
	else
		case $first in
		"Usage: $prog [OPTION]... [FILE]..." | "Usage: $prog [OPTION]... [FILE]") ;;
		*) echo "$prog: first line is '$first', not 'Usage: $prog [OPTION]... [FILE]...' or '... [FILE]'" ;;
		esac
	fi
	[ "$last" = "$EXIT_SENTENCE" ] ||
		echo "$prog: last line is '$last', not '$EXIT_SENTENCE'"
	printf '%s\n' "$help" | awk -v prog="$prog" -v tab="$(table)" '
		BEGIN {
			n = split(tab, rows, "\n")
			for (i = 1; i <= n; i++) {
				split(rows[i], f, " ")
				if (f[1] != "-") { long_of[f[1]] = f[2]; short_of[f[2]] = f[1] }
				listed[f[2]] = 1; val[f[2]] = f[3]
			}
		}
		# option lines: "  -x, --long[=ARG]  text" or "      --long[=ARG]  text"
		/^  -[^-]/ {
			if (!match($0, /^  -[A-Za-z0-9], --[A-Za-z0-9][A-Za-z0-9-]*/)) {
				printf "%s: option line is not \"  -x, --long\": %s\n", prog, $0; next
			}
			x = substr($0, 4, 1); long = substr($0, 9, RLENGTH - 8)
			if (!(x in long_of))
				printf "%s: -%s (--%s): the letter is not in spaa(7)\n", prog, x, long
			else if (long_of[x] != long)
				printf "%s: -%s is --%s here but --%s in spaa(7)\n", prog, x, long, long_of[x]
			else if ((long in listed) && !(long in short_of))
				printf "%s: --%s is long only in spaa(7), not -%s\n", prog, long, x
			check(long, substr($0, RLENGTH + 1))
			next
		}
		/^(--| --|  --|   --|    --|     --)/ {
			printf "%s: option line is not \"  -x, --long\" or \"      --long\": %s\n", prog, $0; next
		}
		/^      --[A-Za-z0-9]/ {
			match($0, /^      --[A-Za-z0-9][A-Za-z0-9-]*/)
			long = substr($0, 9, RLENGTH - 8)
			if (long in short_of)
				printf "%s: --%s has no letter here but is -%s, --%s in spaa(7)\n", prog, long, short_of[long], long
			check(long, substr($0, RLENGTH + 1))
		}
		# what follows the long name: "=ARG", "[=ARG]" or nothing, never " ARG"
		function check(long, rest) {
			if (rest ~ /^ [A-Z][A-Z_]*([ ]|$)/ || rest ~ /^ [a-z|]+\|[a-z|]+/)
				printf "%s: --%s takes its value with \"=\" (--%s=VALUE), not a blank\n", prog, long, long
			else if ((long in val) && val[long] == 1 && rest !~ /^=/)
				printf "%s: --%s takes a value in spaa(7) (--%s=VALUE)\n", prog, long, long
			else if ((long in val) && val[long] == 0 && rest ~ /^\[?=/)
				printf "%s: --%s takes no value in spaa(7)\n", prog, long
		}'
	printf '%s\n' "$help" | grep -q '^  -h, --help ' || echo "$prog: no '-h, --help' line"
	printf '%s\n' "$help" | grep -q '^  -V, --version ' || echo "$prog: no '-V, --version' line"
}

@test "every command's --help follows the option list of spaa(7)" {
	local c out=
	for c in $(commands); do
		out=$out$(check_help "$c")
		out=${out:+$out$'\n'}
	done
	[ -z "$out" ] || { printf '%s' "$out"; false; }
}

# The naming options of common/analysis/fold.h come as a set: a command that names
# frames as spaa-fold does lists all of them, so that a frame has one name in
# every command.
@test "every command with the naming options lists all of them" {
	local c help o out=
	for c in $(commands); do
		help=$("$c" --help) || { out="$out$c: --help failed"$'\n'; continue; }
		printf '%s\n' "$help" | grep -q -e '--inline\[=MODE\]' || continue
		for o in raw kernel jit all addrs demangle; do
			printf '%s\n' "$help" | grep -q -e "^      --$o " || out="$out$c: no --$o in --help"$'\n'
		done
	done
	[ -z "$out" ] || { printf '%s' "$out"; false; }
}

# ---- the checker itself, on made-up help texts ---------------------------

fake() { # fake NAME HELP-TEXT: a command printing HELP-TEXT for --help
	mkdir -p "$T/bin"
	printf '%s\n' "$2" > "$T/bin/$1.help"
	printf '#!/bin/sh\ncat "%s"\n' "$T/bin/$1.help" > "$T/bin/$1"
	chmod +x "$T/bin/$1"
}

@test "checker: a help text that follows the list passes" {
	fake good "Usage: good [OPTION]... [FILE]...
Do things.

  -e, --regexp=PATTERN  a pattern
      --event=NAME      the event
  -n, --lines=N         rows
      --normalize       scale
      --inline[=MODE]   inlined frames
  -h, --help            help
  -V, --version         version

Exit status: 0 ok, 1 bad input or write error, 2 usage error."
	PATH=$T/bin:$PATH run check_help good
	assert_output ''
}

@test "checker: wrong letters, long-only options with letters, blanks before values, usage and exit lines are found" {
	fake bad "Usage: bad [OPTIONS] [FILE]
  -e, --event=NAME   the event
  -m, --merge        merge
  -p, --exclude-pauses  pauses
  -n N               rows
      --output=FILE  out
  -m, --metric NAME  metric
  --json             json
  -h, --help         help
Exit status: 0 success, 1 bad input or write error, 2 usage error."
	PATH=$T/bin:$PATH run check_help bad
	assert_output "bad: first line is 'Usage: bad [OPTIONS] [FILE]', not 'Usage: bad [OPTION]... [FILE]...' or '... [FILE]'
bad: last line is 'Exit status: 0 success, 1 bad input or write error, 2 usage error.', not 'Exit status: 0 ok, 1 bad input or write error, 2 usage error.'
bad: -e is --event here but --regexp in spaa(7)
bad: -m is --merge here but --metric in spaa(7)
bad: -p (--exclude-pauses): the letter is not in spaa(7)
bad: option line is not \"  -x, --long\":   -n N               rows
bad: --output has no letter here but is -o, --output in spaa(7)
bad: --metric takes its value with \"=\" (--metric=VALUE), not a blank
bad: option line is not \"  -x, --long\" or \"      --long\":   --json             json
bad: no '-V, --version' line"
}

# ---- the end of every --help: one text (common/base/cli.h), one column ----------

HELP_OUTPUT='  -o, --output=FILE    write to FILE, replaced only when all went well,
                       instead of standard output'
HELP_ZSTD='  -z, --zstd           compress the output with zstd (so does a FILE
                       ending in .zst; one ending in .gz gets gzip)'
HELP_END="  -h, --help           display this help and exit
  -V, --version        output version information and exit

$EXIT_SENTENCE"

# check_tail PROG: one line per way its --help differs from the common end
# (CLI_HELP_TAIL, or CLI_HELP_OUTPUT CLI_HELP_END, or CLI_HELP_END) or puts
# an option's text elsewhere than column 24
check_tail() {
	local prog=$1 help tail
	help=$("$prog" --help) || { echo "$prog --help: exit $?"; return; }
	if printf '%s\n' "$help" | grep -q -e '^  -o, --output'; then
		tail=$(printf '%s\n' "$help" | sed -n '/^  -o, --output/,$p')
		[ "$tail" = "$HELP_OUTPUT"$'\n'"$HELP_ZSTD"$'\n'"$HELP_END" ] ||
			[ "$tail" = "$HELP_OUTPUT"$'\n'"$HELP_END" ] ||
			echo "$prog: --help does not end with CLI_HELP_TAIL (or CLI_HELP_OUTPUT CLI_HELP_END)"
	else
		tail=$(printf '%s\n' "$help" | sed -n '/^  -h, --help/,$p')
		[ "$tail" = "$HELP_END" ] || echo "$prog: --help does not end with CLI_HELP_END"
	fi
	printf '%s\n' "$help" | awk -v prog="$prog" '
		/^(  -[A-Za-z0-9]|      --[a-z0-9])/ {
			if (!match($0, /^  -[A-Za-z0-9], --[^ ]+/) && !match($0, /^      --[^ ]+/))
				match($0, /^  -[A-Za-z0-9]( [A-Z]+)?/)
			spec = RLENGTH; rest = substr($0, spec + 1)
			if (rest == "") next
			match(rest, /^ */)
			if (spec <= 21 ? spec + RLENGTH != 23 : RLENGTH != 2)
				printf "%s: the text of this option is not in column 24: %s\n", prog, $0
			next
		}
		/^       / {
			if (!match($0, /^ +/) || RLENGTH != 23)
				printf "%s: this line is not in column 24: %s\n", prog, $0
		}'
}

@test "every command's --help ends with the one text of common/base/cli.h, options in one column" {
	local c r out=
	for c in $(commands); do
		r=$(check_tail "$c")
		out=$out${r:+$r$'\n'}
	done
	[ -z "$out" ] || { printf '%s' "$out"; false; }
}

@test "checker: another wording of the end, another column" {
	fake other "Usage: other [OPTION]... [FILE]...
  -n, --lines=N      rows
                     more
      --kernel-and-more-words  long
  -o, --output=FILE  write to FILE
  -h, --help         help
  -V, --version      version

$EXIT_SENTENCE"
	PATH=$T/bin:$PATH run check_tail other
	assert_output "other: --help does not end with CLI_HELP_TAIL (or CLI_HELP_OUTPUT CLI_HELP_END)
other: the text of this option is not in column 24:   -n, --lines=N      rows
other: this line is not in column 24:                      more
other: the text of this option is not in column 24:   -o, --output=FILE  write to FILE
other: the text of this option is not in column 24:   -h, --help         help
other: the text of this option is not in column 24:   -V, --version      version"
}
