#!/usr/bin/env bats
# ghcprof2spaa: GHC's cost-centre profiles.  GHC itself is too heavy for the
# CI machines: the ground truth is speedscope's sample JSON profile
# (+RTS -pj, tests/data/speedscope-samples/README.md) and the figures of
# speedscope's importer (src/import/haskell.ts), its test snapshot
# (tests/data/ghcprof/simple.prof.expected: "metric self total function",
# from src/import/__snapshots__/haskell.test.ts.snap); the text reports are
# that profile written in GHC's layout (tests/data/ghcprof/to-text.py), and
# are checked against a reading of their own columns (python, below).
load common

S=$D/speedscope-samples
G=$D/ghcprof

# "metric self total function" of the SPAA on stdin, for METRIC of EVENT
rows() { # EVENT METRIC
	spaa-top -n 0 --json --event "$1" -m "$2" |
		jq -r --arg m "$2" 'select(.type == "row" and (.self != 0 or .total != 0)) | "\($m) \(.self) \(.total) \(.name)"'
}

# The same from a text report's own columns (individual ticks and bytes
# with -P, the individual %time and %alloc as tenths without), walking its
# indentation; GHC's names "Module.label".
text_rows() { # FILE
	python3 - "$1" <<-'PY'
	import sys, re
	from collections import defaultdict
	lines = open(sys.argv[1]).read().split("\n")
	h = next(i for i, l in enumerate(lines) if "no." in l.split() and "entries" in l)
	cols = lines[h].split()
	P = "ticks" in cols
	names = ("ticks", "alloc_bytes") if P else ("time_permille", "alloc_permille")
	selfw = {m: defaultdict(int) for m in names}
	totw = {m: defaultdict(int) for m in names}
	stack = []
	for l in lines[h + 1:]:
	    if not l.strip():
	        continue
	    indent = len(l) - len(l.lstrip(" "))
	    w = l.split()
	    nums = w[-8:] if P else w[-6:]
	    name = w[1] + "." + w[0]
	    while stack and stack[-1][0] >= indent:
	        stack.pop()
	    stack.append((indent, name))
	    if P:
	        vals = (int(nums[6]), int(nums[7]))
	    else:
	        vals = (int(nums[2].replace(".", "")), int(nums[3].replace(".", "")))
	    path = [n for _, n in stack]
	    for m, v in zip(names, vals):
	        selfw[m][name] += v
	        for n in set(path):
	            totw[m][n] += v
	for m in names:
	    for n in totw[m]:
	        if selfw[m][n] or totw[m][n]:
	            print(m, selfw[m][n], totw[m][n], n)
	PY
}

@test "the JSON profile (+RTS -pj): each cost centre's self and total ticks and bytes are speedscope's" {
	ghcprof2spaa "$S/simple.prof" > "$T/p.spaa"
	{ rows time ticks < "$T/p.spaa"; rows alloc alloc_bytes < "$T/p.spaa"; } | LC_ALL=C sort > "$T/got"
	LC_ALL=C sort "$G/simple.prof.expected" > "$T/want"
	run diff "$T/want" "$T/got"
	assert_success
	run spaa-validate --verbose --strict "$T/p.spaa"
	assert_success
	assert_output "$T/p.spaa: valid: 1 header, 113 dso, 150 frame, 0 thread, 67 stack, 0 sample, 0 window, 0 other; 0 errors, 0 warnings"
	run head -1 "$T/p.spaa"
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"ghc","frame_order":"leaf_to_root","events":[{"name":"time","kind":"timer","sampling":{"mode":"frequency","primary_metric":"ticks","x_tick_interval_us":1000}},{"name":"alloc","kind":"allocation","sampling":{"mode":"event","primary_metric":"alloc_bytes"}}],"source":{"tool":"ghc","program":"binary-trees","format":"json","command":"binary-trees +RTS -pj -RTS"},"stack_id_mode":"content_addressable"}'
}

@test "a frame is Module.label, its module the dso, its source span the srcline (none for <built-in> and the like)" {
	ghcprof2spaa "$S/simple.prof" > "$T/p.spaa"
	run grep -F -e '"func":"Main.check"' -e '"func":"GC.GC"' "$T/p.spaa"
	assert_output - <<-'EOF'
	{"type":"frame","id":5,"func":"GC.GC","dso":5,"kind":"user"}
	{"type":"frame","id":147,"func":"Main.check","dso":113,"srcline":"src/Main.hs:(56,1)-(57,42)","kind":"user"}
	EOF
	run sh -c "spaa-fold --event time '$T/p.spaa' | head -3"
	assert_output - <<-'EOF'
	MAIN.MAIN;GC.GC 46
	MAIN.MAIN;Main.CAF:eta1_r6nI;Main.main;Main.check 1
	MAIN.MAIN;Main.CAF:lvl2_r6nH;Main.main;Main.main.long;Main.make 3
	EOF
}

