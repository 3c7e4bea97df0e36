#!/usr/bin/env bats
# spaa-grep: stack selection, dictionary pruning, samples and windows, -c,
# errors, compressed input, -o, write errors.
load common

G=$BATS_TEST_DIRNAME/data/grep
F=$G/small.spaa

# The ids of the stacks spaa-grep keeps, on one line.
kept() { spaa-grep "$@" | grep -o '"type":"stack","id":"[^"]*"' | sed 's/.*"id":"\([^"]*\)"/\1/' | tr '\n' ' '; }

@test "-e: the kept stacks, their dictionaries, samples and windows, records unchanged" {
	run spaa-grep -e malloc "$F"
	assert_success
	assert_output "$(cat "$G/malloc.expected")"
}

@test "-e REGEX matches any frame; several -e: any of them" {
	run kept -e 'parse_' "$F"
	assert_output "s1 s2 s3 "
	run kept -e '^malloc$' -e sys_read "$F"
	assert_output "s1 s2 "
}

@test "spaa-grep -e X | spaa-fold = the folded lines with a frame matching X" {
	for re in read 'fs(notify|_read)' '^0x' 'k]$'; do
		spaa-grep -e "$re" "$G/before.spaa" | spaa-fold > "$T/got"
		spaa-fold "$G/before.spaa" | awk -v re="$re" '{ sub(/ [0-9]+$/, "", $0); n = split($0, f, ";"); for (i = 1; i <= n; i++) if (f[i] ~ re) { print; next } }' > "$T/names"
		cut -d' ' -f1 "$T/got" > "$T/gotnames"
		run diff "$T/names" "$T/gotnames"
		assert_success
	done
	run bash -c "spaa-grep -e '^read\$' '$G/before.spaa' | spaa-fold"
	assert_output "dd;[unknown];read 14
dd;[unknown];read;system_call_[k];__fdget_pos_[k] 11
dd;[unknown];read;system_call_[k];sys_read_[k];vfs_read_[k];fsnotify_[k] 6"
}

@test "--leaf looks at the leaf frame only" {
	run kept --leaf -e parse "$F"
	assert_output "s3 "
}

@test "-v keeps the stacks without a matching frame" {
	run kept -v -e read "$F"
	assert_output "s1 s3 s4 "
	run kept -v --leaf -e parse "$F"
	assert_output "s1 s2 s4 "
}

@test "-i ignores case" {
	run spaa-grep -c -e memcpy "$F"
	assert_output "0 stacks, 0 period
spaa-grep: $F: no function matches -e 'memcpy'; names that contain 'memcpy' (ignoring case): 'Memcpy'; -i ignores case"
	run spaa-grep -c -i -e memcpy "$F"
	assert_output "1 stack, 50 period"
	run spaa-grep -c -i --comm '^APP$' "$F"
	assert_output "2 stacks, 500 period"
}

@test "--dso: a frame in a matching DSO; with -e, both on the same frame" {
	run kept --dso libc "$F"
	assert_output "s1 s2 s4 "
	run kept --dso kallsyms "$F"
	assert_output "s2 "
	run spaa-grep -c --dso libc -e parse "$F"
	assert_output "0 stacks, 0 period"
	run spaa-grep -c --dso app -e parse "$F"
	assert_output "3 stacks, 1,000 period"
}

@test "--pid, --tid (repeatable), --comm" {
	run spaa-grep -c --pid 100 "$F"
	assert_output "4 stacks, 1,050 period"
	run spaa-grep -c --pid 200 "$F"
	assert_output "0 stacks, 0 period"
	run kept --tid 101 "$F"
	assert_output "s2 s4 "
	run spaa-grep -c --tid 101 --tid 100 "$F"
	assert_output "4 stacks, 1,050 period"
	run kept --comm '^app$' "$F"
	assert_output "s1 s3 "
	run kept --comm worker "$F"
	assert_output "s2 s4 "
}

