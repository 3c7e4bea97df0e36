#!/usr/bin/env bats
# spaa-demangle: names as c++filt (binutils) and rustfilt print them, on the
# symbols of a C++ program compiled here, on a perf capture of it, and on the
# Rust names of inferno's perf fixture (FlameGraph's perf-rust-Yamakaky-dcpu,
# names perf printed half-demangled); the records around the names (x_mangled,
# stack ids, samples, windows, unknown members); --demangle of spaa-fold,
# spaa-top and spaa-diff; errors.
load common

DD=$BATS_TEST_DIRNAME/data/demangle
RUST=$DD/perf-rust-Yamakaky-dcpu.txt

setup_file() {
	# the C++ program of examples/shapes.perf.txt, built here
	g++ -O0 -fno-omit-frame-pointer -o "$BATS_FILE_TMPDIR/shapes" "$SPAA_EXAMPLES/shapes.cc"
}

# "MANGLED<TAB>NAME" for every frame spaa-demangle renamed, sorted.
renamed() { jq -r 'select(.type == "frame" and .x_mangled) | [.x_mangled, .func] | @tsv' | sort -u; }

# The stack records of a file without their frame numbers (files numbered
# apart), one a line.
stacks() { jq -c 'select(.type == "stack") | del(.frames) | del(.exclusive.frame)' "$1"; }

# A SPAA file with one frame per name given on stdin (one name a line).
names2spaa() {
	jq -Rnc '[inputs] as $n |
		{type: "header", format: "spaa", version: "1.0", source_tool: "test", frame_order: "leaf_to_root",
		 events: [{name: "cpu", kind: "timer", sampling: {mode: "event", primary_metric: "samples"}}],
		 stack_id_mode: "local"},
		{type: "dso", id: 1, name: "/bin/x"},
		($n | to_entries[] | {type: "frame", id: (.key + 1), func: .value, dso: 1, kind: "user"}),
		{type: "stack", id: "s", frames: [range(1; ($n | length) + 1)], context: {event: "cpu"},
		 weights: [{metric: "samples", value: 1}]}'
}

