#!/usr/bin/env bats
# speedscope2spaa: speedscope's JSON file format to SPAA.  The figures of
# speedscope's own sample files are those of speedscope's importer (its test
# snapshots, tests/data/speedscope/README.md): total 14; a self 0, b self 5,
# c self 5, d self 4.
load common

S=$D/speedscope

@test "a 0.1.2 sampled profile: stacks and weights in its unit" {
	run speedscope2spaa "$S/sampled-0.1.2.json"
	assert_success
	assert_output --partial '"events":[{"name":"cpu","kind":"timer","sampling":{"mode":"period","primary_metric":"wall_s"}}]'
	speedscope2spaa "$S/sampled-0.1.2.json" | spaa-fold > "$T/f"
	assert_file_eq "$T/f" <<'END'
a;b 5
a;b;c 5
a;b;d 4
END
	speedscope2spaa "$S/sampled-0.1.2.json" | spaa-validate --strict
}

@test "a 0.0.1 evented profile (profiles before shared): self time of each call path, as speedscope" {
	for f in evented-0.0.1.json evented-0.0.1-compact.json; do
		speedscope2spaa "$S/$f" | spaa-fold > "$T/f"
		assert_file_eq "$T/f" <<'END'
a;b 5
a;b;c 5
a;b;d 4
END
	done
	# calls: c twice, the others once
	speedscope2spaa "$S/evented-0.0.1.json" | spaa-fold -m calls > "$T/c"
	assert_file_eq "$T/c" <<'END'
a 1
a;b 1
a;b;c 2
a;b;d 1
END
	speedscope2spaa "$S/evented-0.0.1.json" | spaa-validate --strict
}

@test "standard input is read twice when profiles come before shared" {
	speedscope2spaa < "$S/evented-0.0.1.json" | spaa-fold > "$T/f"
	gzip -c "$S/evented-0.0.1.json" | speedscope2spaa | spaa-fold > "$T/g"
	cmp "$T/f" "$T/g"
	[ "$(wc -l < "$T/f")" -eq 3 ]
}

@test "several profiles: a thread each, named after its profile" {
	speedscope2spaa "$S/two-sampled-0.6.0.json" | spaa-fold > "$T/f"
	assert_file_eq "$T/f" <<'END'
one;a;b 5
one;a;b;c 5
one;a;b;d 4
two;a;b 5
two;a;b;c 5
two;a;b;d 4
END
	run speedscope2spaa "$S/two-sampled-0.6.0.json"
	assert_line '{"type":"thread","pid":1,"tid":1,"comm":"one"}'
	assert_line '{"type":"thread","pid":2,"tid":2,"comm":"two"}'
	assert_output --partial '"source":{"tool":"speedscope","exporter":"speedscope@0.6.0","name":"Two Samples"}'
}

@test "refused as speedscope refuses: unclosed frames, frames that do not nest" {
	run speedscope2spaa "$S/invalid-incomplete.json"
	assert_failure 1
	assert_output "speedscope2spaa: $S/invalid-incomplete.json:14: evented profile p1 ends with frame A still open: every open event needs its close event (byte 311)"
	run speedscope2spaa "$S/invalid-out-of-order.json"
	assert_failure 1
	assert_output "speedscope2spaa: $S/invalid-out-of-order.json:20: a close event of frame 1 (B) while another frame is open: events must nest"
}

@test "times in milliseconds and seconds become exact nanoseconds; file, line and col kept" {
	cat > "$T/ms.json" <<'END'
{"$schema":"https://www.speedscope.app/file-format-schema.json",
 "shared":{"frames":[{"name":"main","file":"app.js","line":3,"col":7},{"name":"work"}]},
 "profiles":[{"type":"evented","name":"t","unit":"milliseconds","startValue":0,"endValue":1,
  "events":[{"type":"O","frame":0,"at":0.1},{"type":"O","frame":1,"at":0.25},
            {"type":"C","frame":1,"at":0.250001},{"type":"C","frame":0,"at":1.5e0}]}]}
END
	speedscope2spaa "$T/ms.json" | spaa-fold > "$T/f"
	assert_file_eq "$T/f" <<'END'
main 1399999
main;work 1
END
	run speedscope2spaa "$T/ms.json"
	assert_line '{"type":"frame","id":1,"func":"main","dso":2,"srcline":"app.js:3:7","kind":"user"}'
	assert_line --partial '"time_range":{"start":0.0001,"end":0.0015,"unit":"seconds"}'
}

