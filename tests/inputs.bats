#!/usr/bin/env bats
# How the input arrives: every converter, any2spaa and every SPAA filter
# give the same output, byte for byte, and the same status from a file and
# from standard input (a pipe, and redirected from the file), /dev/stdin
# (a pipe), <(...) and a named FIFO, on every bundled example.  A command
# that opened its input a second time met an empty pipe the second time,
# or waited forever on the FIFO (timeout makes that a failure).  An empty
# input and a directory are errors naming them, exit 1.
load common

# The messages name the input: FILE for its name in this way.
normalize() { # normalize NAME < TEXT
	if [ "$1" = - ]; then
		sed 's/^\([a-z0-9_-]*\): -\([: ]\)/\1: FILE\2/'
	else
		awk -v n="$1" '{ while ((i = index($0, n)) > 0) $0 = substr($0, 1, i - 1) "FILE" substr($0, i + length(n)); print }'
	fi
}

# CMD with ARGS, the token @ (alone, or ending an --option=@) replaced by
# the input's name NAME.
with_input() { # with_input NAME CMD [ARG]...
	local n=$1 a v=()
	shift
	for a in "$@"; do
		if [ "$a" = @ ] || [[ $a == --*=@ ]]; then v+=("${a%@}$n"); else v+=("$a"); fi
	done
	echo "$n" > "$T/name"
	timeout 60 "${v[@]}"
}

# Runs CMD ARGS on FILE given the way WAY: its stdout in $T/out.WAY (through
# the shell command NORM when set, which leaves out the input's name),
# stderr in $T/err.WAY (the input's name in it made FILE), status in
# $T/rc.WAY.  ARGS hold @ where the input goes; without
# one it goes last (standard input: no operand at all).
way() { # way WAY FILE CMD [ARG]...
	local w=$1 f=$2 rc=0
	shift 2
	local args=("$@")
	[[ " ${args[*]} " == *" @ "* || " ${args[*]} " == *"=@ "* ]] || args+=(@)
	local std=("${args[@]}")
	[ "${std[-1]}" = @ ] && [[ " $* " != *" @ "* ]] && unset 'std[-1]'
	case $w in
	file) with_input "$f" "${args[@]}" > "$T/out.$w" 2> "$T/err.$w" || rc=$? ;;
	pipe) cat "$f" | with_input - "${std[@]}" > "$T/out.$w" 2> "$T/err.$w" || rc=$? ;;
	redirect) with_input - "${std[@]}" < "$f" > "$T/out.$w" 2> "$T/err.$w" || rc=$? ;;
	devstdin) cat "$f" | with_input /dev/stdin "${args[@]}" > "$T/out.$w" 2> "$T/err.$w" || rc=$? ;;
	procsub) with_input <(cat "$f") "${args[@]}" > "$T/out.$w" 2> "$T/err.$w" || rc=$? ;;
	fifo)
		rm -f "$T/fifo"
		mkfifo "$T/fifo"
		# (bounded too: it waits while no reader opens the FIFO)
		timeout 70 sh -c 'exec cat "$1" > "$2"' sh "$f" "$T/fifo" 3>&- 2>/dev/null &
		with_input "$T/fifo" "${args[@]}" > "$T/out.$w" 2> "$T/err.$w" || rc=$?
		# a reader that never opened it: open it, so that the writer ends
		[ "$rc" -ne 124 ] || timeout 5 cat "$T/fifo" > /dev/null || true
		wait
		;;
	esac
	echo "$rc" > "$T/rc.$w"
	local name
	name=$(cat "$T/name")
	if [ -n "${NORM-}" ]; then
		sh -c "$NORM" < "$T/out.$w" > "$T/o" && mv "$T/o" "$T/out.$w"
	fi
	normalize "$name" < "$T/err.$w" > "$T/e" && mv "$T/e" "$T/err.$w"
}

