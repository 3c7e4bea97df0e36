#!/usr/bin/env bats
# spall2spaa: Chrome JSON traces and binary .spall files (v0, v1, v3) to SPAA.
# The figures come from the corpus EXPECTED.txt files (times there in us or
# ticks; here in ns): self time per name = weight of stacks whose leaf is the
# name, total = weight of stacks containing it (recursion counted once).
load common

S=$D/spall

# per root frame (thread) and name: self and total, from folded lines in $1
selftotal() {
	awk '{
		n = $NF; p = $0; sub(/ [^ ]*$/, "", p); k = split(p, f, ";")
		self[f[1] SUBSEP f[k]] += n
		delete seen
		for (i = 2; i <= k; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; tot[f[1] SUBSEP f[i]] += n }
	} END { for (x in tot) { split(x, a, SUBSEP); print a[1], a[2], self[x] + 0, tot[x] } }' "$1" | sort -k1,1 -k3,3nr -k2,2
}

small_trace_figures() {
	cat <<'END'
[unknown]-1/1 fib 96000 219000
[unknown]-1/1 lex 71000 295000
[unknown]-1/1 main 53000 270000
[unknown]-1/1 parse 53000 81000
[unknown]-1/1 emit 52000 147000
[unknown]-1/1 sché∂ule 38000 91000
[unknown]-1/1 alloc 25000 51000
[unknown]-1/2 emit 85000 178000
[unknown]-1/2 sché∂ule 73000 195000
[unknown]-1/2 main 60000 113000
[unknown]-1/2 fib 54000 83000
[unknown]-1/2 lex 47000 124000
[unknown]-1/2 alloc 35000 103000
[unknown]-1/2 parse 33000 84000
[unknown]-2/7 fib 90000 186000
[unknown]-2/7 sché∂ule 70000 194000
[unknown]-2/7 main 66000 135000
[unknown]-2/7 emit 54000 164000
[unknown]-2/7 lex 38000 92000
[unknown]-2/7 parse 38000 106000
[unknown]-2/7 alloc 34000 53000
END
}

# span counts per thread and name: self of the calls metric
small_trace_spans() {
	cat <<'END'
[unknown]-1/1 fib 24
[unknown]-1/1 lex 18
[unknown]-1/1 emit 13
[unknown]-1/1 parse 13
[unknown]-1/1 main 11
[unknown]-1/1 alloc 10
[unknown]-1/1 sché∂ule 9
[unknown]-1/2 fib 18
[unknown]-1/2 emit 15
[unknown]-1/2 main 14
[unknown]-1/2 sché∂ule 14
[unknown]-1/2 parse 11
[unknown]-1/2 lex 11
[unknown]-1/2 alloc 12
[unknown]-2/7 fib 24
[unknown]-2/7 main 15
[unknown]-2/7 emit 14
[unknown]-2/7 lex 11
[unknown]-2/7 alloc 10
[unknown]-2/7 sché∂ule 13
[unknown]-2/7 parse 9
END
}

