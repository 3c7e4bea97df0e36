#!/usr/bin/env bats
# gecko2spaa: Firefox Profiler profiles recorded by real Firefoxes and samply
# (speedscope's Firefox samples, the Firefox Profiler's own fixtures; see
# tests/data/gecko/README.md), against the same files read on their own
# (tests/data/gecko/figures.py) and speedscope's per-function figures.
load common

G=$BATS_TEST_DIRNAME/data/gecko

# per thread and function: self and total, from the file and from our output
same_figures() {
	python3 "$G/figures.py" raw "$1" > "$T/theirs"
	gecko2spaa "$1" > "$T/p.spaa"
	spaa-validate --strict "$T/p.spaa"
	python3 "$G/figures.py" spaa "$T/p.spaa" > "$T/ours"
	[ -s "$T/theirs" ]
	diff "$T/theirs" "$T/ours"
}

@test "Firefox 59, 61, 63 (devtools wrapper, Gecko format): every function's self and total samples" {
	for f in speedscope-59-simple-firefox speedscope-61-recursion speedscope-63-simple-firefox; do
		same_figures "$G/$f.json"
	done
	same_figures "$G/speedscope-59-firefox.json.gz"
	# one thread each, named, with its pid and tid
	gecko2spaa "$G/speedscope-61-recursion.json" | grep '"type":"thread"' > "$T/thr"
	assert_file_eq "$T/thr" <<< '{"type":"thread","pid":18793,"tid":323020,"comm":"GeckoMain"}'
	# 59/simple-firefox: 38 samples; d (simple.js:20) is the leaf of 32 of them
	run python3 "$G/figures.py" spaa <(gecko2spaa "$G/speedscope-59-simple-firefox.json")
	assert_line $'9101203\td\t32\t32'
	assert_line $'9101203\ta\t0\t32'
	assert_line $'9101203\t(root)\t0\t38'
}

@test "speedscope's own figures (its importer's snapshot): each sample lasting until the next" {
	gecko2spaa -s "$G/speedscope-59-simple-firefox.json" > "$T/a.spaa"
	run python3 "$G/figures.py" speedscope "$T/a.spaa"
	assert_output $'9101203\ta\t0.000000\t31.992821\n9101203\tb\t0.000000\t20.971447\n9101203\tc\t0.000000\t11.021374\n9101203\td\t31.992821\t31.992821'
	gecko2spaa -s "$G/speedscope-61-recursion.json" > "$T/b.spaa"
	run python3 "$G/figures.py" speedscope "$T/b.spaa"
	assert_output $'323020\talpha\t0.000000\t9.954630\n323020\tbeta\t0.000000\t8.962159\n323020\tdelta\t0.000000\t6.859737\n323020\tgamma\t9.954630\t9.954630\n323020\tmain\t1.194482\t11.149112'
	gecko2spaa -s "$G/speedscope-63-simple-firefox.json" > "$T/c.spaa"
	run python3 "$G/figures.py" speedscope "$T/c.spaa"
	assert_output $'7051856\talpha\t0.000000\t26.983817\n7051856\tbeta\t0.000000\t15.037493\n7051856\tdelta\t0.000000\t11.946324\n7051856\tgamma\t26.983817\t26.983817'
}

@test "JS frames: the function, its file as the dso, file:line:column as the srcline" {
	gecko2spaa "$G/speedscope-63-simple-firefox.json" | grep '"func":"gamma"' > "$T/f"
	assert_file_eq "$T/f" <<< '{"type":"frame","id":33,"func":"gamma","dso":16,"srcline":"http://localhost:8000/simple.js:20:14","kind":"user"}'
	gecko2spaa "$G/speedscope-63-simple-firefox.json" | grep '"id":16,"name"' > "$T/d"
	assert_file_eq "$T/d" <<< '{"type":"dso","id":16,"name":"http://localhost:8000/simple.js","is_kernel":false}'
}

