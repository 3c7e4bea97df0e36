#!/usr/bin/env bats
# Every example in README.md, examples/README.md and the EXAMPLES section of
# every man page runs as written on the bundled examples and succeeds
# quietly.  The examples are read from the pages themselves:
#  - README.md and examples/README.md: every ```sh fenced block;
#  - man pages: every .Bd -literal block and every .Dl line inside .Sh
#    EXAMPLES (roff escapes and mdoc quoting undone as mandoc shows them).
# The blocks of one page run in order, each with `sh -e`, in one scratch
# directory holding a copy of examples/ and a link cmd -> the build's cmd/
# (so that `./cmd/x` and `PATH=$PWD/cmd:$PATH` work as from the top of a
# build), with the build's cmd/ first on PATH, then stubs of perf, dtrace,
# flamegraph.pl, heaptrack, profilecli and parca-push.  A block must exit 0 with nothing on standard error, except
# a line followed by the comment `# fails: exit N` (at its end, or alone on
# the next line), which must exit N.  Lines starting with "$ " are not run
# (a block made only of such lines is an error: write commands plainly).
load common

CMDDIR=${SPAA_CMDDIR:-$BATS_TEST_DIRNAME/../cmd}
TOPDIR=$SPAA_EXAMPLES/..

setup_file() {
	local s=$BATS_FILE_TMPDIR/stubs
	mkdir -p "$s"
	# perf: `perf record` writes the bundled small.perf.data (to -o FILE, or
	# perf.data), `perf script` prints the bundled text
	cat > "$s/perf" <<-EOF
	#!/bin/sh
	case \$1 in
	record)
		out=perf.data
		while [ \$# -gt 0 ]; do case \$1 in -o) out=\$2; shift ;; --) break ;; esac; shift; done
		exec cp '$SPAA_EXAMPLES/small.perf.data' "\$out" ;;
	script) exec cat '$SPAA_EXAMPLES/parser.perf.txt' ;;
	*) echo "perf (test stub): \$1: not supported" >&2; exit 2 ;;
	esac
	EOF
	# dtrace: prints the bundled aggregation, to -o FILE if given
	cat > "$s/dtrace" <<-EOF
	#!/bin/sh
	out=
	while [ \$# -gt 0 ]; do
		case \$1 in
		-o) out=\$2; shift ;;
		-o*) out=\${1#-o} ;;
		esac
		shift
	done
	if [ -n "\$out" ]; then
		exec cat '$SPAA_EXAMPLES/dtrace-stacks.txt' > "\$out"
	fi
	exec cat '$SPAA_EXAMPLES/dtrace-stacks.txt'
	EOF
	# flamegraph.pl: the input must be folded stacks ("stack COUNT", or the
	# differential "stack COUNT COUNT"), at least one line; writes an SVG
	cat > "$s/flamegraph.pl" <<-'EOF'
	#!/bin/sh
	files=
	while [ $# -gt 0 ]; do
		case $1 in
		--title|--subtitle|--width|--height|--minwidth|--fonttype|--fontsize|\
		--fontwidth|--countname|--nametype|--colors|--bgcolors|--total|\
		--factor|--encoding|--notes|--frameheight|--palfile)
			shift ;;
		-*) ;;
		*) files="$files $1" ;;
		esac
		shift
	done
	cat $files | awk '
		/^$/ { next }
		!/^[^ ].* -?[0-9]+(\.[0-9]+)?( -?[0-9]+(\.[0-9]+)?)?$/ {
			printf "flamegraph.pl (test stub): line %d is not folded: %s\n", NR, $0 > "/dev/stderr"
			bad = 1; exit 2
		}
		{ n++ }
		END {
			if (bad) exit 2
			if (!n) { print "flamegraph.pl (test stub): no stacks in the input" > "/dev/stderr"; exit 2 }
			printf "<?xml version=\"1.0\" standalone=\"no\"?>\n"
			printf "<svg xmlns=\"http://www.w3.org/2000/svg\"><!-- %d stacks --></svg>\n", n
		}'
	EOF
	# heaptrack: `heaptrack -o NAME PROGRAM` writes the bundled recording to
	# NAME.zst
	cat > "$s/heaptrack" <<-EOF
	#!/bin/sh
	[ "\$1" = -o ] || { echo "heaptrack (test stub): only -o NAME PROGRAM" >&2; exit 2; }
	exec cp '$SPAA_EXAMPLES/heap.heaptrack.zst' "\$2.zst"
	EOF
	# profilecli upload (Grafana Pyroscope) and parca-push: the FILE (the
	# argument that is not an option) must be a gzip pprof profile
	cat > "$s/profilecli" <<-'EOF'
	#!/bin/sh
	[ "$(basename "$0")" = parca-push ] || [ "$1" = upload ] ||
		{ echo "profilecli (test stub): only upload" >&2; exit 2; }
	for a; do case $a in --*|upload) ;; *) f=$a ;; esac; done
	gzip -t "$f" 2>/dev/null || { echo "$0 (test stub): $f is not gzip" >&2; exit 1; }
	[ "$(gzip -dc "$f" | head -c 1 | od -An -tx1 | tr -d ' ')" = 0a ] ||
		{ echo "$0 (test stub): $f is not a pprof profile" >&2; exit 1; }
	EOF
	cp "$s/profilecli" "$s/parca-push"
	chmod +x "$s/perf" "$s/dtrace" "$s/flamegraph.pl" "$s/heaptrack" "$s/profilecli" "$s/parca-push"
	# bpftrace: prints the bundled capture (the uprobe script's for a script
	# with "uprobe", else the profile's), to -o FILE if given
	cat > "$s/bpftrace" <<-EOF
	#!/bin/sh
	out= prog=
	while [ \$# -gt 0 ]; do
		case \$1 in
		-o) out=\$2; shift ;;
		-e) prog=\$2; shift ;;
		esac
		shift
	done
	f='$SPAA_EXAMPLES/bpftrace-stacks.txt'
	case \$prog in *uprobe*) f='$SPAA_EXAMPLES/bpftrace-write.txt' ;; esac
	if [ -n "\$out" ]; then
		exec cat "\$f" > "\$out"
	fi
	exec cat "\$f"
	EOF
	chmod +x "$s/bpftrace"
}

