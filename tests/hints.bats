#!/usr/bin/env bats
# Failures that say what to do (issue 19, section 5): each hint with its
# exact words.
load common

# pty_run CMD...: runs CMD with a terminal as its standard input (and
# output); once it has printed a line with "Ctrl-D", types one Ctrl-D.
# Prints what the terminal showed; exits as CMD did (247: killed after 10 s,
# still waiting).
pty_run() {
	python3 - "$@" <<'PY'
import os, pty, select, signal, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b''; sent = False; end = time.time() + 10
while time.time() < end:
    r, _, _ = select.select([fd], [], [], 0.1)
    if r:
        try:
            d = os.read(fd, 4096)
        except OSError:
            break
        if not d:
            break
        out += d
    if not sent and b'Ctrl-D' in out and out.endswith(b'\n'):
        time.sleep(0.2)
        os.write(fd, b'\x04')
        sent = True
else:
    os.kill(pid, signal.SIGKILL)
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode().replace('\r\n', '\n'))
sys.exit(os.waitstatus_to_exitcode(st))
PY
}

@test "a command reading a terminal says what it waits for, and one Ctrl-D ends it" {
	command -v python3 >/dev/null || skip "python3 not installed"
	run pty_run perf2spaa
	assert_failure 1
	assert_output "perf2spaa: reading the text 'perf script' prints from the terminal; end it with Ctrl-D (or name a FILE, see 'perf2spaa --help')
perf2spaa: -: empty input: no profile written"
	run pty_run spaa-top
	assert_failure 1
	assert_output "spaa-top: reading a SPAA profile from the terminal; end it with Ctrl-D (or name a FILE, see 'spaa-top --help')
spaa-top: -: no header record (empty input)"
}

@test "a command reading a pipe or a file says nothing about terminals" {
	run spaa-top < "$EX/parser.spaa"
	assert_success
	refute_output --partial 'Ctrl-D'
	run bash -c 'spaa-top < /dev/null'
	assert_failure 1
	assert_output "spaa-top: -: no header record (empty input)"
}

@test "blank lines only are an empty input (perf2spaa, dtrace2spaa, bpftrace2spaa, folded2spaa)" {
	local c
	for c in perf2spaa dtrace2spaa bpftrace2spaa folded2spaa; do
		run bash -c "echo | $c"
		assert_failure 1
		assert_output "$c: -: empty input: no profile written"
		run bash -c "printf ' \t\r\n\n' | $c"
		assert_failure 1
		assert_output "$c: -: empty input: no profile written"
	done
	run bash -c "printf '\nnot perf\n' | perf2spaa"
	assert_failure 1
	assert_output "perf2spaa: -:2: warning: cannot read this line (not a sample header): ignored
perf2spaa: -: no stacks found: 2 lines, none of them a perf sample header (is it 'perf script' output?) (no profile written)"
}

H=$SPAA_TESTDATA/hints

@test "--by srcline with no source line says how to get them; with source lines, nothing" {
	run spaa-top --by srcline -n 1 --raw-units "$EX/parser.spaa"
	assert_success
	assert_output "spaa-top: $EX/parser.spaa: no frame has a source line: convert a perf.data with 'perf2spaa --srcline', or record them with 'perf script -F+srcline' (before perf2spaa), or run spaa-symbolize on a profile of binaries with debug information
cpu-clock:pppH/period, total 7007007
      flat  flat%   sum%        cum   cum%  srcline
   2002002 28.57% 28.57%    2002002 28.57%  ?? (check_bounds)"
	run spaa-top --by srcline -n 0 -m samples "$SPAA_TESTDATA/top/small.spaa"
	assert_success
	refute_output --partial 'source line'
}

@test "--callers/--callees with no such function: the names that contain it, and -E" {
	run spaa-top --callers Tokenize "$EX/parser.spaa"
	assert_failure 1
	assert_output "spaa-top: $EX/parser.spaa: no function 'Tokenize' in the stacks of event cpu-clock:pppH; names that contain it (ignoring case): 'tokenize'; -E matches a regular expression"
	run spaa-top --callees TOKEN "$EX/parser.spaa"
	assert_failure 1
	assert_output "spaa-top: $EX/parser.spaa: no function 'TOKEN' in the stacks of event cpu-clock:pppH; names that contain it (ignoring case): 'tokenize', 'validate_token'; -E matches a regular expression"
	# [root] and [self] are spaa-top's own rows, not functions
	run spaa-top --callers self "$EX/parser.spaa"
	assert_failure 1
	assert_output "spaa-top: $EX/parser.spaa: no function 'self' in the stacks of event cpu-clock:pppH; no name contains it (ignoring case); -E matches a regular expression"
	run spaa-flamegraph --callers Tokenize "$EX/parser.spaa"
	assert_failure 1
	assert_output "spaa-flamegraph: $EX/parser.spaa: no stack passes through Tokenize; names that contain it (ignoring case): 'tokenize'; -E matches a regular expression"
	# with -E the pattern is the user's: no list
	run spaa-top -E --callers '^Tokenize$' "$EX/parser.spaa"
	assert_failure 1
	assert_output "spaa-top: $EX/parser.spaa: no function '^Tokenize\$' in the stacks of event cpu-clock:pppH"
}