@test "--event, --min-weight, --metric; criteria combine with AND" {
	run spaa-grep -c --event cycles "$F"
	assert_output "4 stacks, 1,050 period"
	run kept --min-weight 300 "$F"
	assert_output "s1 s2 "
	run spaa-grep -c --min-weight 3 --metric samples "$F"
	assert_output "1 stack, 3 samples"
	run kept -e parse --tid 100 --min-weight 250 "$F"
	assert_output "s1 "
}

@test "--event not declared in the header is an error" {
	run spaa-grep --event nope "$F"
	assert_failure 1
	assert_output "spaa-grep: $F:1: event nope is not declared in the header (events: cycles)"
}

@test "-c counts the kept stacks and sums the primary metric" {
	run spaa-grep -c '' "$F"
	assert_success
	assert_output "4 stacks, 1,050 period"
	run spaa-grep --count -e nothing "$F"
	assert_output "0 stacks, 0 period"
}

@test "dictionaries no longer referenced are dropped; --keep-dicts keeps them" {
	run bash -c "spaa-grep -e sys_read '$F' | grep -c '\"type\":\"\\(dso\\|frame\\|thread\\)\"'"
	assert_output "8"
	run bash -c "spaa-grep --keep-dicts -e sys_read '$F' | grep -c '\"type\":\"\\(dso\\|frame\\|thread\\)\"'"
	assert_output "14"
	run bash -c "spaa-grep -e sys_read '$F' | spaa-validate"
	assert_success
}

@test "windows keep the entries of kept stacks; a window left empty stays" {
	run bash -c "spaa-grep --tid 101 '$F' | grep window"
	assert_output '{"type":"window","id":"w1","start":10.0,"end":11.0,"unit":"seconds","by_stack":[{"stack_id":"s2","weights":[{"metric":"period","value":250}]}]}
{"type":"window","id":"w2","start":11.0,"end":12.0,"unit":"seconds","by_stack":[{"stack_id":"s2","weights":[{"metric":"period","value":250}]},{"stack_id":"s4","weights":[{"metric":"period","value":50}]}],"x_extra":{"a":[1,2.50]}}'
	run bash -c "spaa-grep -e nothing '$F' | grep window"
	assert_output '{"type":"window","id":"w1","start":10.0,"end":11.0,"unit":"seconds","by_stack":[]}
{"type":"window","id":"w2","start":11.0,"end":12.0,"unit":"seconds","by_stack":[],"x_extra":{"a":[1,2.50]}}'
}

@test "an empty PATTERN: everything kept, byte for byte apart from unused dictionaries" {
	run bash -c "spaa-grep --keep-dicts '' '$F' | cmp - '$F'"
	assert_success
	run bash -c "spaa-grep '' '$F' | wc -l"
	assert_output "26"
}

@test "stdin, gzip and zstd input" {
	gzip -c "$F" > "$T/in.gz"
	zstd -q -c "$F" > "$T/in.zst"
	run bash -c "spaa-grep -e malloc < '$T/in.gz'"
	assert_output "$(cat "$G/malloc.expected")"
	run spaa-grep -e malloc "$T/in.zst"
	assert_output "$(cat "$G/malloc.expected")"
	run bash -c "cat '$F' | spaa-grep -e malloc -"
	assert_output "$(cat "$G/malloc.expected")"
}

@test "-o FILE, -z and FILE.zst" {
	run spaa-grep -e malloc -o "$T/out.spaa" "$F"
	assert_success
	assert_output ""
	run cmp "$T/out.spaa" "$G/malloc.expected"
	assert_success
	spaa-grep -e malloc -o "$T/out.spaa.zst" "$F"
	run bash -c "zstd -dc '$T/out.spaa.zst' | cmp - '$G/malloc.expected'"
	assert_success
	run bash -c "spaa-grep -z -e malloc '$F' | zstd -dc | cmp - '$G/malloc.expected'"
	assert_success
}