@test "sampled profile with -s: one sample record per sample, at startValue plus the weights before it" {
	cat > "$T/s.json" <<'END'
{"shared":{"frames":[{"name":"f"},{"name":"g"}]},
 "profiles":[{"type":"sampled","name":"x","unit":"microseconds","startValue":1000000,"endValue":0,
  "weights":[2,3,5],"samples":[[0],[0,1],[0]]}]}
END
	speedscope2spaa -s "$T/s.json" | spaa-fold > "$T/f"
	assert_file_eq "$T/f" <<'END'
f 7
f;g 3
END
	run sh -c "speedscope2spaa -s '$T/s.json' | grep '\"sample\"' | sed 's/\"stack_id\":\"[^\"]*\"//'"
	assert_output - <<'END'
{"type":"sample","timestamp":1,"pid":1,"tid":1,"event":"cpu",}
{"type":"sample","timestamp":1.000002,"pid":1,"tid":1,"event":"cpu",}
{"type":"sample","timestamp":1.000005,"pid":1,"tid":1,"event":"cpu",}
END
}

@test "bad files: exact messages" {
	bad() { printf '%s' "$1" > "$T/b.json"; run speedscope2spaa "$T/b.json"; assert_failure 1; assert_output "speedscope2spaa: $T/b.json:$2"; }
	bad '[1]' '1: not a speedscope file: it does not start with a JSON object (byte 0)'
	bad '{"shared":{"frames":[]}}' '1: not a speedscope file: no "profiles" array (byte 24)'
	bad '{"profiles":[]}' ' not a speedscope file: no "shared" object with "frames"'
	bad '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","unit":"none","samples":[[1]],"weights":[1]}]}' \
		'1: frame index 1: the file has 1 frames (byte 94)'
	bad '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","unit":"none","samples":[[0],[0]],"weights":[1]}]}' \
		'1: 2 samples but 1 weights (byte 113)'
	bad '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","unit":"parsecs"}]}' \
		'1: unit "parsecs": speedscope'"'"'s units are none, nanoseconds, microseconds, milliseconds, seconds and bytes (byte 82)'
	bad '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","unit":"none","samples":[[0]],"weights":[-1]}]}' \
		'1: a negative weight (-1) (byte 109)'
	bad '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","unit":"none","samples":[[0]],"weights":[-1.5]}]}' \
		'1: a negative weight (-1.5) (byte 111)'
	bad '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","unit":"none","samples":[[0]],"weights":[1e400]}]}' \
		'1: a weight out of range (byte 112)'
	bad '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"evented","unit":"nanoseconds","events":[{"type":"O","frame":0,"at":1e30},{"type":"C","frame":0,"at":2}]}]}' \
		'1: event time 1e30 is not a time in range'
	bad '{"shared":{"frames":[{"name":"a"}]},"profiles":[]}' ' no stacks found: the file has no profiles (no profile written)'
}

@test "round trip: spaa2speedscope | speedscope2spaa folds as the original" {
	spaa-fold "$EX/perf-cpu.spaa" > "$T/a"
	spaa2speedscope "$EX/perf-cpu.spaa" | speedscope2spaa | spaa-fold > "$T/b"
	cmp "$T/a" "$T/b"
	perf2spaa -s "$EX/parser.perf.txt" > "$T/p.spaa"
	spaa-fold "$T/p.spaa" > "$T/a"
	spaa2speedscope -s "$T/p.spaa" | speedscope2spaa | spaa-fold > "$T/b"
	cmp "$T/a" "$T/b"
}

@test "profiles in two units (a CPU profile in milliseconds, a heap profile in bytes; milliseconds and seconds): each in its own event, never added" {
	F='"shared":{"frames":[{"name":"main"},{"name":"work"},{"name":"alloc"}]}'
	P1='{"type":"sampled","name":"cpu","unit":"milliseconds","startValue":0,"endValue":5,"samples":[[0,1],[0]],"weights":[3,2]}'
	P2='{"type":"sampled","name":"heap","unit":"bytes","startValue":0,"endValue":100,"samples":[[0,2],[0,1,2]],"weights":[64,36]}'
	printf '{%s,"profiles":[%s,%s]}' "$F" "$P1" "$P2" > "$T/two.json"
	# it was "speedscope2spaa: internal error: metric alloc_bytes declared after the first stack"
	run speedscope2spaa -o "$T/two.spaa" "$T/two.json"
	assert_success
	assert_output ""
	spaa-validate --strict "$T/two.spaa"
	grep -o '"events":[^]]*]' "$T/two.spaa" > "$T/ev"
	assert_file_eq "$T/ev" <<< '"events":[{"name":"cpu","kind":"timer","sampling":{"mode":"period","primary_metric":"wall_ms"}},{"name":"alloc","kind":"allocation","sampling":{"mode":"event","primary_metric":"alloc_bytes"}}]'
	spaa-fold --all-events "$T/two.spaa" > "$T/f"
	assert_file_eq "$T/f" <<'END'
alloc;heap;main;alloc 64
alloc;heap;main;work;alloc 36
cpu;cpu;main 2
cpu;cpu;main;work 3
END
	# the other way round, and in two files
	printf '{%s,"profiles":[%s,%s]}' "$F" "$P2" "$P1" > "$T/rev.json"
	speedscope2spaa "$T/rev.json" | spaa-fold --all-events | sort > "$T/f2"
	cmp "$T/f" "$T/f2"
	printf '{%s,"profiles":[%s]}' "$F" "$P1" > "$T/a.json"
	printf '{%s,"profiles":[%s]}' "$F" "$P2" > "$T/b.json"
	speedscope2spaa "$T/a.json" "$T/b.json" | spaa-validate --strict
	# milliseconds and seconds: two events, each stack with its event's metric
	printf '{%s,"profiles":[%s,%s]}' "$F" "$P1" "${P2/bytes/seconds}" > "$T/s.json"
	speedscope2spaa "$T/s.json" > "$T/s.spaa"
	spaa-validate --strict "$T/s.spaa"
	spaa-fold --all-events "$T/s.spaa" > "$T/f"
	assert_file_eq "$T/f" <<'END'
cpu-s;heap;main;alloc 64
cpu-s;heap;main;work;alloc 36
cpu;cpu;main 2
cpu;cpu;main;work 3
END
}