# The ```sh blocks of a markdown file, each written to DIR/NNN.sh.
md_blocks() { # md_blocks FILE DIR
	mkdir -p "$2"
	awk -v dir="$2" '
		!inb && /^[ \t]*```sh[ \t]*$/ {
			inb = 1; n++; f = sprintf("%s/%03d.sh", dir, n)
			match($0, /^[ \t]*/); ind = RLENGTH; printf "" > f; next
		}
		inb && /^[ \t]*```[ \t]*$/ { inb = 0; close(f); next }
		inb {
			s = $0
			for (k = 0; k < ind && substr(s, 1, 1) ~ /[ \t]/; k++) s = substr(s, 2)
			print s > f
		}
	' "$1"
}

# The examples of a man page's EXAMPLES section, each .Bd -literal block and
# each .Dl line written to DIR/NNN.sh as mandoc shows them.  An escape this
# does not know is an error (so that it never runs something else than what
# the reader sees).
man_blocks() { # man_blocks FILE DIR
	mkdir -p "$2"
	awk -v dir="$2" -v page="$1" '
		function named(nm) {
			if (nm == "aq") return "\047"
			if (nm == "dq") return "\""
			if (nm == "ga") return "`"
			if (nm == "ti") return "~"
			if (nm == "ha") return "^"
			if (nm == "rs") return "\\"
			if (nm == "lq" || nm == "rq") return "\""
			bad("unknown roff character \\(" nm)
			return ""
		}
		function bad(m) {
			printf "%s:%d: %s\n", page, NR, m > "/dev/stderr"; err = 1
		}
		function unroff(s,    out, i, n, c, j, nm) {
			out = ""; n = length(s)
			for (i = 1; i <= n; i++) {
				c = substr(s, i, 1)
				if (c != "\\") { out = out c; continue }
				c = substr(s, ++i, 1)
				if (c == "-" || c == "." || c == "\\") out = out (c == "\\" ? "\\" : c)
				else if (c == "e") out = out "\\"
				else if (c == "&" || c == "|" || c == "^" || c == ")") ;
				else if (c == " " || c == "~") out = out " "
				else if (c == "(") { out = out named(substr(s, i + 1, 2)); i += 2 }
				else if (c == "[") {
					j = index(substr(s, i + 1), "]")
					out = out named(substr(s, i + 1, j - 1)); i += j
				}
				else if (c == "\"") break
				else bad("unknown roff escape \\" c)
			}
			return out
		}
		# mdoc macro-line arguments: blank-separated, "..." quoted
		# ("" inside is one quote), joined by one blank
		function dl(s,    out, i, n, c, w, q) {
			out = ""; n = length(s); i = 1
			while (i <= n) {
				while (i <= n && (substr(s, i, 1) == " " || substr(s, i, 1) == "\t")) i++
				if (i > n) break
				w = ""
				if (substr(s, i, 1) == "\"") {
					for (i++; i <= n; i++) {
						c = substr(s, i, 1)
						if (c == "\"") {
							if (substr(s, i + 1, 1) == "\"") { w = w c; i++; continue }
							i++; break
						}
						w = w c
					}
				} else {
					for (; i <= n; i++) {
						c = substr(s, i, 1)
						if (c == " " || c == "\t") break
						if (c == "\\") { w = w c; c = substr(s, ++i, 1) }
						w = w c
					}
					if (w ~ /^(Ar|Fl|Cm|Pa|Ql|No|Ns|Li|Sy|Em|Ev|Ic|Dq|Sq|Pq|Qq|Op|Xr|Fn|Va|Dv|Nm)$/)
						bad("macro " w " in .Dl: write the command plainly")
				}
				out = out (out == "" ? "" : " ") unroff(w)
			}
			return out
		}
		function open() { n++; f = sprintf("%s/%03d.sh", dir, n); printf "" > f }
		/^\.Sh / { ex = ($0 ~ /^\.Sh EXAMPLES[ \t]*$/); next }
		!ex { next }
		inb && /^\.Ed/ { inb = 0; close(f); next }
		inb && /^[.\047]/ { next }
		inb { print unroff($0) > f; next }
		/^\.Bd[ \t].*-literal/ { inb = 1; open(); next }
		/^\.Dl[ \t]/ { open(); print dl(substr($0, 4)) > f; close(f); next }
		END { exit err }
	' "$1"
}

