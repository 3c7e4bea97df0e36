#!/usr/bin/env bats
# v8log2spaa: V8 tick logs made here with node --prof, against what
# node --prof-process makes of the same log (its [JavaScript] rows, the tick
# total, the GC ticks) and of its --preprocess JSON; speedscope's node 8.5.0
# log and preprocessed JSON (tests/data/v8log) against prof-process and
# against speedscope's own importer (its test snapshot).
load common

setup_file() {
	command -v node >/dev/null || return 0
	cd "$BATS_FILE_TMPDIR"
	cat > prog.js <<'END'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function garbage() { let a = []; for (let i = 0; i < 20000; i++) a.push({ i, s: 'x' + i }); return a.length; }
const work = function () { let s = 0; for (let i = 0; i < 12; i++) { s += fib(21); s += garbage(); } return s; };
let t = 0;
for (let k = 0; k < 30; k++) t += work();
[1, 2, 3].forEach(() => { for (let i = 0; i < 3e6; i++) t += i % 7; });
if (t < 0) console.log(t);
END
	node --prof prog.js
	mv isolate-*-v8.log prog.v8log
	node --prof-process prog.v8log > prof.txt 2>/dev/null
	node --prof-process --preprocess prog.v8log > prog.json 2>/dev/null
}

need_node() {
	command -v node >/dev/null || fail "node is missing: sh .ci/deps installs it (Debian's nodejs)"
	F=$BATS_FILE_TMPDIR
	V=$D/v8log
}

@test "node --prof log: each JS function's own ticks are prof-process's [JavaScript] rows (tiers summed)" {
	need_node
	v8log2spaa "$F/prog.v8log" > "$T/p.spaa"
	spaa-validate --strict "$T/p.spaa"
	python3 "$V/ppjs.py" "$F/prof.txt" > "$T/theirs"
	python3 "$V/ours.py" "$T/p.spaa" --js-self > "$T/ours"
	grep -q "^fib $F/prog.js:1:13	" "$T/theirs"
	diff "$T/theirs" "$T/ours"
	# every tick, and the GC ticks of prof-process's [Summary]
	[ "$(python3 "$V/ours.py" "$T/p.spaa" --total)" = "$(python3 "$V/ppjs.py" "$F/prof.txt" --total)" ]
	[ "$(python3 "$V/ours.py" "$T/p.spaa" --gc)" = "$(python3 "$V/ppjs.py" "$F/prof.txt" --gc)" ]
	grep -q '"source_tool":"v8-prof"' "$T/p.spaa"
	grep -q '"interval_us":1000' "$T/p.spaa"
}

@test "node --prof log: each JS leaf's direct callers are prof-process's [Bottom up (heavy) profile]" {
	need_node
	v8log2spaa "$F/prog.v8log" > "$T/p.spaa"
	# the leaves whose callers prof-process shows all (none under 1%);
	# V8's builtins and the node binary's own code are passed over on our
	# side, as prof-process does not see them (v8log2spaa(1), "Differences")
	python3 "$V/heavy.py" "$F/prof.txt" > "$T/theirs"
	grep -q "/prog.js:" "$T/theirs" # at least one leaf of the program
	python3 "$V/ours.py" "$T/p.spaa" --callers > "$T/ours"
	awk -F'\t' 'NR == FNR { leaf[$1]; next } $1 in leaf' "$T/theirs" "$T/ours" | diff "$T/theirs" -
}

@test "node --prof log: frames are JS functions with script:line:col, V8 code objects and native symbols" {
	need_node
	v8log2spaa "$F/prog.v8log" > "$T/p.spaa"
	grep -q "\"func\":\"fib\",.*\"dso\":[0-9]*,.*\"srcline\":\"$F/prog.js:1:13\".*\"x_kind\":\"js\"" "$T/p.spaa"
	grep -q "\"func\":\"work\",.*\"srcline\":\"$F/prog.js:3:23\"" "$T/p.spaa"
	grep -q '"func":"<anonymous> '"$F"'/prog.js:[16]:[0-9]*",.*"srcline":"'"$F"'/prog.js:[16]:[0-9]*"' "$T/p.spaa"
	grep -q '"func":"Builtin: [A-Za-z]*",.*"x_kind":"v8"' "$T/p.spaa"
	grep -q '"x_kind":"native"' "$T/p.spaa"
	# the VM state is the stacks' context
	grep -q '"context":{"event":"ticks","x_v8_vm_state":0}' "$T/p.spaa"
}

