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
