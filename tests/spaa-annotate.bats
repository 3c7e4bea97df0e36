#!/usr/bin/env bats
# spaa-annotate against the tools it follows: go tool pprof -list and
# -disasm (Go 1.19's pprof) on a CPU profile of a Go program with
# recursion, mutual recursion, a helper shared by three callers and an
# inlined function (tests/data/annotate/golist: the program, its profile
# and pprof's listings of it); perf annotate --stdio and perf report -s
# sym,srcline on a perf.data of a C program built -g -O2
# (tests/data/annotate/cann: the source, the capture and perf script's text
# of it, the binary under root/ where it was, and perf's outputs).  The live tests build, run and
# profile the same programs again when go, perf and a C compiler are there.
load common

GO=$D/annotate/golist
CH=$D/annotate/cann

# ---- -list: pprof's listings -------------------------------------------------

@test "-list: go tool pprof -list 'main\.''s listing, line by line, the source found by pprof's rule (the current directory's name in the recorded path)" {
	pprof2spaa "$GO/cpu.pprof" > "$T/cpu.spaa"
	cd "$GO"
	spaa-annotate 'main\.' "$T/cpu.spaa" > "$T/out" 2> "$T/err"
	diff list-main.txt "$T/out"
	[ ! -s "$T/err" ]
	# every function: main.fib recursive (cum 120% of the total), main.even
	# and main.odd mutually recursive, main.mix under three callers,
	# main.square inlined into two of them
	grep -qx 'ROUTINE ======================== main.square in /tmp/golist/main.go' "$T/out"
	grep -qx '      10ms      1.01s (flat, cum) 74.26% of Total' "$T/out"
	grep -qx '         .      430ms     45:	return odd(n-1) + mix(uint64(n))' "$T/out"
}

@test "-list: the same from a profile with --addresses, and from standard input" {
	cd "$GO"
	pprof2spaa --addresses cpu.pprof | spaa-annotate 'main\.' > "$T/out"
	diff list-main.txt "$T/out"
}

@test "-list -m samples: counts as pprof -sample_index=samples prints them" {
	cd "$GO"
	pprof2spaa cpu.pprof | spaa-annotate -m samples 'main\.(fib|square)$' > "$T/out"
	diff list-samples.txt "$T/out"
}

@test "-list --source-path --trim-path: pprof's -source_path and -trim_path" {
	pprof2spaa "$GO/cpu.pprof" | spaa-annotate --source-path="$GO" --trim-path=/tmp/golist 'main\.(odd|even)' > "$T/out"
	diff "$GO/list-trim.txt" "$T/out"
}

@test "-list: two profiles are added up, as pprof -list RE A B" {
	pprof2spaa "$GO/cpu.pprof" > "$T/a.spaa"
	cd "$GO"
	spaa-annotate 'main\.fib$' "$T/a.spaa" "$T/a.spaa" > "$T/out"
	diff list-twice.txt "$T/out"
}

@test "-list: a source that is not there: pprof's error line under the ROUTINE line, nothing on standard error, exit 0" {
	cd "$T"
	pprof2spaa "$EX/go-cpu.pprof" | spaa-annotate '^main\.' > "$T/out" 2> "$T/err"
	diff "$GO/list-gop.txt" "$T/out"
	[ ! -s "$T/err" ]
	mkdir "$T/empty"
	pprof2spaa "$GO/cpu.pprof" | spaa-annotate --source-path="$T/empty" --trim-path=/tmp/golist 'main\.fib$' > "$T/out"
	assert_file_eq "$T/out" <<-EOF
	Total: 1.36s
	ROUTINE ======================== main.fib in main.go
	      10ms      1.01s (flat, cum) 74.26% of Total
	 Error: could not find file main.go on path $T/empty
	EOF
}