@test "an evented profile nested 5000 deep: an error at 4096 (output grows with depth squared) that --max-depth=N, which it names, raises" {
	python3 -c '
import json
N = 5000
ev = [{"type": "O", "frame": i, "at": i} for i in range(N)] + [{"type": "C", "frame": i, "at": 2 * N - i} for i in reversed(range(N))]
print(json.dumps({"shared": {"frames": [{"name": "f%d" % i} for i in range(N)]},
	"profiles": [{"type": "evented", "name": "x", "unit": "nanoseconds", "startValue": 0, "endValue": 2 * N, "events": ev}]}))' > "$T/ev.json"
	run speedscope2spaa -o "$T/out" "$T/ev.json"
	assert_failure 1
	assert_output "speedscope2spaa: $T/ev.json:1: spans nested deeper than 4096 levels (the limit; --max-depth=N raises it)"
	[ ! -e "$T/out" ]
	run bounded 400 30 speedscope2spaa --max-depth=5000 -o "$T/out" "$T/ev.json"
	assert_success
	[ "$(spaa-fold "$T/out" | wc -l)" -eq 5000 ]
}

@test "duplicate keys (which JSON.parse takes the last of) and a startValue of 1e400: errors, never a profile of one of them or doubled" {
	bad() { printf '%s' "$1" > "$T/b.json"; run speedscope2spaa -o "$T/out" "$T/b.json"; assert_failure 1
		assert_output "speedscope2spaa: $T/b.json:$2"; [ ! -e "$T/out" ]; }
	F='"shared":{"frames":[{"name":"a"},{"name":"b"}]}'
	P='{"type":"sampled","unit":"none","samples":[[0,1]],"weights":[1]}'
	E='"events":[{"type":"O","frame":0,"at":1},{"type":"C","frame":0,"at":2}]'
	bad "{$F,\"profiles\":[$P],\"profiles\":[$P]}" '1: a second "profiles" array (byte 138)'
	bad "{\"profiles\":[$P],$F,\"profiles\":[$P]}" '1: a second "profiles" array (byte 138)'
	bad "{$F,\"name\":\"x\",\"name\":\"y\",\"profiles\":[$P]}" '1: a second "name" (byte 67)'
	bad "{$F,\"profiles\":[{\"type\":\"evented\",\"unit\":\"milliseconds\",$E,\"unit\":\"bytes\"}]}" \
		'1: a profile with "unit" twice (byte 179)'
	bad "{$F,\"profiles\":[{\"type\":\"evented\",\"unit\":\"milliseconds\",\"events\":[{\"type\":\"O\",\"frame\":0,\"at\":1,\"at\":5}]}]}" \
		'1: an event with "at" twice (byte 147)'
	bad "{\"shared\":{\"frames\":[{\"name\":\"a\",\"name\":\"b\"}]},\"profiles\":[$P]}" '1: frame 0 has "name" twice (byte 44)'
	bad "{$F,\"profiles\":[{\"type\":\"sampled\",\"unit\":\"milliseconds\",\"startValue\":1e400,\"samples\":[[0]],\"weights\":[1]}]}" \
		'1: startValue is not a finite number (byte 119)'
}

@test "profiles without a sample or an event: the no-stacks error (it wrote a profile without stacks, exit 0)" {
	printf '%s' '{"shared":{"frames":[]},"profiles":[{"type":"evented","unit":"none","events":[]},{"type":"sampled","unit":"none","samples":[],"weights":[]}]}' > "$T/e.json"
	run speedscope2spaa -o "$T/out" "$T/e.json"
	assert_failure 1
	assert_output "speedscope2spaa: $T/e.json: no stacks found: no profile has a sample or an event (no profile written)"
	[ ! -e "$T/out" ]
}

@test "a sample without frames: a stack of the frame (no frames), not an invalid stack of none" {
	printf '%s' '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","unit":"none","samples":[[],[0]],"weights":[3,1]}]}' > "$T/e.json"
	speedscope2spaa -o "$T/e.spaa" "$T/e.json"
	spaa-validate --strict "$T/e.spaa"
	run spaa-fold "$T/e.spaa"
	assert_output $'(no frames) 3\na 1'
}