@test "write error" {
	run bash -c "spaa-grep -e main '$F' > /dev/full"
	assert_failure 1
	assert_output "spaa-grep: standard output: write error: No space left on device"
}

@test "a sample whose stack never comes" {
	sed 's/"stack_id":"s4"/"stack_id":"s9"/' "$F" > "$T/bad.spaa"
	run spaa-grep -e main "$T/bad.spaa"
	assert_failure 1
	assert_output "spaa-grep: $T/bad.spaa:27: sample refers to unknown stack s9"
}

@test "bad JSON, no header, missing file" {
	printf '{"type":"header"}\n{bad\n' > "$T/bad.spaa"
	run spaa-grep main "$T/bad.spaa"
	assert_failure 1
	assert_output "spaa-grep: $T/bad.spaa:2: invalid JSON at byte 2: expected string key"
	run bash -c ": | spaa-grep main"
	assert_failure 1
	assert_output "spaa-grep: -: no header record (empty input)"
	run spaa-grep main "$T/missing.spaa"
	assert_failure 1
	assert_output "spaa-grep: $T/missing.spaa: No such file or directory"
}

@test "usage errors exit 2" {
	run spaa-grep -e '(' "$F"
	assert_failure 2
	assert_line --index 0 "spaa-grep: -e '(': Unmatched ( or \\("
	assert_line --index 1 "Try 'spaa-grep --help' for more information."
	run spaa-grep -v --pid 100 "$F"
	assert_failure 2
	assert_line --index 0 "spaa-grep: -v needs a PATTERN, -e or --dso"
	run spaa-grep --leaf --tid 100 "$F"
	assert_failure 2
	assert_line --index 0 "spaa-grep: --leaf needs a PATTERN, -e or --dso"
	run spaa-grep </dev/null
	assert_failure 2
	assert_line --index 0 "spaa-grep: no PATTERN: give one (spaa-grep PATTERN [FILE]...), -e PATTERN, or a stack criterion such as --pid"
	run spaa-grep --pid x "$F"
	assert_failure 2
	assert_line --index 0 "spaa-grep: --pid: 'x' is not an integer"
	run spaa-grep --min-weight -1 "$F"
	assert_failure 2
	run spaa-grep --bogus "$F"
	assert_failure 2
}

@test "--help and --version" {
	run spaa-grep --help
	assert_success
	assert_line --index 0 "Usage: spaa-grep [OPTION]... PATTERN [FILE]..."
	run spaa-grep --version
	assert_success
	assert_output --regexp "^spaa-grep \(spaa-tools\) "
}

@test "related_stacks keep only the stacks that are kept" {
	dtrace2spaa "$EX/dtrace-stacks.txt" | spaa-grep -e '__read$' > "$T/g.spaa"
	run grep -c '"related_stacks":\[\]' "$T/g.spaa"
	assert_output 1
	run spaa-validate --strict -q "$T/g.spaa"
	assert_success
	# both halves kept: the links stay as they were
	dtrace2spaa "$EX/dtrace-stacks.txt" | spaa-grep -e 'read$' > "$T/both.spaa"
	run grep -c '"related_stacks":\["0x' "$T/both.spaa"
	assert_output 2
}

@test "the corpus's folded files: spaa-grep -e X | spaa-fold = the lines with a frame matching X" {
	for f in before after; do
		folded2spaa "$D/folded/$f.txt" >"$T/$f.spaa"
		for x in 'fsnotify' '^read$' '_\[k\]$' 'nothing'; do
			spaa-grep -e "$x" "$T/$f.spaa" | spaa-fold --raw >"$T/got"
			spaa-fold --raw "$T/$f.spaa" |
				awk -v X="$x" '{ s = $0; sub(/ [^ ]*$/, "", s); n = split(s, a, ";")
					for (i = 1; i <= n; i++) if (a[i] ~ X) { print; break } }' >"$T/want"
			cmp "$T/want" "$T/got"
		done
	done
	run sh -c 'spaa-grep --leaf -e "_\[k\]$" -v "$1" | spaa-fold --raw' sh "$T/before.spaa"
	assert_output "dd;[unknown];0x234f2abc;system_call_[k];0xF1BDE348 1