@test "the Firefox Profiler's fixtures: Gecko (subprocesses, libs and a subprocess as strings of JSON) and processed" {
	for f in profiler-gecko-1 profiler-gecko-2 profiler-processed-1 profiler-processed-3 profiler-unsymbolicated; do
		same_figures "$G/$f.json"
	done
	# native addresses: the library whose range holds them, per process
	gecko2spaa "$G/profiler-gecko-1.json" | grep '"func":"0x100000f84"' > "$T/f"
	assert_file_eq "$T/f" <<< '{"type":"frame","id":1,"func":"0x100000f84","func_resolved":false,"dso":1,"ip":"0x100000f84","kind":"user"}
{"type":"frame","id":6,"func":"0x100000f84","func_resolved":false,"dso":4,"ip":"0x100000f84","kind":"user"}'
	gecko2spaa "$G/profiler-gecko-1.json" | grep -E '"type":"(dso|thread)"' > "$T/d"
	assert_file_eq "$T/d" <<< '{"type":"dso","id":1,"name":"/Applications/FirefoxNightly.app/Contents/MacOS/firefox","is_kernel":false}
{"type":"dso","id":2,"name":"[unknown]","is_kernel":false}
{"type":"dso","id":3,"name":"chrome://blargh","is_kernel":false}
{"type":"dso","id":4,"name":"/Applications/FirefoxNightly.app/Contents/MacOS/firefox-webcontent.app/Contents/MacOS/firefox-webcontent","is_kernel":false}
{"type":"thread","pid":1,"tid":1,"comm":"GeckoMain"}
{"type":"thread","pid":1,"tid":2,"comm":"Compositor"}
{"type":"thread","pid":2,"tid":3,"comm":"GeckoMain"}'
}

@test "samply's processed format: libraries with their build ids, sample weights, threads" {
	gecko2spaa "$G/profiler-unsymbolicated.json" > "$T/p.spaa"
	grep -E '"type":"(dso|thread)"' "$T/p.spaa" | head -3 > "$T/d"
	assert_file_eq "$T/d" <<< '{"type":"dso","id":1,"name":"libsystem_kernel.dylib","is_kernel":false,"build_id":"71ff45b8f14e36669e966cf58315b91d"}
{"type":"dso","id":2,"name":"libsystem_pthread.dylib","is_kernel":false,"build_id":"e03e84786f5c3d21a79a58408f514000"}
{"type":"dso","id":3,"name":"a.out","is_kernel":false,"build_id":"f61da4d57cbb38ca8bdf059c64583452"}'
	grep -c '"type":"thread"' "$T/p.spaa" | grep -qx 6
	# the main thread: 11 samples whose weights add up to 60
	jq -r 'select(.type == "stack" and .context.tid == 6274156) | .weights[0].value' "$T/p.spaa" > "$T/w"
	assert_file_eq "$T/w" <<< 60
	[ "$(jq '[.threads[0].samples.weight[]] | add' "$G/profiler-unsymbolicated.json")" = 60 ]
}

@test "the newest processed layout (shared tables and strings, prefixOffset, timeDeltas, lib per frame): the same" {
	python3 "$G/upgrade.py" "$G/profiler-unsymbolicated.json" > "$T/v70.json"
	gecko2spaa -s "$T/v70.json" > "$T/a"
	gecko2spaa -s "$G/profiler-unsymbolicated.json" > "$T/b"
	cmp "$T/a" "$T/b"
}

@test "weightType tracing-ms and bytes: the weights in their metric" {
	jq -c '.threads |= map(.samples.weightType = "tracing-ms" | .samples.weight = [.samples.stack[] | 0.5])' \
		"$G/profiler-unsymbolicated.json" > "$T/t.json"
	gecko2spaa "$T/t.json" > "$T/t.spaa"
	spaa-validate --strict "$T/t.spaa"
	grep -q '"events":\[{"name":"tracing","kind":"probe","sampling":{"mode":"event","primary_metric":"wall_ms"}}\]' "$T/t.spaa"
	jq -r 'select(.type == "stack" and .context.tid == 6274156) | .weights[0] | "\(.metric) \(.value)"' "$T/t.spaa" > "$T/w"
	assert_file_eq "$T/w" <<< "wall_ms 5.5"
	jq -c '.threads |= map(.samples.weightType = "bytes" | .samples.weight = [.samples.stack[] | 4096])' \
		"$G/profiler-unsymbolicated.json" > "$T/b.json"
	gecko2spaa "$T/b.json" | jq -r 'select(.type == "stack" and .context.tid == 6274156) | .weights[0] | "\(.metric) \(.value)"' > "$T/w"
	assert_file_eq "$T/w" <<< "alloc_bytes 45056"
	gecko2spaa "$T/b.json" | grep -q '"metrics":\[{"name":"alloc_bytes","unit":"bytes"}\]' ||
		gecko2spaa "$T/b.json" | grep -q '"primary_metric":"alloc_bytes"'
}