@test "C++: every mangled symbol of a compiled program is named as c++filt and c++filt --no-params name it" {
	nm --defined-only "$BATS_FILE_TMPDIR/shapes" | awk '$3 ~ /^_Z/ { print $3 }' | sort -u > "$T/syms"
	[ "$(wc -l < "$T/syms")" -ge 20 ]
	for opt in "" --no-params; do
		names2spaa < "$T/syms" | spaa-demangle $opt | renamed | cut -f2 > "$T/got"
		c++filt $opt < "$T/syms" | paste "$T/syms" - | sort -u | cut -f2 > "$T/want"
		run diff "$T/want" "$T/got"
		assert_success
	done
	# a few of them, spelled out
	names2spaa < "$T/syms" | spaa-demangle | renamed > "$T/all"
	run grep -E '^_ZN6shapes4area|^_ZN12_GLOBAL__N_16helperEj|^_ZZ4mainENKUllE_clEl' "$T/all"
	assert_output "_ZN12_GLOBAL__N_16helperEj	(anonymous namespace)::helper(unsigned int)
_ZN6shapes4areaEd	shapes::area(double)
_ZN6shapes4areaEi	shapes::area(int)
_ZZ4mainENKUllE_clEl	main::{lambda(long)#1}::operator()(long) const"
}

@test "Rust legacy names perf left half-demangled: as c++filt prints the symbol perf read; --no-hash as rustfilt" {
	perf2spaa "$RUST" > "$T/rust.spaa"
	spaa-demangle "$T/rust.spaa" | renamed > "$T/default"
	[ "$(wc -l < "$T/default")" -eq 97 ]
	# the symbol perf read: each "::" element with its length, in _ZN...E
	cut -f1 "$T/default" | awk '{ n = split($0, s, "::"); m = "_ZN"; for (i = 1; i <= n; i++) m = m length(s[i]) s[i]; print m "E" }' > "$T/syms"
	c++filt < "$T/syms" > "$T/cxxfilt"
	run diff "$T/cxxfilt" <(cut -f2 "$T/default")
	assert_success
	rustfilt < "$T/syms" > "$T/rustfilt"
	spaa-demangle --no-hash "$T/rust.spaa" | renamed > "$T/nohash"
	run diff "$T/rustfilt" <(cut -f1 "$T/default" | awk -F'\t' 'NR == FNR { m[$1] = $2; next } { print m[$0] }' "$T/nohash" -)
	assert_success
	run grep -F -e '_$LT$term..terminfo..TerminfoTerminal$LT$T$GT$$GT$::new::hcd1c44cd143417f6' -e '::_$LT$impl$u20$core..iter..iterator..Iterator$u20$for$u20$core..ops..Range$LT$A$GT$$GT$::next::' "$T/nohash"
	assert_output '_$LT$term..terminfo..TerminfoTerminal$LT$T$GT$$GT$::new::hcd1c44cd143417f6	<term::terminfo::TerminfoTerminal<T>>::new
core::iter::range::_$LT$impl$u20$core..iter..iterator..Iterator$u20$for$u20$core..ops..Range$LT$A$GT$$GT$::next::hd0b7b2668add6c40	core::iter::range::<impl core::iter::iterator::Iterator for core::ops::Range<A>>::next'
	# names already demangled lose only their hash with --no-hash
	run grep -F 'emulator::main::hc2aaa9b4591a10c7' "$T/nohash"
	assert_output 'emulator::main::hc2aaa9b4591a10c7	emulator::main'
	grep -qvF 'emulator::main::' "$T/default"
}

@test "Rust v0 and legacy symbols, D and JVM names, @plt suffixes; other names untouched" {
	printf '%s\n' _RNvNtCs1234_7mycrate3foo3bar _RINvCs1234_7mycrate3fooReE \
		_RNvMs_Cs4Cv8Wi1oAIB_7mycrateNtB4_7Example3foo \
		_ZN4core3ptr13drop_in_place17h0123456789abcdefE > "$T/rust"
	names2spaa < "$T/rust" | spaa-demangle | renamed | cut -f2 > "$T/got"
	c++filt < "$T/rust" | paste "$T/rust" - | sort -u | cut -f2 > "$T/want"
	run diff "$T/want" "$T/got"
	assert_success
	names2spaa < "$T/rust" | spaa-demangle --no-hash | renamed | cut -f2 > "$T/got"
	rustfilt < "$T/rust" | paste "$T/rust" - | sort -u | cut -f2 > "$T/want"
	run diff "$T/want" "$T/got"
	assert_success
	printf '%s\n' _D3std5stdio7writelnFAyaZv _D4test3fooFiZi > "$T/d"
	names2spaa < "$T/d" | spaa-demangle | renamed | cut -f2 > "$T/got"
	c++filt -s dlang < "$T/d" | paste "$T/d" - | sort -u | cut -f2 > "$T/want"
	run diff "$T/want" "$T/got"
	assert_success
	printf '%s\n' 'Ljava/io/PrintStream;::print' 'LBusy;::main' '_ZdlPv@plt' '_ZN6shapes4areaEd@@SHAPES_1.0' \
		main __libc_start_main _Dummy _Rx 'Lfoo;bar' 'x::h0123' '_$LT$T$XX$::new::h0123456789abcdef' > "$T/other"
	names2spaa < "$T/other" | spaa-demangle | jq -r 'select(.type == "frame") | [.func, .x_mangled // "-"] | @tsv' > "$T/got"
	run cat "$T/got"
	assert_output 'java.io.PrintStream::print	Ljava/io/PrintStream;::print
Busy::main	LBusy;::main
operator delete(void*)@plt	_ZdlPv@plt
shapes::area(double)@@SHAPES_1.0	_ZN6shapes4areaEd@@SHAPES_1.0
main	-
__libc_start_main	-
_Dummy	-
_Rx	-
Lfoo;bar	-
x::h0123	-
_$LT$T$XX$::new::h0123456789abcdef	-'
}

@test "the frame record: new func, the old name in x_mangled after it, other members and records byte for byte" {
	cat > "$T/in.spaa" <<-'EOF'
	{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"cpu","kind":"timer","sampling":{"mode":"period","primary_metric":"period"}}],"stack_id_mode":"local","x_note":1}
	{"type":"dso","id":1,"name":"/bin/shapes","x_d":true}
	{"type":"frame","id":1,"func":"_ZN6shapes4areaEd","dso":1,"ip":"0x11de","symoff":"0x1e","kind":"user","x_f":[1, 2]}
	{"type":"frame","id":2,"func":"main","dso":1,"kind":"user"}
	{"type":"frame","id":3,"func":"0x1234","func_resolved":false,"dso":1}
	{"type":"frame","id":4,"func":"_ZN6shapes4areaEi","dso":1,"x_mangled":"earlier","kind":"user"}
	{"type":"stack","id":"a",  "frames":[1,2],"context":{"event":"cpu"},"weights":[{"metric":"period","value":7}]}
	{"type":"x_thing","v":1}
	{"type":"stack","id":"b","frames":[4,3,2],"context":{"event":"cpu"},"weights":[{"metric":"period","value":5}]}
	EOF
	run spaa-demangle "$T/in.spaa"
	assert_success
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"cpu","kind":"timer","sampling":{"mode":"period","primary_metric":"period"}}],"stack_id_mode":"local","x_note":1}
{"type":"dso","id":1,"name":"/bin/shapes","x_d":true}
{"type":"frame","id":1,"func":"shapes::area(double)","x_mangled":"_ZN6shapes4areaEd","dso":1,"ip":"0x11de","symoff":"0x1e","kind":"user","x_f":[1,2]}
{"type":"frame","id":2,"func":"main","dso":1,"kind":"user"}
{"type":"frame","id":3,"func":"0x1234","func_resolved":false,"dso":1}
{"type":"frame","id":4,"func":"shapes::area(int)","dso":1,"x_mangled":"earlier","kind":"user"}
{"type":"stack","id":"a",  "frames":[1,2],"context":{"event":"cpu"},"weights":[{"metric":"period","value":7}]}
{"type":"x_thing","v":1}
{"type":"stack","id":"b","frames":[4,3,2],"context":{"event":"cpu"},"weights":[{"metric":"period","value":5}]}'
	# demangled twice: the same
	spaa-demangle "$T/in.spaa" > "$T/once"
	run bash -c "spaa-demangle '$T/once' | cmp - '$T/once'"
	assert_success
}