# Straight from an EXPECTED.txt file: one line per thread (pid tid, "all"
# for the [all threads] table of a trace) and name: spans, self and, for
# traces, inclusive total, in ns (trace and v0/v1 figures are in us, v3 in
# ns); plus "stacks"/"root" lines per thread where the file gives them.
expected_figures() {
	awk -F'\t' '
	/^time_conversion = .* = ns$/ { f = 1 }
	/^time_conversion = .* = us$/ || /^# times are in .*microseconds/ { f = 1000 }
	/^\[thread pid=/ { split($0, a, /[= \]]/); th = a[3] " " a[5]; next }
	/^\[all threads\]/ { th = "all"; next }
	/^\[/ { th = ""; next }
	th == "" { next }
	/^top[0-9]/ { printf "%s %s %d %.0f %.0f\n", th, $5, $3, $2 * f, $4 * f; next }
	/^[0-9]+\t/ && NF == 4 { printf "%s %s %d %.0f -\n", th, $4, $1, $3 * f; next }
	/^distinct_stacks = / { print th, "stacks", substr($0, 19); next }
	/^root_inclusive_total = / { printf "%s root %.0f\n", th, substr($0, 24) * f; next }
	/^root_inclusive_total_(ns|us) = / { printf "%s root %.0f\n", th, substr($0, 27) * f }
	' "$1" | sort
}

# The same figures from spaa-top (per thread: spaa-grep --pid --tid) of the
# conversion in $1; $2: the threads as "pid tid" lines; $3: "-" to leave out
# the totals (the binary EXPECTED files give none per name).
actual_figures() {
	local pid tid
	while read -r pid tid; do
		spaa-grep --pid="$pid" --tid="$tid" "$1" > "$T/thr.spaa"
		top_rows "$T/thr.spaa" "$pid $tid" "$3"
		spaa-top --json -n 1 "$T/thr.spaa" | jq -r --arg th "$pid $tid" 'select(.type == "summary") | "\($th) root \(.total)", "\($th) stacks \(.stacks)"'
	done <<< "$2"
	[ "$3" = - ] || top_rows "$1" all "$3"
}
top_rows() {
	spaa-top --json -n 0 -m calls "$1" | jq -r 'select(.type == "row") | "\(.name)\t\(.self)"' > "$T/calls"
	spaa-top --json -n 0 "$1" | jq -r 'select(.type == "row") | "\(.name)\t\(.self)\t\(.total)"' |
		awk -F'\t' -v th="$2" -v nt="$3" 'NR == FNR { c[$1] = $2; next } { print th, $1, c[$1], $2, nt == "-" ? "-" : $3 }' "$T/calls" -
}

@test "figures straight from small-trace.EXPECTED.txt: JSON and version-0 binary" {
	expected_figures "$S/small-trace.EXPECTED.txt" > "$T/want"
	[ "$(wc -l < "$T/want")" -eq 34 ]
	for f in small-trace.json small-trace-v0.spall; do
		spall2spaa "$S/$f" 2>/dev/null > "$T/out.spaa"
		actual_figures "$T/out.spaa" "$(printf '1 1\n1 2\n2 7')" | sort > "$T/got"
		run diff "$T/want" "$T/got"
		assert_success
		assert_output ''
	done
}

@test "figures straight from spall/*.EXPECTED.txt (versions 3 and 1)" {
	for f in advanced_threads_n5 simple_sample_v1_n5; do
		expected_figures "$S/$f.EXPECTED.txt" | grep -v ' stacks ' > "$T/want"
		[ -s "$T/want" ]
		threads=$(awk '/^\[thread pid=/ { split($0, a, /[= \]]/); print a[3], a[5] }' "$S/$f.EXPECTED.txt")
		spall2spaa "$S/$f.spall" > "$T/out.spaa"
		actual_figures "$T/out.spaa" "$threads" - | grep -v ' stacks ' | sort > "$T/got"
		run diff "$T/want" "$T/got"
		assert_success
		assert_output ''
	done
}

@test "JSON trace: self and total per thread and name as in small-trace.EXPECTED.txt" {
	spall2spaa "$S/small-trace.json" > "$T/out.spaa" 2> "$T/err"
	[ ! -s "$T/err" ]
	spall2spaa --verbose "$S/small-trace.json" 2> "$T/err" | cmp - "$T/out.spaa"
	assert_file_eq "$T/err" <<<"spall2spaa: $S/small-trace.json: ignored 1 event of other phases than B, E and X (i: 1)"
	spaa-fold --tid "$T/out.spaa" > "$T/f"
	run selftotal "$T/f"
	assert_success
	assert_output "$(small_trace_figures)"
}

@test "JSON trace: span counts per thread and name (metric calls)" {
	spall2spaa "$S/small-trace.json" 2>/dev/null | spaa-fold --tid -m calls |
		awk '{ n = $NF; p = $0; sub(/ [^ ]*$/, "", p); k = split(p, f, ";"); c[f[1] " " f[k]] += n }
		     END { for (x in c) print x, c[x] }' | sort > "$T/got"
	small_trace_spans | sort > "$T/want"
	run diff "$T/want" "$T/got"
	assert_success
}

@test "JSON trace: all threads, per name (the [all threads] table)" {
	spall2spaa "$S/small-trace.json" 2>/dev/null | spaa-fold --no-comm | sed 's/^/x;/' > "$T/f"
	run selftotal "$T/f"
	assert_output "x fib 240000 488000
x emit 191000 489000
x sché∂ule 181000 480000
x main 179000 518000
x lex 156000 511000
x parse 124000 271000
x alloc 94000 207000"
}

@test "JSON trace: the header, dictionaries and the first stack exactly" {
	run bash -c "spall2spaa '$S/small-trace.json' 2>/dev/null | head -13"
	assert_output - <<'END'
{"type":"header","format":"spaa","version":"1.0","source_tool":"spall","frame_order":"leaf_to_root","events":[{"name":"span","kind":"probe","sampling":{"mode":"event","primary_metric":"wall_ns"}}],"time_range":{"start":0,"end":0.000395,"unit":"seconds"},"source":{"tool":"spall","format":"chrome-json"},"stack_id_mode":"content_addressable"}
{"type":"dso","id":1,"name":"[unknown]","is_kernel":false}
{"type":"frame","id":1,"func":"lex","dso":1,"kind":"user","x_cat":"function"}
{"type":"frame","id":2,"func":"main","dso":1,"kind":"user","x_cat":"function"}
{"type":"frame","id":3,"func":"parse","dso":1,"kind":"user","x_cat":"function"}
{"type":"frame","id":4,"func":"emit","dso":1,"kind":"user","x_cat":"function"}
{"type":"frame","id":5,"func":"fib","dso":1,"kind":"user","x_cat":"function"}
{"type":"frame","id":6,"func":"alloc","dso":1,"kind":"user","x_cat":"function"}
{"type":"frame","id":7,"func":"sché∂ule","dso":1,"kind":"user","x_cat":"function"}
{"type":"thread","pid":1,"tid":1}
{"type":"thread","pid":2,"tid":7}
{"type":"thread","pid":1,"tid":2}
{"type":"stack","id":"0x4dde006ce087cd5b","frames":[2,2,3,2,1],"context":{"event":"span","pid":1,"tid":1},"weights":[{"metric":"wall_ns","value":2000,"unit":"nanoseconds"},{"metric":"calls","value":1,"unit":"count"}],"exclusive":{"frame":2,"weights":[{"metric":"wall_ns","value":2000,"unit":"nanoseconds"},{"metric":"calls","value":1,"unit":"count"}]},"x_path_id":"0x1bb9c6a49d9a41dc"}
END
}

@test "JSON trace: 243 distinct stacks (86 + 77 + 80) and valid SPAA" {
	spall2spaa "$S/small-trace.json" 2>/dev/null > "$T/out.spaa"
	run grep -c '"type":"stack"' "$T/out.spaa"
	assert_output 243
	run spaa-validate "$T/out.spaa"
	assert_success
}

@test "version-0 binary of the same trace gives the same figures" {
	spall2spaa "$S/small-trace-v0.spall" | spaa-fold --tid > "$T/f"
	run selftotal "$T/f"
	assert_success
	assert_output "$(small_trace_figures)"
}

@test "version-0 binary: same stacks as the JSON trace" {
	spall2spaa "$S/small-trace.json" 2>/dev/null | grep '"stack"' > "$T/a"
	spall2spaa "$S/small-trace-v0.spall" | grep '"stack"' > "$T/b"
	run cmp "$T/a" "$T/b"
	assert_success
}

@test "version 3 (advanced_threads_n5): self and total per thread" {
	spall2spaa "$S/advanced_threads_n5.spall" | spaa-fold --tid > "$T/f"
	run selftotal "$T/f"
	assert_output "[unknown]-0/2830964416 foo 1428 1533
[unknown]-0/2830964416 bar 105 105
[unknown]-0/2839357120 foo 1932 2037
[unknown]-0/2839357120 bar 105 105"
}

@test "version 3: exact folded output, calls and header source" {
	spall2spaa "$S/advanced_threads_n5.spall" > "$T/out.spaa"
	run spaa-fold --tid "$T/out.spaa"
	assert_output "[unknown]-0/2830964416;foo 1428
[unknown]-0/2830964416;foo;bar 105
[unknown]-0/2839357120;foo 1932
[unknown]-0/2839357120;foo;bar 105"
	run spaa-fold -m calls "$T/out.spaa"
	assert_output "foo 10
foo;bar 10"
	run bash -c "head -1 '$T/out.spaa' | grep -o '\"source\":{[^}]*}'"
	assert_output '"source":{"tool":"spall","format":"spall-binary-v3","timestamp_unit":1,"time":"ticks * timestamp_unit = nanoseconds"}'
	run spaa-validate "$T/out.spaa"
	assert_success
}

@test "version 1 (simple_sample_v1_n5): 5 spans, 16.91 us rounded per timestamp" {
	run bash -c "spall2spaa '$S/simple_sample_v1_n5.spall' | spaa-fold --tid"
	assert_output "[unknown]-0/0;hello_world 16910"
	run bash -c "spall2spaa '$S/simple_sample_v1_n5.spall' | spaa-fold -m calls"
	assert_output "hello_world 5"
}

@test "--samples: one sample per span with start, x_dur_ns, x_cat and x_args" {
	printf '[{"name":"a","cat":"c","ph":"X","pid":3,"tid":4,"ts":10,"dur":5,"args":{"k": [1, "v"]}},\n{"name":"b","ph":"X","pid":3,"tid":4,"ts":11.5,"dur":1}]' > "$T/t.json"
	run spall2spaa --samples "$T/t.json"
	assert_success
	assert_line --index 5 --partial '"frames":[2,1],"context":{"event":"span","pid":3,"tid":4},"weights":[{"metric":"wall_ns","value":1000,'
	assert_line --index 6 --partial '"frames":[1],"context":{"event":"span","pid":3,"tid":4},"weights":[{"metric":"wall_ns","value":4000,'
	assert_line --index 7 '{"type":"sample","timestamp":0.0000115,"pid":3,"tid":4,"x_dur_ns":1000,"x_weights":[{"metric":"wall_ns","value":1000},{"metric":"calls","value":1}],"event":"span","stack_id":"0x7f05ff405f9e06be"}'
	assert_line --index 8 '{"type":"sample","timestamp":0.00001,"pid":3,"tid":4,"x_dur_ns":5000,"x_weights":[{"metric":"wall_ns","value":4000},{"metric":"calls","value":1}],"x_cat":"c","x_args":{"k":[1,"v"]},"event":"span","stack_id":"0xd89048869270979e"}'
	spall2spaa -s "$S/small-trace.json" 2>/dev/null > "$T/s.spaa"
	run grep -c '"type":"sample"' "$T/s.spaa"
	assert_output 289
	run spaa-validate "$T/s.spaa"
	assert_success
}

@test "traceEvents object form, thread and process names, other members skipped" {
	printf '{"displayTimeUnit":"ns","otherData":{"a":[1,{"b":"}"}]},"traceEvents":[\n{"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"worker"}},\n{"name":"process_name","ph":"M","pid":1,"args":{"name":"app"}},\n{"name":"f","ph":"B","pid":1,"tid":2,"ts":1},{"ph":"E","pid":1,"tid":2,"ts":3}\n],"metadata":{}}\n' > "$T/t.json"
	run spall2spaa "$T/t.json"
	assert_success
	assert_line --index 0 --partial '"source":{"tool":"spall","format":"chrome-json","process_names":{"1":"app"}}'
	assert_line --index 3 '{"type":"thread","pid":1,"tid":2,"comm":"worker"}'
	run bash -c "spall2spaa '$T/t.json' | spaa-fold"
	assert_output "worker;f 2000"
}

@test "fractional microseconds are rounded once to nanoseconds" {
	printf '[{"name":"a","ph":"X","ts":0.0004,"dur":1.2345},{"name":"b","ph":"X","ts":1e-3,"dur":0.5E0}' > "$T/t.json"
	run bash -c "spall2spaa '$T/t.json' | spaa-fold"
	assert_output "a 735
a;b 500"
}

@test "damaged JSON: missing comma, unmatched end, unclosed span are warnings" {
	printf '[{"name":"a","ph":"B","pid":1,"tid":1,"ts":1}\n{"name":"b","ph":"B","pid":1,"tid":1,"ts":2},\n{"ph":"E","pid":1,"tid":1,"ts":3},\n{"ph":"E","pid":1,"tid":1,"ts":5},{"ph":"E","pid":1,"tid":1,"ts":6},\n{"name":"c","ph":"B","pid":1,"tid":1,"ts":7},\n{"name":"x","ph":"X","pid":1,"tid":1,"ts":7.5,"dur":1.0005},\n' > "$T/bad.json"
	spall2spaa "$T/bad.json" > "$T/out.spaa" 2> "$T/err"
	assert_file_eq "$T/err" <<END
spall2spaa: $T/bad.json:2: missing comma between events (byte 46)
spall2spaa: $T/bad.json:4: end with no open begin on thread 1/1; ignored (byte 161)
spall2spaa: $T/bad.json:5: span never ends on thread 1/1; dropped (byte 196)
END
	run spaa-fold "$T/out.spaa"
	assert_output "a 3000
a;b 1000
x 1001"
}

@test "a begin never closed: dropped (its children nest elsewhere) in JSON and versions 0 and 3" {
	printf '[{"name":"main","ph":"B","pid":0,"tid":0,"ts":0},\n{"name":"a","ph":"B","pid":0,"tid":0,"ts":1},{"ph":"E","pid":0,"tid":0,"ts":3},\n{"name":"b","ph":"X","pid":0,"tid":0,"ts":4,"dur":2},{"name":"c","ph":"X","pid":0,"tid":0,"ts":3.5,"dur":5}' > "$T/t.json"
	spall2spaa --samples "$T/t.json" > "$T/out.spaa" 2> "$T/err"
	assert_file_eq "$T/err" <<<"spall2spaa: $T/t.json:1: span never ends on thread 0/0; dropped (byte 1)"
	run spaa-fold "$T/out.spaa"
	assert_output "a 2000
c 3000
c;b 2000"
	run grep -c '"type":"sample"' "$T/out.spaa"
	assert_output 3
	run spaa-validate "$T/out.spaa"
	assert_success
	run spall2spaa --strict "$T/t.json"
	assert_failure 1
	assert_output "spall2spaa: $T/t.json:1: span never ends on thread 0/0; dropped (byte 1)"
	# version 0: the last End of the corpus file cut off
	n=$(($(wc -c < "$S/small-trace-v0.spall") - 17))
	head -c $n "$S/small-trace-v0.spall" > "$T/t0.spall"
	spall2spaa "$T/t0.spall" 2> "$T/err" | spaa-fold --tid > "$T/cut"
	assert_file_eq "$T/err" <<<"spall2spaa: $T/t0.spall: byte 9722: span never ends on thread 1/2; dropped"
	spall2spaa "$S/small-trace-v0.spall" | spaa-fold --tid > "$T/full"
	run diff "$T/full" "$T/cut"
	assert_output "133c133
< [unknown]-1/2;sché∂ule 21000
---
> [unknown]-1/2;sché∂ule 20000"
	# version 3: the last End (9 bytes) of the first buffer cut off: the
	# last foo is dropped, and the bar it contained is a root
	head -c 273 "$S/advanced_threads_n5.spall" > "$T/t3.spall"
	spall2spaa "$T/t3.spall" > "$T/out.spaa" 2> "$T/err"
	assert_file_eq "$T/err" <<END
spall2spaa: $T/t3.spall: byte 32: buffer extends past the end of input (truncated file); read what is there
spall2spaa: $T/t3.spall: byte 236: span never ends on thread 0/2839357120; dropped
END
	run spaa-fold --tid "$T/out.spaa"
	assert_output "[unknown]-0/2839357120;bar 21
[unknown]-0/2839357120;foo 1890
[unknown]-0/2839357120;foo;bar 84"
	run spall2spaa --strict "$T/t3.spall"
	assert_failure 1
	assert_output "spall2spaa: $T/t3.spall: byte 32: buffer extends past the end of input (truncated file); read what is there"
}

# The corpus v3 file with the End at byte 80 (the first bar's) taken out and
# the first buffer's size (byte 32: 230) made 221: the End after it closes
# bar, and the first foo (byte 52) stays open to the end of the file.
v3_unclosed() {
	local f=$S/advanced_threads_n5.spall
	{ head -c 32 "$f"; printf '\335'; head -c 80 "$f" | tail -c +34; tail -c +90 "$f"; }
}

# The corpus v1 file with its second End (bytes 111 to 127) taken out: the
# second Begin (byte 80) stays open to the end of the file.
v1_unclosed() {
	local f=$S/simple_sample_v1_n5.spall
	{ head -c 111 "$f"; tail -c +129 "$f"; }
}

@test "versions 1 and 3: a begin open at the end of the file is dropped, the spans it contains nest in the others" {
	v3_unclosed > "$T/t3.spall"
	run wc -c < "$T/t3.spall"
	assert_output 563
	spall2spaa "$T/t3.spall" > "$T/out.spaa" 2> "$T/err"
	assert_file_eq "$T/err" <<<"spall2spaa: $T/t3.spall: byte 52: span never ends on thread 0/2839357120; dropped"
	# the same figures as the other thread, which is whole, but for the
	# dropped foo: the bar it contained (63) is a root, the foo;foo paths
	# that stack nesting would give are foo paths
	run spaa-fold --tid "$T/out.spaa"
	assert_output "[unknown]-0/2830964416;foo 1428
[unknown]-0/2830964416;foo;bar 105
[unknown]-0/2839357120;bar 63
[unknown]-0/2839357120;foo 903
[unknown]-0/2839357120;foo;bar 84"
	run spaa-validate "$T/out.spaa"
	assert_success
	# one sample per span kept: 10 + 10 on one thread, 9 (of 10) on the other
	spall2spaa --samples "$T/t3.spall" > "$T/s.spaa" 2> /dev/null
	run grep -c '"type":"sample"' "$T/s.spaa"
	assert_output 19
	# a pipe (read again from a copy), compressed or not, and a redirection
	# give the same output and the same one warning
	cat "$T/t3.spall" | spall2spaa --samples > "$T/p.spaa" 2> "$T/err"
	assert_file_eq "$T/err" <<<"spall2spaa: -: byte 52: span never ends on thread 0/2839357120; dropped"
	run cmp "$T/s.spaa" "$T/p.spaa"
	assert_success
	spall2spaa --samples < "$T/t3.spall" > "$T/p.spaa" 2> /dev/null
	run cmp "$T/s.spaa" "$T/p.spaa"
	assert_success
	if command -v zstd > /dev/null; then
		zstd -q -c "$T/t3.spall" | spall2spaa --samples > "$T/p.spaa" 2> "$T/err"
		assert_file_eq "$T/err" <<<"spall2spaa: -: byte 52: span never ends on thread 0/2839357120; dropped"
		run cmp "$T/s.spaa" "$T/p.spaa"
		assert_success
		zstd -q -c "$T/t3.spall" > "$T/t3.spall.zst"
		spall2spaa --samples "$T/t3.spall.zst" > "$T/p.spaa" 2> /dev/null
		run cmp "$T/s.spaa" "$T/p.spaa"
		assert_success
	fi
	run spall2spaa --strict "$T/t3.spall"
	assert_failure 1
	assert_output "spall2spaa: $T/t3.spall: byte 52: span never ends on thread 0/2839357120; dropped"
	run bash -c "cat '$T/t3.spall' | spall2spaa --strict"
	assert_failure 1
	assert_output "spall2spaa: -: byte 52: span never ends on thread 0/2839357120; dropped"

	v1_unclosed > "$T/t1.spall"
	spall2spaa "$T/t1.spall" > "$T/out.spaa" 2> "$T/err"
	assert_file_eq "$T/err" <<<"spall2spaa: $T/t1.spall: byte 80: span never ends on thread 0/0; dropped"
	# the other four spans (16760 ns in all), all roots
	run spaa-fold --tid "$T/out.spaa"
	assert_output "[unknown]-0/0;hello_world 16760"
	run bash -c "spaa-fold --tid '$T/out.spaa' --metric calls"
	assert_output "[unknown]-0/0;hello_world 4"
	cat "$T/t1.spall" | spall2spaa > "$T/p.spaa" 2> "$T/err"
	assert_file_eq "$T/err" <<<"spall2spaa: -: byte 80: span never ends on thread 0/0; dropped"
	run cmp "$T/out.spaa" "$T/p.spaa"
	assert_success
	run spall2spaa --strict "$T/t1.spall"
	assert_failure 1
	assert_output "spall2spaa: $T/t1.spall: byte 80: span never ends on thread 0/0; dropped"
}

@test "versions 1 and 3: problems before an unclosed begin are reported once" {
	# an End with no Begin first (thread 0/0), then the v1 file with its
	# second End taken out
	v1_unclosed > "$T/t1.spall"
	{ head -c 32 "$T/t1.spall"; tail -c +112 "$S/simple_sample_v1_n5.spall" | head -c 17; tail -c +33 "$T/t1.spall"; } > "$T/t.spall"
	spall2spaa "$T/t.spall" > "$T/out.spaa" 2> "$T/err"
	assert_file_eq "$T/err" <<END
spall2spaa: $T/t.spall: byte 32: end with no open begin on thread 0/0; ignored
spall2spaa: $T/t.spall: byte 97: span never ends on thread 0/0; dropped
END
	run spaa-fold --tid "$T/out.spaa"
	assert_output "[unknown]-0/0;hello_world 16760"
	run spall2spaa --strict "$T/t.spall"
	assert_failure 1
	assert_output "spall2spaa: $T/t.spall: byte 32: end with no open begin on thread 0/0; ignored"
}

@test "--strict: the first problem is an error" {
	printf '[{"name":"a","ph":"B","ts":1},\n{"ph":"E","ts":2},{"ph":"E","ts":3}]' > "$T/bad.json"
	run spall2spaa --strict "$T/bad.json"
	assert_failure 1
	assert_output "spall2spaa: $T/bad.json:2: end with no open begin on thread 0/0; ignored (byte 49)"
}

@test "overlapping complete spans are reported; truncated event ignored" {
	printf '[{"name":"a","ph":"X","ts":0,"dur":10},{"name":"b","ph":"X","ts":5,"dur":10},{"name":"c","ph":"X","ts":20,' > "$T/bad.json"
	run spall2spaa -o "$T/out.spaa" "$T/bad.json"
	assert_success
	assert_output "spall2spaa: $T/bad.json:1: event truncated at end of input; ignored (byte 77)
spall2spaa: $T/bad.json:1: span overlaps an earlier span of thread 0/0 without nesting in it (byte 39)"
	run spaa-fold "$T/out.spaa"
	assert_output "a 10000
b 10000"
}

@test "pid and tid: whole numbers from 0 to 2^32-1, others reported and ignored; --strict fails" {
	printf '[{"name":"a","ph":"X","pid":4294967296,"tid":0,"ts":0,"dur":5},\n{"name":"b","ph":"X","pid":0,"tid":-1,"ts":1,"dur":2},\n{"name":"c","ph":"X","pid":1.5,"tid":0,"ts":1,"dur":2},\n{"name":"d","ph":"X","pid":4294967295,"tid":4294967295,"ts":1,"dur":2},\n{"name":"e","ph":"X","pid":7.0,"tid":1e1,"ts":1,"dur":2},\n{"name":"f","ph":"B","pid":"1","tid":0,"ts":1},\n{"name":"g","ph":"X","tid":99999999999999999999,"ts":1,"dur":2}]' > "$T/t.json"
	spall2spaa "$T/t.json" > "$T/out.spaa" 2> "$T/err"
	assert_file_eq "$T/err" <<END
spall2spaa: $T/t.json:1: pid or tid out of range (0 to 4294967295); event ignored (byte 1)
spall2spaa: $T/t.json:2: pid or tid out of range (0 to 4294967295); event ignored (byte 64)
spall2spaa: $T/t.json:3: pid or tid is not an integer; event ignored (byte 119)
spall2spaa: $T/t.json:6: pid or tid is not an integer; event ignored (byte 305)
spall2spaa: $T/t.json:7: pid or tid out of range (0 to 4294967295); event ignored (byte 353)
END
	run spaa-fold --tid "$T/out.spaa"
	assert_output "[unknown]-4294967295/4294967295;d 2000
[unknown]-7/10;e 2000"
	run spaa-validate "$T/out.spaa"
	assert_success
	run spall2spaa --strict "$T/t.json"
	assert_failure 1
	assert_output "spall2spaa: $T/t.json:1: pid or tid out of range (0 to 4294967295); event ignored (byte 1)"
}

@test "not a trace: errors" {
	printf '"x"' > "$T/a.json"
	run spall2spaa "$T/a.json"
	assert_failure 1
	assert_output "spall2spaa: $T/a.json:1: not a trace: expected '[' or '{' (or a binary .spall file) (byte 0)"
	printf '[1]' > "$T/b.json"
	run spall2spaa "$T/b.json"
	assert_failure 1
	assert_output "spall2spaa: $T/b.json:1: expected a trace event object (byte 1)"
	: > "$T/empty"
	run spall2spaa "$T/empty"
	assert_failure 1
	assert_output "spall2spaa: $T/empty: empty input: no profile written"
}

@test "truncated binary: warning with the byte offset; --strict: error" {
	head -c 300 "$S/advanced_threads_n5.spall" > "$T/t.spall"
	run spall2spaa -o "$T/out.spaa" "$T/t.spall"
	assert_success
	assert_output "spall2spaa: $T/t.spall: byte 282: buffer header truncated at end of input; ignored"
	run spaa-fold "$T/out.spaa"
	assert_output "foo 1932
foo;bar 105"
	run spall2spaa --strict "$T/t.spall"
	assert_failure 1
	assert_output "spall2spaa: $T/t.spall: byte 282: buffer header truncated at end of input; ignored"
	head -c 100 "$S/small-trace-v0.spall" > "$T/t0.spall"
	run spall2spaa -o "$T/out.spaa" "$T/t0.spall"
	assert_output "spall2spaa: $T/t0.spall: byte 91: event truncated at end of input; ignored"
	run spaa-fold "$T/out.spaa"
	assert_output "lex 64000
lex;main 102000"
}

@test "binary: unknown version and unknown event type are errors with offsets" {
	{ printf '\015\360\255\013\0\0\0\0\002\0\0\0\0\0\0\0'; head -c 16 /dev/zero; } > "$T/v2.spall"
	run spall2spaa "$T/v2.spall"
	assert_failure 1
	assert_output "spall2spaa: $T/v2.spall: byte 8: unsupported .spall version 2 (versions 0, 1 and 3 are read)"
	{ head -c 272 "$S/simple_sample_v1_n5.spall"; printf '\005'; } > "$T/e.spall"
	run spall2spaa "$T/e.spall"
	assert_failure 1
	assert_output "spall2spaa: $T/e.spall: byte 272: unknown or unsupported event type 5 in a version 1 file"
	head -c 20 "$S/simple_sample_v1_n5.spall" > "$T/h.spall"
	run spall2spaa "$T/h.spall"
	assert_failure 1
	assert_output "spall2spaa: $T/h.spall: byte 0: truncated .spall header (fewer than 32 bytes)"
	head -c 5 "$S/simple_sample_v1_n5.spall" > "$T/h.spall"
	run spall2spaa "$T/h.spall"
	assert_failure 1
	assert_output "spall2spaa: $T/h.spall: byte 0: truncated .spall header (fewer than 32 bytes)"
}

@test "gzip and zstd input" {
	gzip -c "$S/small-trace-v0.spall" > "$T/t.spall.gz"
	zstd -q -c "$S/small-trace.json" > "$T/t.json.zst"
	spall2spaa "$S/small-trace-v0.spall" > "$T/want"
	run bash -c "spall2spaa < '$T/t.spall.gz' | cmp - '$T/want'"
	assert_success
	spall2spaa "$S/small-trace.json" 2>/dev/null > "$T/want.json"
	run bash -c "spall2spaa '$T/t.json.zst' 2>/dev/null | cmp - '$T/want.json'"
	assert_success
}

@test "-o writes the file, .zst compresses, -z compresses stdout" {
	run spall2spaa -o "$T/out.spaa" "$S/advanced_threads_n5.spall"
	assert_success
	assert_output ""
	spall2spaa -o "$T/out.spaa.zst" "$S/advanced_threads_n5.spall"
	run bash -c "zstd -dc '$T/out.spaa.zst' | cmp - '$T/out.spaa'"
	assert_success
	run bash -c "spall2spaa -z '$S/advanced_threads_n5.spall' | zstd -dc | cmp - '$T/out.spaa'"
	assert_success
}

@test "write error to /dev/full" {
	run bash -c "spall2spaa '$S/advanced_threads_n5.spall' > /dev/full"
	assert_failure 1
	assert_output --partial "write error"
}

@test "usage: --help, --version, bad option, two files" {
	run spall2spaa --help
	assert_success
	assert_line --index 0 "Usage: spall2spaa [OPTION]... [FILE]..."
	run spall2spaa --version
	assert_success
	assert_output --partial "spall2spaa (spaa-tools)"
	run spall2spaa --bogus
	assert_failure 2
	spall2spaa "$D/spall/small-trace.json" > "$T/1.spaa"
	spall2spaa "$D/spall/small-trace-v0.spall" > "$T/2.spaa"
	run spall2spaa "$D/spall/small-trace.json" "$D/spall/small-trace-v0.spall"
	assert_success
	assert_output "$(spaa-cat --merge "$T/1.spaa" "$T/2.spaa")"
}

@test "the README example trace is the corpus trace" {
	run cmp "$EX/small-trace.json" "$S/small-trace.json"
	assert_success
}

@test "SPAA_SPANS_BUFFER=3: spans sorted through a temporary file give the same output" {
	spall2spaa "$S/small-trace.json" > "$T/mem.spaa"
	spall2spaa --samples "$S/small-trace.json" > "$T/mem-samples.spaa"
	spall2spaa "$S/small-trace-v0.spall" > "$T/mem-v0.spaa"
	SPAA_SPANS_BUFFER=3 spall2spaa "$S/small-trace.json" > "$T/tmp.spaa"
	SPAA_SPANS_BUFFER=3 spall2spaa --samples "$S/small-trace.json" > "$T/tmp-samples.spaa"
	SPAA_SPANS_BUFFER=1 spall2spaa "$S/small-trace-v0.spall" > "$T/tmp-v0.spaa"
	run cmp "$T/mem.spaa" "$T/tmp.spaa"
	assert_success
	run cmp "$T/mem-samples.spaa" "$T/tmp-samples.spaa"
	assert_success
	run cmp "$T/mem-v0.spaa" "$T/tmp-v0.spaa"
	assert_success
	SPAA_SPANS_BUFFER=0 run spall2spaa "$S/small-trace.json"
	assert_failure 1
	assert_output "spall2spaa: SPAA_SPANS_BUFFER: not a positive number of spans: 0"
	TMPDIR=/nonexistent SPAA_SPANS_BUFFER=3 run spall2spaa "$S/small-trace.json"
	assert_failure 1
	assert_output "spall2spaa: /nonexistent: cannot make a temporary file: No such file or directory"
}

@test "nothing to convert: an empty input, a trace of other phases only, a CPU profile in Profile/ProfileChunk events" {
	run spall2spaa - < /dev/null
	assert_failure 1
	assert_output "spall2spaa: -: empty input: no profile written"
	echo '[{"ph":"i","name":"x","ts":1,"pid":1,"tid":1}]' > "$T/i.json"
	run spall2spaa -o "$T/out.spaa" "$T/i.json"
	assert_failure 1
	assert_output "spall2spaa: $T/i.json: no stacks found: 1 trace event, none of phase B, E or X (no profile written)"
	[ ! -e "$T/out.spaa" ]
	echo '{"traceEvents":[{"name":"Profile","ph":"P","id":"0x1","pid":1,"tid":1,"ts":1,"args":{"data":{"startTime":1}}},
{"name":"ProfileChunk","ph":"P","id":"0x1","pid":1,"tid":1,"ts":2,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}}],"samples":[1]},"timeDeltas":[5]}}}]}' > "$T/p.json"
	run spall2spaa "$T/p.json"
	assert_failure 1
	assert_output "spall2spaa: $T/p.json: no stacks found: a Chrome trace whose CPU profile is in 2 Profile/ProfileChunk events (sampled stacks), which spall2spaa does not read; it converts trace events of phases B, E and X (no profile written)"
}

