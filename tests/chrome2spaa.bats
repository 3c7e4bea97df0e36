#!/usr/bin/env bats
load common

C=$D/chrome

# Every function's self and total of one metric, "self total name", from
# the conversion (spaa-top) and from the JSON itself (expect.py, which does
# not use the converter's code); rows that are zero both ways left out.
figures_match() { # FILE METRIC
	python3 "$C/expect.py" "$1" "$2" | LC_ALL=C sort > "$T/want"
	chrome2spaa "$1" | spaa-top -n 0 -J -m "$2" |
		jq -r 'select(.type == "row" and (.self != 0 or .total != 0)) | "\(.self) \(.total) \(.name)"' |
		LC_ALL=C sort > "$T/got"
	[ -s "$T/want" ]
	run diff "$T/want" "$T/got"
	assert_success
}

# Real profiles, made by Node.js and Chromium on this machine.
setup_file() {
	W=$BATS_FILE_TMPDIR
	export W
	command -v node >/dev/null || return 0
	cat > "$W/fib.js" <<'JS'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function work() { let s = 0; for (let i = 0; i < 30; i++) s += fib(22); return s; }
const t = Date.now(); let x = 0;
while (Date.now() - t < 300) x += work();
if (x < 0) console.log(x);
JS
	(cd "$W" && node --cpu-prof --cpu-prof-name=fib.cpuprofile fib.js)
	(cd "$W" && node --heap-prof --heap-prof-name=grow.heapprofile --heap-prof-interval=4096 -e \
		'const keep = []; function grow() { for (let i = 0; i < 20000; i++) keep.push({ a: i, b: "x" + i }); } grow();')
	(cd "$W" && node --track-heap-objects -e \
		'const v8 = require("v8"); class Leaky { constructor(i) { this.i = i; } } const keep = [];
		 function allocLeaky(n) { for (let i = 0; i < n; i++) keep.push(new Leaky(i)); }
		 allocLeaky(500); v8.writeHeapSnapshot("traced.heapsnapshot");')
	(cd "$W" && node -e 'require("v8").writeHeapSnapshot("plain.heapsnapshot")')
	# a heap timeline, as DevTools' "Allocation instrumentation on timeline"
	# records it: five phases of 300 Leaky objects, 120 ms apart
	cat > "$W/timeline.js" <<'JS'
const inspector = require('inspector'), fs = require('fs');
const s = new inspector.Session();
s.connect();
const chunks = [];
s.on('HeapProfiler.addHeapSnapshotChunk', (m) => chunks.push(m.params.chunk));
class Leaky { constructor(i) { this.i = i; this.tag = 'leak' + i; } }
globalThis.keep = [];
function phase(n) { for (let i = 0; i < n; i++) globalThis.keep.push(new Leaky(i)); }
s.post('HeapProfiler.startTrackingHeapObjects', { trackAllocations: true }, () => {
	let k = 0;
	const t = setInterval(() => {
		phase(300);
		if (++k === 5) {
			clearInterval(t);
			s.post('HeapProfiler.stopTrackingHeapObjects', { reportProgress: false },
				() => fs.writeFileSync('app.heaptimeline', chunks.join('')));
		}
	}, 120);
});
JS
	(cd "$W" && node timeline.js)
	if command -v chromium >/dev/null; then
		cat > "$W/burn.html" <<'HTML'
<html><body><script>
function fibo(n) { return n < 2 ? n : fibo(n - 1) + fibo(n - 2); }
function burn() { const t = performance.now(); let x = 0; while (performance.now() - t < 300) x += fibo(20); document.title = "done " + x; }
burn();
</script></body></html>
HTML
		timeout 120 chromium --headless=new --no-sandbox --disable-gpu --no-first-run \
			--trace-startup=v8,disabled-by-default-v8.cpu_profiler --trace-startup-format=json \
			--trace-startup-file="$W/trace.json" --trace-startup-duration=3 \
			--dump-dom "file://$W/burn.html" >/dev/null 2>&1 || true
	fi
}

need_node() {
	command -v node >/dev/null || fail "node is not installed (.ci/deps installs nodejs)"
}

@test "a .cpuprofile: stacks with time to the next sample, frames with 1-based positions" {
	run chrome2spaa "$C/cpuprofile.json"
	assert_success
	assert_line --index 0 '{"type":"header","format":"spaa","version":"1.0","source_tool":"chrome","frame_order":"leaf_to_root","events":[{"name":"cpu","kind":"timer","sampling":{"mode":"period","primary_metric":"wall_us"}}],"time_range":{"start":1000000000,"end":2000000000,"unit":"nanoseconds"},"source":{"tool":"chrome","format":"cpuprofile"},"stack_id_mode":"content_addressable"}'
	assert_line '{"type":"frame","id":3,"func":"main","dso":2,"srcline":"app.js:11:1","kind":"user","x_kind":"js"}'
	assert_line '{"type":"frame","id":2,"func":"(program)","dso":1,"kind":"user","x_kind":"program"}'
	run sh -c "chrome2spaa '$C/cpuprofile.json' | spaa-fold"
	assert_output "(root);(program);main 200000
(root);(program);main;computeHash 200000
(root);(program);main;processData 500000"
	run sh -c "chrome2spaa '$C/cpuprofile.json' | spaa-fold -m samples"
	assert_output "(root);(program);main 2
(root);(program);main;computeHash 3
(root);(program);main;processData 5"
	run sh -c "chrome2spaa '$C/cpuprofile.json' | spaa-validate --strict"
	assert_success
	figures_match "$C/cpuprofile.json" wall_us
	figures_match "$C/cpuprofile.json" samples
}

@test "an empty function name is (anonymous); an empty url is the dso (program)" {
	run sh -c "chrome2spaa '$C/cpuprofile-anonymous.json' | grep '\"type\":\"frame\"'"
	assert_line '{"type":"frame","id":2,"func":"(anonymous)","dso":2,"srcline":"app.js:6","kind":"user","x_kind":"js"}'
	run sh -c "chrome2spaa '$C/cpuprofile-no-url.json' | grep -c '\"name\":\"(program)\"'"
	assert_output 1
	run sh -c "chrome2spaa '$C/cpuprofile-no-url.json' | spaa-fold -m samples"
	assert_output "(root);native 1"
}

@test "a profile without samples is an error, not an empty profile" {
	run chrome2spaa "$C/cpuprofile-no-samples.json"
	assert_failure 1
	assert_output "chrome2spaa: $C/cpuprofile-no-samples.json: no stacks found: a CPU profile without samples (no profile written)"
}

@test "a trace: Profile and ProfileChunk events, nodes with parents across chunks, pid and tid kept" {
	run sh -c "chrome2spaa '$C/trace-profilechunks.json' | spaa-fold -m samples --pid"
	assert_output "[unknown]-1;(root);main 3
[unknown]-1;(root);main;helper 2"
	run sh -c "chrome2spaa '$C/trace-profilechunks.json' | spaa-fold"
	assert_output "(root);main 30000
(root);main;helper 10000"
	figures_match "$C/trace-profilechunks.json" wall_us
	figures_match "$C/trace-profilechunks.json" samples
	run sh -c "chrome2spaa '$C/trace-profilechunks.json' | spaa-validate --strict"
	assert_success
}

@test "--samples: one sample record per sample, at its time in nanoseconds, for spaa-window" {
	run sh -c "chrome2spaa -s '$C/cpuprofile.json' | jq -c 'select(.type == \"sample\") | .timestamp'"
	assert_output "$(seq 1100000000 100000000 2000000000)"
	run sh -c "chrome2spaa -s '$C/cpuprofile.json' | spaa-validate --strict"
	assert_success
	run sh -c "chrome2spaa -s '$C/cpuprofile.json' | spaa-window --every 500000000 | spaa-fold -m samples --all-events"
	assert_success
}

@test "a heap snapshot with allocation traces: alloc and live bytes and counts per trace node" {
	run sh -c "chrome2spaa '$C/heap-snapshot.heapsnapshot.json' | spaa-fold"
	assert_output "(root);allocateBuffer 1000
(root);allocateBuffer;processData 5000"
	run sh -c "chrome2spaa '$C/heap-snapshot.heapsnapshot.json' | spaa-fold -m live_bytes"
	assert_output "(root);allocateBuffer 200"
	run sh -c "chrome2spaa '$C/heap-timeline.heaptimeline.json' | spaa-fold -m live_count"
	assert_output "(root);allocateBuffer 1
(root);allocateBuffer;processData 1"
	run sh -c "chrome2spaa '$C/heap-timeline.heaptimeline.json' | spaa-validate --strict"
	assert_success
}

@test "a real node --cpu-prof profile: fib dominates, figures equal the JSON's own" {
	need_node
	figures_match "$W/fib.cpuprofile" wall_us
	figures_match "$W/fib.cpuprofile" samples
	run sh -c "chrome2spaa '$W/fib.cpuprofile' | spaa-top -n 1 -J | jq -r 'select(.type == \"row\") | .name'"
	assert_output fib
	run sh -c "chrome2spaa -s '$W/fib.cpuprofile' | jq -c 'select(.type == \"sample\")' | wc -l"
	assert_output "$(jq '.samples | length' "$W/fib.cpuprofile")"
	run sh -c "chrome2spaa -s '$W/fib.cpuprofile' | spaa-validate --strict"
	assert_success
}

@test "a real node --heap-prof profile: bytes and samples per function equal the JSON's own" {
	need_node
	figures_match "$W/grow.heapprofile" alloc_bytes
	figures_match "$W/grow.heapprofile" alloc_count
	run sh -c "chrome2spaa '$W/grow.heapprofile' | spaa-top -n 1 -J | jq -r 'select(.type == \"row\") | .name'"
	assert_output grow
}

@test "a real snapshot of node --track-heap-objects: every allocation metric equals the JSON's own" {
	need_node
	local m
	for m in alloc_bytes alloc_count live_bytes live_count; do
		figures_match "$W/traced.heapsnapshot" $m
	done
	# 500 Leaky objects allocated in allocLeaky, all still live
	run sh -c "chrome2spaa '$W/traced.heapsnapshot' | spaa-top -n 0 -J -m live_count | jq -r 'select(.type == \"row\" and .name == \"allocLeaky\") | .total >= 500'"
	assert_output true
	run sh -c "chrome2spaa '$W/traced.heapsnapshot' | spaa-validate --strict"
	assert_success
}

@test "a heap timeline with --samples: a window per interval between its samples, ids placing each object" {
	# the corpus timeline with its objects' ids moved: 120 is after the first
	# sample's last id (100), 180 after the second's (150), 260 after the last
	jq -c '.nodes = [0,0,1,100,1,0,0, 3,1,120,200,0,1,0, 3,2,180,300,1,2,0, 3,2,260,400,0,2,0]' \
		"$C/heap-timeline.heaptimeline.json" > "$T/tl.heaptimeline"
	chrome2spaa -s "$T/tl.heaptimeline" > "$T/out"
	run spaa-validate --strict -q "$T/out"
	assert_success
	run jq -c 'select(.type == "window") | [.id, .start, .end, .unit, [.by_stack[] | [.weights[].value]]]' "$T/out"
	assert_output '["w1",1000000000,2000000000,"nanoseconds",[[200,1]]]
["w2",2000000000,3000000000,"nanoseconds",[[300,1]]]
["w3",3000000000,4000000000,"nanoseconds",[]]'
	run jq -c 'select(.type == "header") | .time_range' "$T/out"
	assert_output '{"start":1000000000,"end":4000000000,"unit":"nanoseconds"}'
	# the window entries name stacks of the file; without -s, no windows
	run sh -c "jq -r 'select(.type == \"window\") | .by_stack[].stack_id' '$T/out' | while read -r id; do grep -c \"\\\"id\\\":\\\"\$id\\\"\" '$T/out'; done | sort -u"
	assert_output 1
	run sh -c "chrome2spaa '$T/tl.heaptimeline' | grep -c '\"window\"'"
	assert_output 0
}

@test "a real heap timeline (node's inspector): the windows' live objects as the JSON counts them" {
	need_node
	python3 "$C/timeline.py" "$W/app.heaptimeline" > "$T/want"
	chrome2spaa -s "$W/app.heaptimeline" > "$T/out"
	run spaa-validate --strict -q "$T/out"
	assert_success
	jq -r 'select(.type == "window") | [(.id[1:] | tonumber), .start, .end,
		([.by_stack[].weights[0].value] | add // 0), ([.by_stack[].weights[1].value] | add // 0)] | @tsv' "$T/out" |
		tr '\t' ' ' > "$T/got"
	[ "$(wc -l < "$T/want")" -ge 5 ]
	run diff "$T/want" "$T/got"
	assert_success
	# five phases of 300 Leaky objects, each with its string: at least
	# 3000 live objects in the windows
	[ "$(awk '{ n += $5 } END { print n }' "$T/got")" -ge 3000 ]
}

@test "a snapshot without allocation traces says how to record one" {
	need_node
	run chrome2spaa "$W/plain.heapsnapshot"
	assert_failure 1
	assert_output "chrome2spaa: $W/plain.heapsnapshot: no stacks found: a heap snapshot without allocation traces; record one with 'node --track-heap-objects' or DevTools' \"Allocation instrumentation on timeline\", or compare two snapshots with spaa-heapdiff (no profile written)"
}

@test "a real Chromium trace: every renderer's profile keeps its thread; fibo burns the CPU" {
	command -v chromium >/dev/null || fail "chromium is not installed (.ci/deps installs it)"
	[ -s "$W/trace.json" ] || fail "chromium wrote no trace"
	figures_match "$W/trace.json" wall_us
	figures_match "$W/trace.json" samples
	run sh -c "chrome2spaa '$W/trace.json' | spaa-grep -v -e '^\\(idle\\)\$' | spaa-top -n 1 -J | jq -r 'select(.type == \"row\") | .name'"
	assert_output fibo
	run sh -c "chrome2spaa '$W/trace.json' | jq -r 'select(.type == \"thread\") | .comm' | sort -u"
	assert_line CrRendererMain
	run sh -c "chrome2spaa '$W/trace.json' | spaa-validate --strict"
	assert_success
}

@test "a trace without CPU profile events points to spall2spaa" {
	printf '[{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1}]\n' > "$T/spans.json"
	run chrome2spaa "$T/spans.json"
	assert_failure 1
	assert_output "chrome2spaa: $T/spans.json: no stacks found: 1 trace event, none of them a CPU profile (Profile, ProfileChunk) and no samples; record with the disabled-by-default-v8.cpu_profiler category, or convert spans (B, E, X) with spall2spaa (no profile written)"
}

@test "the format is found by content, whatever the member order; --format forces one" {
	jq -c '{timeDeltas, samples, endTime, startTime, nodes}' "$C/cpuprofile.json" > "$T/reordered"
	run sh -c "chrome2spaa '$T/reordered' | spaa-fold"
	assert_output "$(chrome2spaa "$C/cpuprofile.json" | spaa-fold)"
	run sh -c "gzip -c '$C/cpuprofile.json' | chrome2spaa --format=cpuprofile | spaa-fold -m samples | wc -l"
	assert_output 3
	run chrome2spaa --format=trace "$C/cpuprofile.json"
	assert_failure 1
	run chrome2spaa --format=pdf "$C/cpuprofile.json"
	assert_failure 2
	assert_line --index 0 "chrome2spaa: --format: unknown format 'pdf' (trace, cpuprofile, heapprofile or heapsnapshot)"
}

@test "bad input: exact messages, exit 1" {
	: > "$T/empty"
	run chrome2spaa "$T/empty"
	assert_failure 1
	assert_output "chrome2spaa: $T/empty: empty input: no profile written"
	echo '{"x":1}' > "$T/other"
	run chrome2spaa "$T/other"
	assert_failure 1
	assert_output "chrome2spaa: $T/other: not a Chrome or Node.js profile: none of traceEvents, nodes, head or snapshot (--format names the format)"
	head -c 1500 "$C/cpuprofile.json" > "$T/cut"
	run chrome2spaa "$T/cut"
	assert_failure 1
	assert_output --partial "chrome2spaa: $T/cut:"
	assert_output --partial "truncated"
	jq -c '.samples += [3]' "$C/cpuprofile.json" > "$T/more"
	run chrome2spaa "$T/more"
	assert_failure 1
	assert_output "chrome2spaa: $T/more:1: 11 samples but 10 timeDeltas (byte 859)"
	jq -c '.samples[0] = 99' "$C/cpuprofile.json" > "$T/unknown"
	run chrome2spaa "$T/unknown"
	assert_failure 1
	assert_output "chrome2spaa: $T/unknown: profile node 99 is used but never defined"
	jq -c '.nodes[2].children = [4, 5, 1]' "$C/cpuprofile.json" > "$T/cycle"
	run chrome2spaa "$T/cycle"
	assert_failure 1
	assert_output "chrome2spaa: $T/cycle: profile node 3 is its own ancestor (a cycle of parents)"
	run chrome2spaa --max-depth=2 "$C/cpuprofile.json"
	assert_failure 1
	assert_output "chrome2spaa: $C/cpuprofile.json: the path of profile node 3 is deeper than 2 (--max-depth)"
}

@test "usage: several files merged as spaa-cat --merge; -o writes atomically; --help and --version" {
	chrome2spaa "$C/cpuprofile.json" > "$T/1.spaa"
	chrome2spaa "$C/trace-profilechunks.json" > "$T/2.spaa"
	run chrome2spaa "$C/cpuprofile.json" "$C/trace-profilechunks.json"
	assert_success
	assert_output "$(spaa-cat --merge "$T/1.spaa" "$T/2.spaa")"
	run chrome2spaa -o "$T/out.spaa" "$C/cpuprofile.json" "$T/missing.json"
	assert_failure 1
	assert_output "chrome2spaa: $T/missing.json: No such file or directory"
	[ ! -e "$T/out.spaa" ]
	run sh -c "cat '$C/cpuprofile.json' | chrome2spaa - '$C/cpuprofile.json' | spaa-top -n 1 -m samples | head -n 1"
	assert_success
	run chrome2spaa -o "$T/out.spaa.zst" "$C/cpuprofile.json"
	assert_success
	assert_output ""
	run sh -c "zstd -dc '$T/out.spaa.zst' | spaa-validate --strict"
	assert_success
	run chrome2spaa --help
	assert_success
	assert_line --index 0 "Usage: chrome2spaa [OPTION]... [FILE]..."
	run chrome2spaa -V
	assert_success
}

@test "deep trees are bounded by --max-depth, not by the C stack" {
	# a trace tree and a heap profile 100,000 calls deep (the readers once
	# recursed, and such a file crashed them with --max-depth=1000000)
	python3 - "$C/heap-snapshot.heapsnapshot.json" "$T" <<'PY'
import json, sys
n = 100000
d = json.load(open(sys.argv[1]))
d["trace_tree"] = "@@"
tree = "".join("[%d,1,0,0," % (i + 1) for i in range(n)) + "[%d,1,1,8,[]]" % (n + 1) + "]" * n
open(sys.argv[2] + "/deep.heapsnapshot", "w").write(json.dumps(d).replace('"@@"', tree))
node = lambda i, kids: '{"callFrame":{"functionName":"f","url":"a.js","lineNumber":1,"columnNumber":1},"selfSize":%d,"id":%d,"children":[%s' % (8 if i == n else 0, i + 1, kids)
open(sys.argv[2] + "/deep.heapprofile", "w").write("{\"head\":" + "".join(node(i, "") for i in range(n + 1)) + "]}" * (n + 1) + ",\"samples\":[]}")
PY
	run chrome2spaa "$T/deep.heapsnapshot"
	assert_failure 1
	assert_output --partial "the allocation trace tree is deeper than 10000 (--max-depth)"
	run chrome2spaa --max-depth=1000000 "$T/deep.heapsnapshot"
	assert_success
	# the deepest stack (the snapshot's live objects weigh on two others)
	run sh -c "chrome2spaa --max-depth=1000000 --max-frames=1000000 '$T/deep.heapsnapshot' | jq -sc 'map(select(.type == \"stack\")) | max_by(.frames | length) | [(.frames | length), .weights[0].value]'"
	assert_output '[100001,8]'
	run chrome2spaa "$T/deep.heapprofile"
	assert_failure 1
	assert_output --partial "the call tree is deeper than 10000 (--max-depth)"
	run sh -c "chrome2spaa --max-depth=1000000 --max-frames=1000000 '$T/deep.heapprofile' | jq -c 'select(.type == \"stack\") | [(.frames | length), .weights[0].value]'"
	assert_output '[100001,8]'
}

# Reproducers of issue 20, kept in fuzz/crashes/ for the sanitizer replay too.
FZ=$BATS_TEST_DIRNAME/../fuzz/crashes/chrome2spaa

@test "times beyond 64 bits: an error with file and position, never a wrapped (undefined) difference" {
	run chrome2spaa "$FZ/time-int64-min-max.cpuprofile"
	assert_failure 1
	assert_output "chrome2spaa: $FZ/time-int64-min-max.cpuprofile:64: startTime -9223372036854775808 is beyond the nanosecond range of 64 bits (byte 2142)"
	run chrome2spaa "$FZ/time-delta-overflow.cpuprofile"
	assert_failure 1
	assert_output "chrome2spaa: $FZ/time-delta-overflow.cpuprofile:1: a sample time (the sum of the timeDeltas so far) -9223372036854775807 is beyond the nanosecond range of 64 bits (byte 874)"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["timeDeltas"] = [9223372036854775, 9223372036854775807] + d["timeDeltas"][2:]; print(json.dumps(d))' \
		"$C/cpuprofile.json" > "$T/sum"
	run chrome2spaa "$T/sum"
	assert_failure 1
	assert_output "chrome2spaa: $T/sum:1: the sum of the timeDeltas so far overflows 64 bits (byte 992)"
}

@test "a pid or tid that is a string of no integer or beyond 64 bits is refused, never made 0; a string of digits is read (Hermes writes them)" {
	sed 's/"pid":"1"/"pid":"one"/' "$FZ/pid-string.json" > "$T/pid-word.json"
	run chrome2spaa "$T/pid-word.json"
	assert_failure 1
	assert_output "chrome2spaa: $T/pid-word.json:1: a trace event whose pid is not an integer in 64-bit range (byte 158)"
	run sh -c "chrome2spaa '$FZ/pid-string.json' | spaa-fold --tid"
	assert_success
	assert_line --index 0 "[unknown]-1/1;(root);main 30000"
	run chrome2spaa "$FZ/tid-2p64.json"
	assert_failure 1
	assert_output "chrome2spaa: $FZ/tid-2p64.json:15: a trace event whose tid is not an integer in 64-bit range (byte 477)"
}

@test "a snapshot whose strings come before its meta is read (member order is free)" {
	run chrome2spaa "$FZ/strings-first.heapsnapshot"
	assert_success
	chrome2spaa "$C/heap-snapshot.heapsnapshot.json" > "$T/want"
	chrome2spaa "$FZ/strings-first.heapsnapshot" > "$T/got"
	run cmp "$T/want" "$T/got"
	assert_success
	# its nodes first: a snapshot still (not a CPU profile), whose meta is wanted first
	run chrome2spaa "$FZ/nodes-first.heapsnapshot"
	assert_failure 1
	assert_output "chrome2spaa: $FZ/nodes-first.heapsnapshot:1: the snapshot's arrays come before its meta (\"snapshot\") (byte 10)"
}

@test "a deep and wide trace tree: stacks cut at --max-frames, said on stderr; time and memory follow the nodes" {
	# a chain 9,000 deep with 5,000 leaves under it, each its own function
	# (374 MB and 178 MB of output once)
	python3 - "$C/heap-snapshot.heapsnapshot.json" "$T/wide.heapsnapshot" <<'PY'
import json, sys
depth, leaves = 9000, 5000
d = json.load(open(sys.argv[1]))
d["trace_function_infos"] = [x for i in range(depth + 1) for x in (i, 1, 2, 1, i + 1, 1)] + \
    [x for k in range(leaves) for x in (depth + 1 + k, 3, 2, 1, k + 1, 2)]
d["trace_tree"] = "@@"
leaf = ",".join("%d,%d,1,8,[]" % (depth + 2 + k, depth + 1 + k) for k in range(leaves))
tree = "".join("[%d,%d,0,0," % (i + 1, i) for i in range(depth)) + "[" + leaf + "]" + "]" * depth
d["nodes"] = []
open(sys.argv[2], "w").write(json.dumps(d).replace('"@@"', tree))
PY
	run bounded 256 10 chrome2spaa -o "$T/out.spaa" "$T/wide.heapsnapshot"
	assert_success
	assert_output "chrome2spaa: $T/wide.heapsnapshot: 5000 stacks of more than 512 frames: cut to the 512 innermost under [truncated] (--max-frames)"
	run sh -c "jq -c 'select(.type == \"stack\") | .frames | length' '$T/out.spaa' | sort -n | uniq -c | tail -n 1"
	assert_output "   5000 513"
	# (spaa-fold joins them: same names, other lines)
	run sh -c "spaa-fold '$T/out.spaa' | grep '^\[truncated\];allocateBuffer;' | awk '{ print \$NF }'"
	assert_output 40000
	run chrome2spaa --max-frames=0 "$T/wide.heapsnapshot"
	assert_failure 2
	assert_line --index 0 "chrome2spaa: --max-frames: '0' is not from 1 to 1000000"
}

@test "one JSON value is held whole: at most --max-size bytes of it, an error naming the file beyond" {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["nodes"][1]["callFrame"]["functionName"] = "x" * 3000000; print(json.dumps(d))' \
		"$C/cpuprofile.json" > "$T/big.json"
	run chrome2spaa --max-size=2M "$T/big.json"
	assert_failure 1
	assert_output "chrome2spaa: $T/big.json: a JSON value of more than 2097152 bytes (decompressed), the limit (--max-size=BYTES raises it)"
	run chrome2spaa -o /dev/null "$T/big.json"
	assert_success
}

@test "a NUL in a name (\\u0000) is written as U+FFFD, as every reader reads it: spaa-fold shows it whole, spaa-cat --merge keeps the ids (issue 20)" {
	cat > "$T/nul.cpuprofile" <<-'EOF2'
	{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2]},{"id":2,"callFrame":{"functionName":"main","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":1},"hitCount":0,"children":[3]},{"id":3,"callFrame":{"functionName":"le\u0000af","scriptId":"1","url":"a.js","lineNumber":2,"columnNumber":1},"hitCount":5}],"startTime":0,"endTime":1000,"samples":[3,3],"timeDeltas":[0,500]}
	EOF2
	chrome2spaa -o "$T/nul.spaa" "$T/nul.cpuprofile"
	run grep '"id":3,' "$T/nul.spaa"
	assert_output "$(printf '{"type":"frame","id":3,"func":"le\357\277\275af","dso":2,"srcline":"a.js:3:2","kind":"user","x_kind":"js"}')"
	run spaa-fold "$T/nul.spaa"
	assert_output "$(printf '(root);main;le\357\277\275af 1000')"
	assert_equal "$(spaa-cat --merge "$T/nul.spaa" | grep -o '"stack","id":"[^"]*"')" "$(grep -o '"stack","id":"[^"]*"' "$T/nul.spaa")"
	run spaa-validate --verbose "$T/nul.spaa"
	assert_success
	assert_output "$T/nul.spaa: valid: 1 header, 2 dso, 3 frame, 0 thread, 1 stack, 0 sample, 0 window, 0 other; 0 errors, 0 warnings"
}