# A block as the script that runs it: "$ " lines dropped, a line marked
# `# fails: exit N` run in an if that checks its exit status.
wrap_block() { # wrap_block BLOCK > SCRIPT
	awk '
		function mark(s) {
			if (match(s, /(^|[ \t])#[ \t]*fails:[ \t]*exit[ \t]+[0-9]+[ \t]*$/)) {
				t = substr(s, RSTART, RLENGTH); gsub(/[^0-9]/, "", t); return t
			}
			return ""
		}
		{ line[NR] = $0 }
		END {
			for (i = 1; i <= NR; i++) {
				s = line[i]; want[i] = ""
				if (s ~ /^\$ /) { skip[i] = 1; nskip++; continue }
				if (s !~ /^[ \t]*(#|$)/) nrun++
				m = mark(s)
				if (m != "" && s ~ /^[ \t]*#/) { if (i > 1) want[i - 1] = m; continue }
				if (m != "") want[i] = m
			}
			if (nskip && !nrun) {
				print "echo \"nothing to run: lines starting with \047$ \047 are not run (write commands plainly)\" >&2; exit 98"
				exit
			}
			for (i = 1; i <= NR; i++) {
				if (skip[i]) { print ""; continue }
				if (want[i] == "") { print line[i]; continue }
				printf "if { %s\n} 2>>\"$EXPECTED_ERR\"; then echo \"line %d: exit 0, expected exit %s\" >&2; exit 99; else rc=$?; [ $rc -eq %s ] || { echo \"line %d: exit $rc, expected exit %s\" >&2; exit 99; }; fi\n", line[i], i, want[i], want[i], i, want[i]
			}
		}' "$1"
}

# Run every block of a page; print what went wrong (block, its text, exit
# status, standard error) and fail when one did.
run_page() { # run_page md|man FILE
	local kind=$1 page=$2 blocks=$T/blocks run=$T/run b rc fails=0
	[ -f "$page" ] || fail "no page $page"
	rm -rf "$blocks" "$run" && mkdir -p "$run"
	cp -R "$SPAA_EXAMPLES" "$run/examples"
	chmod -R u+w "$run/examples"	# read-only in make distcheck
	ln -s "$(cd "$CMDDIR" && pwd)" "$run/cmd"
	"${kind}_blocks" "$page" "$blocks" || fail "$page: cannot read its examples"
	[ -n "$(ls "$blocks")" ] || fail "$page: no examples found"
	for b in "$blocks"/*.sh; do
		wrap_block "$b" > "$b.run"
		rc=0
		(cd "$run" && EXPECTED_ERR=$T/expected.err \
			PATH="$CMDDIR:$BATS_FILE_TMPDIR/stubs:$PATH" sh -e "$b.run") \
			> "$T/out" 2> "$T/err" || rc=$?
		if [ "$rc" -ne 0 ] || [ -s "$T/err" ]; then
			fails=$((fails + 1))
			printf '%s, example %s (exit %d):\n' "$page" "$(basename "$b" .sh)" "$rc"
			sed 's/^/    | /' "$b"
			sed 's/^/    stderr: /' "$T/err"
		fi
	done
	[ "$fails" -eq 0 ]
}

@test "README.md: every sh block runs" {
	run_page md "$TOPDIR/README.md"
}

@test "examples/README.md: every sh block runs" {
	run_page md "$SPAA_EXAMPLES/README.md"
}

@test "spaa(7): every example runs" { run_page man "$SPAA_MANDIR/spaa.7"; }
@test "spaa(5): every example runs" { run_page man "$SPAA_MANDIR/spaa.5"; }
@test "perf2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/perf2spaa.1"; }
@test "dtrace2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/dtrace2spaa.1"; }
@test "bpftrace2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/bpftrace2spaa.1"; }
@test "spall2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/spall2spaa.1"; }
@test "spx2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/spx2spaa.1"; }
@test "afperf2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/afperf2spaa.1"; }
@test "folded2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/folded2spaa.1"; }
@test "pprof2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/pprof2spaa.1"; }
@test "spaa2pprof(1): every example runs" { run_page man "$SPAA_MANDIR/spaa2pprof.1"; }
@test "heaptrack2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/heaptrack2spaa.1"; }
@test "chrome2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/chrome2spaa.1"; }
@test "spaa-heapdiff(1): every example runs" { run_page man "$SPAA_MANDIR/spaa-heapdiff.1"; }
@test "spaa-cat(1): every example runs" { run_page man "$SPAA_MANDIR/spaa-cat.1"; }
@test "spaa-validate(1): every example runs" { run_page man "$SPAA_MANDIR/spaa-validate.1"; }
@test "spaa-grep(1): every example runs" { run_page man "$SPAA_MANDIR/spaa-grep.1"; }
@test "spaa-window(1): every example runs" { run_page man "$SPAA_MANDIR/spaa-window.1"; }
@test "spaa-diff(1): every example runs" { run_page man "$SPAA_MANDIR/spaa-diff.1"; }
@test "spaa-top(1): every example runs" { run_page man "$SPAA_MANDIR/spaa-top.1"; }
@test "spaa-stat(1): every example runs" { run_page man "$SPAA_MANDIR/spaa-stat.1"; }
@test "spaa-fold(1): every example runs" { run_page man "$SPAA_MANDIR/spaa-fold.1"; }
@test "spaa-symbolize(1): every example runs" { run_page man "$SPAA_MANDIR/spaa-symbolize.1"; }
@test "spaa-demangle(1): every example runs" { run_page man "$SPAA_MANDIR/spaa-demangle.1"; }
@test "spaa-flamegraph(1): every example runs" { run_page man "$SPAA_MANDIR/spaa-flamegraph.1"; }
@test "valgrind2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/valgrind2spaa.1"; }
@test "stackprof2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/stackprof2spaa.1"; }
@test "speedscope2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/speedscope2spaa.1"; }
@test "spaa2speedscope(1): every example runs" { run_page man "$SPAA_MANDIR/spaa2speedscope.1"; }
@test "any2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/any2spaa.1"; }
@test "ghcprof2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/ghcprof2spaa.1"; }
@test "safari2spaa(1): every example runs" { run_page man "$SPAA_MANDIR/safari2spaa.1"; }

# A page added later runs here until it gets its own line above: no page's
# examples go untried.
@test "every man page not listed above: every example runs" {
	local p name fails=0
	for p in "$SPAA_MANDIR"/*.[157]; do
		name=$(basename "$p")
		name="${name%.*}($(echo "${p##*.}"))"
		grep -qF "@test \"$name: every example runs\"" "$BATS_TEST_FILENAME" && continue
		echo "$name: not listed above, run here"
		run_page man "$p" || fails=$((fails + 1))
	done
	[ "$fails" -eq 0 ]
}

@test "examples/parser.spaa is perf2spaa --samples of examples/parser.perf.txt" {
	perf2spaa --samples "$EX/parser.perf.txt" > "$T/parser.spaa"
	cmp "$T/parser.spaa" "$EX/parser.spaa"
}

@test "examples/README.md describes every bundled file, and only those" {
	local f
	for f in "$EX"/*; do
		f=$(basename "$f")
		[ "$f" = README.md ] && continue
		grep -qF "\`$f\`" "$EX/README.md" || fail "examples/README.md does not describe $f"
	done
	for f in $(grep -o '`[A-Za-z0-9_.-]*\.\(spaa\|txt\|json\|spall\|gz\|afperf\|folded\)`' "$EX/README.md" | tr -d '`' | sort -u); do
		[ -e "$EX/$f" ] || fail "examples/README.md names $f, which is not in examples/"
	done
}

# ---- the runner itself: it finds what it must find -----------------------

@test "runner: roff escapes and mdoc quoting are undone as mandoc shows them" {
	cat > "$T/x.1" <<-'EOF'
	.Sh DESCRIPTION
	.Dl not an example
	.Sh EXAMPLES
	.Bd -literal -offset indent
	spaa-grep \-\-invert\-match \-e '_\e[k\e]$' a.spaa
	jq 'select(.type == \&"stack\&")' \(aqx\(aq
	.Ed
	.Dl echo "two  words" \&"quoted\&"
	.Sh SEE ALSO
	EOF
	man_blocks "$T/x.1" "$T/b"
	assert_equal "$(ls "$T/b")" "$(printf '001.sh\n002.sh')"
	assert_file_eq "$T/b/001.sh" <<-'EOF'
	spaa-grep --invert-match -e '_\[k\]$' a.spaa
	jq 'select(.type == "stack")' 'x'
	EOF
	assert_file_eq "$T/b/002.sh" <<-'EOF'
	echo two  words "quoted"
	EOF
}

@test "runner: an unknown roff escape is an error" {
	printf '.Sh EXAMPLES\n.Dl echo \\*(Tm\n' > "$T/x.1"
	run man_blocks "$T/x.1" "$T/b"
	assert_failure
	assert_output --partial 'unknown roff escape \*'
}

@test "runner: markdown sh blocks only, indentation of the fence removed" {
	cat > "$T/x.md" <<-'EOF'
	```console
	not run
	```
	1. step:

	   ```sh
	   echo one
	     echo two
	   ```
	```sh
	echo three
	```
	EOF
	md_blocks "$T/x.md" "$T/b"
	assert_file_eq "$T/b/001.sh" <<-'EOF'
	echo one
	  echo two
	EOF
	assert_file_eq "$T/b/002.sh" <<< 'echo three'
	[ ! -e "$T/b/003.sh" ]
}

@test "runner: a failing line, a warning and a wrong '# fails' are reported; a right one passes" {
	printf '```sh\nspaa-fold nofile.spaa\n```\n' > "$T/a.md"
	run run_page md "$T/a.md"
	assert_failure
	assert_output --partial 'example 001 (exit 1)'
	printf '```sh\necho warning >&2\n```\n' > "$T/b.md"
	run run_page md "$T/b.md"
	assert_failure
	assert_output --partial 'stderr: warning'
	printf '```sh\nspaa-fold nofile.spaa   # fails: exit 2\n```\n' > "$T/c.md"
	run run_page md "$T/c.md"
	assert_failure
	assert_output --partial 'line 1: exit 1, expected exit 2'
	printf '```sh\ntrue\n# fails: exit 1\n```\n' > "$T/d.md"
	run run_page md "$T/d.md"
	assert_failure
	assert_output --partial 'line 1: exit 0, expected exit 1'
	printf '```sh\n$ echo not run\n```\n' > "$T/f.md"
	run run_page md "$T/f.md"
	assert_failure
	assert_output --partial "nothing to run: lines starting with '\$ ' are not run"
	printf '```sh\nspaa-fold nofile.spaa   # fails: exit 1\n$ not run\nperf script | perf2spaa | spaa-fold | flamegraph.pl > x.svg\ngrep -q "<svg" x.svg\n```\n' > "$T/e.md"
	run run_page md "$T/e.md"
	assert_success
	assert_output ''
}
