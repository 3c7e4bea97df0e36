#!/usr/bin/env bats
# any2spaa: every format recognised by content, converted byte for byte as
# the converter that reads it converts it (with its messages), several
# inputs merged as spaa-cat --merge; what an unknown input looked like.
load common

# any2spaa FILE and CONVERTER FILE: the same output and status, and the
# format recognised is WHAT (any2spaa --verbose)
same() {
	local conv=$1 file=$2 what=$3 want status
	want=$("$conv" "$file" 2>&1) && status=0 || status=$?
	run any2spaa "$file"
	assert_equal "$status" "$status"
	[ "$status" -eq 0 ] && assert_success || assert_failure "$status"
	assert_output "$want"
	run any2spaa --verbose -o /dev/null "$file"
	assert_line --index 0 "any2spaa: $file: $what: $conv"
}

@test "perf script text, DTrace, bpftrace and folded stacks: the converter's own output" {
	same perf2spaa "$EX/shapes.perf.txt" "'perf script' text"
	same perf2spaa "$EX/parser.perf.txt" "'perf script' text"
	same dtrace2spaa "$EX/dtrace-stacks.txt" "DTrace output"
	same bpftrace2spaa "$EX/bpftrace-stacks.txt" "bpftrace's printed maps"
	same folded2spaa "$EX/dd.folded" "folded stacks"
	same folded2spaa "$EX/ebpf-addrs.folded" "folded stacks"
}

@test "Chrome traces, V8 CPU and heap profiles, heap snapshots: chrome2spaa's output" {
	same chrome2spaa "$EX/chrome-trace.json.gz" "a Chrome performance trace with CPU profile events"
	same chrome2spaa "$D/chrome/cpuprofile.json" "a V8 CPU profile (.cpuprofile)"
	same chrome2spaa "$D/chrome/heap-snapshot.heapsnapshot.json" "a V8 heap snapshot (.heapsnapshot/.heaptimeline)"
	same chrome2spaa "$D/chrome/heap-timeline.heaptimeline.json" "a V8 heap snapshot (.heapsnapshot/.heaptimeline)"
	command -v node >/dev/null || skip "node not installed"
	(cd "$T" && node --cpu-prof --cpu-prof-name=app.cpuprofile -e \
		'function f(n) { return n < 2 ? n : f(n - 1) + f(n - 2); } f(25);')
	(cd "$T" && node --heap-prof --heap-prof-name=grow.heapprofile --heap-prof-interval=4096 -e \
		'const keep = []; for (let i = 0; i < 20000; i++) keep.push({ a: i, b: "x" + i });')
	same chrome2spaa "$T/app.cpuprofile" "a V8 CPU profile (.cpuprofile)"
	same chrome2spaa "$T/grow.heapprofile" "a V8 sampling heap profile (.heapprofile)"
}

@test "pprof (proto, gzip) and legacy text heap profiles, heaptrack: the converter's output" {
	same pprof2spaa "$EX/go-cpu.pprof" "a pprof profile (profile.proto)"
	same pprof2spaa "$EX/go-heap.pprof" "a pprof profile (profile.proto)"
	gzip -dc "$EX/go-cpu.pprof" > "$T/plain.pb"
	same pprof2spaa "$T/plain.pb" "a pprof profile (profile.proto)"
	same pprof2spaa "$EX/tcmalloc.heap" "a tcmalloc/jemalloc heap profile (text)"
	same pprof2spaa "$D/pprof/jemalloc.heap" "a tcmalloc/jemalloc heap profile (text)"
	same heaptrack2spaa "$EX/heap.heaptrack.zst" "a heaptrack data file"
}

@test "spall JSON and binary, SPX, AFPerf, speedscope: the converter's output" {
	same spall2spaa "$EX/small-trace.json" "a JSON trace of spans (Chrome trace event format)"
	same spall2spaa "$EX/small-trace.spall" "a binary spall trace"
	same spall2spaa "$D/spall/advanced_threads_n5.spall" "a binary spall trace"
	same spx2spaa "$EX/spx-small.json" "an SPX report"
	same spx2spaa "$EX/spx-small.txt.gz" "an SPX report"
	same afperf2spaa "$EX/basic.afperf" "an AFPerf file"
	same speedscope2spaa "$D/speedscope/sampled-0.1.2.json" "a speedscope file"
	same speedscope2spaa "$D/speedscope/evented-0.0.1.json" "a speedscope file"
	same speedscope2spaa "$D/speedscope/two-sampled-0.6.0.json" "a speedscope file"
}