# CMD ARGS on FILE in the six ways: the same output, messages and status as
# from the file itself; the status is STATUS (0 unless set).
ways() { # ways FILE CMD [ARG]...
	local f=$1 w
	way file "$@"
	[ "$(cat "$T/rc.file")" = "${STATUS:-0}" ] ||
		fail "$* (file): status $(cat "$T/rc.file"), not ${STATUS:-0}: $(head -3 "$T/err.file")"
	for w in pipe redirect devstdin procsub fifo; do
		way "$w" "$@"
		[ "$(cat "$T/rc.$w")" = "$(cat "$T/rc.file")" ] ||
			fail "${*:2} ($w of $f): status $(cat "$T/rc.$w"), not $(cat "$T/rc.file"): $(head -3 "$T/err.$w")"
		cmp -s "$T/out.file" "$T/out.$w" ||
			fail "${*:2} ($w of $f): not the output from the file: $(diff "$T/out.file" "$T/out.$w" | head -5)"
		cmp -s "$T/err.file" "$T/err.$w" ||
			fail "${*:2} ($w of $f): not the messages from the file: $(diff "$T/err.file" "$T/err.$w" | head -5)"
	done
}

# The converter of each bundled example (the options a few need) and the
# inputs of the converters with no bundled example.
converters() {
	cat <<-EOF
	perf2spaa $EX/parser.perf.txt
	perf2spaa $EX/parser2.perf.txt
	perf2spaa $EX/shapes.perf.txt
	perf2spaa $EX/small.perf.data
	dtrace2spaa $EX/dtrace-stacks.txt
	bpftrace2spaa $EX/bpftrace-stacks.txt
	bpftrace2spaa $EX/bpftrace-write.txt --map=@bytes -m bytes
	folded2spaa $EX/dd.folded
	folded2spaa $EX/kernel-addrs.folded --addrs
	folded2spaa $EX/jit-addrs.folded --addrs --pid=4242
	folded2spaa $EX/ebpf-addrs.folded --addrs --pid=1234
	spall2spaa $EX/small-trace.json
	spall2spaa $EX/small-trace.spall
	spx2spaa $EX/spx-small.txt.gz --metadata=$EX/spx-small.json
	afperf2spaa $EX/basic.afperf
	pprof2spaa $EX/go-cpu.pprof
	pprof2spaa $EX/go-heap.pprof
	pprof2spaa $EX/tcmalloc.heap
	heaptrack2spaa $EX/heap.heaptrack.zst
	valgrind2spaa $EX/massif.out
	valgrind2spaa $EX/dhat.out
	valgrind2spaa $EX/callgrind.out
	stackprof2spaa $EX/stackprof-cpu.json
	chrome2spaa $EX/chrome-trace.json.gz
	gecko2spaa $EX/firefox-recursion.json.gz
	instruments2spaa $EX/instruments-deep-copy.txt
	pmcstat2spaa $EX/pmcstat-callgraph.txt
	ghcprof2spaa $EX/ghc-binary-trees.prof
	safari2spaa $EX/safari-recording.json
	speedscope2spaa $D/speedscope/sampled-0.1.2.json
	speedscope2spaa $D/speedscope/evented-0.0.1.json
	v8log2spaa $D/v8log/speedscope-node-8.5.0.v8log.zst
	v8log2spaa $D/v8log/speedscope-simple.v8log.json.zst
	chrome2spaa $D/chrome/cpuprofile.json
	EOF
}

@test "every converter: the same output from a file, a pipe, standard input, /dev/stdin, <(...) and a FIFO" {
	local conv file opts
	while read -r conv file opts; do
		# shellcheck disable=SC2086
		ways "$file" "$conv" $opts
	done < <(converters)
}