@test "content ids: the stacks of 'perf script --no-demangle | perf2spaa | spaa-demangle --no-params' are those of the demangled text" {
	# what perf prints with demangling, made from the bundled capture with
	# c++filt -p (perf leaves out argument lists too)
	awk '/^\t/ { print $2 }' "$EX/shapes.perf.txt" | sed 's/+0x.*//' | sort -u > "$T/syms"
	c++filt -p < "$T/syms" | paste "$T/syms" - > "$T/map"
	awk -F'\t' 'NR == FNR { m[$1] = $2; next }
		/^\t/ { split($0, w, " "); s = w[2]; sub(/\+0x.*/, "", s); off = substr(w[2], length(s) + 1)
			if (s in m) sub(/[^ ]+\+0x[0-9a-f]+/, m[s] off) } { print }' "$T/map" "$EX/shapes.perf.txt" > "$T/demangled.txt"
	grep -q 'shapes::area+0x' "$T/demangled.txt"
	perf2spaa --samples "$EX/shapes.perf.txt" | spaa-demangle --no-params > "$T/a.spaa"
	perf2spaa --samples "$T/demangled.txt" > "$T/b.spaa"
	# the overloads shapes::area(int) and (double) are one function now: their
	# stacks are summed into one, as perf2spaa sums the demangled text's
	run diff <(stacks "$T/a.spaa") <(stacks "$T/b.spaa")
	assert_success
	run diff <(grep -v '"type":"\(frame\|stack\)"' "$T/a.spaa") <(grep -v '"type":"\(frame\|stack\)"' "$T/b.spaa")
	assert_success
	run diff <(spaa-fold --raw "$T/a.spaa") <(spaa-fold --raw "$T/b.spaa")
	assert_success
	run spaa-validate --strict "$T/a.spaa"
	assert_success
	run bash -c "grep -c '\"type\":\"stack\"' '$T/a.spaa'"
	assert_output 3
}