@test "Ruby stackprof, valgrind massif, DHAT and callgrind: the converter's output" {
	same stackprof2spaa "$EX/stackprof-cpu.json" "a Ruby stackprof profile (JSON)"
	same valgrind2spaa "$EX/massif.out" "valgrind massif output"
	same valgrind2spaa "$EX/dhat.out" "valgrind DHAT output"
	same valgrind2spaa "$EX/callgrind.out" "valgrind callgrind output"
	same valgrind2spaa "$D/valgrind/callgrind.multiple-event-types.txt" "valgrind callgrind output"
}

@test "perf.data goes to perf2spaa; SPAA is copied unchanged" {
	command -v perf >/dev/null || skip "perf not installed"
	perf record -q -o "$T/perf.data" -e cpu-clock -g -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' \
		2>/dev/null || skip "perf record not allowed here"
	same perf2spaa "$T/perf.data" "a perf.data file"
	# one line, not a warning per NUL byte (until perf2spaa reads perf.data)
	run perf2spaa "$T/perf.data"
	[ "${#lines[@]}" -eq 1 ] || [ "$status" -eq 0 ]
	run any2spaa "$EX/perf-cpu.spaa"
	assert_success
	assert_output "$(cat "$EX/perf-cpu.spaa")"
	run any2spaa --verbose -o "$T/copy.spaa" "$EX/memory.spaa"
	assert_output "any2spaa: $EX/memory.spaa: SPAA: copied (SPAA)"
	cmp "$T/copy.spaa" "$EX/memory.spaa"
}

@test "standard input, compressed input, and --format" {
	run sh -c "zstd -qc '$EX/dd.folded' | any2spaa"
	assert_success
	assert_output "$(folded2spaa "$EX/dd.folded")"
	run sh -c "any2spaa --format=folded - < '$EX/dd.folded' | spaa-fold"
	assert_output "$(folded2spaa "$EX/dd.folded" | spaa-fold)"
	# a V8 profile forced as a format it is not: chrome2spaa says so
	run any2spaa --format=heapprofile "$D/chrome/cpuprofile.json"
	assert_failure 1
	assert_output --partial "chrome2spaa: $D/chrome/cpuprofile.json"
	run any2spaa --format=pdf "$EX/dd.folded"
	assert_failure 2
	assert_output "any2spaa: --format: unknown format 'pdf' (any2spaa --help lists them)
Try 'any2spaa --help' for more information."
}

@test "several inputs, of one format or several, are merged as spaa-cat --merge" {
	pprof2spaa "$EX/go-cpu.pprof" > "$T/1.spaa"
	heaptrack2spaa "$EX/heap.heaptrack.zst" > "$T/2.spaa"
	pprof2spaa "$EX/go-heap.pprof" > "$T/3.spaa"
	run any2spaa "$EX/go-cpu.pprof" "$EX/heap.heaptrack.zst" "$EX/go-heap.pprof"
	assert_success
	assert_output "$(spaa-cat --merge "$T/1.spaa" "$T/2.spaa" "$T/3.spaa")"
	run any2spaa -o "$T/out.spaa" "$EX/go-cpu.pprof" "$EX/app.js"
	assert_failure 1
	[ ! -e "$T/out.spaa" ]
}

@test "an unknown input says what it looked like; an empty one is empty" {
	run any2spaa "$EX/flamegraph.png"
	assert_failure 1
	assert_output "any2spaa: $EX/flamegraph.png: not a profile any converter here reads: it looks like binary data (first bytes 89 50 4e 47 0d 0a 1a 0a) (--format=NAME reads it as NAME; any2spaa --help lists the formats)"
	run any2spaa "$EX/kallsyms.txt"
	assert_failure 1
	assert_output "any2spaa: $EX/kallsyms.txt: not a profile any converter here reads: it looks like text whose first line is \"ffffffff81000000 T _stext\" (--format=NAME reads it as NAME; any2spaa --help lists the formats)"
	run sh -c 'echo "{\"a\": 1}" | any2spaa'
	assert_failure 1
	assert_output "any2spaa: -: not a profile any converter here reads: it looks like JSON: an object with none of the keys of a profile (nodes, head, snapshot, traceEvents, enabled_metrics) (--format=NAME reads it as NAME; any2spaa --help lists the formats)"
	run any2spaa /dev/null
	assert_failure 1
	assert_output "any2spaa: /dev/null: empty input: no profile written"
}