dd;[unknown];[dd] 3
dd;[unknown];read 14"
	run spaa-grep -c -e 'write' "$T/after.spaa"
	assert_output "4 stacks, 41 samples"
}

@test "header only; unknown frame; weights of 2^64-1 and a -c sum beyond 64 bits; -o in a missing directory" {
	head -n 1 "$F" >"$T/h.spaa"
	run spaa-grep -e main "$T/h.spaa"
	assert_success
	assert_output "$(cat "$T/h.spaa")"
	{ cat "$T/h.spaa"; echo '{"type":"stack","id":"0x1","frames":[9],"context":{"event":"cycles"},"weights":[{"metric":"period","value":1}]}'; } >"$T/u.spaa"
	run spaa-grep -e main "$T/u.spaa"
	assert_failure 1
	assert_output "spaa-grep: $T/u.spaa:2: stack 0x1 refers to unknown frame 9"
	{ cat "$T/h.spaa"
	  echo '{"type":"dso","id":1,"name":"x","is_kernel":false}'
	  echo '{"type":"frame","id":1,"func":"f","dso":1,"kind":"user"}'
	  for i in 1 2; do echo '{"type":"stack","id":"0x'$i'","frames":[1],"context":{"event":"cycles","tid":'$i'},"weights":[{"metric":"period","value":18446744073709551615}]}'; done; } >"$T/big.spaa"
	run spaa-grep -c --tid 2 --min-weight 18446744073709551615 "$T/big.spaa"
	assert_success
	assert_output "1 stack, 18,446,744,073,709,551,615 period"
	run spaa-grep -e f "$T/big.spaa"
	assert_success
	assert_output "$(cat "$T/big.spaa")"
	run spaa-grep -c '' "$T/big.spaa"
	assert_failure 1
	assert_output "spaa-grep: $T/big.spaa:5: -c: the period weights add up beyond 64 bits"
	run spaa-grep -e f -o "$T/no/dir/x.spaa" "$T/big.spaa"
	assert_failure 1
	assert_output "spaa-grep: $T/no/dir/x.spaa: No such file or directory"
}

@test "spaa-grep -m: pprof's metric names" {
	pprof2spaa "$EX/go-heap.pprof" > "$T/h.spaa"
	run spaa-grep -c -m inuse_space -e main.allocLive "$T/h.spaa"
	assert_success
	assert_output "4 stacks, 1.14MB live_bytes"
}