# ---- a trace's own samples and stackFrames (Hermes) ----------------------------
# speedscope's sample files (tests/data/speedscope-samples/README.md); the
# figures are those of speedscope's importer, its snapshot
# src/import/__snapshots__/trace-event.test.ts.snap (microseconds).
H=$D/speedscope-samples

rows() { # METRIC: "self total name" per function of the SPAA on stdin
	spaa-top -n 0 --json -m "$1" | jq -r 'select(.type == "row") | "\(.self) \(.total) \(.name)"' | LC_ALL=C sort
}

@test "Hermes: a trace's samples and stackFrames, each function's self and total time as speedscope's importer gives them" {
	chrome2spaa "$H/simple-with-samples.json" | rows wall_us > "$T/got"
	U='http://localhost:8081/index.bundle?platform=android&dev=false&minify=false&app=org.toshi&modulesOnly=false&runModule=true'
	LC_ALL=C sort > "$T/want" <<-EOF
	30779 64710 [root]
	13326 13326 function1($U:1:1)
	0 10605 function2($U:418874:4)
	10605 10605 function3($U:17:3)
	10000 10000 [GC Young Gen]
	EOF
	run diff "$T/want" "$T/got"
	assert_success
	# samples: every sample counts its weight (1 each here), the last too
	run sh -c "chrome2spaa '$H/simple-with-samples.json' | spaa-top -n 0 --json -m samples | jq -r 'select(.type == \"summary\") | .total'"
	assert_output 7
	chrome2spaa "$H/simple-with-samples.json" | spaa-validate --strict
}