@test "the JSON profile's members in any order (the tree before the cost centres), CRLF text the same" {
	ghcprof2spaa "$S/simple.prof" | spaa-fold --event alloc > "$T/want"
	jq -c '{profile, total_alloc, cost_centres, total_ticks, program}' "$S/simple.prof" > "$T/tree-first.json"
	run sh -c "ghcprof2spaa '$T/tree-first.json' | spaa-fold --event alloc"
	assert_success
	assert_output "$(cat "$T/want")"
	sed 's/$/\r/' "$G/simple-P.prof" > "$T/crlf.prof"
	run sh -c "ghcprof2spaa '$T/crlf.prof' | spaa-fold --event alloc"
	assert_output "$(cat "$T/want")"
}

@test "the text report with -P gives the JSON profile's stacks, ticks, bytes and entries" {
	ghcprof2spaa "$S/simple.prof" > "$T/json.spaa"
	ghcprof2spaa "$G/simple-P.prof" > "$T/text.spaa"
	for em in "time ticks" "time entries" "alloc alloc_bytes"; do
		set -- $em
		spaa-fold --event "$1" -m "$2" "$T/json.spaa" > "$T/a"
		spaa-fold --event "$1" -m "$2" "$T/text.spaa" > "$T/b"
		[ -s "$T/a" ]
		cmp "$T/a" "$T/b"
	done
	run sh -c "head -1 '$T/text.spaa' | jq -c .source"
	assert_output '{"tool":"ghc","command":"binary-trees +RTS -P -RTS","format":"prof"}'
}

@test "the text reports' figures are those of their own columns, read apart (with -P and without)" {
	for f in simple-P simple-p; do
		text_rows "$G/$f.prof" | LC_ALL=C sort > "$T/want"
		ghcprof2spaa "$G/$f.prof" > "$T/p.spaa"
		if [ $f = simple-P ]; then
			{ rows time ticks < "$T/p.spaa"; rows alloc alloc_bytes < "$T/p.spaa"; } | LC_ALL=C sort > "$T/got"
		else
			{ rows time time_permille < "$T/p.spaa"; rows alloc alloc_permille < "$T/p.spaa"; } | LC_ALL=C sort > "$T/got"
		fi
		[ -s "$T/want" ]
		run diff "$T/want" "$T/got"
		assert_success
	done
}

@test "a report without -P: time_permille and alloc_permille, the percentages in tenths, as they are written" {
	run sh -c "ghcprof2spaa '$G/simple-p.prof' | head -1 | jq -c '.events'"
	assert_output '[{"name":"time","kind":"timer","sampling":{"mode":"frequency","primary_metric":"time_permille","x_tick_interval_us":1000}},{"name":"alloc","kind":"allocation","sampling":{"mode":"event","primary_metric":"alloc_permille"}}]'
	# make under sumT.a: 210 ticks of 798, written 26.3 %time
	run sh -c "ghcprof2spaa '$G/simple-p.prof' | spaa-fold --event time | sort -t' ' -k2,2nr | head -2"
	assert_output - <<-'EOF'
	MAIN.MAIN;Main.main;Main.main.vs;Main.depth;Main.sumT;Main.sumT.a;Main.make 263
	MAIN.MAIN;Main.main;Main.main.vs;Main.depth;Main.sumT;Main.sumT.b;Main.make 237
	EOF
}

# A small report as GHC 9 writes it, by hand: blanks in SRC, a cost centre
# of an SCC pragma, siblings after a deeper subtree.
small() {
	printf '\tWed Nov 25 12:00 2026 Time and Allocation Profiling Report  (Final)\n\n'
	printf '\t   small +RTS -P -RTS\n\n'
	printf '\ttotal time  =        0.01 secs   (12 ticks @ 1000 us, 1 processor)\n'
	printf '\ttotal alloc =       1,000 bytes  (excludes profiling overheads)\n\n'
	printf 'COST CENTRE MODULE SRC           %%time %%alloc  ticks bytes\n\n'
	printf 'go          Main   a.hs:3:1-9     75.0   60.0      9   600\n\n\n'
	printf '                                                        individual      inherited\n'
	printf 'COST CENTRE MODULE SRC                  no. entries  %%time %%alloc   %%time %%alloc  ticks bytes\n\n'
	printf 'MAIN        MAIN   <built-in>           10       0    0.0   10.0   100.0  100.0      0   100\n'
	printf ' CAF        Main   <entire-module>      11       0    0.0    0.0   100.0   90.0      0     0\n'
	printf '  main      Main   a.hs:1:1-20          12       1    8.3   20.0   100.0   90.0      1   200\n'
	printf '   go       Main   a.hs:3:1-9           13     100   75.0   60.0    75.0   60.0      9   600\n'
	printf '    inner   Main   a.hs:4:1             14       0    0.0    0.0     0.0    0.0      0     0\n'
	printf '   mk       Main   <no location info>   15       3   16.7   10.0    16.7   10.0      2   100\n'
}