@test "grep's operands: PATTERN first, as in grep; -e still works; several FILEs merged as spaa-cat --merge" {
	# issue 30: 'spaa-grep sre_ FILE' said "too many arguments"
	run spaa-grep hash_one "$EX/perf-cpu.spaa"
	assert_success
	assert_output "$(spaa-grep -e hash_one "$EX/perf-cpu.spaa")"
	run sh -c 'spaa-grep -c hash_one < "$1"' sh "$EX/perf-cpu.spaa"
	assert_output "2 stacks, 17,527,770 period"
	run spaa-grep -v -c hash_one "$EX/perf-cpu.spaa"
	assert_output "5 stacks, 14,101,850 period"
	# with -e the operands are all files, as in grep
	run spaa-grep -c -e hash_one -e to_lowercase "$EX/perf-cpu.spaa"
	assert_output "3 stacks, 22,516,977 period"
	# a stack criterion without a pattern: the operands are files
	run spaa-grep -c --pid 100 "$F"
	assert_output "4 stacks, 1,050 period"
	# several files: merged, then filtered
	run spaa-grep hash_one "$EX/perf-cpu.spaa" "$EX/perf-cpu.spaa"
	assert_success
	assert_output "$(spaa-cat --merge "$EX/perf-cpu.spaa" "$EX/perf-cpu.spaa" | spaa-grep hash_one)"
	run spaa-grep -c hash_one "$EX/perf-cpu.spaa" - < "$EX/perf-cpu.spaa"
	assert_output "2 stacks, 35,055,540 period"
	run spaa-grep -c main "$EX/perf-cpu.spaa" "$T/missing.spaa"
	assert_failure 1
	assert_output "spaa-grep: $T/missing.spaa: No such file or directory"
	run spaa-grep -c main - - < "$EX/perf-cpu.spaa"
	assert_failure 2
	# another format is read by its reader, then merged
	run spaa-grep -c main "$EX/perf-cpu.spaa" "$EX/dd.folded"
	assert_success
	assert_output "$(folded2spaa "$EX/dd.folded" > "$T/dd.spaa" && spaa-grep -c main "$EX/perf-cpu.spaa" "$T/dd.spaa")"
	# the merged copy is a temporary file, gone after success and failure
	mkdir "$T/tmp"
	TMPDIR=$T/tmp spaa-grep main "$EX/perf-cpu.spaa" "$EX/perf-cpu.spaa" > /dev/null
	printf 'not a profile\n' > "$T/bad.txt"
	run env TMPDIR="$T/tmp" spaa-grep main "$EX/perf-cpu.spaa" "$T/bad.txt"
	assert_failure 1
	assert_equal "$(ls -A "$T/tmp")" ""
}

# gzip.perf.data: perf record of gzip (tests/spaa-window.bats); perf report
# --stdio says "Event count (approx.): 232464928" (of cpu-clock, in ns), and
# go tool pprof -sample_index=inuse_space -top -focus=main.allocLive of
# go-heap.pprof "Showing nodes accounting for 1.14MB"
@test "-c prints W as the tables do: in the metric's unit, counts with separators (issue 30)" {
	perf2spaa "$BATS_TEST_DIRNAME/data/window/gzip.perf.data" > "$T/p.spaa"
	run spaa-grep -c '' "$T/p.spaa"
	assert_success
	assert_output "78 stacks, 232.46ms period"
	run spaa-grep -c --raw-units '' "$T/p.spaa"
	assert_output "78 stacks, 232464928 period"
	assert_equal "$(spaa-top -n 0 "$T/p.spaa" | head -n 1)" "cpu-clock:pppH/period, total 232.46ms"
	pprof2spaa "$EX/go-heap.pprof" > "$T/h.spaa"
	run spaa-grep -c -m inuse_space main.allocLive "$T/h.spaa"
	assert_output "4 stacks, 1.14MB live_bytes"
	run spaa-grep -c -m inuse_space --iec main.allocLive "$T/h.spaa"
	assert_output "4 stacks, 1.14MiB live_bytes"
	run spaa-grep -c hash_one "$EX/perf-cpu.spaa"
	assert_output "2 stacks, 17,527,770 period"
	run spaa-grep --raw-units hash_one "$EX/perf-cpu.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-grep: --raw-units and --iec go with -c"
}

# ---- the frame filters (common/analysis/filter.c), pprof's verbs ---------------------