@test "a depth limit: spans nested deeper than --max-depth (default 4096) are an error with their position" {
	awk 'BEGIN { printf "["; for (i = 0; i < 4097; i++) printf "%s{\"name\":\"f\",\"ph\":\"B\",\"ts\":%d,\"pid\":1,\"tid\":1}", i ? "," : "", i
		for (i = 0; i < 4097; i++) printf ",{\"name\":\"f\",\"ph\":\"E\",\"ts\":%d,\"pid\":1,\"tid\":1}", 10000 + i; print "]" }' > "$T/deep.json"
	run spall2spaa -o "$T/out.spaa" "$T/deep.json"
	assert_failure 1
	assert_output --regexp "^spall2spaa: $T/deep.json:1: spans nested deeper than 4096 levels \(the limit; --max-depth=N raises it\) \(byte [0-9]+\)$"
	[ ! -e "$T/out.spaa" ]
	spall2spaa --max-depth=4097 "$T/deep.json" | spaa-validate -q -
	echo '[{"name":"a","ph":"X","ts":0,"dur":10,"pid":1,"tid":1},{"name":"b","ph":"X","ts":1,"dur":5,"pid":1,"tid":1},{"name":"c","ph":"X","ts":2,"dur":1,"pid":1,"tid":1}]' > "$T/x.json"
	run spall2spaa --max-depth=2 "$T/x.json"
	assert_failure 1
	assert_output "spall2spaa: $T/x.json:1: spans nested deeper than 2 levels (the limit; --max-depth=N raises it) (byte 108)"
	run spall2spaa --max-depth=0 "$T/x.json"
	assert_failure 2
	assert_line --index 0 "spall2spaa: --max-depth: '0' is not from 1 to 2147483647"
}