@test "converters handed another format name the command that reads it" {
	run pprof2spaa "$EX/dd.folded"
	assert_failure 1
	assert_output "pprof2spaa: $EX/dd.folded: this is folded stacks, not a pprof profile: run folded2spaa"
	run perf2spaa "$D/chrome/cpuprofile.json"
	assert_failure 1
	assert_output "perf2spaa: $D/chrome/cpuprofile.json: this is a V8 CPU profile (.cpuprofile), not 'perf script' text: run chrome2spaa"
	run folded2spaa "$EX/shapes.perf.txt"
	assert_failure 1
	assert_output "folded2spaa: $EX/shapes.perf.txt: this is 'perf script' text, not folded stacks: run perf2spaa"
	run chrome2spaa "$EX/parser.spaa"
	assert_failure 1
	assert_output "chrome2spaa: $EX/parser.spaa: this is SPAA already, not a Chrome or Node.js profile: no conversion needed"
	run dtrace2spaa "$EX/go-cpu.pprof"
	assert_failure 1
	assert_output "dtrace2spaa: $EX/go-cpu.pprof: this is a pprof profile (profile.proto), not DTrace output: run pprof2spaa"
	run bpftrace2spaa "$D/chrome/cpuprofile.json"
	assert_failure 1
	assert_output "bpftrace2spaa: $D/chrome/cpuprofile.json: this is a V8 CPU profile (.cpuprofile), not bpftrace's printed maps: run chrome2spaa"
	run afperf2spaa "$EX/parser.spaa"
	assert_failure 1
	assert_output "afperf2spaa: $EX/parser.spaa: this is SPAA already, not an AFPerf file: no conversion needed"
	run spall2spaa "$EX/heap.heaptrack.zst"
	assert_failure 1
	assert_output "spall2spaa: $EX/heap.heaptrack.zst: this is a heaptrack data file, not a spall or JSON trace: run heaptrack2spaa"
	run heaptrack2spaa "$EX/tcmalloc.heap"
	assert_failure 1
	assert_output "heaptrack2spaa: $EX/tcmalloc.heap: this is a tcmalloc/jemalloc heap profile (text), not a heaptrack data file: run pprof2spaa"
	run speedscope2spaa "$D/chrome/cpuprofile.json"
	assert_failure 1
	assert_output "speedscope2spaa: $D/chrome/cpuprofile.json: this is a V8 CPU profile (.cpuprofile), not a speedscope file: run chrome2spaa"
	# spall2spaa reads the spans of a Chrome trace with CPU profile events too
	run spall2spaa -o /dev/null "$EX/chrome-trace.json.gz"
	assert_success
	# the filters read them in process (tests/readany.bats)
	run spaa-top "$D/chrome/cpuprofile.json"
	assert_success
	[ "$output" = "$(chrome2spaa "$D/chrome/cpuprofile.json" | spaa-top)" ]
	run spaa-fold "$EX/heap.heaptrack.zst"
	assert_success
	[ "$output" = "$(heaptrack2spaa "$EX/heap.heaptrack.zst" | spaa-fold)" ]
}

@test "--help lists every format --format takes, and the man page the same" {
	run sh -c "any2spaa --help | sed -n '/^Formats/,/^\$/p' | awk 'NR > 1 && NF { print \$1 }'"
	assert_success
	[ "${#lines[@]}" -eq 31 ]
	local name
	for name in "${lines[@]}"; do
		run any2spaa --format="$name" /dev/null
		assert_failure 1 # an empty file: the format was taken
		grep -q "^\.It Cm $name\$" "$SPAA_MANDIR/any2spaa.1" || fail "any2spaa(1) does not list $name"
	done
}