@test "spaa-grep --ignore=RE is the frame filter, not an abbreviation of --ignore-case; --focus keeps whole stacks; -c counts what they keep" {
	local S=$D/top/small.spaa
	run spaa-grep --ignore=memcpy "$S"
	assert_success
	assert_output - <<'OUT'
{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"cycles","kind":"hardware","sampling":{"mode":"period","primary_metric":"period"}},{"name":"instructions","kind":"hardware","sampling":{"mode":"period","primary_metric":"period"}}],"time_range":{"start":0,"end":2,"unit":"seconds"},"stack_id_mode":"local"}
{"type":"dso","id":1,"name":"/bin/app","is_kernel":false}
{"type":"frame","id":1,"func":"main","dso":1,"srcline":"app.c:10","kind":"user"}
{"type":"frame","id":2,"func":"fib","dso":1,"srcline":"app.c:3","kind":"user"}
{"type":"frame","id":3,"func":"fib","dso":1,"srcline":"app.c:5","kind":"user"}
{"type":"frame","id":6,"func":"parse","dso":1,"srcline":"app.c:20","kind":"user"}
{"type":"stack","id":1,"frames":[2,1],"context":{"event":"cycles"},"weights":[{"metric":"samples","value":4},{"metric":"period","value":400}]}
{"type":"stack","id":2,"frames":[3,2,1],"context":{"event":"cycles"},"weights":[{"metric":"samples","value":3},{"metric":"period","value":300}]}
{"type":"stack","id":5,"frames":[6,1],"context":{"event":"cycles"},"weights":[{"metric":"samples","value":1},{"metric":"period","value":100}]}
{"type":"stack","id":6,"frames":[1],"context":{"event":"cycles"},"weights":[{"metric":"samples","value":1}]}
{"type":"stack","id":7,"frames":[6,1],"context":{"event":"instructions"},"weights":[{"metric":"samples","value":5},{"metric":"period","value":5000}]}
OUT
	run spaa-grep -c --focus=fib "$S"
	assert_output "3 stacks, 900 period"
	# the exact name wins; an abbreviation of two is ambiguous
	run spaa-grep --ign=x "$S"
	assert_failure 2
	run spaa-grep --show-f=fib -c "$S"
	assert_output "3 stacks, 900 period"
}

@test "spaa-grep --hide, --prune-from: the stacks keep their ids with the frames that remain, the dictionaries they still name, their samples" {
	run spaa-grep --event cycles --hide=fib --prune-from=memcpy "$D/top/small.spaa"
	assert_success
	assert_output - <<'OUT'
{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"cycles","kind":"hardware","sampling":{"mode":"period","primary_metric":"period"}},{"name":"instructions","kind":"hardware","sampling":{"mode":"period","primary_metric":"period"}}],"time_range":{"start":0,"end":2,"unit":"seconds"},"stack_id_mode":"local"}
{"type":"dso","id":1,"name":"/bin/app","is_kernel":false}
{"type":"dso","id":2,"name":"/lib/libc.so.6","is_kernel":false}
{"type":"frame","id":1,"func":"main","dso":1,"srcline":"app.c:10","kind":"user"}
{"type":"frame","id":4,"func":"memcpy","dso":2,"kind":"user"}
{"type":"frame","id":6,"func":"parse","dso":1,"srcline":"app.c:20","kind":"user"}
{"type":"stack","id":1,"frames":[1],"context":{"event":"cycles"},"weights":[{"metric":"samples","value":4},{"metric":"period","value":400}]}
{"type":"stack","id":2,"frames":[1],"context":{"event":"cycles"},"weights":[{"metric":"samples","value":3},{"metric":"period","value":300}]}
{"type":"stack","id":3,"frames":[4,1],"context":{"event":"cycles"},"weights":[{"metric":"samples","value":2},{"metric":"period","value":200}]}
{"type":"stack","id":4,"frames":[4,6,1],"context":{"event":"cycles"},"weights":[{"metric":"samples","value":1},{"metric":"period","value":1000}]}
{"type":"stack","id":5,"frames":[6,1],"context":{"event":"cycles"},"weights":[{"metric":"samples","value":1},{"metric":"period","value":100}]}
{"type":"stack","id":6,"frames":[1],"context":{"event":"cycles"},"weights":[{"metric":"samples","value":1}]}
OUT
	# a perf profile with samples: they follow their stacks; the exclusive
	# weights go to the new leaf; the content ids become local ones
	run spaa-grep --hide='hash_one|insert' "$EX/perf-cpu.spaa"
	assert_success
	assert_line --partial '"stack_id_mode":"local"'
	[ "$(printf '%s\n' "$output" | grep -c '"type":"sample"')" -eq 14 ]
	# (hash_one and insert were inlined in count_words: the stack lost them)
	assert_line '{"type":"stack","id":"0xe2a0636771b9d677","frames":[3,2,1],"context":{"event":"cycles","pid":31337,"tid":31337,"comm":"wordfreq"},"weights":[{"metric":"samples","value":5},{"metric":"period","value":12516741,"unit":"events"}],"exclusive":{"frame":3,"weights":[{"metric":"samples","value":5},{"metric":"period","value":12516741,"unit":"events"}]}}'
	printf '%s\n' "$output" > "$T/out.spaa"
	spaa-validate --strict "$T/out.spaa"
}