@test "-s: one sample record per sample with a stack, at its time, in the file's order" {
	gecko2spaa -s "$G/speedscope-59-simple-firefox.json" > "$T/s.spaa"
	spaa-validate --strict "$T/s.spaa"
	grep '"type":"sample"' "$T/s.spaa" | jq -r '.timestamp * 1000 | . * 1000000 | round' > "$T/ts"
	jq -r '.profile.threads[0].samples.data[] | select(.[0] != null) | .[1] * 1000000 | round' \
		"$G/speedscope-59-simple-firefox.json" > "$T/want"
	[ "$(wc -l < "$T/want")" -eq 38 ]
	diff "$T/want" "$T/ts"
	# the same stacks with or without samples
	gecko2spaa "$G/speedscope-59-simple-firefox.json" | spaa-fold > "$T/a"
	spaa-fold "$T/s.spaa" > "$T/b"
	cmp "$T/a" "$T/b"
}

@test "gzip (as samply writes profile.json.gz), standard input and several files" {
	gzip -dc "$G/speedscope-59-firefox.json.gz" > "$T/plain.json"
	gecko2spaa "$T/plain.json" > "$T/a"
	gecko2spaa "$G/speedscope-59-firefox.json.gz" > "$T/b"
	cmp "$T/a" "$T/b"
	gecko2spaa < "$G/speedscope-59-firefox.json.gz" > "$T/c"
	cmp "$T/a" "$T/c"
	gecko2spaa "$G/speedscope-61-recursion.json" | spaa-fold > "$T/one"
	gecko2spaa "$G/speedscope-61-recursion.json" "$G/speedscope-61-recursion.json" | spaa-fold > "$T/two"
	awk '{ $NF = $NF * 2; print }' "$T/one" > "$T/want"
	diff "$T/want" "$T/two"
}

@test "exact errors: truncated, another format, not a profile, bad tables" {
	head -c 5000 "$G/speedscope-59-simple-firefox.json" > "$T/cut.json"
	run gecko2spaa "$T/cut.json"
	assert_failure 1
	assert_output "gecko2spaa: $T/cut.json:1: input ends inside a value (truncated file?) (byte 174)"
	head -c 20000 "$G/profiler-processed-3.json" > "$T/cut.json"
	run gecko2spaa "$T/cut.json"
	assert_failure 1
	assert_output --partial "gecko2spaa: $T/cut.json:"
	assert_output --partial "(truncated file?)"
	run gecko2spaa "$BATS_TEST_DIRNAME/data/speedscope/sampled-0.1.2.json"
	assert_failure 1
	assert_output "gecko2spaa: $BATS_TEST_DIRNAME/data/speedscope/sampled-0.1.2.json: this is a speedscope file, not a Firefox Profiler profile: run speedscope2spaa"
	run speedscope2spaa "$G/profiler-gecko-2.json"
	assert_failure 1
	assert_output "speedscope2spaa: $G/profiler-gecko-2.json: this is a Firefox Profiler profile (JSON), not a speedscope file: run gecko2spaa"
	bad() { printf '%s' "$1" > "$T/b.json"; run gecko2spaa "$T/b.json"; assert_failure 1; assert_output "gecko2spaa: $T/b.json:$2"; }
	bad '[1]' '1: not a Firefox Profiler profile: it does not start with a JSON object (byte 0)'
	bad '{"meta":{"stackwalk":1}}' '1: not a Firefox Profiler profile: no "threads" (nor "processes", nor a devtools "profile" with them) (byte 24)'
	T1='"stringArray":["f"],"stackTable":{"frame":[0],"prefix":[null]},"frameTable":{"func":[0]},"funcTable":{"name":[0]}'
	bad '{"threads":[{'"$T1"',"samples":{"stack":[0],"weightType":"cycles"}}]}' \
		'1: thread 1: weightType "cycles": the Firefox Profiler'"'"'s are samples, tracing-ms and bytes'
	bad '{"threads":[{'"$T1"',"samples":{"stack":[0,1]}}]}' \
		'1: thread 1: sample 1: its stack is not an index into the stackTable (1 stacks)'
	bad '{"threads":[{'"$T1"',"samples":{"stack":[0],"weightType":"tracing-ms"}}]}' \
		'1: thread 1: weightType tracing-ms without a "weight" column'
	bad '{"threads":[{"stringArray":["f"],"stackTable":{"frame":[0],"prefix":[0]},"frameTable":{"func":[0]},"funcTable":{"name":[0]},"samples":{"stack":[0]}}]}' \
		'1: thread 1: the stackTable'"'"'s prefixes loop'
	bad '{"threads":[{"stringArray":["f"],"stackTable":{"frame":[3],"prefix":[null]},"frameTable":{"func":[0]},"funcTable":{"name":[0]},"samples":{"stack":[0]}}]}' \
		'1: thread 1: stack 0: frame 3 is not in the frameTable (1 frames)'
	bad '{"threads":[{"stringTable":["f"],"stackTable":{"data":[[null,0]]},"frameTable":{"schema":{"location":0},"data":[[0]]},"samples":{"schema":{"stack":0},"data":[[0]]}}]}' \
		'1: "stackTable": "data" rows without a "schema" (byte 65)'
	: > "$T/e.json"
	run gecko2spaa "$T/e.json"
	assert_failure 1
	assert_output "gecko2spaa: $T/e.json: empty input: no profile written"
	printf '{"threads":[{%s,"samples":{"stack":[null]}}]}' "$T1" > "$T/n.json"
	run gecko2spaa "$T/n.json"
	assert_failure 1
	assert_output --partial "no thread has a sample with a stack"
}