@test "any2spaa: the same output from a file, a pipe, standard input, /dev/stdin, <(...) and a FIFO, on every example" {
	local conv file opts
	while read -r conv file opts; do
		case $file in *spx-small*) continue ;; esac
		# bpftrace-write.txt: its histogram is an error (the same one)
		STATUS=0
		[ "${file##*/}" = bpftrace-write.txt ] && STATUS=1
		ways "$file" any2spaa
	done < <(converters)
	for file in "$EX"/*.spaa; do
		ways "$file" any2spaa
	done
}

@test "any2spaa --format and -o FILE: the same output from every way; several inputs, one a FIFO" {
	ways "$EX/dd.folded" any2spaa --format=folded
	ways "$EX/firefox-recursion.json.gz" any2spaa --format=gecko
	ways "$EX/small.perf.data" any2spaa --format=perf-data
	ways "$EX/parser.perf.txt" any2spaa -o "$T/o.spaa"
	run any2spaa "$EX/parser.perf.txt"
	assert_success
	assert_output "$(cat "$T/o.spaa")"
	# several FILEs: each read once, in a child of its own
	any2spaa "$EX/dd.folded" "$EX/parser.perf.txt" > "$T/want"
	ways "$EX/parser.perf.txt" any2spaa "$EX/dd.folded" @
	cmp "$T/want" "$T/out.file"
	ways "$EX/dd.folded" any2spaa @ "$EX/parser.perf.txt"
	cmp "$T/want" "$T/out.file"
	# -o: nothing written when one of them is bad (here an empty pipe)
	run any2spaa -o "$T/both.spaa" "$EX/dd.folded" <(:)
	assert_failure 1
	assert_output --regexp '^any2spaa: /dev/fd/[0-9]+: empty input: no profile written$'
	[ ! -e "$T/both.spaa" ]
}

@test "an SPX report is two files: from a pipe, any2spaa says so; spx2spaa's --metadata from any way" {
	ways "$EX/spx-small.json" spx2spaa --metadata=@ "$EX/spx-small.txt.gz"
	cat "$EX/spx-small.txt.gz" | {
		run any2spaa -o "$T/spx.spaa"
		assert_failure 1
		assert_output "any2spaa: -: an SPX report read from a pipe: its events and its metadata are two files; name the .json or .txt.gz file, or run spx2spaa --metadata=FILE"
	}
	[ ! -e "$T/spx.spaa" ]
}

@test "perf2spaa: a file-mode perf.data from a FIFO that its writer closed at once converts, no wait; --kallsyms from any way" {
	# the writer is gone before perf2spaa looks at the file: an open of
	# the FIFO's path a second time waits for a writer that never comes
	# (most times: ten tries all passed one time in 10^4 before)
	local i
	perf2spaa "$EX/small.perf.data" > "$T/want"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		rm -f "$T/f"
		mkfifo "$T/f"
		timeout 20 sh -c 'exec cat "$1" > "$2"' sh "$EX/small.perf.data" "$T/f" 3>&- &
		run timeout 10 perf2spaa "$T/f"
		[ "$status" -ne 124 ] || timeout 5 cat "$T/f" > /dev/null || true
		wait
		assert_success
		cmp "$T/want" <(printf '%s\n' "$output")
	done
	ways "$EX/kallsyms.txt" perf2spaa --kallsyms=@ "$EX/small.perf.data"
}

# The SPAA filters, on each SPAA example and its compressed copies.
filters() {
	cat <<-'EOF'
	spaa-fold
	spaa-fold --inline
	spaa-top
	spaa-stat
	spaa-cat
	spaa-cat --merge
	spaa-grep -e main
	spaa-window --every 0.002 --list
	spaa-flamegraph
	spaa2pprof -o -
	spaa2speedscope
	spaa-validate
	spaa-demangle
	spaa-symbolize
	spaa-diff @ $f
	spaa-diff -n 3 $f @
	spaa-cat --merge $f @
	EOF
}

@test "every SPAA filter: the same output from a file, a pipe, standard input, /dev/stdin, <(...) and a FIFO" {
	local f filt
	zstd -q -c "$EX/perf-cpu.spaa" > "$T/perf-cpu.spaa.zst"
	gzip -c "$EX/parser.spaa" > "$T/parser.spaa.gz"
	for f in "$EX"/*.spaa "$T/perf-cpu.spaa.zst" "$T/parser.spaa.gz"; do
		while read -r filt; do
			# spaa-window: memory.spaa has no samples (an error)
			STATUS=0
			[ "$filt" = "spaa-window --every 0.002 --list" ] && [ "${f##*/}" = memory.spaa ] && STATUS=1
			# spaa-stat, spaa2speedscope, spaa-validate name their input
			case $filt in
			spaa-stat*) NORM="grep -v '^file: '" ;;
			spaa2speedscope*) NORM="jq -c 'del(.name)'" ;;
			spaa-validate*) NORM="sed 's/^.*: valid: /valid: /'" ;;
			*) NORM= ;;
			esac
			# shellcheck disable=SC2086
			ways "$f" $(eval echo "$filt")
		done < <(filters)
	done
}