@test "Firefox Profiler profiles (Gecko, devtools wrapper gzipped, processed): gecko2spaa's output" {
	same gecko2spaa "$D/gecko/profiler-gecko-1.json" "a Firefox Profiler profile (JSON)"
	same gecko2spaa "$D/gecko/speedscope-59-firefox.json.gz" "a Firefox Profiler profile (JSON)"
	same gecko2spaa "$D/gecko/profiler-unsymbolicated.json" "a Firefox Profiler profile (JSON)"
}

@test "GHC profiles (text and JSON), Safari recordings, Hermes traces: the converter's output" {
	same ghcprof2spaa "$EX/ghc-binary-trees.prof" "a GHC cost-centre profile"
	same ghcprof2spaa "$D/speedscope-samples/simple.prof" "a GHC cost-centre profile"
	same safari2spaa "$EX/safari-recording.json" "a Safari timeline recording"
	same chrome2spaa "$D/speedscope-samples/simple-with-samples.json" "a Chrome performance trace with CPU profile events"
}

@test "any2spaa: a perf.data directory (perf record --threads) goes to perf2spaa; another directory is an error naming it, exit 1" {
	command -v perf >/dev/null || fail "perf is not installed (.ci/deps installs linux-perf)"
	perf record -q -N -g --threads -e cpu-clock -o "$T/d.data" -- \
		sh -c 'i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done' >/dev/null 2>&1 ||
		skip "perf cannot record here (perf_event_paranoid, or no perf events in this container)"
	any2spaa "$T/d.data" | cmp - <(perf2spaa "$T/d.data")
	mkdir "$T/empty"
	run any2spaa "$T/empty"
	assert_failure 1
	assert_output "any2spaa: $T/empty: not a profile any converter here reads: it looks like a directory (--format=NAME reads it as NAME; any2spaa --help lists the formats)"
}

# node-cpu.cpuprofile (node --cpu-prof: nanoseconds) and gzip.perf.data
# (perf record: seconds), real captures (tests/spaa-window.bats)
@test "any2spaa -s: the converter's sample records; inputs of different clocks merge in nanoseconds" {
	W=$BATS_TEST_DIRNAME/data/window
	run any2spaa -s "$W/node-cpu.cpuprofile"
	assert_success
	assert_output "$(chrome2spaa -s "$W/node-cpu.cpuprofile")"
	any2spaa -s "$W/node-cpu.cpuprofile" "$W/gzip.perf.data" > "$T/m.spaa"
	run sh -c 'head -n 1 "$1" | grep -o "\"time_range\":{[^}]*}"' sh "$T/m.spaa"
	assert_output '"time_range":{"start":12524574462000,"end":12529200154000,"unit":"nanoseconds"}'
	run sh -c 'grep -c "\"type\":\"sample\"" "$1"; grep "\"type\":\"sample\"" "$1" | sed -n "1p;\$p" | grep -o "\"timestamp\":[0-9]*"' sh "$T/m.spaa"
	assert_output '808
"timestamp":12524581532000
"timestamp":12529200154000'
	# windows of one duration across both: the node run, then gzip's
	run sh -c 'spaa-window --every 1s --list "$1" | cut -f 1-3' sh "$T/m.spaa"
	assert_output "$(printf 'start\tend\tweight\n+0s\t+1s\t993.07ms\n+1s\t+2s\t529.04ms\n+2s\t+3s\t0\n+3s\t+4s\t0\n+4s\t+4.625692s\t0')"
	run sh -c 'spaa-window --every 1s --list --event cpu-clock:pppH "$1" | cut -f 1-3 | tail -n 1' sh "$T/m.spaa"
	assert_output "$(printf '+4s\t+4.625692s\t232.46ms')"
	spaa-validate -q "$T/m.spaa"
	# pprof's wall clock and perf's: no "time_range unit seconds conflicts with unit nanoseconds"
	run sh -c 'any2spaa "$1" "$2" | head -n 1 | grep -o "\"time_range\":{[^}]*}"' sh "$EX/go-cpu.pprof" "$W/gzip.perf.data"
	assert_output '"time_range":{"start":12528785416000,"end":1795600668589979029,"unit":"nanoseconds"}'
	# a format without sample times
	run any2spaa -s "$EX/go-cpu.pprof"
	assert_failure 1
	assert_output "any2spaa: $EX/go-cpu.pprof: a pprof profile (profile.proto) has no sample times: -s writes sample records only for the formats whose converter takes -s (any2spaa(1) lists them)"
}
