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

# ---- the options: man page, --help, getopt table and spaa(7) agree ---------
#
# For every command of spaa(7)'s lists, four lists of its options, one option a
# line as "LETTER LONG ARG" (LETTER "-" when long only, LONG "-" when the
# letter has no long name, ARG 0 none, 1 a value, 2 an optional value):
#   binary  the table the binary hands to getopt_long (tests/optdump.c,
#           preloaded, prints it and exits before the command runs)
#   man     the .It heads of the OPTIONS section of its page, as mandoc
#           renders them ("-n, --lines=n", "--inline[=mode]")
#   help    the option lines of its --help ("  -n, --lines=N", "      --raw")
# and spaa(7)'s table (options.bats's table: letter, long name, value).
# Any difference fails with the command and the option named.  A new option
# has to be in the getopt table, the page and --help at once, with the letter
# and value spaa(7) gives it.

setup_file() {
	export OPTDUMP=$BATS_FILE_TMPDIR/optdump.so
	"${CC:-cc}" -shared -fPIC -o "$OPTDUMP" "$BATS_TEST_DIRNAME/optdump.c"
}

commands() {
	awk '/^\.Sh /{ d = ($0 ~ /^\.Sh DESCRIPTION/) } d && /^\.It Xr [^ ]+ 1$/ { print $3 }' "$SPAA_MANDIR/spaa.7"
}

opts_binary() {
	# (a sanitizer build wants its run-time first; the dump exits before any check)
	LD_PRELOAD=$OPTDUMP ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 "$1" </dev/null | sort -u
}

# The heads of the tagged list of OPTIONS, through mandoc -T man: ".TP" then
# the head with its font escapes.  One head may hold several options
# ("--raw, --kernel"); a letter and a long name in one head are one option.
opts_man() {
	"${MANDOC:-mandoc}" -T man "$SPAA_MANDIR/$1.1" | awk -v prog="$1" '
		/^\.SH/ { sec = ($0 ~ /^\.SH "?OPTIONS"?$/); next }
		!sec { next }
		/^\.TP/ { head = 1; next }
		!head { next }
		{
			head = 0; h = $0
			gsub(/\\f[BIRP]/, "", h); gsub(/\\-/, "-", h); gsub(/\\&/, "", h); gsub(/\\ /, " ", h)
			n = split(h, piece, /, /); short = ""; sarg = 0; nl = 0
			for (i = 1; i <= n; i++) {
				p = piece[i]
				if (match(p, /^-[A-Za-z0-9]( [^ ]+)?$/)) {
					short = substr(p, 2, 1); sarg = length(p) > 2
				} else if (match(p, /^--[a-z0-9][a-z0-9-]*/)) {
					l = substr(p, 3, RLENGTH - 2); rest = substr(p, RLENGTH + 1)
					a = rest == "" ? 0 : rest ~ /^\[=[^] ,]*\]$/ ? 2 : rest ~ /^=[^ ,]+$/ ? 1 : -1
					if (a < 0) { printf "BAD %s(1): \"%s\": a value is written --%s=VALUE or --%s[=VALUE]\n", prog, p, l, l; continue }
					longs[++nl] = l; arg[nl] = a
				} else
					printf "BAD %s(1): \"%s\" in \"%s\" is not an option\n", prog, p, h
			}
			if (nl == 0 && short != "") print short, "-", sarg
			for (i = 1; i <= nl; i++) {
				if (short != "" && nl == 1) {
					if (sarg && !arg[i]) printf "BAD %s(1): -%s takes a value but --%s does not\n", prog, short, longs[i]
					print short, longs[i], arg[i]
				} else {
					if (short != "") printf "BAD %s(1): -%s in a head with several long options\n", prog, short
					print "-", longs[i], arg[i]
				}
			}
		}' | sort -u
}

# The options the SYNOPSIS names, one a line ("-x" per letter of "-Ei",
# "--long"), from the bold words that begin with a dash; a dash in an
# argument (an option swallowed by Op) is "BAD".
opts_synopsis() {
	"${MANDOC:-mandoc}" -T man "$SPAA_MANDIR/$1.1" | awk -v prog="$1" '
		/^\.SH/ { sec = ($0 ~ /^\.SH "?SYNOPSIS"?$/); next }
		!sec { next }
		{
			h = $0; gsub(/\\-/, "-", h)
			while (match(h, /\\f[BI]-[^\\]*\\fR/)) {
				w = substr(h, RSTART + 3, RLENGTH - 6); bold = substr(h, RSTART + 2, 1) == "B"
				h = substr(h, RSTART + RLENGTH)
				if (!bold) { printf "BAD %s(1): the SYNOPSIS has \"%s\" as an argument\n", prog, w; continue }
				if (w ~ /^--[a-z0-9]/) print w
				else if (w ~ /^-[A-Za-z0-9]+$/) for (i = 2; i <= length(w); i++) print "-" substr(w, i, 1)
				else printf "BAD %s(1): the SYNOPSIS has \"%s\"\n", prog, w
			}
		}' | sort -u
}