@test "an empty input and a directory: an error naming it, exit 1, no output, no wait" {
	local c name
	: > "$T/empty"
	mkdir "$T/dir"
	for c in $(converters | awk '{ print $1 }' | sort -u) any2spaa spaa-fold spaa-top spaa-stat spaa-cat spaa-grep \
		spaa-window spaa-flamegraph spaa2pprof spaa2speedscope spaa-demangle spaa-symbolize; do
		set --
		[ "$c" = spx2spaa ] && set -- --metadata="$EX/spx-small.json"
		[ "$c" = spaa-window ] && set -- --every=1
		[ "$c" = spaa-grep ] && set -- -e main
		for name in "$T/empty" "$T/dir"; do
			run timeout 20 "$c" "$@" -o "$T/out" "$name"
			[ "$status" -eq 1 ] || fail "$c $name: status $status: $output"
			[[ ${lines[0]} == "$c: $name"[:\ ]* ]] || fail "$c $name: the message names another file: $output"
			[ ! -e "$T/out" ] || fail "$c $name: wrote $T/out"
		done
		run timeout 20 "$c" "$@" -o "$T/out" < "$T/empty"
		[ "$status" -eq 1 ] || fail "$c < empty: status $status: $output"
		[[ ${lines[0]} == "$c: -"[:\ ]* ]] || fail "$c < empty: the message names another file: $output"
		[ ! -e "$T/out" ] || fail "$c < empty: wrote $T/out"
		run timeout 20 sh -c ': | "$0" "$@"' "$c" "$@" -o "$T/out"
		[ "$status" -eq 1 ] || fail "$c, an empty pipe: status $status: $output"
		[[ ${lines[0]} == "$c: -"[:\ ]* ]] || fail "$c, an empty pipe: the message names another file: $output"
		[ ! -e "$T/out" ] || fail "$c, an empty pipe: wrote $T/out"
	done
}

@test "files named by options and a second operand: the same output from every way" {
	folded2spaa --addrs "$EX/kernel-addrs.folded" > "$T/kernel.spaa"
	folded2spaa --addrs --pid=1234 "$EX/ebpf-addrs.folded" > "$T/ebpf.spaa"
	ways "$EX/kallsyms.txt" spaa-symbolize --kallsyms=@ "$T/kernel.spaa"
	ways "$EX/ebpf-1234.maps" spaa-symbolize --maps=1234=@ --kallsyms="$EX/kallsyms.txt" "$T/ebpf.spaa"
	# spaa-heapdiff's header names its inputs
	NORM="sed 1d"
	ways "$D/heapdiff/before.heapsnapshot" spaa-heapdiff @ "$D/heapdiff/after.heapsnapshot"
	ways "$D/heapdiff/after.heapsnapshot" spaa-heapdiff "$D/heapdiff/before.heapsnapshot" @
}

@test "a directory whose 'data' is a FIFO: not a perf.data directory, no wait" {
	mkdir "$T/d"
	mkfifo "$T/d/data"
	run timeout 10 perf2spaa -o "$T/out" "$T/d"
	assert_failure 1
	assert_output "perf2spaa: $T/d: a directory, but not a perf.data directory (perf record --threads): no file 'data' in it"
	run timeout 10 any2spaa -o "$T/out" "$T/d"
	assert_failure 1
	assert_output "any2spaa: $T/d: not a profile any converter here reads: it looks like a directory (--format=NAME reads it as NAME; any2spaa --help lists the formats)"
	[ ! -e "$T/out" ]
}

@test "a cut gzip or zstd input: the same messages from every way (the copy of a pipe is not decompressed)" {
	# v8log2spaa reads what precedes the cut; the copy it makes of a
	# pipe was decompressed, and the cut was its own fatal error
	head -c 3000 "$D/v8log/speedscope-node-8.5.0.v8log.zst" > "$T/cut.v8log.zst"
	STATUS=1 ways "$T/cut.v8log.zst" v8log2spaa
	assert_file_eq "$T/err.file" <<-'EOF2'
	v8log2spaa: FILE: the input is truncated
	EOF2
	head -c 1500 "$EX/firefox-recursion.json.gz" > "$T/cut.json.gz"
	STATUS=1 ways "$T/cut.json.gz" gecko2spaa
	# spx2spaa says where the cut is, from every way
	head -c 600 "$EX/spx-small.txt.gz" > "$T/cut.txt.gz"
	STATUS=1 ways "$T/cut.txt.gz" spx2spaa --metadata="$EX/spx-small.json"
	assert_file_eq "$T/err.file" <<-'EOF2'
	spx2spaa: FILE:76: truncated compressed data after line 75: the file is cut short
	EOF2
}