@test "the --preprocess JSON read back: the same JS stacks and per-function ticks as the log" {
	need_node
	v8log2spaa "$F/prog.v8log" > "$T/log.spaa"
	v8log2spaa "$F/prog.json" > "$T/json.spaa"
	spaa-validate --strict "$T/json.spaa"
	for w in --js-paths --js-self --total --gc; do
		python3 "$V/ours.py" "$T/log.spaa" $w > "$T/a"
		python3 "$V/ours.py" "$T/json.spaa" $w > "$T/b"
		[ -s "$T/a" ]
		diff "$T/a" "$T/b"
	done
	# and prof-process's own figures
	python3 "$V/ppjs.py" "$F/prof.txt" | diff - <(python3 "$V/ours.py" "$T/json.spaa" --js-self)
}

# A capture made here (tests/data/v8log/README.md): three anonymous
# functions, a sort comparator, a map callback and a reduce callback; what
# prof-process printed for that log is beside it.
@test "node --prof: each anonymous function its own frame, named by its location, prof-process's ticks" {
	V=$D/v8log
	v8log2spaa --root=/nonexistent "$V/anon.v8log.zst" > "$T/p.spaa"
	spaa-validate --strict "$T/p.spaa"
	# prof-process's [JavaScript] rows
	run python3 "$V/ppjs.py" "$V/anon.prof-process.txt"
	assert_output "$(printf '%s\t%s\n' \
		'<anonymous> /tmp/rs/cap/anon.js:6:22' 61 \
		'<anonymous> /tmp/rs/cap/anon.js:7:28' 3 \
		'<anonymous> /tmp/rs/cap/anon.js:8:27' 8)"
	want=$output
	run python3 "$V/ours.py" "$T/p.spaa" --js-self
	assert_output "$want"
	# spaa-top: the same rows, none blank
	run sh -c "spaa-top -n 0 -J '$T/p.spaa' | jq -r 'select(.type == \"row\" and (.name | test(\"anon.js:[6-8]:\"))) | \"\\(.name)\t\\(.self)\"' | sort"
	assert_output "$want"
	run sh -c "spaa-top -n 0 -J '$T/p.spaa' | jq -c 'select(.type == \"row\" and .name == \"\")'"
	assert_output ""
	# spaa-fold: the leaves, never dropped
	run sh -c "spaa-fold '$T/p.spaa' | awk '{ n = \$NF; sub(/ [0-9]+\$/, \"\"); k = split(\$0, a, \";\"); s[a[k]] += n }
		END { for (x in s) if (x ~ /anon.js:[6-8]:/) print x \"\t\" s[x] }' | sort"
	assert_output "$want"
	# spaa-flamegraph and spaa2speedscope name them alike
	spaa-flamegraph "$T/p.spaa" > "$T/p.svg"
	run sh -c "grep -o '<title>&lt;anonymous&gt; /tmp/rs/cap/anon.js:[6-8]:[0-9]* (' '$T/p.svg' | sort -u"
	assert_output "$(printf '<title>&lt;anonymous&gt; /tmp/rs/cap/anon.js:%s (\n' 6:22 7:28 8:27)"
	run sh -c "spaa2speedscope '$T/p.spaa' | jq -r '.shared.frames[].name | select(test(\"anon.js:[6-8]:\"))' | sort"
	assert_output "$(printf '<anonymous> /tmp/rs/cap/anon.js:%s\n' 6:22 7:28 8:27)"
}

@test "node --prof: the log and its --preprocess JSON name anonymous functions and library code alike" {
	need_node
	V=$D/v8log
	zstd -dc "$V/anon.v8log.zst" > "$T/anon.v8log"
	node --prof-process --preprocess "$T/anon.v8log" > "$T/anon.json" 2>/dev/null
	v8log2spaa --root=/nonexistent "$T/anon.v8log" > "$T/log.spaa"
	v8log2spaa --root=/nonexistent "$T/anon.json" > "$T/json.spaa"
	for w in --js-paths --js-self --total --gc; do
		python3 "$V/ours.py" "$T/log.spaa" $w > "$T/a"
		python3 "$V/ours.py" "$T/json.spaa" $w > "$T/b"
		[ -s "$T/a" ]
		diff "$T/a" "$T/b"
	done
	python3 "$V/ppjs.py" "$V/anon.prof-process.txt" | diff - <(python3 "$V/ours.py" "$T/json.spaa" --js-self)
	# the JSON's [unknown]: prof-process's unaccounted ticks
	run sh -c "spaa-top -n 0 -J '$T/json.spaa' | jq -r 'select(.type == \"row\" and .name == \"[unknown]\") | .self'"
	assert_output 238
	# a tick in a library that prof-process left unnamed is named by its
	# symbol, as in the log, not by its offset
	v8log2spaa "$T/anon.json" > "$T/json2.spaa"
	v8log2spaa "$T/anon.v8log" > "$T/log2.spaa"
	libc=$(jq -r 'select(.type == "dso" and (.name | test("/libc.so.6$"))) | .id' "$T/json2.spaa")
	run sh -c "jq -r 'select(.type == \"frame\" and .dso == $libc and .func_resolved == false) | .func' '$T/json2.spaa'"
	assert_output ""
}

@test "-s: one sample record per tick, at the tick's time" {
	need_node
	v8log2spaa -s "$F/prog.v8log" > "$T/p.spaa"
	n=$(grep -c '^tick,' "$F/prog.v8log")
	[ "$(grep -c '"type":"sample"' "$T/p.spaa")" -eq "$n" ]
	t=$(grep -m1 '^tick,' "$F/prog.v8log" | cut -d, -f3)
	first=$(grep -m1 '"type":"sample"' "$T/p.spaa" | jq .timestamp)
	[ "$(jq -n "$first * 1000000 | round")" = "$t" ]
	# the same stacks and weights as without -s
	diff <(v8log2spaa "$F/prog.v8log" | spaa-fold) <(spaa-fold "$T/p.spaa")
}

@test "speedscope's node 8.5.0 log: the JS rows of prof-process" {
	need_node
	zstd -dc "$V/speedscope-node-8.5.0.v8log.zst" > "$T/s.v8log"
	node --prof-process "$T/s.v8log" > "$T/prof.txt" 2>/dev/null
	v8log2spaa "$T/s.v8log" > "$T/p.spaa"
	python3 "$V/ppjs.py" "$T/prof.txt" > "$T/theirs"
	grep -q '^d /Users/jlfwong/code/speedscope/sample/programs/javascript/simple.js:20:11	14$' "$T/theirs"
	python3 "$V/ours.py" "$T/p.spaa" --js-self | diff "$T/theirs" -
	[ "$(python3 "$V/ours.py" "$T/p.spaa" --total)" = 93 ]
	[ "$(python3 "$V/ours.py" "$T/p.spaa" --gc)" = "$(python3 "$V/ppjs.py" "$T/prof.txt" --gc)" ]
	grep -q '"tool_version":"6.0.287.530"' "$T/p.spaa"
}

@test "speedscope's preprocessed JSON: every JS frame weighs what speedscope's importer gives it" {
	V=$D/v8log
	v8log2spaa -s "$V/speedscope-simple.v8log.json.zst" > "$T/p.spaa"
	spaa-validate --strict "$T/p.spaa"
	python3 "$V/snap.py" "$V/v8proflog.test.ts.snap" > "$T/theirs"
	[ "$(wc -l < "$T/theirs")" -eq 22 ]
	python3 "$V/speedscope.py" "$T/p.spaa" | diff "$T/theirs" -
	# older tools kept nm's type letter on C++ names: dropped
	run grep -c '"func":"T ' "$T/p.spaa"
	assert_output 0
}

@test "any2spaa recognises the log and the JSON" {
	need_node
	any2spaa "$F/prog.v8log" | cmp - <(v8log2spaa "$F/prog.v8log")
	any2spaa "$F/prog.json" | cmp - <(v8log2spaa "$F/prog.json")
	run any2spaa --format=v8-log-json "$D/v8log/speedscope-simple.v8log.json.zst"
	assert_success
}

@test "a log cut short: the line that cannot be read" {
	need_node
	awk '/^tick,/ { print "tick,0x12"; exit } { print }' "$F/prog.v8log" > "$T/cut.v8log"
	n=$(wc -l < "$T/cut.v8log")
	run v8log2spaa "$T/cut.v8log"
	assert_failure 1
	assert_output "v8log2spaa: $T/cut.v8log:$n: tick: no time"
	zstd -q -c "$F/prog.v8log" | head -c 20000 > "$T/cut.zst"
	run v8log2spaa -o "$T/out.spaa" "$T/cut.zst"
	assert_failure 1
	assert_output --regexp "^v8log2spaa: $T/cut.zst:([0-9]+:)? the input is truncated\$"
	[ ! -e "$T/out.spaa" ]
	head -c 3000 "$F/prog.json" > "$T/cut.json"
	run v8log2spaa "$T/cut.json"
	assert_failure 1
	assert_output --regexp "^v8log2spaa: $T/cut.json:[0-9]+: input ends inside a value \\(truncated file\\?\\) \\(byte [0-9]+\\)\$"
}

@test "bad data: the message names the line" {
	printf 'v8-version,11,3,244,8,,0\ntick,0x10,zz,0,0x0,0\n' > "$T/a.v8log"
	run v8log2spaa "$T/a.v8log"
	assert_failure 1
	assert_output "v8log2spaa: $T/a.v8log:2: tick: time \"zz\" is not a number"
	printf 'v8-version,11,3,244,8,,0\ncode-creation,Builtin,2,1,0x1000,-4,X\n' > "$T/b.v8log"
	run v8log2spaa "$T/b.v8log"
	assert_failure 1
	assert_output "v8log2spaa: $T/b.v8log:2: code-creation: a negative code size"
	printf '{"code":[{"name":"f a.js:1:1","type":"JS"}],"ticks":[{"tm":1,"vm":0,"s":[3,0]}]}' > "$T/c.json"
	run v8log2spaa "$T/c.json"
	assert_failure 1
	assert_output "v8log2spaa: $T/c.json:1: a tick names code 3, which \"code\" does not have (byte 78)"
}

@test "a hand-made log: code moves, deletes, unknown pcs and frame offsets" {
	cat > "$T/h.v8log" <<'END'
v8-version,11,3,244,8,,0
code-creation,JS,10,1,0x1000,0x100,f a.js:1:10,0x9000,~
code-creation,JS,10,2,0x2000,0x100,g a.js:5:3,0x9100,*
code-creation,Builtin,2,3,0x3000,0x40,JSEntry
tick,0x1010,100,0,0x0,0,0x2010,+ff0
code-move,0x1000,0x4000
tick,0x4010,200,0,0x0,1,0x2010
code-delete,0x2000
tick,0x4020,300,0,0x0,0,0x2010,0x3010
tick,0x7777,400,0,0x0,0,0x4000
sfi-move,0x9000,0x9800
code-creation,JS,10,5,0x5000,0x10,f a.js:1:10,0x9800,*
tick,0x5000,500,0,0x0,0
END
	v8log2spaa "$T/h.v8log" | spaa-fold > "$T/out"
	cat > "$T/want" <<'END'
JSEntry;g;f 1
g;f 1
JSEntry;f 1
f;[unknown] 1
f 1
END
	sed -i 's/^JSEntry/Builtin: JSEntry/' "$T/want"
	sort "$T/want" > "$T/w"
	sort "$T/out" | diff "$T/w" -
}

@test "other formats: the converter to run instead" {
	run v8log2spaa "$EX/parser.perf.txt"
	assert_failure 1
	assert_output "v8log2spaa: $EX/parser.perf.txt: this is 'perf script' text, not a V8 tick log: run perf2spaa"
	run v8log2spaa "$EX/stackprof-cpu.json"
	assert_failure 1
	assert_output "v8log2spaa: $EX/stackprof-cpu.json: this is a Ruby stackprof profile (JSON), not the JSON of node --prof-process --preprocess: run stackprof2spaa"
	run v8log2spaa < /dev/null
	assert_failure 1
	assert_output "v8log2spaa: -: empty input: no profile written"
	printf 'v8-version,11,3,244,8,,0\nshared-library,/x,0x1,0x2,0\n' > "$T/n.v8log"
	run v8log2spaa "$T/n.v8log"
	assert_failure 1
	assert_output "v8log2spaa: $T/n.v8log: no stacks found: no tick lines (no profile written)"
}

@test "code objects of one name and two types are two frames; V8's escapes decoded" {
	cat > "$T/t.v8log" <<'END'
v8-version,11,3,244,8,,0
code-creation,Builtin,2,1,0x1000,0x10,Foo
code-creation,Handler,3,1,0x2000,0x10,Foo
code-creation,JS,10,1,0x3000,0x10,caf\xe9 \x2Cx\\y.js:1:2,0x9000,~
code-creation,RegExp,4,1,0x4000,0x10,\u00e9\u4e2d\ud83d\ude00\udc00
tick,0x1000,1,0,0x0,0
tick,0x2000,2,0,0x0,0
tick,0x3000,3,0,0x0,0
tick,0x4000,4,0,0x0,0
END
	v8log2spaa "$T/t.v8log" > "$T/p.spaa"
	spaa-validate --strict "$T/p.spaa"
	run spaa-fold "$T/p.spaa"
	assert_output "Builtin: Foo 1
Handler: Foo 1
RegExp: é中😀� 1
café 1"
	grep -q '"srcline":",x\\\\y.js:1:2"' "$T/p.spaa"
}

@test "the filters read a log in process, as v8log2spaa's output" {
	printf 'v8-version,11,3,244,8,,0\ntick,0x10,1,0,0x0,0\n' > "$T/a.v8log"
	run spaa-fold "$T/a.v8log"
	assert_success
	[ "$output" = "$(v8log2spaa "$T/a.v8log" | spaa-fold)" ]
}

@test "native frames: the symbol nm -C names at the address (prof-process's source), libstdc++'s" {
	command -v nm >/dev/null && command -v objdump >/dev/null || fail "binutils is missing: sh .ci/deps installs it"
	lib=$(readlink -f "$(ldd /usr/bin/node | awk '/libstdc\+\+/ { print $3 }')")
	[ -f "$lib" ]
	# the address of a symbol, and of one in a clone, as file offsets
	# (prof-process: the .text section's offset less its address)
	set -- $(objdump -h "$lib" | awk '$2 == ".text" { print $4, $6 }')
	delta=$(( 0x$2 - 0x$1 ))
	for mangled in _ZNSo6sentryC1ERSo _ZNSt6locale7classicEv; do
		vaddr=$(nm -D --defined-only "$lib" | awk -v s="$mangled" '$3 == s || index($3, s "@") == 1 { print $1; exit }')
		[ -n "$vaddr" ]
		want=$(nm -C -D --defined-only "$lib" | awk -v a="$vaddr" '$1 == a { $1 = ""; $2 = ""; sub(/^  /, ""); print; exit }')
		want=${want%%@*}
		off=$(( 0x$vaddr + delta + 1 ))
		printf 'v8-version,11,3,244,8,,0\nshared-library,%s,0x7f0000000000,0x7f0001000000,0\ntick,0x%x,1,0,0x0,0\n' \
			"$lib" $(( 0x7f0000000000 + off )) > "$T/n.v8log"
		v8log2spaa -o "$T/n.spaa" "$T/n.v8log"
		run jq -r 'select(.type == "frame") | .func' "$T/n.spaa"
		assert_output "$want"
		grep -q "\"name\":\"$lib\"" "$T/n.spaa"
	done
}

@test "standard input (gzip too), and several files merged" {
	need_node
	v8log2spaa "$F/prog.v8log" > "$T/a.spaa"
	gzip -c "$F/prog.v8log" | v8log2spaa | cmp - "$T/a.spaa"
	v8log2spaa - < "$F/prog.json" | cmp - <(v8log2spaa "$F/prog.json")
	n=$(grep -c '^tick,' "$F/prog.v8log")
	v8log2spaa "$F/prog.v8log" "$F/prog.json" > "$T/b.spaa"
	spaa-validate --strict "$T/b.spaa"
	[ "$(python3 "$V/ours.py" "$T/b.spaa" --total)" -eq $((2 * n)) ]
}