@test "inlineDepth: kept as x_inline_depth, not as SPAA inlined frames that need their caller next to them (fuzz)" {
	gecko2spaa -s "$BATS_TEST_DIRNAME/../fuzz/crashes/gecko2spaa/inline-depth-without-caller.json" > "$T/p.spaa"
	spaa-validate --strict "$T/p.spaa"
	gecko2spaa "$BATS_TEST_DIRNAME/../fuzz/seeds/gecko2spaa/processed-v49.json" | grep '"func":"work"' > "$T/f"
	assert_file_eq "$T/f" <<< '{"type":"frame","id":1,"func":"work","dso":1,"ip":"0x28","srcline":"a.c:7:2","kind":"user","x_inline_depth":1}'
}

@test "Firefox ESR 153's own Gecko profile (format 34, MOZ_PROFILER_SHUTDOWN): four processes, JS and native frames" {
	zstd -dc "$G/firefox-esr-153.json.zst" > "$T/ff.json"
	same_figures "$T/ff.json"
	gecko2spaa "$G/firefox-esr-153.json.zst" > "$T/z.spaa"
	cmp "$T/p.spaa" "$T/z.spaa"
	grep '"type":"thread"' "$T/p.spaa" > "$T/thr"
	assert_file_eq "$T/thr" <<< '{"type":"thread","pid":20933,"tid":20933,"comm":"GeckoMain"}
{"type":"thread","pid":21132,"tid":21132,"comm":"GeckoMain"}
{"type":"thread","pid":21218,"tid":21218,"comm":"GeckoMain"}
{"type":"thread","pid":21160,"tid":21160,"comm":"GeckoMain"}'
	# the page's recursive fib, in the content process: its frame, and its
	# samples as read from the file (1215 at the leaf, 1460 in all)
	grep '"func":"fib"' "$T/p.spaa" | jq -c '{func, srcline}' > "$T/f"
	assert_file_eq "$T/f" <<< '{"func":"fib","srcline":"file:///tmp/ffprof/page.html:2:13"}'
	run grep -P '^21218\tfib\t' "$T/theirs"
	assert_output $'21218\tfib\t1215\t1460'
	# native frames: addresses in the libraries of their process
	jq -r 'select(.type == "dso") | .name' "$T/p.spaa" | grep -qx libxul.so
}