@test "a small report: blanks in SRC, siblings after a deeper subtree, nodes without costs left out" {
	small > "$T/small.prof"
	run sh -c "ghcprof2spaa '$T/small.prof' | spaa-fold --event time"
	assert_success
	assert_output - <<-'EOF'
	MAIN.MAIN;Main.CAF;Main.main 1
	MAIN.MAIN;Main.CAF;Main.main;Main.go 9
	MAIN.MAIN;Main.CAF;Main.main;Main.mk 2
	EOF
	run sh -c "ghcprof2spaa '$T/small.prof' | spaa-fold --event alloc"
	assert_output - <<-'EOF'
	MAIN.MAIN 100
	MAIN.MAIN;Main.CAF;Main.main 200
	MAIN.MAIN;Main.CAF;Main.main;Main.go 600
	MAIN.MAIN;Main.CAF;Main.main;Main.mk 100
	EOF
	run sh -c "ghcprof2spaa '$T/small.prof' | spaa-fold --event time -m entries"
	assert_output - <<-'EOF'
	MAIN.MAIN;Main.CAF;Main.main 1
	MAIN.MAIN;Main.CAF;Main.main;Main.go 100
	MAIN.MAIN;Main.CAF;Main.main;Main.mk 3
	EOF
	run sh -c "ghcprof2spaa '$T/small.prof' | grep -F '\"func\":\"Main.mk\"'"
	assert_output '{"type":"frame","id":6,"func":"Main.mk","dso":2,"kind":"user"}'
}

@test "an old report (GHC 7, no SRC column) and a name with blanks in it" {
	small | sed -e 's/ SRC  / /; s/<built-in> //; s/<entire-module> //; s/a\.hs:[0-9:-]* //; s/<no location info> //' \
		-e 's/^   mk       Main/   mk it    Main/' > "$T/old.prof"
	run sh -c "ghcprof2spaa '$T/old.prof' | spaa-fold --event time"
	assert_success
	assert_output - <<-'EOF'
	MAIN.MAIN;Main.CAF;Main.main 1
	MAIN.MAIN;Main.CAF;Main.main;Main.go 9
	MAIN.MAIN;Main.CAF;Main.main;Main.mk it 2
	EOF
}

@test "a report cut short is an error: in a line, or at a line's end (the header's totals)" {
	small | head -c -20 > "$T/cut.prof"
	run ghcprof2spaa "$T/cut.prof"
	assert_failure 1
	assert_output "ghcprof2spaa: $T/cut.prof:21: a cost-centre line of 10 words, not 11 or more (cost centre, module, source, 8 numbers): a line cut short?"
	small | head -n 19 > "$T/short.prof"
	run ghcprof2spaa "$T/short.prof"
	assert_failure 1
	assert_output "ghcprof2spaa: $T/short.prof: the cost centres' ticks add up to 10, the header's total time is 12 ticks: a profile cut short?"
	head -c 20000 "$S/simple.prof" > "$T/cut.json"
	run ghcprof2spaa "$T/cut.json"
	assert_failure 1
	assert_output "ghcprof2spaa: $T/cut.json:79: input ends inside a string (byte 19999)"
}