@test "Hermes: one profile per thread, named by the thread_name metadata; pids and tids written as strings" {
	run sh -c "chrome2spaa '$H/multi-thread-with-samples.json' | spaa-fold -m wall_us --tid"
	assert_success
	assert_output - <<-'EOF'
	[unknown]-7512/2;[root thread 2] 30770
	[unknown]-7512/2;[root thread 2];function3 13326
	[unknown]-7512/2;[root thread 2];function4 10000
	mqt_js-7512/1;[root] 20770
	mqt_js-7512/1;[root];function1 13326
	EOF
	run sh -c "chrome2spaa '$H/multi-thread-with-samples.json' | grep -v '\"stack\"'"
	assert_output - <<-'EOF'
	{"type":"header","format":"spaa","version":"1.0","source_tool":"chrome","frame_order":"leaf_to_root","events":[{"name":"cpu","kind":"timer","sampling":{"mode":"period","primary_metric":"wall_us"}}],"time_range":{"start":11552125241000,"end":11552179337000,"unit":"nanoseconds"},"source":{"tool":"chrome","format":"trace"},"stack_id_mode":"content_addressable"}
	{"type":"dso","id":1,"name":"root","is_kernel":false}
	{"type":"dso","id":2,"name":"JavaScript","is_kernel":false}
	{"type":"dso","id":3,"name":"Metadata","is_kernel":false}
	{"type":"frame","id":1,"func":"[root]","dso":1,"kind":"user","x_kind":"root"}
	{"type":"frame","id":2,"func":"function1","dso":2,"kind":"user","x_kind":"js"}
	{"type":"frame","id":3,"func":"[GC Young Gen]","dso":3,"kind":"user","x_kind":"gc"}
	{"type":"frame","id":4,"func":"[root thread 2]","dso":1,"kind":"user","x_kind":"root"}
	{"type":"frame","id":5,"func":"function3","dso":2,"kind":"user","x_kind":"js"}
	{"type":"frame","id":6,"func":"function4","dso":3,"kind":"user","x_kind":"native"}
	{"type":"thread","pid":7512,"tid":1,"comm":"mqt_js"}
	{"type":"thread","pid":7512,"tid":2}
	EOF
}