@test "spaa-grep with a frame filter, then spaa-top: the figures of spaa-top with the filter (a Go profile with inlined calls); a frame that lost its caller's frames becomes a copy of lower inline depth, and the output is valid" {
	pprof2spaa "$D/filters/cpu.pprof" -o "$T/cpu.spaa"
	local f
	for f in --focus=fib --ignore=mix --hide=mix --hide=twice --hide='mix|square' --show='square|main' \
		 --show-from=gamma --show-from=square --prune-from=twice \
		 "--focus=main --hide=fib --show-from=main.main --prune-from=twice"; do
		# shellcheck disable=SC2086
		spaa-grep $f "$T/cpu.spaa" > "$T/g.spaa"
		spaa-validate --strict "$T/g.spaa" || fail "$f: not valid"
		# shellcheck disable=SC2086
		spaa-top -J -n 0 $f "$T/cpu.spaa" | jq -c 'select(.type == "row") | del(.rank, .self_percent, .total_percent)' > "$T/a"
		spaa-top -J -n 0 "$T/g.spaa" | jq -c 'select(.type == "row") | del(.rank, .self_percent, .total_percent)' > "$T/b"
		[ -s "$T/a" ] && cmp "$T/a" "$T/b" || fail "$f: spaa-top differs: $(diff "$T/a" "$T/b")"
	done
	# the same file with its frames root first (frame_order root_to_leaf)
	jq -c 'if .type == "stack" then .frames |= reverse elif .type == "header" then .frame_order = "root_to_leaf" else . end' \
		"$T/cpu.spaa" > "$T/r2l.spaa"
	for f in --hide=mix --hide=twice "--show-from=gamma --prune-from=twice" --show='square|main'; do
		# shellcheck disable=SC2086
		spaa-grep $f "$T/r2l.spaa" > "$T/g.spaa"
		spaa-validate --strict "$T/g.spaa" || fail "$f (root_to_leaf): not valid"
		# shellcheck disable=SC2086
		spaa-top -J -n 0 $f "$T/cpu.spaa" | jq -c 'select(.type == "row") | del(.rank, .self_percent, .total_percent)' > "$T/a"
		spaa-top -J -n 0 "$T/g.spaa" | jq -c 'select(.type == "row") | del(.rank, .self_percent, .total_percent)' > "$T/b"
		cmp "$T/a" "$T/b" || fail "$f (root_to_leaf): spaa-top differs: $(diff "$T/a" "$T/b")"
	done
	# mix held twice and square inlined: without it twice is a frame of its
	# own (inline depth 0), square still inlined in it (depth 1)
	run spaa-grep --hide=mix "$T/cpu.spaa"
	assert_line '{"type":"frame","id":"2.d0","func":"main.twice","dso":1,"ip":"0x4a88b0","srcline":"/tmp/verbs/go/main.go:16","inline_depth":0,"kind":"user"}'
	assert_line --partial '"id":"1.d1","func":"main.square"'
}