@test "-list: a source path that names a FIFO or a directory is not read (no wait on the FIFO)" {
	mkfifo "$T/f.go"
	mkdir "$T/d.go"
	printf '%s\n' '{"type":"header","format":"spaa","version":"1.0","frame_order":"leaf_to_root","events":[{"name":"cpu","kind":"timer","sampling":{"mode":"period","primary_metric":"samples"}}],"stack_id_mode":"local"}' \
		'{"type":"dso","id":1,"name":"x","is_kernel":false}' \
		"{\"type\":\"frame\",\"id\":1,\"func\":\"f\",\"dso\":1,\"srcline\":\"$T/f.go:3\",\"kind\":\"user\"}" \
		"{\"type\":\"frame\",\"id\":2,\"func\":\"g\",\"dso\":1,\"srcline\":\"$T/d.go:3\",\"kind\":\"user\"}" \
		'{"type":"stack","id":"1","frames":[1,2],"context":{"event":"cpu"},"weights":[{"metric":"samples","value":3}]}' > "$T/p.spaa"
	run timeout 10 spaa-annotate '^(f|g)$' "$T/p.spaa"
	assert_success
	assert_output "Total: 3
ROUTINE ======================== f in $T/f.go
         3          3 (flat, cum)   100% of Total
 Error: open $T/f.go: a FIFO, not a regular file
ROUTINE ======================== g in $T/d.go
         0          3 (flat, cum)   100% of Total
 Error: open $T/d.go: a directory, not a regular file"
}

@test "-list: lines past the end of the file end the listing, as in pprof; a frame with no srcline: No source information" {
	printf 'l1\nl2\r\nl3' > "$T/s.c"
	printf '%s\n' '{"type":"header","format":"spaa","version":"1.0","frame_order":"leaf_to_root","events":[{"name":"cpu","kind":"timer","sampling":{"mode":"period","primary_metric":"samples"}}],"stack_id_mode":"local"}' \
		'{"type":"dso","id":1,"name":"x","is_kernel":false}' \
		"{\"type\":\"frame\",\"id\":1,\"func\":\"f\",\"dso\":1,\"srcline\":\"$T/s.c:2\",\"kind\":\"user\"}" \
		'{"type":"frame","id":2,"func":"h","dso":1,"kind":"user"}' \
		'{"type":"stack","id":"1","frames":[1,2],"context":{"event":"cpu"},"weights":[{"metric":"samples","value":3}]}' > "$T/p.spaa"
	run spaa-annotate '^(f|h)$' "$T/p.spaa"
	assert_success
	assert_output "Total: 3
ROUTINE ======================== f in $T/s.c
         3          3 (flat, cum)   100% of Total
         .          .      1:l1
         3          3      2:l2
         .          .      3:l3
No source information for h"
}

# ---- perf.data: source lines and instructions ---------------------------

# per (function, line) of the C program's functions: perf report's share of
# all samples ("mix hot.c:19 30.99"), from perf's output on stdin
perf_srclines() {
	awk '$2 == "[.]" && $4 ~ /^hot\.c:[0-9]+$/ && ($3 == "mix" || $3 == "walk" || $3 == "sum") { sub("%", "", $1); print $3, $4, $1 }' | sort
}
# the same from spaa-annotate --raw-units's listing on stdin
annotate_srclines() {
	awk '/^Total: / { total = $2 } /^ROUTINE/ { fn = $3 }
		/^ *[0-9.]+ +[0-9.]+ +[0-9]+:/ && $1 != "." { l = $3; sub(":.*", "", l); printf "%s hot.c:%s %.2f\n", fn, l, $1 * 100 / total }' | sort
}
# per instruction: "ADDR PERCENT" of perf annotate --stdio (on stdin)
perf_insns() {
	awk '/^ +[0-9.]+ : +[0-9a-f]+:/ { a = $3; sub(":", "", a); print a, $1 }'
}
# the same from spaa-annotate --disasm (on stdin)
annotate_insns() {
	awk '$4 ~ /^[0-9a-f]+:$/ { a = $4; sub(":", "", a); print a, $3 }'
}