opts_help() {
	"$1" --help | awk '
		/^  -[A-Za-z0-9], --[a-z0-9]/ {
			match($0, /^  -., --[a-z0-9][a-z0-9-]*/)
			r = substr($0, RLENGTH + 1)
			print substr($0, 4, 1), substr($0, 9, RLENGTH - 8), (r ~ /^\[=/ ? 2 : r ~ /^=/ ? 1 : 0)
			next
		}
		/^  -[A-Za-z0-9]( |$)/ { print substr($0, 4, 1), "-", ($0 ~ /^  -. [A-Z]/ ? 1 : 0); next }
		/^      --[a-z0-9]/ {
			match($0, /^      --[a-z0-9][a-z0-9-]*/)
			r = substr($0, RLENGTH + 1)
			print "-", substr($0, 9, RLENGTH - 8), (r ~ /^\[=/ ? 2 : r ~ /^=/ ? 1 : 0)
		}' | sort -u
}

# spaa(7)'s table (common.bash): "LETTER LONG VALUE" (VALUE 0 or 1)
opts_spaa7() { spaa7_option_table; }

# check_synopsis CMD BINARY SYNOPSIS: one line per option of the SYNOPSIS
# that the binary does not take.
check_synopsis() {
	awk -v prog="$1" '
		FILENAME == ARGV[1] { if ($1 != "-") ok["-" $1] = 1; if ($2 != "-") ok["--" $2] = 1; next }
		/^BAD / { sub(/^BAD /, ""); print prog ": " $0; next }
		!($1 in ok) { printf "%s: %s is in the SYNOPSIS of %s(1) but the binary does not accept it\n", prog, $1, prog }' "$2" "$3"
}

# check_options CMD BINARY MAN HELP SPAA7 (the four lists as files): one line
# per disagreement.
check_options() {
	awk -v prog="$1" '
		function key(l, s) { return l != "-" ? "--" l : "-" s }
		function what(a) { return a == 0 ? "no value" : a == 1 ? "a value" : "an optional value" }
		function letter(s) { return s == "-" ? "no letter" : "-" s }
		FILENAME == ARGV[1] { src = "bin" }
		FILENAME == ARGV[2] { src = "man" }
		FILENAME == ARGV[3] { src = "help" }
		FILENAME == ARGV[4] {
			if ($1 != "-") { t_long[$1] = $2 } ; t_short[$2] = $1; t_val[$2] = $3; next
		}
		/^BAD / { sub(/^BAD /, ""); print prog ": " $0; next }
		{ k = key($2, $1); s[src, k] = $1; a[src, k] = $3; has[src, k] = 1; keys[k] = 1 }
		END {
			name["man"] = prog "(1)"; name["help"] = "--help"
			n = 0; for (k in keys) order[++n] = k
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (order[j] < order[i]) { t = order[i]; order[i] = order[j]; order[j] = t }
			for (i = 1; i <= n; i++) {
				k = order[i]
				for (d = 1; d <= 2; d++) {
					doc = d == 1 ? "man" : "help"
					if (has["bin", k] && !has[doc, k]) printf "%s: %s is accepted but %s does not document it\n", prog, k, name[doc]
					else if (!has["bin", k] && has[doc, k]) printf "%s: %s is in %s but the binary does not accept it\n", prog, k, name[doc]
					else if (has["bin", k]) {
						if (s["bin", k] != s[doc, k]) printf "%s: %s has %s in the binary but %s in %s\n", prog, k, letter(s["bin", k]), letter(s[doc, k]), name[doc]
						if (a["bin", k] != a[doc, k]) printf "%s: %s takes %s in the binary but %s in %s\n", prog, k, what(a["bin", k]), what(a[doc, k]), name[doc]
					}
				}
				if (!has["bin", k]) continue
				l = substr(k, 1, 2) == "--" ? substr(k, 3) : "-"; sh = s["bin", k]
				if (sh != "-" && !(sh in t_long)) printf "%s: %s: the letter -%s is not in spaa(7)\n", prog, k, sh
				else if (sh != "-" && t_long[sh] != l) printf "%s: -%s is %s here but --%s in spaa(7)\n", prog, sh, k, t_long[sh]
				else if (l != "-" && (l in t_short) && t_short[l] != sh) printf "%s: %s has %s here but %s in spaa(7)\n", prog, k, letter(sh), letter(t_short[l])
				else if (l != "-" && (l in t_val) && t_val[l] != (a["bin", k] > 0)) printf "%s: %s takes %s here but %s in spaa(7)\n", prog, k, what(a["bin", k]), what(t_val[l])
			}
		}' "$2" "$3" "$4" "$5"
}

@test "the option dump reads a command's getopt table" {
	run opts_binary spaa-top
	assert_success
	assert_line 'n lines 1'
	assert_line '- inline 2'
	assert_line 'E regex 0'
	assert_line 'h help 0'
}

@test "every command's options agree in its getopt table, man page (OPTIONS and SYNOPSIS), --help and spaa(7)" {
	command -v "${MANDOC:-mandoc}" >/dev/null || skip "mandoc not installed"
	local c out= n=0
	opts_spaa7 > "$T/spaa7"
	for c in $(commands); do
		opts_binary "$c" > "$T/bin" || { out="$out$c: no getopt table"$'\n'; continue; }
		[ -s "$T/bin" ] || { out="$out$c: no getopt table"$'\n'; continue; }
		opts_man "$c" > "$T/man"
		opts_help "$c" > "$T/help"
		opts_synopsis "$c" > "$T/syn"
		r=$(check_options "$c" "$T/bin" "$T/man" "$T/help" "$T/spaa7"; check_synopsis "$c" "$T/bin" "$T/syn")
		out=$out${r:+$r$'\n'}
		n=$((n + 1))
	done
	[ "$n" -ge 23 ] || fail "only $n commands checked"
	[ -z "$out" ] || { printf '%s' "$out"; false; }
}

@test "checker: the man page, --help and spaa(7) differences are found" {
	printf '%s\n' 'n lines 1' '- inline 2' 'j json 0' '- event 1' 'o output 1' '- raw 0' | sort > "$T/bin"
	printf '%s\n' 'n lines 0' '- inline 2' 'e event 1' 'o output 1' '- normalize 0' 'BAD x(1): "--by func": a value is written --by=VALUE or --by[=VALUE]' > "$T/man"
	printf '%s\n' 'n lines 1' '- inline 0' 'j json 0' '- event 1' 'o output 1' '- raw 0' > "$T/help"
	printf '%s\n' 'n lines 1' 'j json 0' '- event 1' 'o output 1' 'e regexp 1' > "$T/spaa7"
	run check_options x "$T/bin" "$T/man" "$T/help" "$T/spaa7"
	assert_output 'x: x(1): "--by func": a value is written --by=VALUE or --by[=VALUE]
x: --event has no letter in the binary but -e in x(1)
x: --inline takes an optional value in the binary but no value in --help
x: --json is accepted but x(1) does not document it
x: --lines takes a value in the binary but no value in x(1)
x: --normalize is in x(1) but the binary does not accept it
x: --raw is accepted but x(1) does not document it'
}

@test "checker: a man page head is read as mandoc renders it" {
	command -v "${MANDOC:-mandoc}" >/dev/null || skip "mandoc not installed"
	mkdir -p "$T/man"
	cat > "$T/man/x.1" <<'PAGE'
.Dd November 26, 2026
.Dt X 1
.Os
.Sh NAME
.Nm x
.Nd a test
.Sh OPTIONS
.Bl -tag -width Ds
.It Fl n , Fl \-lines Ns = Ns Ar n
rows
.It Fl \-raw , Fl \-inline Ns Op = Ns Ar mode , Fl \-demangle
names
.It Fl o Ar file , Fl \-output Ns = Ns Ar file
out
.It Fl \-by Cm func | dso
key
.El
PAGE
	SPAA_MANDIR=$T/man run opts_man x
	assert_output '- raw 0
BAD x(1): "--by func | dso": a value is written --by=VALUE or --by[=VALUE]
BAD x(1): "--demangle]": a value is written --demangle=VALUE or --demangle[=VALUE]
BAD x(1): "--inline[=mode": a value is written --inline=VALUE or --inline[=VALUE]
n lines 1
o output 1'
}

@test "checker: the SYNOPSIS names options the binary takes" {
	command -v "${MANDOC:-mandoc}" >/dev/null || skip "mandoc not installed"
	mkdir -p "$T/man"
	cat > "$T/man/x.1" <<'PAGE'
.Dd November 26, 2026
.Dt X 1
.Os
.Sh NAME
.Nm x
.Nd a test
.Sh SYNOPSIS
.Nm
.Op Fl Ej
.Op Fl n Ar N
.Op Fl \-raw | Fl \-inline Ns Op = Ns Ar mode | \-demangle
.Op Ar file
.Sh DESCRIPTION
Nothing.
PAGE
	SPAA_MANDIR=$T/man run opts_synopsis x
	assert_output -- '--inline
--raw
-E
-j
-n
BAD x(1): the SYNOPSIS has "-demangle" as an argument'
	printf '%s\n' 'n lines 1' '- raw 0' '- inline 2' 'j json 0' > "$T/bin"
	SPAA_MANDIR=$T/man opts_synopsis x > "$T/syn"
	SPAA_MANDIR=$T/man run check_synopsis x "$T/bin" "$T/syn"
	assert_output 'x: -E is in the SYNOPSIS of x(1) but the binary does not accept it
x: x(1): the SYNOPSIS has "-demangle" as an argument'
}

# The items of -z, -h and -V say the same in every page, as the end of every
# --help does (common/base/cli.h): "LETTER|head|body lines joined by |".
@test "every page describes -z, -h and -V in the one wording" {
	local p r out= want_z want_h want_V
	want_z='.It Fl z , Fl \-zstd|Compress the output with zstd|.Po|so does a|.Ar file|ending in|.Pa .zst ;|one ending in|.Pa .gz|gets gzip|.Pc .'
	want_h='.It Fl h , Fl \-help|Print the usage and exit.'
	want_V='.It Fl V , Fl \-version|Print the version and exit.'
	for p in "$SPAA_MANDIR"/*.1; do
		r=$(awk -v page="${p##*/}" -v z="$want_z" -v h="$want_h" -v V="$want_V" '
			function done() { if (cur != "" && item != want[cur]) printf "%s: the -%s item is \"%s\", not \"%s\"\n", page, cur, item, want[cur]; cur = "" }
			BEGIN { want["z"] = z; want["h"] = h; want["V"] = V }
			/^\.Sh / { done(); sec = ($0 ~ /^\.Sh OPTIONS/); next }
			!sec { next }
			/^\.(It|El)/ { done() }
			/^\.It Fl [zhV]( |$)/ { cur = $3; seen[cur] = 1; item = $0; next }
			cur != "" { item = item "|" $0 }
			END { done(); if (!seen["h"] || !seen["V"]) printf "%s: no -h or -V item\n", page }' "$p")
		out=$out${r:+$r$'\n'}
	done
	[ -z "$out" ] || { printf '%s' "$out"; false; }
}

@test "README's build-only set: every package configure.ac asks for, each in .ci/deps too, each known to apt (issue 30)" {
	local top=$SPAA_MANDIR/.. p min need full
	min=$(sed -n 's/^apt-get install \(build-essential .*\)$/\1/p' "$top/README.md")
	assert_equal "$min" "build-essential autoconf automake pkg-config libzstd-dev zlib1g-dev libiberty-dev libdw-dev libelf-dev"
	# configure.ac's error messages name the Debian packages it needs
	need=$(grep -o 'apt-get install [a-z0-9 .+-]*[a-z0-9]' "$top/configure.ac" | sed 's/^apt-get install //' | tr ' ' '\n' | sort -u)
	[ -n "$need" ]
	for p in $need; do
		case " $min " in *" $p "*) ;; *) fail "configure.ac asks for $p, not in README's build-only set" ;; esac
	done
	full=$(sed -n 's/^PKGS="\(\$PKGS \)\{0,1\}\(.*\)"$/\2/p' "$top/.ci/deps" | tr '\n' ' ')
	for p in $min; do
		case " $full " in *" $p "*) ;; *) fail "$p is in README's build-only set, not in .ci/deps" ;; esac
	done
	command -v dpkg-query >/dev/null && command -v apt-cache >/dev/null || skip "not a Debian system"
	for p in $min; do
		dpkg-query -W "$p" >/dev/null 2>&1 || [ -n "$(apt-cache show "$p" 2>/dev/null)" ] || fail "apt does not know $p"
	done
}