@test "spaa-grep -e NAME that matches no function: the names that contain it" {
	run spaa-grep -c -e '^Tokenize$' "$EX/parser.spaa"
	assert_success
	assert_output "0 stacks, 0 period
spaa-grep: $EX/parser.spaa: no function matches -e '^Tokenize\$'; names that contain 'Tokenize' (ignoring case): 'tokenize'; -i ignores case"
	# a pattern that matches a function, or that is a regular expression, or
	# that nothing resembles: no hint
	run spaa-grep -c -e tokenize --pid=1 "$EX/parser.spaa"
	assert_output "0 stacks, 0 period"
	run spaa-grep -c -e '^Tok.*$' "$EX/parser.spaa"
	assert_output "0 stacks, 0 period"
	run spaa-grep -c -e nothing "$EX/parser.spaa"
	assert_output "0 stacks, 0 period"
}

@test "broken call chains (real capture, -O2 without frame pointers): one hint, from spaa-top and spaa-stat" {
	perf2spaa "$H/nofp.perf.txt" > "$T/nofp.spaa"
	hint="100% of the weight is in stacks that stop short of main (after one or two user frames, or at an address without a name): the call chains look broken, as in code built without frame pointers; record with 'perf record --call-graph dwarf', or build with -fno-omit-frame-pointer"
	run spaa-top -n 1 --raw-units "$T/nofp.spaa"
	assert_success
	assert_output "spaa-top: $T/nofp.spaa: $hint
cpu-clock:pppH/period, total 200200200
      flat  flat%   sum%        cum   cum%  function
 127127127 63.50% 63.50%  128128128 64.00%  msort_with_tmp.part.0"
	run spaa-stat -n 1 "$T/nofp.spaa"
	assert_success
	assert_line --index 0 "spaa-stat: $T/nofp.spaa: $hint"
	[ "$(printf '%s\n' "$output" | grep -c 'look broken')" -eq 1 ]
	# whole chains (examples/parser.perf.txt, frame pointers): nothing
	run spaa-top -n 1 "$EX/parser.spaa"
	refute_output --partial 'look broken'
	run spaa-stat "$EX/parser.spaa"
	refute_output --partial 'look broken'
}

@test "bpftrace user frames without a symbol and a key without pid: add pid, save the maps (real capture)" {
	run bpftrace2spaa -o "$T/o.spaa" "$H/nopid-stripped.txt"
	assert_success
	assert_output "bpftrace2spaa: $H/nopid-stripped.txt: 61 user frames of map @ have no symbol, and the map's key has no pid, so spaa-symbolize cannot tell whose addresses they are: add pid to the key (@[ustack, comm, pid]) and save /proc/PID/maps while the program runs, for spaa-symbolize --maps=PID=FILE"
	run bpftrace2spaa -q -o "$T/o.spaa" "$H/nopid-stripped.txt"
	assert_success
	assert_output ""
	# with a pid in the key, spaa-symbolize can: nothing said
	run bpftrace2spaa -o "$T/o.spaa" "$SPAA_TESTDATA/bpftrace/stripped.txt"
	assert_success
	assert_output ""
}