@test "Hermes: the figures of any trace with samples are those of an independent reading (python)" {
	# the sample files, and the same reordered: stackFrames first, the
	# object opening with samples, ids as numbers, weights of 3
	jq -c '{stackFrames, samples, traceEvents}' "$H/simple-with-samples.json" > "$T/frames-first.json"
	jq -c '{samples, traceEvents, stackFrames}' "$H/multi-thread-with-samples.json" > "$T/samples-first.json"
	jq -c '.samples |= map(.ts |= tonumber | .tid |= tonumber | .weight = 3)' "$H/simple-with-samples.json" > "$T/numbers.json"
	for f in "$H/simple-with-samples.json" "$H/multi-thread-with-samples.json" "$T/frames-first.json" "$T/samples-first.json" "$T/numbers.json"; do
		for m in wall_us samples; do
			python3 - "$f" "$m" > "$T/want" <<-'PY'
			import json, sys
			from collections import defaultdict
			d = json.load(open(sys.argv[1])); metric = sys.argv[2]
			sf = d["stackFrames"]
			selfw, totw = defaultdict(int), defaultdict(int)
			threads = defaultdict(list)
			for s in d["samples"]:
			    threads[(int(s["pid"]), int(s["tid"]))].append(s)
			for ss in threads.values():
			    for k, s in enumerate(ss):
			        w = int(ss[k + 1]["ts"]) - int(s["ts"]) if k + 1 < len(ss) else 0
			        if metric == "samples":
			            w = int(s.get("weight", 1))
			        names, i = [], str(s["sf"])
			        while i is not None:
			            names.append(sf[i]["name"])
			            p = sf[i].get("parent")
			            i = None if p is None else str(p)
			        selfw[names[0]] += w
			        for n in set(names):
			            totw[n] += w
			for n in sorted(totw):
			    if selfw[n] or totw[n]:
			        print(selfw[n], totw[n], n)
			PY
			LC_ALL=C sort -o "$T/want" "$T/want"
			chrome2spaa "$f" | rows "$m" > "$T/got"
			run diff "$T/want" "$T/got"
			assert_success
		done
	done
	run sh -c "chrome2spaa '$T/numbers.json' | spaa-top -n 0 --json -m samples | jq -r 'select(.type == \"summary\") | .total'"
	assert_output 21
}