@test "the kernel's library (as samply names it, [kernel.kallsyms]): a kernel dso and kernel frames" {
	jq -c '.libs += [{"name":"[kernel.kallsyms]","path":"[kernel.kallsyms]","debugName":"[kernel.kallsyms]","start":0,"end":0}] |
		.threads[0].resourceTable.lib[0] = 6' "$G/profiler-unsymbolicated.json" > "$T/k.json"
	gecko2spaa "$T/k.json" > "$T/k.spaa"
	spaa-validate --strict "$T/k.spaa"
	grep -E '"name":"\[kernel|"kind":"kernel"' "$T/k.spaa" > "$T/k"
	assert_file_eq "$T/k" <<< '{"type":"dso","id":4,"name":"[kernel.kallsyms]","is_kernel":true}
{"type":"frame","id":4,"func":"0x6153","func_resolved":false,"dso":4,"ip":"0x6153","kind":"kernel"}'
}

@test "samples read where they are, after their thread, columns in step: any order, gzip and zstd, rows before their schema" {
	# columns in another order, samples before the tables: the same
	jq -c '.threads |= map({samples: (.samples | {weight, time} + .)} + .)' "$G/profiler-unsymbolicated.json" > "$T/r.json"
	gecko2spaa -s "$G/profiler-unsymbolicated.json" > "$T/a"
	gecko2spaa -s "$T/r.json" > "$T/b"
	cmp "$T/a" "$T/b"
	# compressed: the second readers read on through the data
	gzip -c "$T/r.json" > "$T/r.json.gz"
	gecko2spaa -s "$T/r.json.gz" > "$T/c"
	cmp "$T/a" "$T/c"
	zstd -q -c "$T/r.json" > "$T/r.json.zst"
	gecko2spaa -s - < "$T/r.json.zst" > "$T/d"
	cmp "$T/a" "$T/d"
	# Gecko rows before their schema, the stack past their eighth cell
	printf '%s' '{"threads":[{"name":"T","stringTable":["f"],"stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,0]]},"frameTable":{"schema":{"location":0},"data":[[0]]},"samples":{"data":[[0,1,2,3,4,5,6,7,8,0],[0,1,2,3,4,5,6,7,8,null]],"schema":{"stack":9}}}]}' > "$T/g.json"
	run sh -c "gecko2spaa '$T/g.json' | spaa-fold"
	assert_output "T;f 1"
	# rows and columns in one samples table: refused
	printf '%s' '{"threads":[{"stringTable":["f"],"stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,0]]},"frameTable":{"schema":{"location":0},"data":[[0]]},"samples":{"schema":{"stack":0},"data":[[0]],"stack":[0]}}]}' > "$T/m.json"
	run gecko2spaa "$T/m.json"
	assert_failure 1
	assert_output "gecko2spaa: $T/m.json:1: \"samples\": both \"data\" rows and columns (byte 207)"
}

@test "a prefix chain 20000 deep, a sample at every depth: each stack cut to its 512 innermost frames, in linear time and memory" {
	python3 -c '
import json
N = 20000
print(json.dumps({"threads": [{"name": "T", "stringArray": ["f%d" % i for i in range(N)],
	"stackTable": {"frame": list(range(N)), "prefix": [None] + list(range(N - 1))},
	"frameTable": {"func": list(range(N))}, "funcTable": {"name": list(range(N))},
	"samples": {"stack": list(range(N))}}]}, separators=(",", ":")))' | gzip > "$T/deep.json.gz"
	# it took 810 MB and 7 s, and wrote 405 MB (each stack whole, N^2/2 frames)
	run bounded 300 20 gecko2spaa -o "$T/deep.spaa" "$T/deep.json.gz"
	assert_success
	assert_output "gecko2spaa: $T/deep.json.gz: 19488 stacks of more than 512 frames: cut to the 512 innermost under [truncated] (--max-frames)"
	spaa-validate --strict "$T/deep.spaa"
	[ "$(grep -c '"type":"stack"' "$T/deep.spaa")" -eq 20000 ]
	# the deepest: f19999 ... f19488, then [truncated]
	spaa-fold "$T/deep.spaa" | grep ';f19999 1$' | tr ';' '\n' | sed -n '1,3p;$p' > "$T/top"
	assert_file_eq "$T/top" <<< $'T\n[truncated]\nf19488\nf19999 1'
	# a small one, by hand
	printf '%s' '{"threads":[{"name":"T","stringArray":["a","b","c","d","e"],"stackTable":{"frame":[0,1,2,3,4],"prefix":[null,0,1,2,3]},"frameTable":{"func":[0,1,2,3,4]},"funcTable":{"name":[0,1,2,3,4]},"samples":{"stack":[0,1,2,3,4,4]}}]}' > "$T/c.json"
	gecko2spaa --max-frames=3 "$T/c.json" 2> "$T/err" | spaa-fold > "$T/f"
	assert_file_eq "$T/f" <<< $'T;[truncated];b;c;d 1\nT;[truncated];c;d;e 2\nT;a 1\nT;a;b 1\nT;a;b;c 1'
	assert_file_eq "$T/err" <<< "gecko2spaa: $T/c.json: 2 stacks of more than 3 frames: cut to the 3 innermost under [truncated] (--max-frames)"
	gecko2spaa --max-frames=5 "$T/c.json" 2> "$T/err" | spaa-fold > "$T/f"
	assert_file_eq "$T/f" <<< $'T;a 1\nT;a;b 1\nT;a;b;c 1\nT;a;b;c;d 1\nT;a;b;c;d;e 2'
	[ ! -s "$T/err" ]
}