@test "--disasm on perf.data: each instruction's percent is perf annotate --stdio's, in mix, walk and sum" {
	perf2spaa -q --root="$CH/root" --addresses "$CH/hot.data" > "$T/hot.spaa"
	local f
	for f in mix walk sum; do
		spaa-annotate --root="$CH/root" --disasm "^$f\$" "$T/hot.spaa" > "$T/out"
		perf_insns < "$CH/perf-annotate-$f.txt" > "$T/want"
		annotate_insns < "$T/out" > "$T/got"
		[ -s "$T/want" ]
		diff "$T/want" "$T/got"
	done
	# the same from perf script's text of the capture (hot.perf.txt.gz)
	perf2spaa --addresses "$CH/hot.perf.txt.gz" > "$T/text.spaa"
	for f in mix walk sum; do
		perf_insns < "$CH/perf-annotate-$f.txt" > "$T/want"
		spaa-annotate --root="$CH/root" --disasm "^$f\$" "$T/text.spaa" | annotate_insns > "$T/got"
		diff "$T/want" "$T/got"
	done
	# mix: 828 of the 952 samples, 294 of them at 0x11fa
	run spaa-annotate --root="$CH/root" --disasm --raw-units '^mix$' "$T/hot.spaa"
	assert_line --index 0 'Total: 238000000'
	assert_line --index 1 "ROUTINE ======================== mix in /tmp/cann/hot"
	assert_line --index 2 ' 207000000  211250000 (flat, cum) 88.76% of Total'
	assert_line '  39250000   40750000   18.96       11fa: mov    %rax,%rdx                        ;mix /tmp/cann/hot.c:19'
}