@test "Hermes: --samples gives each sample its time in nanoseconds and its thread" {
	run sh -c "chrome2spaa -s '$H/multi-thread-with-samples.json' | jq -r 'select(.type == \"sample\") | \"\(.timestamp) \(.tid)\"' | sort -k2,2n -k1,1n"
	assert_success
	assert_output - <<-'EOF'
	11552125241000 1
	11552146011000 1
	11552159337000 1
	11552125241000 2
	11552146011000 2
	11552159337000 2
	11552169337000 2
	11552179337000 2
	EOF
}

@test "Hermes: damaged samples and stackFrames are errors that say what is wrong" {
	jq -c '.stackFrames |= del(.["4"])' "$H/simple-with-samples.json" > "$T/undefined.json"
	run chrome2spaa "$T/undefined.json"
	assert_failure 1
	assert_output "chrome2spaa: $T/undefined.json: a sample of stack frame 4, which stackFrames does not define"
	jq -c '.samples[1] |= del(.sf)' "$H/simple-with-samples.json" > "$T/nosf.json"
	run chrome2spaa "$T/nosf.json"
	assert_failure 1
	assert_output --regexp "^chrome2spaa: $T/nosf.json:1: a sample without a stack frame \(sf\) \(byte [0-9]+\)$"
	jq -c '.samples[1].weight = -1' "$H/simple-with-samples.json" > "$T/negative.json"
	run chrome2spaa "$T/negative.json"
	assert_failure 1
	assert_output --regexp "^chrome2spaa: $T/negative.json:1: a sample with a negative weight \(byte [0-9]+\)$"
	jq -c '.samples[1].ts = 1.5' "$H/simple-with-samples.json" > "$T/fraction.json"
	run chrome2spaa "$T/fraction.json"
	assert_failure 1
	assert_output --regexp "^chrome2spaa: $T/fraction.json:1: a sample whose ts is not a whole number of microseconds \(byte [0-9]+\)$"
	jq -c '.stackFrames["5"].parent = 5' "$H/simple-with-samples.json" > "$T/cycle.json"
	run chrome2spaa "$T/cycle.json"
	assert_failure 1
	assert_output "chrome2spaa: $T/cycle.json: profile node 5 is its own ancestor (a cycle of parents)"
	head -c 1500 "$H/simple-with-samples.json" > "$T/cut.json"
	run chrome2spaa "$T/cut.json"
	assert_failure 1
	assert_output --partial "chrome2spaa: $T/cut.json:"
	assert_output --partial "truncated"
}

