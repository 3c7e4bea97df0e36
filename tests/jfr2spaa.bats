#!/usr/bin/env bats
# jfr2spaa: Java Flight Recorder recordings, against the JDK's own reader
# (jfr print --json).
load common

J=$D/jfr

# compare FILE: per event type with stack traces, per top frame (and with its
# line and frame type) and per thread, the
# number of events and the sum of their weights (samples, alloc_bytes,
# wall_ns) in jfr2spaa's profile against what `jfr print --json` gives;
# nothing printed when they agree.
compare() {
	python3 "$J/truth.py" "$1" > "$T/truth"
	jfr2spaa "$1" > "$T/j.spaa"
	python3 "$J/mine.py" "$T/j.spaa" > "$T/mine"
	[ -s "$T/truth" ] || echo "no events with stack traces in the truth"
	diff "$T/truth" "$T/mine"
}

@test "jfr2spaa: the recording shipped: per event type, top frame and thread, the events and their weights are those of jfr print" {
	command -v jfr >/dev/null || skip "the JDK's jfr is absent"
	run compare "$J/prog.jfr"
	assert_success
	assert_output ''
}

@test "jfr2spaa: the recording shipped, exactly: events, metrics, frame types, threads" {
	run sh -c "jfr2spaa '$J/prog.jfr' | head -1"
	assert_success
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"jfr","frame_order":"leaf_to_root","events":[{"name":"jdk.ExecutionSample","kind":"timer","sampling":{"mode":"frequency","primary_metric":"samples"}},{"name":"jdk.JavaMonitorEnter","kind":"probe","sampling":{"mode":"event","primary_metric":"wall_ns"}},{"name":"jdk.ObjectAllocationInNewTLAB","kind":"allocation","sampling":{"mode":"event","primary_metric":"alloc_bytes"}},{"name":"jdk.ThreadPark","kind":"probe","sampling":{"mode":"event","primary_metric":"wall_ns"}},{"name":"jdk.ThreadSleep","kind":"probe","sampling":{"mode":"event","primary_metric":"wall_ns"}},{"name":"jdk.ObjectAllocationSample","kind":"allocation","sampling":{"mode":"event","primary_metric":"alloc_bytes"}},{"name":"jdk.ObjectAllocationOutsideTLAB","kind":"allocation","sampling":{"mode":"event","primary_metric":"alloc_bytes"}},{"name":"jdk.NativeMethodSample","kind":"timer","sampling":{"mode":"frequency","primary_metric":"samples"}},{"name":"jdk.JavaMonitorWait","kind":"probe","sampling":{"mode":"event","primary_metric":"wall_ns"}}],"time_range":{"start":1796568386979331347,"end":1796568388674832231,"unit":"nanoseconds"},"source":{"tool":"jfr"},"stack_id_mode":"content_addressable"}'
	run sh -c "jfr2spaa '$J/prog.jfr' | spaa-fold --event=jdk.ExecutionSample | sort"
	assert_success
	assert_output "locker-1;java.lang.Thread.run;Prog\$\$Lambda\$85+0x00007f9380008800.102065302.run;Prog.lambda\$main\$2;Prog.holdLock;Prog.spinA 12
locker-2;java.lang.Thread.run;Prog\$\$Lambda\$86+0x00007f9380008a20.63001505.run;Prog.lambda\$main\$3;Prog.holdLock;Prog.spinA 11
worker-alloc;java.lang.Thread.run;Prog\$\$Lambda\$84+0x00007f9380007c28.1524126153.run;Prog.lambda\$main\$1;Prog.allocate 1
worker-compute;java.lang.Thread.run;Prog\$\$Lambda\$83+0x00007f9380007a08.715521683.run;Prog.lambda\$main\$0;Prog.compute;Prog.spinA 2
worker-compute;java.lang.Thread.run;Prog\$\$Lambda\$83+0x00007f9380007a08.715521683.run;Prog.lambda\$main\$0;Prog.compute;Prog.spinB 6"
	run sh -c "jfr2spaa '$J/prog.jfr' | grep '\"type\":\"dso\"'"
	assert_output '{"type":"dso","id":1,"name":"[jfr]","is_kernel":false}
{"type":"dso","id":2,"name":"[JIT compiled]","is_kernel":false}
{"type":"dso","id":3,"name":"[Interpreted]","is_kernel":false}
{"type":"dso","id":4,"name":"[Native]","is_kernel":false}
{"type":"dso","id":5,"name":"[Inlined]","is_kernel":false}'
}