@test "time going backwards by more than 2^63 ns is reported exactly" {
	echo '[{"name":"a","ph":"B","ts":9000000000000000,"pid":1,"tid":1},{"name":"b","ph":"B","ts":-9000000000000000,"pid":1,"tid":1},{"name":"b","ph":"E","ts":-8000000000000000,"pid":1,"tid":1},{"name":"a","ph":"E","ts":9000000000000001,"pid":1,"tid":1}]' > "$T/back.json"
	run spall2spaa -o "$T/out.spaa" "$T/back.json"
	assert_success
	assert_output "spall2spaa: $T/back.json:1: time goes backwards on thread 1/1 (18000000000000000000 ns earlier than the previous event) (byte 61)
spall2spaa: $T/back.json:1: time goes backwards on thread 1/1 (17000000000000000000 ns earlier than the previous event) (byte 122)"
}

@test "a span whose cost passes 64 bits is an error naming its position" {
	echo '[{"name":"a","ph":"B","ts":-9000000000000000,"pid":1,"tid":1},{"name":"a","ph":"E","ts":9000000000000000,"pid":1,"tid":1}]' > "$T/ov.json"
	run spall2spaa "$T/ov.json"
	assert_failure 1
	assert_output "spall2spaa: $T/ov.json:1: span cost overflows 64 bits (byte 1)"
}