@test "a prefix is null or a stack of the table: -2, 0.5, 1e400, 2^64, an offset past the start are errors, not roots" {
	S='"name":"T","stringArray":["a","b","c"],"frameTable":{"func":[0,1,2]},"funcTable":{"name":[0,1,2]},"samples":{"stack":[2]}'
	bad() { printf '{"threads":[{%s,"stackTable":{"frame":[0,1,2],%s}}]}' "$S" "$1" > "$T/b.json"
		run gecko2spaa -o "$T/out" "$T/b.json"; assert_failure 1; assert_output "gecko2spaa: $T/b.json:1: thread 1: $2"
		[ ! -e "$T/out" ]; }
	bad '"prefix":[null,0,-2]' 'stack 2: prefix -2 is not in the stackTable (3 stacks)'
	bad '"prefix":[null,0,-1]' 'stack 2: prefix -1 is not in the stackTable (3 stacks)'
	bad '"prefix":[null,0,0.5]' 'stack 2: prefix 0.5 is not in the stackTable (3 stacks)'
	bad '"prefix":[null,0,1e400]' 'stack 2: prefix inf is not in the stackTable (3 stacks)'
	bad '"prefix":[null,0,18446744073709551615]' 'stack 2: prefix 18446744073709551615 is not in the stackTable (3 stacks)'
	bad '"prefix":[null,0,18446744073709551616]' 'stack 2: prefix 1.8446744073709552e+19 is not in the stackTable (3 stacks)'
	bad '"prefix":[null,0,3]' 'stack 2: prefix 3 is not in the stackTable (3 stacks)'
	bad '"prefix":[null,2,1]' "the stackTable's prefixes loop"
	bad '"prefixOffset":[0,1,3]' 'stack 2: prefixOffset 3 is not in the stackTable (3 stacks)'
	bad '"prefixOffset":[0,1,-1]' 'stack 2: prefixOffset -1 is not in the stackTable (3 stacks)'
	printf '{"threads":[{%s,"stackTable":{"frame":[0,1,2.5],"prefix":[null,0,1]}}]}' "$S" > "$T/b.json"
	run gecko2spaa "$T/b.json"
	assert_failure 1
	assert_output "gecko2spaa: $T/b.json:1: thread 1: stack 2: frame 2.5 is not in the frameTable (3 frames)"
	# -0 is 0; null and an offset of 0 are roots
	printf '{"threads":[{%s,"stackTable":{"frame":[0,1,2],"prefix":[null,0,-0]}}]}' "$S" > "$T/z.json"
	run sh -c "gecko2spaa '$T/z.json' | spaa-fold"
	assert_output "T;a;c 1"
	printf '{"threads":[{%s,"stackTable":{"frame":[0,1,2],"prefixOffset":[0,1,1]}}]}' "$S" > "$T/z.json"
	run sh -c "gecko2spaa '$T/z.json' | spaa-fold"
	assert_output "T;a;b;c 1"
}

