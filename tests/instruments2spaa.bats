#!/usr/bin/env bats
# instruments2spaa: Apple Instruments deep copies.  Instruments runs on macOS
# only: the real copies are speedscope's samples (tests/data/instruments,
# MIT, see its README.md), checked against speedscope's own reading (its
# snapshot's stacks, literal in *.speedscope.folded) and against the copies
# read on their own (tests/data/instruments/fold.py, exact decimals); the
# rest are written here.
load common

DI=$D/instruments

@test "speedscope's 7.3.1 time profile: the stacks and self times of speedscope's snapshot (ms as ns)" {
	for o in "" --derive-self; do
		instruments2spaa $o "$DI/7.3.1-simple-time-profile-deep-copy.txt" > "$T/p.spaa"
		spaa-validate --strict "$T/p.spaa"
		spaa-fold --raw "$T/p.spaa" > "$T/ours"
		diff "$DI/7.3.1-simple-time-profile.speedscope.folded" "$T/ours"
	done
	# 4273.0ms at the root: the self times add up to it
	run sh -c "spaa-fold --raw '$T/p.spaa' | awk '{ s += \$NF } END { printf \"%.0f\\n\", s }'"
	assert_output 4273000000
}

@test "the four copies: every path's self weight as read on their own (self column, or derived)" {
	for f in "$DI"/*-deep-copy.txt; do
		for o in "" --derive-self; do
			python3 "$DI/fold.py" "$f" $o > "$T/theirs"
			[ -s "$T/theirs" ]
			instruments2spaa $o "$f" > "$T/p.spaa"
			spaa-validate --strict "$T/p.spaa"
			spaa-fold --raw "$T/p.spaa" > "$T/ours"
			diff "$T/theirs" "$T/ours"
		done
	done
	python3 "$DI/fold.py" "$DI/7.3.1-random-allocations-deep-copy.txt" --count > "$T/theirs"
	instruments2spaa "$DI/7.3.1-random-allocations-deep-copy.txt" | spaa-fold --raw -m alloc_count > "$T/ours"
	diff "$T/theirs" "$T/ours"
}

@test "per function: self and total weights of the allocations copy (429.93 MB, 84671 allocations)" {
	instruments2spaa "$DI/7.3.1-random-allocations-deep-copy.txt" > "$T/p.spaa"
	# the leaves' own figures (73.35 MB is 76913049.6 bytes: 76913050 ...),
	# each rounded to 0.01 MB by Instruments, add up to the root's 429.93 MB
	# (450814279.68 bytes: 450814280, a whole byte)
	run spaa-top --raw-units -n 3 "$T/p.spaa"
	assert_output "malloc/alloc_bytes, total 450814280
      flat  flat%   sum%        cum   cum%  function
 450814280   100%   100%  450814280   100%  malloc_zone_malloc
         0     0%   100%  152190321 33.76%  alpha
         0     0%   100%  149002649 33.05%  beta"
	run spaa-top --raw-units -n 1 -m alloc_count "$T/p.spaa"
	assert_output "malloc/alloc_count, total 84671
      flat  flat%   sum%        cum   cum%  function
     84671   100%   100%      84671   100%  malloc_zone_malloc"
	# the header's event and metric
	grep -q '"events":\[{"name":"malloc","kind":"allocation","sampling":{"mode":"event","primary_metric":"alloc_bytes"}}\]' "$T/p.spaa"
}

# The figures Instruments prints in the copies: every row's total against
# the total of its path here, printed in the row's unit and decimals
# (issue 30 item 7).
@test "every row's total is the figure Instruments prints, callees it hid included, up to its rounding" {
	for f in "$DI"/*-deep-copy.txt "$EX/instruments-deep-copy.txt"; do
		instruments2spaa "$f" > "$T/p.spaa"
		run python3 "$DI/totals.py" "$f" "$T/p.spaa"
		assert_success
		case $f in
		*13.4-cycles*)
			# the rows whose self figures and rows under them add up to
			# more than their total: the last digit (the sum of the rows
			# under line 12 alone is 46.52 Gc, its self 404.75 Mc)
			assert_output "$(printf '%s\t96.08 Gc  100.0%%\t96.09 Gc\t96.08 Gc\n' 2 3 4 5 6 7 8 9)
$(printf '10\t96.08 Gc  100.0%%\t96.09 Gc\t96.07 Gc')
$(printf '11\t47.82 Gc   49.7%%\t47.83 Gc\t47.82 Gc')
$(printf '12\t46.92 Gc   48.8%%\t46.93 Gc\t46.52 Gc')" ;;
		*) assert_output "" ;;
		esac
	done
	# core::fmt::write: 1.34 Kc in Instruments, of which the copy shows a
	# row of 532 cycles; the 808 it hid are "[unknown]" under it
	instruments2spaa "$DI/13.4-cycles-example-deep-copy.txt" > "$T/c.spaa"
	run sh -c "spaa-top --raw-units -n 0 -J '$T/c.spaa' | jq -r 'select(.type == \"row\" and (.name == \"core::fmt::write\" or .name == \"[unknown]\")) | \"\\(.name) \\(.self) \\(.total)\"'"
	assert_output "[unknown] 808 808
core::fmt::write 0 1340"
}

@test "cycles (Gc, Mc, Kc) and version 16's seconds, figure spaces and \"Symbol Names\"" {
	instruments2spaa "$DI/13.4-cycles-example-deep-copy.txt" > "$T/c.spaa"
	grep -q '"primary_metric":"cycles"' "$T/c.spaa"
	# 45.92 Gc of mach_absolute_time's own under elapsed, exact
	run sh -c "spaa-fold --raw '$T/c.spaa' | grep 'example_a::h622d6879b734496d;std::time::Instant::elapsed::h2e3793148fc23529;mach_absolute_time '"
	assert_output --regexp ' 45920000000$'
	instruments2spaa "$DI/16.0-simple-time-profile-deep-copy.txt" > "$T/t.spaa"
	run sh -c "spaa-fold --raw '$T/t.spaa' | grep '^start;main;delta() '"
	assert_output "start;main;delta() 846000000"
	# derived: 2.45 s less its children's 797 + 795 + 10 + 3 ms (speedscope's
	# parseInt reads 2.45 s as 2 s, and its children's 1605 ms leave it 0)
	run sh -c "instruments2spaa --derive-self '$DI/16.0-simple-time-profile-deep-copy.txt' | spaa-fold --raw | grep '^start;main;delta() '"
	assert_output "start;main;delta() 845000000"
}

@test "exact output: CRLF, a base indentation, µs, a UTF-8 name, '0 s'" {
	printf 'Weight\tSelf Weight\tSymbol Names\r\n1.50 ms  100.0%%\t0 s\t  prog (42)\r\n1.50 ms  100.0%%\t250.00 \302\265s\t   main\r\n1.25 ms   83.3%%\t1.25 ms\t    gr\303\266\303\237e_berechnen\r\n' > "$T/s.txt"
	run instruments2spaa "$T/s.txt"
	assert_success
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"instruments","frame_order":"leaf_to_root","events":[{"name":"cpu","kind":"timer","sampling":{"mode":"period","primary_metric":"cpu_ns"}}],"source":{"tool":"instruments"},"stack_id_mode":"content_addressable"}
{"type":"dso","id":1,"name":"[unknown]","is_kernel":false}
{"type":"frame","id":1,"func":"prog (42)","dso":1,"kind":"unknown"}
{"type":"frame","id":2,"func":"main","dso":1,"kind":"unknown"}
{"type":"frame","id":3,"func":"größe_berechnen","dso":1,"kind":"unknown"}
{"type":"stack","id":"0x37e417e48ff2125a","frames":[3,2,1],"context":{"event":"cpu"},"weights":[{"metric":"cpu_ns","value":1250000,"unit":"nanoseconds"}],"exclusive":{"frame":3,"weights":[{"metric":"cpu_ns","value":1250000,"unit":"nanoseconds"}]},"x_path_id":"0x5283f346a0ae7e7d"}
{"type":"stack","id":"0xa0cf0984534ce52e","frames":[2,1],"context":{"event":"cpu"},"weights":[{"metric":"cpu_ns","value":250000,"unit":"nanoseconds"}],"exclusive":{"frame":2,"weights":[{"metric":"cpu_ns","value":250000,"unit":"nanoseconds"}]},"x_path_id":"0x36efbf81dbda5d11"}'
}

@test "a copy saved with a byte order mark: read, and recognised by any2spaa" {
	printf '\357\273\277Weight\tSelf Weight\tSymbol Name\n2.00 ms  100%%\t1.00 ms\tmain\n1.00 ms  50%%\t1.00 ms\t f\n' > "$T/b.txt"
	run sh -c "any2spaa '$T/b.txt' | spaa-fold --raw"
	assert_output "main 1000000
main;f 1000000"
}

@test "bytes: 1024-based units, a fraction rounded to the nearest byte; the count derived too" {
	printf 'Bytes Used\tCount\tSymbol Name\n 10.50 KB   100.0%%\t7\tmain\n  1.01 KB     9.6%%\t2\t f\n  3 Bytes   0.0%%\t1\t g\n' > "$T/a.txt"
	run sh -c "instruments2spaa '$T/a.txt' | spaa-fold --raw"
	assert_output "main 9715
main;f 1034
main;g 3"
	run sh -c "instruments2spaa '$T/a.txt' | spaa-fold --raw -m alloc_count"
	assert_output "main 4
main;f 2
main;g 1"
}

@test "children adding up to more than their parent (rounded figures): the parent's own weight is 0, as speedscope" {
	printf 'Weight\tSymbol Name\n1.00 ms  100%%\tmain\n0.60 ms  60%%\t f\n0.60 ms  60%%\t g\n' > "$T/r.txt"
	run sh -c "instruments2spaa '$T/r.txt' | spaa-fold --raw"
	assert_output "main;f 600000
main;g 600000"
}

@test "a tree 4096 levels deep is read; one of 4097 is an error naming the limit" {
	awk 'BEGIN { print "Weight\tSymbol Name"; s = ""
		for (i = 0; i < 4096; i++) { printf "1.00 ms  100%%\t%sf%d\n", s, i; s = s " " } }' > "$T/deep.txt"
	run sh -c "instruments2spaa '$T/deep.txt' | spaa-fold --raw | awk '{ print split(\$1, a, \";\"), \$2 }'"
	assert_output "4096 1000000"
	printf '1.00 ms  100%%\t%4096sx\n' '' >> "$T/deep.txt"
	run instruments2spaa "$T/deep.txt"
	assert_failure 1
	assert_output "instruments2spaa: $T/deep.txt:4098: deeper than 4096 levels"
}

@test "bad rows: one message with file:line each, exit 1" {
	H='Weight\tSelf Weight\tSymbol Name\n'
	printf "$H"'1.00 ms  1%%\t-\tmain\n1.00 ms  1%%\t1.00 ms\t  f\n' > "$T/e.txt"
	run instruments2spaa "$T/e.txt"
	assert_failure 1
	assert_output "instruments2spaa: $T/e.txt:3: depth 2 under a row of depth 0: the tree skips a level"
	printf "$H"'1.00 qs  1%%\t-\tmain\n' > "$T/e.txt"
	run instruments2spaa "$T/e.txt"
	assert_output "instruments2spaa: $T/e.txt:2: weight: unknown unit 'qs' (ns, us, ms, s, min; Kc, Mc, Gc; Bytes, KB, MB, GB)"
	printf "$H"'1.00 ms  1%%\tmain\n' > "$T/e.txt"
	run instruments2spaa "$T/e.txt"
	assert_output "instruments2spaa: $T/e.txt:2: 2 columns, not the 3 of the header line"
	printf "$H"'abc  1%%\t-\tmain\n' > "$T/e.txt"
	run instruments2spaa "$T/e.txt"
	assert_output "instruments2spaa: $T/e.txt:2: weight: not a figure: 'abc  1%'"
	printf "$H"'99999999999999999999 s  1%%\t-\tmain\n' > "$T/e.txt"
	run instruments2spaa "$T/e.txt"
	assert_output "instruments2spaa: $T/e.txt:2: weight: figure out of range: '99999999999999999999 s  1%'"
	printf "$H"'1.00 ms  1%%\t-\tmain\n1.00 Kc  1%%\t-\t f\n' > "$T/e.txt"
	run instruments2spaa "$T/e.txt"
	assert_output "instruments2spaa: $T/e.txt:3: weights in units of another kind (times, cycles, bytes) than the column's or the rows before"
	printf "$H"'1.00 ms  1%%\t-\t  main\n1.00 ms  1%%\t-\tf\n' > "$T/e.txt"
	run instruments2spaa "$T/e.txt"
	assert_output "instruments2spaa: $T/e.txt:3: symbol indented 0 spaces, less than the first row's 2"
	printf 'Weight\tSelf\tName\n1 ms\t1 ms\tmain\n' > "$T/e.txt"
	run instruments2spaa "$T/e.txt"
	assert_output "instruments2spaa: $T/e.txt:1: not an Instruments deep copy: the first line names no Symbol Name column (expected a tab-separated header such as \"Weight<TAB>Self Weight<TAB>Symbol Name\")"
}

@test "empty, header only, truncated, another format: one message each, exit 1, no output" {
	: > "$T/e.txt"
	run instruments2spaa -o "$T/out.spaa" "$T/e.txt"
	assert_failure 1
	assert_output "instruments2spaa: $T/e.txt: empty input: no profile written"
	[ ! -e "$T/out.spaa" ]
	printf 'Weight\tSelf Weight\tSymbol Name\n' > "$T/e.txt"
	run instruments2spaa "$T/e.txt"
	assert_failure 1
	assert_output "instruments2spaa: $T/e.txt: no stacks found: a header line and no row of the call tree (no profile written)"
	gzip -c "$DI/13.4-cycles-example-deep-copy.txt" | head -c 600 > "$T/cut.gz"
	run instruments2spaa "$T/cut.gz"
	assert_failure 1
	assert_output "instruments2spaa: $T/cut.gz: truncated gzip data"
	# a copy cut inside a row
	head -c 150 "$DI/7.3.1-random-allocations-deep-copy.txt" > "$T/cut.txt"
	run instruments2spaa "$T/cut.txt"
	assert_failure 1
	assert_output "instruments2spaa: $T/cut.txt:5: 1 column, not the 4 of the header line"
	printf 'a;b 1\n' > "$T/f.txt"
	run instruments2spaa "$T/f.txt"
	assert_failure 1
	assert_output "instruments2spaa: $T/f.txt: this is folded stacks, not an Instruments deep copy: run folded2spaa"
	run instruments2spaa "$D/pmcstat/simple.txt"
	assert_output "instruments2spaa: $D/pmcstat/simple.txt: this is a pmcstat callgraph, not an Instruments deep copy: run pmcstat2spaa"
	instruments2spaa "$DI/7.3.1-simple-time-profile-deep-copy.txt" > "$T/p.spaa"
	run instruments2spaa "$T/p.spaa"
	assert_output "instruments2spaa: $T/p.spaa: this is SPAA already, not an Instruments deep copy: no conversion needed"
}

@test "any2spaa recognises the four copies and runs instruments2spaa" {
	for f in "$DI"/*-deep-copy.txt; do
		run any2spaa --verbose -o "$T/a.spaa" "$f"
		assert_success
		assert_output "any2spaa: $f: an Apple Instruments deep copy: instruments2spaa"
		instruments2spaa "$f" | cmp - "$T/a.spaa"
	done
}

@test "several files: one profile, identical stacks summed" {
	f=$DI/7.3.1-simple-time-profile-deep-copy.txt
	run sh -c "instruments2spaa '$f' '$f' | spaa-fold --raw | head -n 1"
	assert_output "start;main;alpha() 1430000000"
}

@test "the filters read a deep copy in process, as instruments2spaa's output" {
	run spaa-top "$EX/instruments-deep-copy.txt"
	assert_success
	[ "$output" = "$(instruments2spaa "$EX/instruments-deep-copy.txt" | spaa-top)" ]
}

@test "allocations of no own bytes ('-', or rounding) but a count: left out with a warning (was a null event in the builder)" {
	printf 'Bytes Used\tCount\tSymbol Name\n1 KB\t9\tmain\n-\t7\t f\n' > "$T/a.txt"
	run instruments2spaa -o "$T/a.spaa" "$T/a.txt"
	assert_success
	assert_output "instruments2spaa: $T/a.txt: warning: 7 allocations of 1 node whose own bytes round to 0 left out (SPAA has no stack of 0 bytes)"
	spaa-validate --strict "$T/a.spaa"
	run spaa-fold --raw -m alloc_count "$T/a.spaa"
	assert_output "main 2"
	printf 'Bytes Used\tCount\tSymbol Name\n1 ms\t7\tmain\n' > "$T/a.txt"
	run instruments2spaa "$T/a.txt"
	assert_failure 1
	assert_output "instruments2spaa: $T/a.txt:2: weights in units of another kind (times, cycles, bytes) than the column's or the rows before"
}

@test "a \"Self (ms)\" copy whose last line has no newline: read as the whole copy (the header's unit was read from a reused buffer: 'unknown unit')" {
	f=$EX/instruments-deep-copy.txt
	head -c "$(($(wc -c < "$f") - 3))" "$f" > "$T/c.txt"
	run bash -c "tail -c 1 '$T/c.txt' | od -An -c"
	assert_output '   t'
	run instruments2spaa -o "$T/c.spaa" "$T/c.txt"
	assert_success
	assert_output ""
	instruments2spaa "$f" | cmp - "$T/c.spaa"
	head -c "$(($(wc -c < "$f") - 3))" "$f" | instruments2spaa | cmp - "$T/c.spaa"
}

@test "a copy that ends before the rows under a node add up to its weight (self a figure, rounding allowed for) is cut short; where the self is '-' nothing is told (issue 28)" {
	head -n 4 "$EX/instruments-deep-copy.txt" > "$T/c.txt"
	run instruments2spaa -o "$T/out.spaa" "$T/c.txt"
	assert_failure 1
	assert_output "instruments2spaa: $T/c.txt:4: the copy ends before the rows under this one add up to its weight (2126000000, of which 693000000 its own and 0 in the rows under it, rounding allowed for): the file is cut short"
	[ ! -e "$T/out.spaa" ]
	# 1.00 s less 0.40 + 0.50 leaves 0.1 s, more than the three figures'
	# rounding (half of 0.01 s each, and half a nanosecond): a cut
	printf 'Weight\tSelf Weight\tSymbol Name\n1.00 s\t0.40 s\ta\n0.50 s\t0.50 s\t b\n' > "$T/r.txt"
	run instruments2spaa "$T/r.txt"
	assert_failure 1
	assert_output "instruments2spaa: $T/r.txt:2: the copy ends before the rows under this one add up to its weight (1000000000, of which 400000000 its own and 500000000 in the rows under it, rounding allowed for): the file is cut short"
	# 1.00 s less 0.49 + 0.50 leaves 0.01 s, within that rounding: whole
	printf 'Weight\tSelf Weight\tSymbol Name\n1.00 s\t0.49 s\ta\n0.50 s\t0.50 s\t b\n' > "$T/r.txt"
	run instruments2spaa "$T/r.txt"
	assert_success
	# a self of '-': its own weight is not known
	printf 'Weight\tSelf Weight\tSymbol Name\n1.00 s\t-\ta\n0.50 s\t0.50 s\t b\n' > "$T/r.txt"
	run instruments2spaa "$T/r.txt"
	assert_success
}

@test "the example cut at every byte of its first 300 and last 100 bytes and at every line: an error naming the file, or (inside the last row's name) exit 0 (issue 28)" {
	f=$EX/instruments-deep-copy.txt
	n=$(wc -c < "$f")
	at=$(grep -b -o 'small_malloc_from_free_list$' "$f" | tail -n 1 | cut -d: -f1)
	# a copy cannot tell a cut inside the last row's name (after byte $at)
	cut_may_end() { [ "$1" -gt "$at" ]; }
	cut_sweep "$f" "$(seq 0 300) $(line_ends "$f") $(seq $((n - 100)) "$n")" instruments2spaa
}