@test "stacks that become alike (overloads with --no-params) become one, weights and samples summed; frames stay" {
	perf2spaa --samples "$EX/shapes.perf.txt" > "$T/s.spaa"
	spaa-demangle --no-params "$T/s.spaa" > "$T/np.spaa"
	run spaa-validate --strict "$T/np.spaa"
	assert_success
	run jq -c 'select(.type == "stack") | [.id, .frames, .weights[1].value, .exclusive.weights[0].value]' "$T/np.spaa"
	assert_output '["0x9ce0a25aac4616d7",[1,2,3,4,5],60606060,6]
["0x1ef57e8e2bbe4a61",[7,8,3,4,5],30303030,3]
["0xd21c6bf3e48c3234",[9,10,4,5],50505050,5]'
	# the two frames of area keep their records (and mangled names)
	run jq -r 'select(.type == "frame" and (.id == 2 or .id == 6)) | [.id, .func, .x_mangled] | @tsv' "$T/np.spaa"
	assert_output "2	shapes::area	_ZN6shapes4areaEi
6	shapes::area	_ZN6shapes4areaEd"
	# the samples of the stack summed away name the one it went into
	run bash -c "jq -r 'select(.type == \"sample\") | .stack_id' '$T/np.spaa' | sort | uniq -c"
	assert_output "      3 0x1ef57e8e2bbe4a61
      6 0x9ce0a25aac4616d7
      5 0xd21c6bf3e48c3234"
	run bash -c "spaa-cat --merge '$T/np.spaa' | cmp - '$T/np.spaa'"
	assert_success
	# a window naming both: one entry, the weights summed
	a=$(jq -r 'select(.type == "stack") | .id' "$T/s.spaa" | sed -n 1p)
	b=$(jq -r 'select(.type == "stack") | .id' "$T/s.spaa" | sed -n 2p)
	c=$(jq -r 'select(.type == "stack") | .id' "$T/s.spaa" | sed -n 4p)
	{ cat "$T/s.spaa"; printf '{"type":"window","id":"w","start":1,"end":2,"by_stack":[{"stack_id":"%s","weights":[{"metric":"period","value":3}]},{"stack_id":"%s","weights":[{"metric":"period","value":4},{"metric":"samples","value":1}]},{"stack_id":"%s","weights":[{"metric":"period","value":5.50}]}]}\n' "$a" "$c" "$b"; } > "$T/w.spaa"
	run bash -c "spaa-demangle --no-params '$T/w.spaa' | tail -n 1"
	assert_output '{"type":"window","id":"w","start":1,"end":2,"by_stack":[{"stack_id":"0x9ce0a25aac4616d7","weights":[{"metric":"period","value":8.5}]},{"stack_id":"0xd21c6bf3e48c3234","weights":[{"metric":"period","value":4},{"metric":"samples","value":1}]}]}'
	run spaa-fold --raw "$T/np.spaa"
	assert_output "shapes;__libc_start_call_main;main;main::{lambda(long)#1}::operator();(anonymous namespace)::helper;shapes::Box<long>::spin 30303030
shapes;__libc_start_call_main;main;main::{lambda(long)#1}::operator();shapes::area;shapes::work 60606060
shapes;__libc_start_call_main;main;shapes::label;shapes::Box<double>::spin 50505050"
}

@test "windows, related_stacks and samples before their stack follow the new ids" {
	perf2spaa "$EX/shapes.perf.txt" > "$T/s.spaa"
	old=$(jq -r 'select(.type == "stack") | .id' "$T/s.spaa" | head -n 1)
	other=$(jq -r 'select(.type == "stack") | .id' "$T/s.spaa" | sed -n 2p)
	{
		grep -v '"type":"stack"' "$T/s.spaa"
		printf '{"type":"sample","timestamp":1.5,"stack_id":"%s"}\n' "$old"
		grep '"type":"stack"' "$T/s.spaa" | sed "1s/\"frames\"/\"related_stacks\":[\"$other\"],\"frames\"/"
		printf '{"type":"window","id":"w1","start":1,"end":2,"unit":"seconds","by_stack":[{"stack_id":"%s","weights":[{"metric":"period","value":3}]},{"stack_id":"nope"}]}\n' "$old"
	} > "$T/in.spaa"
	spaa-demangle "$T/in.spaa" > "$T/out.spaa"
	new=$(jq -r 'select(.type == "stack") | .id' "$T/out.spaa" | head -n 1)
	newother=$(jq -r 'select(.type == "stack") | .id' "$T/out.spaa" | sed -n 2p)
	[ "$new" != "$old" ]
	run jq -c 'select(.type == "sample" or .type == "window")' "$T/out.spaa"
	assert_output "{\"type\":\"sample\",\"timestamp\":1.5,\"stack_id\":\"$new\"}
{\"type\":\"window\",\"id\":\"w1\",\"start\":1,\"end\":2,\"unit\":\"seconds\",\"by_stack\":[{\"stack_id\":\"$new\",\"weights\":[{\"metric\":\"period\",\"value\":3}]},{\"stack_id\":\"nope\"}]}"
	run jq -c 'select(.type == "stack") | .related_stacks' "$T/out.spaa"
	assert_line --index 0 "[\"$newother\"]"
}

@test "a real capture: perf record of the C++ program, perf script --no-demangle, names as c++filt says" {
	perf record -q -e cpu-clock -F 999 -g -o "$T/perf.data" "$BATS_FILE_TMPDIR/shapes" 2> "$T/err" ||
		skip "perf record does not work here: $(head -n 1 "$T/err")"
	perf script -i "$T/perf.data" --no-demangle 2>/dev/null > "$T/raw.txt"
	perf script -i "$T/perf.data" 2>/dev/null > "$T/perf-demangled.txt"
	perf2spaa "$T/raw.txt" | spaa-demangle > "$T/d.spaa"
	renamed < "$T/d.spaa" > "$T/map"
	grep -q '^_ZN6shapes4workEl	shapes::work(long)$' "$T/map"
	run diff <(cut -f1 "$T/map" | c++filt) <(cut -f2 "$T/map")
	assert_success
	# --no-params: the stacks perf2spaa makes of perf's own demangled text
	perf2spaa "$T/raw.txt" | spaa-demangle --no-params > "$T/a.spaa"
	perf2spaa "$T/perf-demangled.txt" > "$T/b.spaa"
	run diff <(stacks "$T/a.spaa") <(stacks "$T/b.spaa")
	assert_success
}

@test "--demangle: spaa-fold, spaa-top and spaa-diff name frames as spaa-demangle | the same command" {
	perf2spaa "$EX/shapes.perf.txt" > "$T/s.spaa"
	perf2spaa "$RUST" > "$T/r.spaa"
	for f in "$T/s.spaa" "$T/r.spaa"; do
		spaa-demangle "$f" > "$T/d.spaa"
		for opt in "" --raw --addrs; do
			run diff <(spaa-fold $opt "$T/d.spaa") <(spaa-fold --demangle $opt "$f")
			assert_success
		done
		run diff <(spaa-top -n 20 "$T/d.spaa") <(spaa-top --demangle -n 20 "$f")
		assert_success
		run diff <(spaa-diff "$T/d.spaa" "$T/d.spaa") <(spaa-diff --demangle "$f" "$f")
		assert_success
	done
	run spaa-fold --demangle "$T/s.spaa"
	assert_output "shapes;__libc_start_call_main;main;main::{lambda(long)#1}::operator();(anonymous namespace)::helper;shapes::Box<long>::spin 30303030
shapes;__libc_start_call_main;main;main::{lambda(long)#1}::operator();shapes::area;shapes::work 60606060
shapes;__libc_start_call_main;main;shapes::label;shapes::Box<double>::spin 50505050"
	run spaa-top --demangle --full-names -n 2 "$T/s.spaa"
	assert_output "cpu-clock/period, total 141.41ms
      flat  flat%   sum%        cum   cum%  function
   60.61ms 42.86% 42.86%    60.61ms 42.86%  shapes::work
   50.51ms 35.71% 78.57%    50.51ms 35.71%  shapes::Box<double>::spin"
	# without --full-names, as pprof shows them: Box<long> and Box<double> are one
	run spaa-top --demangle -n 2 "$T/s.spaa"
	assert_output "cpu-clock/period, total 141.41ms
      flat  flat%   sum%        cum   cum%  function
   80.81ms 57.14% 57.14%    80.81ms 57.14%  shapes::Box::spin
   60.61ms 42.86%   100%    60.61ms 42.86%  shapes::work"
}

@test "-o writes the file (atomically), -z and .zst compress, stdin is read" {
	perf2spaa "$EX/shapes.perf.txt" > "$T/s.spaa"
	spaa-demangle "$T/s.spaa" > "$T/plain"
	run spaa-demangle -o "$T/out.spaa" "$T/s.spaa"
	assert_success
	assert_output ''
	cmp "$T/out.spaa" "$T/plain"
	spaa-demangle -z < "$T/s.spaa" | zstd -dc | cmp - "$T/plain"
	spaa-demangle -o "$T/out.spaa.zst" - < "$T/s.spaa"
	zstd -dc "$T/out.spaa.zst" | cmp - "$T/plain"
}

@test "errors: bad JSON, usage; perf text read in process" {
	# perf's text is read in process (perf2spaa's output)
	run spaa-demangle "$EX/shapes.perf.txt"
	assert_success
	[ "$output" = "$(perf2spaa "$EX/shapes.perf.txt" | spaa-demangle)" ]
	printf '{"type":"header","format":"spaa","version":"1.0","events":[]}\n{"type":"frame",\n' > "$T/bad.spaa"
	run spaa-demangle -o "$T/out" "$T/bad.spaa"
	assert_failure 1
	assert_output --partial "spaa-demangle: $T/bad.spaa:2: "
	[ ! -e "$T/out" ]
	run spaa-demangle --params
	assert_failure 2
	run spaa-demangle a b
	assert_failure 1
	assert_output 'spaa-demangle: a: No such file or directory'
	run spaa-demangle < /dev/null
	assert_failure 1
}

@test "a stack renamed into one already demangled is summed into it; C++, Rust and D in one file" {
	printf '%s\n' 'main;foo::bar::h0123456789abcdef 2' 'main;_ZN3foo3bar17h0123456789abcdefE 3' \
		'main;_ZN6shapes4areaEd;_ZN6shapes4workEl 4' 'main;_RNvMs_Cs4Cv8Wi1oAIB_7mycrateNtB4_7Example3foo 1' \
		'main;_D4test3fooFiZi;_$LT$T$GT$::new::h0123456789abcdef 1' | folded2spaa > "$T/in.spaa"
	cmp "$T/in.spaa" "$BATS_TEST_DIRNAME/../fuzz/seeds/spaa/demangle-names.spaa"
	spaa-demangle "$T/in.spaa" > "$T/out.spaa"
	run spaa-validate --strict "$T/out.spaa"
	assert_success
	run spaa-fold --raw "$T/out.spaa"
	assert_output 'main;<mycrate[35d2de6ac96359ef]::Example>::foo 1
main;foo::bar::h0123456789abcdef 5
main;shapes::area(double);shapes::work(long) 4
main;test.foo(int);<T>::new::h0123456789abcdef 1'
	# the ids are those folded2spaa gives the demangled lines
	spaa-fold --raw "$T/out.spaa" | folded2spaa > "$T/want.spaa"
	run diff <(stacks "$T/out.spaa" | sort) <(stacks "$T/want.spaa" | sort)
	assert_success
}