@test "Hermes: any2spaa sends a trace with samples and stackFrames to chrome2spaa, whatever its size" {
	chrome2spaa "$H/multi-thread-with-samples.json" > "$T/want"
	any2spaa "$H/multi-thread-with-samples.json" > "$T/got"
	cmp "$T/want" "$T/got"
	# samples and stackFrames far beyond the first 64 KiB
	jq -c '.traceEvents += [range(3000) | {name: "x", ph: "i", ts: 1, pid: 1, tid: 1}]' "$H/multi-thread-with-samples.json" > "$T/long.json"
	chrome2spaa "$T/long.json" > "$T/want"
	any2spaa "$T/long.json" > "$T/got"
	cmp "$T/want" "$T/got"
}

@test "Hermes' other form, B and E events with line, column and url: spans, which any2spaa sends to spall2spaa, with speedscope's figures" {
	# speedscope's snapshot "simple hermes profile": [root] self 2 us of 14, beta 12
	run sh -c "any2spaa '$H/simple-hermes.json' | spaa-fold"
	assert_success
	assert_output - <<-'EOF'
	[root] 2000
	[root];beta 12000
	EOF
	run chrome2spaa "$H/simple-hermes.json"
	assert_failure 1
	assert_output "chrome2spaa: $H/simple-hermes.json: no stacks found: 4 trace events, none of them a CPU profile (Profile, ProfileChunk) and no samples; record with the disabled-by-default-v8.cpu_profiler category, or convert spans (B, E, X) with spall2spaa (no profile written)"
}