@test "jfr2spaa: recordings made now (settings=profile, settings=default) agree with jfr print; several chunks" {
	command -v java >/dev/null && command -v javac >/dev/null && command -v jfr >/dev/null || skip "the JDK is absent"
	(cd "$T" && javac -d . "$J/Prog.java") || fail "javac"
	local s
	for s in profile default; do
		(cd "$T" && java -XX:StartFlightRecording=filename=$s.jfr,settings=$s -cp . Prog 600 > /dev/null 2>&1) || fail "java $s"
		run compare "$T/$s.jfr"
		assert_success
		assert_output ''
	done
	# several chunks: each is read with its own metadata and constant
	# pools, as the two files are
	cat "$T/profile.jfr" "$T/default.jfr" > "$T/both.jfr"
	jfr2spaa "$T/both.jfr" | spaa-fold --event=jdk.ExecutionSample | sort > "$T/a"
	jfr2spaa "$T/profile.jfr" "$T/default.jfr" | spaa-fold --event=jdk.ExecutionSample | sort > "$T/b"
	[ -s "$T/a" ] && cmp "$T/a" "$T/b"
	# the truth of the two chunks is the two files' (jfr print, given the
	# file of both, has once in many runs printed two jdk.JavaErrorThrow
	# events of a chunk without their stack traces, 2 of 4, where each file
	# alone had them all and agreed with jfr2spaa)
	python3 "$J/truth.py" "$T/profile.jfr" "$T/default.jfr" | grep -F "	*	" > "$T/truth"
	jfr2spaa "$T/both.jfr" > "$T/j.spaa"
	python3 "$J/mine.py" "$T/j.spaa" | grep -F "	*	" > "$T/mine"
	run diff "$T/truth" "$T/mine"
	assert_success
	# any2spaa and every command know it by its content
	run any2spaa --verbose "$T/profile.jfr"
	assert_line --partial "a Java Flight Recorder recording: jfr2spaa"
	local e=--event=jdk.ExecutionSample
	[ "$(jfr2spaa "$T/profile.jfr" | spaa-fold $e)" = "$(spaa-fold $e "$T/profile.jfr" 2>/dev/null || jfr2spaa "$T/profile.jfr" | spaa-fold $e)" ]
}

@test "jfr2spaa: a recording written by hand: every string encoding, integers compressed or not, a truncated stack, frame types, thread names, async-profiler's wall-clock samples" {
	python3 "$J/mkjfr.py" ok > "$T/ok.jfr"
	python3 "$J/mkjfr.py" raw > "$T/raw.jfr"
	run sh -c "jfr2spaa '$T/ok.jfr' | spaa-fold --event=jdk.ExecutionSample"
	assert_success
	assert_output 'main_été;org.ex.App$Inner.run;org.ex.App$Inner.résumé 2
wörker;[truncated];org.ex.App$Inner.résumé;read0 1'
	run sh -c "jfr2spaa '$T/ok.jfr' | spaa-fold --event=jdk.ThreadPark"
	assert_success
	assert_output 'main_été;[truncated];org.ex.App$Inner.résumé;read0 2500
wörker;org.ex.App$Inner.run;org.ex.App$Inner.résumé 1500'
	run sh -c "jfr2spaa '$T/ok.jfr' | grep '\"type\":\"frame\"'"
	assert_output '{"type":"frame","id":1,"func":"org.ex.App$Inner.résumé","dso":2,"srcline":"org/ex/App.java:12","inlined":true,"kind":"user"}
{"type":"frame","id":2,"func":"org.ex.App$Inner.run","dso":3,"srcline":"org/ex/App.java:30","kind":"user"}
{"type":"frame","id":3,"func":"read0","dso":4,"kind":"user"}
{"type":"frame","id":4,"func":"org.ex.App$Inner.résumé","dso":3,"srcline":"org/ex/App.java:12","kind":"user"}
{"type":"frame","id":5,"func":"[truncated]","dso":1,"kind":"unknown"}'
	# async-profiler's batched wall-clock samples weigh their count
	run sh -c "jfr2spaa '$T/ok.jfr' | spaa-fold --event=profiler.WallClockSample"
	assert_output 'main_été;org.ex.App$Inner.run;org.ex.App$Inner.résumé 5'
	[ "$(jfr2spaa "$T/ok.jfr")" = "$(jfr2spaa "$T/raw.jfr")" ]
	# a name of invalid UTF-8, a NUL, U+FFFE and the fold separator
	python3 "$J/mkjfr.py" badutf8 > "$T/bad.jfr"
	run sh -c "jfr2spaa '$T/bad.jfr' | grep '\"type\":\"frame\",\"id\":2'"
	assert_output '{"type":"frame","id":2,"func":"org.ex.App$Inner.r�u�n￾;","dso":3,"srcline":"org/ex/App.java:30","kind":"user"}'
}