@test "damaged profiles: errors that say what is wrong" {
	small | sed 's/   9   600$/   x   600/' > "$T/bad.prof"
	run ghcprof2spaa "$T/bad.prof"
	assert_failure 1
	assert_output "ghcprof2spaa: $T/bad.prof:19: ticks that are not a count"
	{ small; printf 'MAIN        MAIN   <built-in>           10       0    0.0   10.0   100.0  100.0      0   100\n'; } > "$T/two.prof"
	run ghcprof2spaa "$T/two.prof"
	assert_failure 1
	assert_output "ghcprof2spaa: $T/two.prof:22: a second root of the cost-centre tree (a line indented as MAIN's)"
	small | sed -n 1,12p > "$T/notree.prof"
	run ghcprof2spaa "$T/notree.prof"
	assert_failure 1
	assert_output "ghcprof2spaa: $T/notree.prof: not a GHC profile: no cost-centre tree (a line of column names with \"no.\" and \"entries\")"
	jq -c '.cost_centres |= map(select(.id != 4))' "$S/simple.prof" > "$T/nocc.json"
	run ghcprof2spaa "$T/nocc.json"
	assert_failure 1
	assert_output "ghcprof2spaa: $T/nocc.json: the profile tree names cost centre 4, which cost_centres does not define"
	jq -c '.profile.ticks = -1' "$S/simple.prof" > "$T/neg.json"
	run ghcprof2spaa "$T/neg.json"
	assert_failure 1
	assert_output --regexp "^ghcprof2spaa: $T/neg.json:1: a negative ticks \(byte [0-9]+\)$"
	run ghcprof2spaa --max-depth=3 "$G/simple-P.prof"
	assert_failure 1
	assert_output --partial "the cost-centre tree is deeper than 3 (--max-depth)"
	: > "$T/empty"
	run ghcprof2spaa "$T/empty"
	assert_failure 1
	assert_output --partial "$T/empty"
	# a tree header without the four percentages (a NUL cut it, found by
	# fuzz_ghcprof2spaa): the lines' numbers were read past their words
	small | sed '/no\. entries/s/entries .*/entries  ticks bytes/' > "$T/cols.prof"
	run ghcprof2spaa "$T/cols.prof"
	assert_failure 1
	assert_output "ghcprof2spaa: $T/cols.prof:14: a cost-centre tree header with 2 columns after \"entries\", not the four %time %alloc %time %alloc (and ticks, bytes)"
	run ghcprof2spaa "$BATS_TEST_DIRNAME/../fuzz/crashes/ghcprof2spaa/header-nul.prof"
	assert_failure 1
	assert_output --partial ":14: a cost-centre tree header with 3 columns after \"entries\""
}

@test "another format is refused, naming its converter; any2spaa sends both forms here" {
	run ghcprof2spaa "$EX/stackprof-cpu.json"
	assert_failure 1
	assert_output "ghcprof2spaa: $EX/stackprof-cpu.json: this is a Ruby stackprof profile (JSON), not a GHC profile: run stackprof2spaa"
	for f in "$S/simple.prof" "$G/simple-P.prof" "$G/simple-p.prof"; do
		ghcprof2spaa "$f" > "$T/want"
		any2spaa "$f" > "$T/got"
		cmp "$T/want" "$T/got"
	done
	run any2spaa --verbose -o /dev/null "$G/simple-P.prof"
	assert_output --partial "a GHC cost-centre profile"
	# the filters read it in process (ghcprof2spaa's output)
	[ "$(spaa-fold "$G/simple-P.prof" 2>/dev/null)" = "$(ghcprof2spaa "$G/simple-P.prof" | spaa-fold 2>/dev/null)" ]
}

@test "gzip and zstd input, several files merged" {
	gzip -c "$G/simple-P.prof" > "$T/p.prof.gz"
	zstd -q -c "$S/simple.prof" > "$T/j.prof.zst"
	ghcprof2spaa "$G/simple-P.prof" | spaa-fold --event time > "$T/want"
	run sh -c "ghcprof2spaa '$T/p.prof.gz' | spaa-fold --event time"
	assert_output "$(cat "$T/want")"
	run sh -c "ghcprof2spaa '$T/p.prof.gz' '$T/j.prof.zst' | spaa-fold --event time | head -1"
	assert_output "MAIN.MAIN;GC.GC 92"
}

@test "the example cut at every byte of its last lines: an error naming the file, or the whole profile (issue 28)" {
	f=$EX/ghc-binary-trees.prof
	n=$(wc -c < "$f")
	# (the last lines have no ticks nor bytes: a cut at a line's end
	# loses their entries unseen)
	cut_may_end() { at_line_end; }
	cut_sweep "$f" "$(seq $((n - 400)) $((n - 1)))" ghcprof2spaa
	# "744491520" cut to "7444"
	{ head -n 193 "$f"; sed -n 194p "$f" | head -c -6; } > "$T/cut"
	run ghcprof2spaa "$T/cut"
	assert_failure 1
	assert_output "ghcprof2spaa: $T/cut:194: the last line has no newline: the file is cut short (a whole file ends with one: add it)"
}