@test "-list on perf.data: each line's flat share is perf report -s sym,srcline's (lines from objdump -l at the addresses)" {
	perf2spaa -q --root="$CH/root" --addresses "$CH/hot.data" > "$T/hot.spaa"
	cd "$CH"
	spaa-annotate --root="$CH/root" --raw-units '^(mix|walk|sum)$' "$T/hot.spaa" > "$T/out"
	perf_srclines < perf-report-srcline.txt > "$T/want"
	annotate_srclines < "$T/out" > "$T/got"
	[ "$(wc -l < "$T/want")" -eq 9 ]
	diff "$T/want" "$T/got"
	run spaa-annotate --root="$CH/root" '^walk$' "$T/hot.spaa"
	assert_success
	assert_output - <<-'EOF'
	Total: 238ms
	ROUTINE ======================== walk in /tmp/cann/hot.c
	     500us    73.50ms (flat, cum) 30.88% of Total
	         .          .     24:
	         .          .     25:__attribute__((noinline)) unsigned long walk(int n)
	         .          .     26:{
	         .          .     27:	if (n < 2)
	         .          .     28:		return mix((unsigned long)n);
	         .       73ms     29:	return walk(n - 1) + walk(n - 2);
	     500us      500us     30:}
	         .          .     31:
	         .          .     32:__attribute__((noinline)) unsigned long sum(int n)
	         .          .     33:{
	         .          .     34:	unsigned long s = 0;
	         .          .     35:	for (int i = 0; i < n; i++) {
	EOF
}

@test "a perf profile without addresses: --disasm is an error; -list has no source lines and says how to get them" {
	perf2spaa -q --root="$CH/root" "$CH/hot.data" > "$T/hot.spaa"
	run spaa-annotate --disasm '^mix$' "$T/hot.spaa"
	assert_failure 1
	assert_output "spaa-annotate: $T/hot.spaa: 38 stacks without their addresses (no x_addr_id): --disasm needs a profile converted with perf2spaa --addresses or pprof2spaa --addresses"
	spaa-annotate '^mix$' "$T/hot.spaa" > "$T/out" 2> "$T/err"
	assert_file_eq "$T/out" <<-'EOF'
	Total: 238ms
	No source information for mix
	EOF
	assert_file_eq "$T/err" <<-'EOF'
	spaa-annotate: mix: no source lines: its frames have no srcline, and the stacks keep no addresses to find them at (convert with perf2spaa --addresses)
	EOF
}

@test "--disasm: a binary that is not there is said in the listing" {
	perf2spaa -q --root="$CH/root" --addresses "$CH/hot.data" > "$T/hot.spaa"
	run spaa-annotate --root="$T" --disasm '^walk$' "$T/hot.spaa"
	assert_success
	assert_output "Total: 238ms
ROUTINE ======================== walk in /tmp/cann/hot
     500us    73.50ms (flat, cum) 30.88% of Total
 Error: /tmp/cann/hot: no such file"
	run spaa-annotate --root="$CH/root" --objdump="$T/no-objdump" --disasm '^walk$' "$T/hot.spaa"
	assert_success
	assert_line --index 3 " Error: cannot run $T/no-objdump"
}

# ---- usage, errors, -o -----------------------------------------------------

@test "-o FILE: the listing; nothing written on error; no match is exit 1" {
	pprof2spaa "$GO/cpu.pprof" > "$T/cpu.spaa"
	cd "$GO"
	run spaa-annotate -o "$T/out.txt" 'main\.' "$T/cpu.spaa"
	assert_success
	assert_output ""
	diff list-main.txt "$T/out.txt"
	run spaa-annotate -o "$T/none.txt" '^nothing$' "$T/cpu.spaa"
	assert_failure 1
	assert_output "spaa-annotate: $T/cpu.spaa: no function matching '^nothing\$' in the stacks of event cpu"
	[ ! -e "$T/none.txt" ]
	run spaa-annotate -o "$T/none.txt" --disasm '^nothing$' "$T/cpu.spaa"
	assert_failure 1
	[ ! -e "$T/none.txt" ]
}

@test "usage errors: exit 2" {
	run spaa-annotate
	assert_failure 2
	assert_line --index 0 "spaa-annotate: a REGEX is needed: the functions to annotate"
	run spaa-annotate '(' /dev/null
	assert_failure 2
	assert_line --index 0 --partial "spaa-annotate: '(': "
	run spaa-annotate --bogus x
	assert_failure 2
	run spaa-annotate x - -
	assert_failure 2
	run spaa-annotate --help
	assert_success
	assert_line --index 0 'Usage: spaa-annotate [OPTION]... REGEX [FILE]...'
	run spaa-annotate -V
	assert_success
	assert_output --partial 'spaa-annotate (spaa-tools)'
}

@test "bad data: exit 1 with the file and line" {
	printf '{"type":"header"\n' > "$T/bad.spaa"
	run spaa-annotate x "$T/bad.spaa"
	assert_failure 1
	assert_output --partial "spaa-annotate: $T/bad.spaa:1: "
	: > "$T/empty.spaa"
	run spaa-annotate x "$T/empty.spaa"
	assert_failure 1
	pprof2spaa "$GO/cpu.pprof" > "$T/cpu.spaa"
	run spaa-annotate -m nosuch 'main' "$T/cpu.spaa"
	assert_failure 1
	assert_output --partial "no stack of event cpu has metric 'nosuch'"
}

# ---- live: the real tools, when here -----------------------------------

@test "live: a fresh Go profile: pprof -list's listing and -disasm's figures per address" {
	command -v go >/dev/null || skip "go is not installed"
	command -v objdump >/dev/null || skip "objdump is not installed"
	export HOME=$T GOCACHE=$T/gocache GOPATH=$T/gopath GOFLAGS=-mod=mod
	mkdir "$T/golist" && cp "$GO/main.go" "$GO/go.mod" "$T/golist/" && cd "$T/golist"
	go build -o golist .
	./golist cpu.pprof > /dev/null
	go tool pprof -list 'main\.' cpu.pprof > want.txt 2> /dev/null
	pprof2spaa --addresses cpu.pprof > cpu.spaa
	spaa-annotate 'main\.' cpu.spaa > got.txt
	diff want.txt got.txt
	# -disasm: flat and cum at every address pprof shows (objdump stops at
	# the function's end, Go's disassembler goes on over the padding; and
	# pprof leaves out of its listing, and its total, a sample at an
	# address its disassembly does not reach, where objdump's does: only
	# the addresses pprof shows are compared, now and then not all ours)
	go tool pprof -disasm 'main\.' cpu.pprof 2> /dev/null |
		awk '/^ROUTINE/ { r = $3 } $3 ~ /^[0-9a-f]+:$/ && ($1 != "." || $2 != ".") { a = $3; sub(":", "", a); print r, a, $1, $2 }' > want.txt
	spaa-annotate --disasm 'main\.' cpu.spaa |
		awk '/^ROUTINE/ { r = $3 } $4 ~ /^[0-9a-f]+:$/ && ($1 != "." || $2 != ".") { a = $4; sub(":", "", a); print r, a, $1, $2 }' > got.txt
	[ -s want.txt ]
	awk 'NR == FNR { want[$1 " " $2] = $0; next } ($1 " " $2) in want { print }' want.txt got.txt > common.txt
	diff want.txt common.txt
}

@test "live: a fresh perf.data of the C program: perf annotate's percent per instruction, perf report's per source line" {
	can_record
	command -v objdump >/dev/null || skip "objdump is not installed"
	cp "$CH/hot.c" "$T/" && cd "$T"
	cc -g -O2 -fno-omit-frame-pointer -o hot hot.c
	perf record -q -e cpu-clock -c 250000 -g -o hot.data ./hot 15 > /dev/null 2>&1
	perf2spaa -q --addresses hot.data > hot.spaa
	local f
	for f in mix walk sum; do
		perf annotate --stdio -i hot.data "$f" 2> /dev/null | perf_insns > want
		[ -s want ] || continue
		spaa-annotate --disasm "^$f\$" hot.spaa | annotate_insns > got
		diff want got
	done
	perf report -i hot.data --stdio --no-children -g none -s sym,srcline --percent-limit 0 2> /dev/null | perf_srclines > want
	spaa-annotate --raw-units '^(mix|walk|sum)$' hot.spaa | annotate_srclines > got
	[ -s want ]
	diff want got
}

# ---- --addresses of perf2spaa and pprof2spaa ---------------------------------

@test "perf2spaa and pprof2spaa --addresses: a frame per address, the stacks of other addresses stacks of their own; the same totals, valid SPAA" {
	perf2spaa -q --root="$CH/root" "$CH/hot.data" > "$T/a.spaa"
	perf2spaa -q --root="$CH/root" --addresses "$CH/hot.data" > "$T/b.spaa"
	spaa-validate --strict "$T/b.spaa"
	[ "$(grep -c '"func":"mix"' "$T/a.spaa")" -eq 1 ]
	[ "$(grep -c '"func":"mix"' "$T/b.spaa")" -eq 11 ]
	[ "$(grep -c '"x_addr_id":"0x' "$T/b.spaa")" -eq "$(grep -c '"type":"stack"' "$T/b.spaa")" ]
	diff <(spaa-fold "$T/a.spaa") <(spaa-fold "$T/b.spaa")
	diff <(spaa-top -n 0 "$T/a.spaa") <(spaa-top -n 0 "$T/b.spaa")
	# the text path: one frame per address too
	perf2spaa --addresses "$EX/parser.perf.txt" | spaa-validate --strict -
	pprof2spaa "$GO/cpu.pprof" > "$T/c.spaa"
	pprof2spaa --addresses "$GO/cpu.pprof" > "$T/d.spaa"
	spaa-validate --strict "$T/d.spaa"
	diff <(spaa-top -n 0 "$T/c.spaa") <(spaa-top -n 0 "$T/d.spaa")
	[ "$(grep -c '"func":"main.mix"' "$T/c.spaa")" -lt "$(grep -c '"func":"main.mix"' "$T/d.spaa")" ]
}

# ---- hostile inputs ------------------------------------------------------------

# a one-event profile of function f at lines 1 to 3 of $T/s.c, one stack of
# weight $1 in unit $2 (in stack order: leaf line 3)
three_lines() {
	printf 'a\nb\nc\n' > "$T/s.c"
	printf '%s\n' '{"type":"header","format":"spaa","version":"1.0","frame_order":"leaf_to_root","events":[{"name":"cpu","kind":"timer","sampling":{"mode":"period","primary_metric":"cpu"}}],"stack_id_mode":"local"}' \
		'{"type":"dso","id":1,"name":"x","is_kernel":false}' \
		"{\"type\":\"frame\",\"id\":1,\"func\":\"f\",\"dso\":1,\"srcline\":\"$T/s.c:1\",\"kind\":\"user\"}" \
		"{\"type\":\"frame\",\"id\":2,\"func\":\"f\",\"dso\":1,\"srcline\":\"$T/s.c:2\",\"kind\":\"user\"}" \
		"{\"type\":\"frame\",\"id\":3,\"func\":\"f\",\"dso\":1,\"srcline\":\"$T/s.c:3\",\"kind\":\"user\"}" \
		"{\"type\":\"stack\",\"id\":\"1\",\"frames\":[3,2,1],\"context\":{\"event\":\"cpu\"},\"weights\":[{\"metric\":\"cpu\",\"value\":$1,\"unit\":\"$2\"}]}"
}

@test "sums never wrap: a recursive function's cum over its lines beyond 2^64 is an error, nothing written" {
	three_lines 9000000000000000000 nanoseconds > "$T/p.spaa"
	run spaa-annotate --raw-units -o "$T/out" '^f$' "$T/p.spaa"
	assert_failure 1
	assert_output "spaa-annotate: $T/p.spaa: weights add up beyond 64 bits"
	[ ! -e "$T/out" ]
	three_lines 6000000000000000000 nanoseconds > "$T/p.spaa"
	run spaa-annotate --raw-units '^f$' "$T/p.spaa"
	assert_success
	assert_line --index 2 '6000000000000000000 18000000000000000000 (flat, cum) 300.00% of Total'
}

@test "two files with the metric in different units: an error, not a sum" {
	three_lines 5 nanoseconds > "$T/a.spaa"
	three_lines 5 milliseconds > "$T/b.spaa"
	run spaa-annotate '^f$' "$T/a.spaa" "$T/b.spaa"
	assert_failure 1
	assert_output "spaa-annotate: $T/b.spaa:6: metric 'cpu' is in milliseconds here but in nanoseconds in the stacks before: not added up"
	run spaa-annotate '^f$' "$T/a.spaa" "$T/a.spaa"
	assert_success
	assert_line --index 0 'Total: 10ns'
}

@test "--root: a dso reached through a link out of the root is not read" {
	perf2spaa -q --root="$CH/root" --addresses "$CH/hot.data" > "$T/hot.spaa"
	mkdir -p "$T/r/tmp/cann" "$T/outside"
	cp "$CH/root/tmp/cann/hot" "$T/outside/hot"
	ln -s "$T/outside/hot" "$T/r/tmp/cann/hot"
	run spaa-annotate --root="$T/r" --disasm '^walk$' "$T/hot.spaa"
	assert_success
	assert_line --index 3 " Error: /tmp/cann/hot: no such file"
	ln -sf ../../../outside/hot "$T/r/tmp/cann/hot"
	run spaa-annotate --root="$T/r" --disasm '^walk$' "$T/hot.spaa"
	assert_line --index 3 " Error: /tmp/cann/hot: no such file"
}

@test "-list: a function's recorded first line (pprof's start_line, pprof2spaa's x_start_line) begins its listing, as pprof's does" {
	seq 1 30 | sed 's/^/line /' > "$T/s.go"
	printf '%s\n' '{"type":"header","format":"spaa","version":"1.0","frame_order":"leaf_to_root","events":[{"name":"cpu","kind":"timer","sampling":{"mode":"period","primary_metric":"samples"}}],"stack_id_mode":"local"}' \
		'{"type":"dso","id":1,"name":"x","is_kernel":false}' \
		"{\"type\":\"frame\",\"id\":1,\"func\":\"f\",\"dso\":1,\"srcline\":\"$T/s.go:15\",\"kind\":\"user\",\"x_start_line\":3}" \
		'{"type":"stack","id":"1","frames":[1],"context":{"event":"cpu"},"weights":[{"metric":"samples","value":2}]}' > "$T/p.spaa"
	run spaa-annotate '^f$' "$T/p.spaa"
	assert_success
	assert_line --index 3 '         .          .      3:line 3'
	assert_line --index 15 '         2          2     15:line 15'
	assert_line --index 20 '         .          .     20:line 20'
	[ "${#lines[@]}" -eq 21 ]
}
