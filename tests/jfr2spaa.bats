#!/usr/bin/env bats
# jfr2spaa: Java Flight Recorder recordings, against the JDK's own reader
# (jfr print --json).
load common

J=$D/jfr

# compare FILE: per event type with stack traces and per top frame, the
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

@test "jfr2spaa: the recording shipped: per event type and top frame, the events and their weights are those of jfr print" {
	command -v jfr >/dev/null || skip "the JDK's jfr is absent"
	run compare "$J/prog.jfr"
	assert_success
	assert_output ''
}

@test "jfr2spaa: the recording shipped, exactly: events, metrics, frame types, threads" {
	run sh -c "jfr2spaa '$J/prog.jfr' | head -1"
	assert_success
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"jfr","frame_order":"leaf_to_root","events":[{"name":"jdk.ExecutionSample","kind":"timer","sampling":{"mode":"frequency","primary_metric":"samples"}},{"name":"jdk.JavaMonitorEnter","kind":"probe","sampling":{"mode":"event","primary_metric":"wall_ns"}},{"name":"jdk.ObjectAllocationInNewTLAB","kind":"allocation","sampling":{"mode":"event","primary_metric":"alloc_bytes"}},{"name":"jdk.ThreadPark","kind":"probe","sampling":{"mode":"event","primary_metric":"wall_ns"}},{"name":"jdk.ThreadSleep","kind":"probe","sampling":{"mode":"event","primary_metric":"wall_ns"}},{"name":"jdk.ObjectAllocationSample","kind":"allocation","sampling":{"mode":"event","primary_metric":"alloc_bytes"}},{"name":"jdk.ObjectAllocationOutsideTLAB","kind":"allocation","sampling":{"mode":"event","primary_metric":"alloc_bytes"}},{"name":"jdk.NativeMethodSample","kind":"timer","sampling":{"mode":"frequency","primary_metric":"samples"}},{"name":"jdk.JavaMonitorWait","kind":"probe","sampling":{"mode":"event","primary_metric":"wall_ns"}}],"source":{"tool":"jfr"},"stack_id_mode":"content_addressable"}'
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
	python3 "$J/truth.py" "$T/both.jfr" | grep -F "	*	" > "$T/truth"
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