@test "weights: bytes and samples are whole (2.75 refused at its line), milliseconds need not be; 2^64-1 exact, a sum past it refused at its line" {
	S='"stringArray":["f"],"stackTable":{"frame":[0],"prefix":[null]},"frameTable":{"func":[0]},"funcTable":{"name":[0]}'
	w() { printf '{"threads":[{"name":"T",%s,\n"samples":{"weightType":"%s","stack":[0,0,0],\n"weight":[1,\n%s]}}]}' "$S" "$1" "$2" > "$T/w.json"; }
	w bytes '2.75,3'
	run gecko2spaa -o "$T/out" "$T/w.json"
	assert_failure 1
	assert_output "gecko2spaa: $T/w.json:4: thread 1: sample 1: weight 2.75 is not a whole number (of bytes)"
	[ ! -e "$T/out" ]
	w samples '2.75,3'
	run gecko2spaa "$T/w.json"
	assert_failure 1
	assert_output "gecko2spaa: $T/w.json:4: thread 1: sample 1: weight 2.75 is not a whole number (of samples)"
	w tracing-ms '2.75,3'
	run sh -c "gecko2spaa '$T/w.json' | spaa-fold"
	assert_output "T;f 6.75"
	# whole numbers written as decimals are whole: 1e3 bytes is 1000
	w bytes '1e3,4096.0'
	run sh -c "gecko2spaa '$T/w.json' | spaa-fold"
	assert_output "T;f 5097"
	w bytes '-3,1'
	run gecko2spaa "$T/w.json"
	assert_failure 1
	assert_output "gecko2spaa: $T/w.json:4: thread 1: sample 1: a negative weight (-3)"
	w bytes '1e400,1'
	run gecko2spaa "$T/w.json"
	assert_failure 1
	assert_output "gecko2spaa: $T/w.json:4: thread 1: sample 1: weight inf out of range"
	w bytes '18446744073709551614,0'
	run sh -c "gecko2spaa '$T/w.json' | spaa-fold"
	assert_output "T;f 18446744073709551615"
	w bytes '18446744073709551615,0'
	run gecko2spaa "$T/w.json"
	assert_failure 1
	assert_output "gecko2spaa: $T/w.json:4: metric alloc_bytes of a stack overflows 64 bits"
}

@test "a second threads, processes, meta or shared (JSON.parse takes the last; both were read), times of 1e400 (written as 0): errors" {
	T1='"name":"T","stringArray":["f"],"stackTable":{"frame":[0],"prefix":[null]},"frameTable":{"func":[0]},"funcTable":{"name":[0]}'
	bad() { printf '%s' "$1" > "$T/b.json"; run gecko2spaa -s -o "$T/out" "$T/b.json"; assert_failure 1
		assert_output "gecko2spaa: $T/b.json:$2"; [ ! -e "$T/out" ]; }
	bad "{\"threads\":[{$T1,\"samples\":{\"stack\":[0]}}],\"threads\":[{$T1,\"samples\":{\"stack\":[0]}}]}" '1: a second "threads" (byte 174)'
	bad "{\"meta\":{},\"meta\":{},\"threads\":[{$T1,\"samples\":{\"stack\":[0]}}]}" '1: a second "meta" (byte 18)'
	bad "{\"meta\":{\"startTime\":1e400},\"threads\":[{$T1,\"samples\":{\"stack\":[0],\"time\":[1]}}]}" \
		'1: meta.startTime is not a finite number (byte 26)'
	bad "{\"threads\":[{$T1,\"samples\":{\"stack\":[0],"$'\n'"\"time\":[1e400]}}]}" '2: thread 1: sample 0: its time is not a finite number'
}