@test "--flamechart without samples names the converter's -s" {
	perf2spaa "$EX/parser.perf.txt" > "$T/nosamples.spaa"
	run spaa-flamegraph --flamechart "$T/nosamples.spaa"
	assert_failure 1
	assert_output "spaa-flamegraph: $T/nosamples.spaa: no sample records: a flame chart needs them; perf2spaa -s (--samples) writes them (or draw a flame graph without --flamechart)"
	spall2spaa "$EX/small-trace.json" > "$T/spall.spaa"
	run spaa-flamegraph --flamechart "$T/spall.spaa"
	assert_failure 1
	assert_output "spaa-flamegraph: $T/spall.spaa: no sample records: a flame chart needs them; spall2spaa -s (--samples) writes them (or draw a flame graph without --flamechart)"
	folded2spaa "$EX/dd.folded" > "$T/folded.spaa"
	run spaa-flamegraph --flamechart "$T/folded.spaa"
	assert_failure 1
	assert_output "spaa-flamegraph: $T/folded.spaa: no sample records: a flame chart needs them; folded2spaa cannot write them (folded profiles have no time order) (or draw a flame graph without --flamechart)"
}

@test "the call-chain hint names the cause, on real captures: recorded without -g, a stripped program, code without frame pointers; none for whole chains (frame pointers, dwarf)" {
	can_record
	prog_c "$T/prog.c"
	cc -O2 -g -fno-omit-frame-pointer -o "$T/prog" "$T/prog.c"
	cc -O2 -fomit-frame-pointer -o "$T/nofp" "$T/prog.c"
	# stripped, and unlike any binary perf's build-id cache may hold
	sed "s/300;/$$$RANDOM;/" "$T/prog.c" > "$T/s.c"
	cc -O2 -fno-omit-frame-pointer -s -o "$T/stripped" "$T/s.c"
	perf record -q -N -e cpu-clock -o "$T/nog.data" "$T/prog" 300 >/dev/null
	perf record -q -N -e cpu-clock -g -o "$T/fp.data" "$T/prog" 300 >/dev/null
	perf record -q -N -e cpu-clock -g -o "$T/nofp.data" "$T/nofp" 300 >/dev/null
	perf record -q -N -e cpu-clock -g -o "$T/stripped.data" "$T/stripped" 300 >/dev/null
	hint_of() { perf2spaa -q "$T/$1.data" > "$T/$1.spaa"; spaa-top -n 0 "$T/$1.spaa" 2>&1 >/dev/null | sed "s|$T/||g"; }
	run hint_of nog
	assert_output "spaa-top: nog.spaa: no stack has more than one frame: the capture has no call chains; record them with 'perf record -g' (or --call-graph dwarf for code without frame pointers)"
	# the same capture, its command line asking for chains (-g, also among
	# other one-letter options, --call-graph): broken, not missing; not so
	# for a -g of the program's own, after --
	for g in "-g" "-ag" "--call-graph=fp"; do
		sed "s| -o $T/nog.data | $g -o $T/nog.data |" "$T/nog.spaa" > "$T/nog2.spaa"
		grep -q -- "$g -o" "$T/nog2.spaa"
		run spaa-top -n 0 "$T/nog2.spaa"
		assert_success
		assert_output --partial "no stack has more than one frame, though the capture was recorded with call chains: they look broken, as in code built without frame pointers"
	done
	sed "s| -o $T/nog.data \(.*\)/prog 300| -o $T/nog.data -- \1/prog -g 300|" "$T/nog.spaa" > "$T/nog2.spaa"
	grep -q -- "prog -g 300" "$T/nog2.spaa"
	run spaa-top -n 0 "$T/nog2.spaa"
	assert_output --partial "no stack has more than one frame: the capture has no call chains"
	run hint_of stripped
	assert_output --regexp "^spaa-top: stripped.spaa: [0-9]+% of the weight is in stacks through frames without a name in stripped \(and perhaps other files\): it has no symbols \(stripped\); install its debug symbols \(perf finds them by build id\), or give perf2spaa --symfs/--debug-dir where they are$"
	# (whether the walks from code without frame pointers stop at once or
	# a frame or two later depends on what the register holds: either is
	# said to be broken, not missing, the capture having asked for chains)
	run hint_of nofp
	assert_output --regexp "^spaa-top: nofp.spaa: ([0-9]+% of the weight is in stacks that stop short of main .*: the call chains look broken|no stack has more than one frame, though the capture was recorded with call chains: they look broken), as in code built without frame pointers; record with 'perf record --call-graph dwarf', or build with -fno-omit-frame-pointer$"
	run hint_of fp
	assert_output ""
	perf record -q -N -e cpu-clock --call-graph dwarf -o "$T/dw.data" "$T/nofp" 300 >/dev/null 2>&1 || skip "no dwarf capture here"
	run hint_of dw
	assert_output ""
	# perf script itself names nothing in the stripped program
	perf script -i "$T/stripped.data" 2>/dev/null | grep -q '\[unknown\] (.*/stripped)'
}