@test "jfr2spaa: damaged recordings are errors naming the byte, never a short profile" {
	run jfr2spaa /dev/null
	assert_failure 1
	assert_output "jfr2spaa: /dev/null: empty input: no profile written"
	head -c 4000 "$J/prog.jfr" > "$T/cut"
	run jfr2spaa "$T/cut"
	assert_failure 1
	assert_output "jfr2spaa: $T/cut: byte 4000: a chunk larger than the rest of the file: the file is cut short (not a JFR recording, or damaged)"
	head -c 40 "$J/prog.jfr" > "$T/cut"
	run jfr2spaa "$T/cut"
	assert_failure 1
	assert_output "jfr2spaa: $T/cut: byte 40: the file ends in a chunk's header: the file is cut short (not a JFR recording, or damaged)"
	# JDK 9 and 10's format 1, and a chunk smaller than its header
	python3 -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[5] = 1; d[7] = 0; open(sys.argv[2], 'wb').write(d)" "$J/prog.jfr" "$T/v1"
	run jfr2spaa "$T/v1"
	assert_failure 1
	assert_output "jfr2spaa: $T/v1: byte 4: JFR file format 1.0, not 2.x (JDK 11 and later, async-profiler) (not a JFR recording, or damaged)"
	python3 -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[8:16] = bytes(7) + b'\\x10'; open(sys.argv[2], 'wb').write(d)" "$J/prog.jfr" "$T/small"
	run jfr2spaa "$T/small"
	assert_failure 1
	assert_output "jfr2spaa: $T/small: byte 8: a chunk size smaller than its header (not a JFR recording, or damaged)"
	# every cut, as it is and with the chunk's size made to agree with
	# it: exit 1 and a message naming the byte, never a profile
	python3 "$J/mkjfr.py" ok > "$T/ok.jfr"
	python3 - "$T/ok.jfr" "$T/c.jfr" > "$T/cuts" 2>&1 <<-'PY'
	import struct, subprocess, sys
	d = open(sys.argv[1], "rb").read()
	for patch in (False, True):
	    for n in range(1, len(d)):
	        c = bytearray(d[:n])
	        if patch and n >= 68:
	            c[8:16] = struct.pack(">q", n)
	        open(sys.argv[2], "wb").write(c)
	        r = subprocess.run(["jfr2spaa", sys.argv[2]], capture_output=True)
	        if r.returncode != 1 or r.stdout or b": byte " not in r.stderr:
	            print(n, patch, r.returncode, r.stderr)
	print("done")
	PY
	run cat "$T/cuts"
	assert_output "done"
	# each lie of the hand-written recording
	local v
	while IFS='|' read -r v msg; do
		python3 "$J/mkjfr.py" "$v" > "$T/$v.jfr"
		run jfr2spaa -o "$T/out" "$T/$v.jfr"
		assert_failure 1
		assert_output "jfr2spaa: $T/$v.jfr: $msg"
		[ ! -e "$T/out" ]
	done <<-'EOF2'
	zerosize|byte 73: an event size of nothing, or past the end of its chunk (not a JFR recording, or damaged)
	deep|byte 286: values nested more than 32 deep (not a JFR recording, or damaged)
	wide|byte 287: a value that holds more values than its bytes can (not a JFR recording, or damaged)
	badclass|byte 103: a value of class id 77, which the metadata does not describe (not a JFR recording, or damaged)
	nostack|byte 103: an event whose stack trace is in no constant pool (not a JFR recording, or damaged)
	negative|byte 103: an event with a negative weight or duration (not a JFR recording, or damaged)
	overflow|metric wall_ns of a stack overflows 64 bits
	hugecount|byte 112: a count greater than the bytes left (not a JFR recording, or damaged)
	loop|byte 108: a checkpoint chained to one that is not before it in its chunk (not a JFR recording, or damaged)
	minloop|byte 108: a checkpoint chained to one that is not before it in its chunk (not a JFR recording, or damaged)
	cpoff|byte 16: a constant pool offset outside its chunk (not a JFR recording, or damaged)
	EOF2
}

@test "jfr2spaa: another format is named, with the command that reads it" {
	run jfr2spaa "$EX/go-cpu.pprof"
	assert_failure 1
	assert_output "jfr2spaa: $EX/go-cpu.pprof: this is a pprof profile (profile.proto), not a JFR recording: run pprof2spaa"
}