@test "a function's resource, fileName or source that points nowhere: an error, not a frame without them" {
	S='"name":"T","stringArray":["f","a.js"],"stackTable":{"frame":[0],"prefix":[null]},"frameTable":{"func":[0]},"samples":{"stack":[0]}'
	bad() { printf '{"threads":[{%s,%s}]}' "$S" "$1" > "$T/b.json"; run gecko2spaa -o "$T/out" "$T/b.json"; assert_failure 1
		assert_output "gecko2spaa: $T/b.json: $2"; [ ! -e "$T/out" ]; }
	bad '"funcTable":{"name":[0],"resource":[3]},"resourceTable":{"name":[1]}' 'function 0: resource 3 is not in the resourceTable (1 resources)'
	bad '"funcTable":{"name":[0],"resource":[-2]},"resourceTable":{"name":[1]}' 'function 0: resource -2 is not in the resourceTable (1 resources)'
	bad '"funcTable":{"name":[0],"fileName":[7]}' 'function 0: its fileName is not in the string array (2 strings)'
	bad '"funcTable":{"name":[0],"source":[2]},"sources":{"filename":[1]}' 'function 0: source 2 is not in the sources table (1 sources)'
	# null, and a resource of -1 (the Firefox Profiler's none), are none
	printf '{"threads":[{%s,%s}]}' "$S" '"funcTable":{"name":[0],"resource":[-1],"fileName":[null],"source":[null]}' > "$T/ok.json"
	run sh -c "gecko2spaa '$T/ok.json' | spaa-fold"
	assert_output "T;f 1"
	printf '{"threads":[{%s,%s}]}' "$S" '"funcTable":{"name":[0],"resource":[0]},"resourceTable":{"name":[1]}' > "$T/ok.json"
	run sh -c "gecko2spaa '$T/ok.json' | grep -c '\"name\":\"a.js\"'"
	assert_output "1"
}

@test "threads of three weight types (samples, bytes, tracing-ms): three events, never added (the builder's internal error before)" {
	T1='"stringArray":["f"],"stackTable":{"frame":[0],"prefix":[null]},"frameTable":{"func":[0]},"funcTable":{"name":[0]}'
	printf '{"threads":[{"name":"A",%s,"samples":{"stack":[0,0]}},{"name":"B",%s,"samples":{"stack":[0],"weight":[4096],"weightType":"bytes"}},{"name":"C",%s,"samples":{"stack":[0],"weight":[2.5],"weightType":"tracing-ms"}}]}' "$T1" "$T1" "$T1" > "$T/mix.json"
	run gecko2spaa -o "$T/mix.spaa" "$T/mix.json"
	assert_success
	assert_output ""
	spaa-validate --strict "$T/mix.spaa"
	spaa-fold --all-events "$T/mix.spaa" > "$T/f"
	assert_file_eq "$T/f" <<< $'alloc;B;f 4096\nsamples;A;f 2\ntracing;C;f 2.5'
}

@test "columns that disagree in length: a prefix column shorter than the frames (its stacks past the end were roots), times or timeDeltas fewer than the samples" {
	S='"name":"T","stringArray":["a","b"],"frameTable":{"func":[0,1]},"funcTable":{"name":[0,1]}'
	bad() { printf '{"meta":{"interval":1},"threads":[{%s,%s}]}' "$S" "$1" > "$T/b.json"; run gecko2spaa -s -o "$T/out" "$T/b.json"
		assert_failure 1; assert_output "gecko2spaa: $T/b.json:1: thread 1: $2"; [ ! -e "$T/out" ]; }
	bad '"stackTable":{"frame":[0,1],"prefix":[null]},"samples":{"stack":[1]}' 'the stackTable has 2 frames but 1 prefix'
	bad '"stackTable":{"frame":[0,1],"prefixOffset":[0,1,1]},"samples":{"stack":[1]}' 'the stackTable has 2 frames but 3 prefixOffset'
	bad '"stackTable":{"frame":[0,1],"prefix":[null,0]},"samples":{"stack":[1,1],"time":[5]}' '2 samples but 1 times'
	bad '"stackTable":{"frame":[0,1],"prefix":[null,0]},"samples":{"stack":[1],"timeDeltas":[5,6]}' '1 samples but 2 timeDeltas'
}

@test "processes nested 200000 deep: an error at 64 levels, not a crash (the walk recursed off the C stack)" {
	python3 -c '
n = 200000
print("{\"threads\":[]," + "\"processes\":[{" * n + "\"threads\":[]" + "}]" * n + "}")' > "$T/p.json"
	run gecko2spaa -o "$T/out" "$T/p.json"
	assert_failure 1
	assert_output "gecko2spaa: $T/p.json:1: profiles nested deeper than 64 levels (processes in processes) (byte 909)"
	[ ! -e "$T/out" ]
}