@test "a heap profile whose every selfSize is 0 and without samples: an error, not an empty profile with exit 0" {
	H='"head":{"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"selfSize":0,"id":1,"children":[{"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":1},"selfSize":SS,"id":2,"children":[]}]}'
	printf '{%s,"samples":[]}' "${H/SS/-0}" > "$T/h.json"
	run chrome2spaa -o "$T/out" "$T/h.json"
	assert_failure 1
	assert_output "chrome2spaa: $T/h.json: no stacks found: every node's weights are 0 (no allocation, no sample) (no profile written)"
	[ ! -e "$T/out" ]
	printf '{%s,"samples":[]}' "${H/SS/16}" > "$T/h.json"
	run sh -c "chrome2spaa '$T/h.json' | spaa-fold"
	assert_output "(root);f 16"
}

@test "a member read twice (JSON.parse keeps the last; both were read): traceEvents, nodes, a heap profile's samples: errors" {
	H='"head":{"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"selfSize":0,"id":1,"children":[{"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":1},"selfSize":10,"id":2,"children":[]}]}'
	bad() { printf '%s' "$1" > "$T/b.json"; run chrome2spaa -o "$T/out" "$T/b.json"; assert_failure 1
		assert_output "chrome2spaa: $T/b.json:$2"; [ ! -e "$T/out" ]; }
	bad "{$H,\"samples\":[],\"samples\":[{\"size\":5,\"nodeId\":2,\"ordinal\":1}]}" '1: a second "samples" (byte 292)'
	bad '{"traceEvents":[],"traceEvents":[]}' '1: a second "traceEvents" (byte 32)'
	bad '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}}],"nodes":[{"id":2,"callFrame":{"functionName":"f"}}],"samples":[2],"timeDeltas":[1]}' \
		'1: a second "nodes" (byte 66)'
}

@test "-s on a heap timeline whose objects fall in no window: silent (UBSan: qsort of a null array)" {
	run chrome2spaa -s -o "$T/out" "$BATS_TEST_DIRNAME/../fuzz/seeds/chrome2spaa/heap-timeline.heaptimeline"
	assert_success
	assert_output ""
	grep -c '"type":"window"' "$T/out" > "$T/n"
	assert_file_eq "$T/n" <<< "3"
}