@test "a second traceEvents array (JSON.parse keeps the last; both were read as one trace, nesting the one in the other): an error" {
	printf '%s' '{"traceEvents":[{"name":"f","ph":"X","ts":1,"dur":5,"pid":1,"tid":1}],"traceEvents":[{"name":"g","ph":"X","ts":1,"dur":5,"pid":1,"tid":1}]}' > "$T/t.json"
	run spall2spaa -o "$T/out" "$T/t.json"
	assert_failure 1
	assert_output "spall2spaa: $T/t.json:1: a second traceEvents array (byte 70)"
	[ ! -e "$T/out" ]
}

@test "a binary file cut after its header, a trace of ends alone: no span, an error (they wrote an empty profile, exit 0)" {
	head -c 32 "$S/small-trace-v0.spall" > "$T/h.spall"
	run spall2spaa -o "$T/out" "$T/h.spall"
	assert_failure 1
	assert_output "spall2spaa: $T/h.spall: no stacks found: no span both begins and ends in it (no profile written)"
	[ ! -e "$T/out" ]
	head -c 36 "$S/small-trace-v0.spall" > "$T/h.spall"
	run spall2spaa -o "$T/out" "$T/h.spall"
	assert_failure 1
	assert_output "spall2spaa: $T/h.spall: byte 32: event truncated at end of input; ignored
spall2spaa: $T/h.spall: no stacks found: no span both begins and ends in it (no profile written)"
	printf '%s' '[{"name":"f","ph":"E","ts":1,"pid":1,"tid":1}]' > "$T/e.json"
	run spall2spaa "$T/e.json"
	assert_failure 1
	assert_output "spall2spaa: $T/e.json:1: end with no open begin on thread 1/1; ignored (byte 1)
spall2spaa: $T/e.json: no stacks found: no span both begins and ends in it (no profile written)"
}
