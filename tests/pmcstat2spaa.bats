#!/usr/bin/env bats
# pmcstat2spaa: FreeBSD pmcstat callgraphs (pmcstat -R FILE -G OUT).  pmcstat
# runs on FreeBSD only: the real callgraphs are speedscope's samples
# (tests/data/pmcstat, MIT, see its README.md), checked against speedscope's
# own reading (its snapshot's stacks, literal in simple.speedscope.folded)
# and against the files read on their own (tests/data/pmcstat/fold.py); the
# rest are written here as pmcstat prints (pmcpl_callgraph.c: "%05.2f%% " or
# "100.0% ", " [N] " padded to 12, the depth in spaces before both).
load common

DP=$D/pmcstat

@test "speedscope's simple.txt, --no-cut-chains: the stacks of speedscope's snapshot" {
	for f in simple.txt simple-with-invalids.txt; do
		pmcstat2spaa --no-cut-chains "$DP/$f" 2>/dev/null > "$T/p.spaa"
		spaa-validate --strict "$T/p.spaa"
		spaa-fold --raw "$T/p.spaa" > "$T/ours"
		diff "$DP/simple.speedscope.folded" "$T/ours"
	done
}

@test "speedscope's samples: every chain's samples as read on their own, by default (--cut-chains) and with --no-cut-chains" {
	for f in "$DP"/simple*.txt; do
		for o in "" --cut-chains --no-cut-chains; do
			python3 "$DP/fold.py" "$f" ${o:---cut-chains} > "$T/theirs"
			[ -s "$T/theirs" ]
			pmcstat2spaa $o "$f" 2>/dev/null | spaa-fold --raw > "$T/ours"
			diff "$T/theirs" "$T/ours"
		done
	done
}

@test "per function, by default: the sampled functions keep all their samples (7447 and 5156); callers' totals" {
	pmcstat2spaa "$DP/simple.txt" 2>/dev/null > "$T/p.spaa"
	run spaa-top --raw-units -n 5 "$T/p.spaa"
	assert_output "inst_retired.any/samples, total 12603
      flat  flat%   sum%        cum   cum%  function
      7447 59.09% 59.09%       7447 59.09%  zfs_lz4_compress
      5156 40.91%   100%       5156 40.91%  fletcher_2_native
         0     0%   100%       1489 11.81%  VOP_WRITE_APV
         0     0%   100%       1489 11.81%  amd64_syscall
         0     0%   100%       1723 13.67%  arc_buf_thaw"
	# speedscope drops the 3666 samples of fletcher_2_native that no
	# caller line accounts for: 1490 left
	run sh -c "pmcstat2spaa --no-cut-chains '$DP/simple.txt' 2>/dev/null | spaa-top --raw-units -n 2"
	assert_output "inst_retired.any/samples, total 8937
      flat  flat%   sum%        cum   cum%  function
      7447 83.33% 83.33%       7447 83.33%  zfs_lz4_compress
      1490 16.67%   100%       1490 16.67%  fletcher_2_native"
}

@test "warnings: lines that are not callgraph lines (comments skipped), functions short of the header's count" {
	run pmcstat2spaa --cut-chains -o "$T/p.spaa" "$DP/simple-with-invalids.txt"
	assert_success
	assert_output "pmcstat2spaa: $DP/simple-with-invalids.txt:4: warning: not a callgraph line, ignored: '// ignored'
pmcstat2spaa: $DP/simple-with-invalids.txt:38: warning: not a callgraph line, ignored: 'invalid line'
pmcstat2spaa: $DP/simple-with-invalids.txt:1: warning: the functions of inst_retired.any count 12603 samples, its header 35705 (a part of pmcstat's output?)"
	for i in 1 2 3 4 5 6 7; do echo "junk $i"; done > "$T/j.txt"
	cat "$DP/simple.txt" >> "$T/j.txt"
	run pmcstat2spaa --cut-chains -o "$T/p.spaa" "$T/j.txt"
	assert_success
	assert_line -n 4 "pmcstat2spaa: $T/j.txt:5: warning: not a callgraph line, ignored: 'junk 5'"
	assert_line -n 5 "pmcstat2spaa: $T/j.txt:8: warning: the functions of inst_retired.any count 12603 samples, its header 35705 (a part of pmcstat's output?)"
	assert_line -n 6 "pmcstat2spaa: $T/j.txt: warning: 2 more lines ignored"
	[ "${#lines[@]}" -eq 7 ]
}

@test "exact output: objects inherited from the line before, kernel objects, an address, two events, CRLF" {
	printf '@ cycles [10 samples]\r\n\r\n60.00%%  [6]         f @ /usr/lib/libc.so.7\r\n 100.0%%  [6]          main @ /usr/bin/prog\r\n\r\n40.00%%  [4]         0xffffffff80abcdef @ /boot/kernel/kernel\r\n 75.00%%  [3]          g\r\n  100.0%%  [3]           fork_exit\r\n\r\n@ instructions [2 samples]\r\n\r\n100.0%%  [2]         f @ /usr/lib/libc.so.7\r\n' > "$T/p.txt"
	run pmcstat2spaa --cut-chains "$T/p.txt"
	assert_success
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"pmcstat","frame_order":"leaf_to_root","events":[{"name":"cycles","kind":"hardware","sampling":{"mode":"period","primary_metric":"samples"}},{"name":"instructions","kind":"hardware","sampling":{"mode":"period","primary_metric":"samples"}}],"source":{"tool":"pmcstat"},"stack_id_mode":"content_addressable"}
{"type":"dso","id":1,"name":"/usr/lib/libc.so.7","is_kernel":false}
{"type":"dso","id":2,"name":"/usr/bin/prog","is_kernel":false}
{"type":"dso","id":3,"name":"/boot/kernel/kernel","is_kernel":true}
{"type":"frame","id":1,"func":"f","dso":1,"kind":"user"}
{"type":"frame","id":2,"func":"main","dso":2,"kind":"user"}
{"type":"frame","id":3,"func":"0xffffffff80abcdef","func_resolved":false,"dso":3,"ip":"0xffffffff80abcdef","kind":"kernel"}
{"type":"frame","id":4,"func":"g","dso":3,"kind":"kernel"}
{"type":"frame","id":5,"func":"fork_exit","dso":3,"kind":"kernel"}
{"type":"stack","id":"0x020f1041f98040ff","frames":[1,2],"context":{"event":"cycles"},"weights":[{"metric":"samples","value":6}],"exclusive":{"frame":1,"weights":[{"metric":"samples","value":6}]},"x_path_id":"0x6fea952f87495213"}
{"type":"stack","id":"0x0799719b3a42e457","frames":[3,4,5],"context":{"event":"cycles"},"weights":[{"metric":"samples","value":3}],"exclusive":{"frame":3,"weights":[{"metric":"samples","value":3}]},"x_path_id":"0xe0cfd9811ac5158b"}
{"type":"stack","id":"0xb810aaa8d2ef467f","frames":[3],"context":{"event":"cycles"},"weights":[{"metric":"samples","value":1}],"exclusive":{"frame":3,"weights":[{"metric":"samples","value":1}]},"x_path_id":"0xb32d4c278b17de93"}
{"type":"stack","id":"0x3cebb9e852131982","frames":[1],"context":{"event":"instructions"},"weights":[{"metric":"samples","value":2}],"exclusive":{"frame":1,"weights":[{"metric":"samples","value":2}]},"x_path_id":"0x9df1960c95e6cbb2"}'
}

@test "UTF-8 and C++ names with spaces, a chain 4096 deep; 4097 is an error naming the limit" {
	printf '@ cycles [5 samples]\n\n100.0%%  [5]     gr\303\266\303\237e(int, char) @ /usr/bin/x\n 100.0%%  [5]      main\n' > "$T/u.txt"
	run sh -c "pmcstat2spaa --cut-chains '$T/u.txt' | spaa-fold --raw"
	assert_output "main;größe(int, char) 5"
	awk 'BEGIN { print "@ cycles [1 samples]"; print ""; s = ""
		for (i = 0; i < 4096; i++) { printf "%s100.0%%  [1]  f%d\n", s, i; s = s " " } }' > "$T/deep.txt"
	run sh -c "pmcstat2spaa --cut-chains '$T/deep.txt' | spaa-fold --raw | awk '{ print split(\$1, a, \";\"), \$2 }'"
	assert_output "4096 1"
	printf '%4096s100.0%%  [1]  x\n' '' >> "$T/deep.txt"
	run pmcstat2spaa --cut-chains "$T/deep.txt"
	assert_failure 1
	assert_output "pmcstat2spaa: $T/deep.txt:4099: deeper than 4096 callers"
}

@test "bad input: one message with file:line each, exit 1, no output" {
	printf '@ cycles [10 samples]\n\n60.00%%  [6]     f @ /usr/lib/libc.so.7\n   100.0%%  [6]      main\n' > "$T/e.txt"
	run pmcstat2spaa --cut-chains -o "$T/out.spaa" "$T/e.txt"
	assert_failure 1
	assert_output "pmcstat2spaa: $T/e.txt:4: indented 3 spaces under a line of depth 0: the chain skips a caller"
	[ ! -e "$T/out.spaa" ]
	printf '60.00%%  [6]     f @ /usr/lib/libc.so.7\n' > "$T/e.txt"
	run pmcstat2spaa --cut-chains "$T/e.txt"
	assert_output "pmcstat2spaa: $T/e.txt:1: a callgraph line before the first \"@ EVENT [N samples]\" line"
	printf '@ cycles [10 samples]\n\n60.00%%  [6]     f @ x\n 100.0%%  [7]      main\n' > "$T/e.txt"
	run pmcstat2spaa --cut-chains "$T/e.txt"
	assert_output "pmcstat2spaa: $T/e.txt:4: the callers of the function of line 3 count 7 samples, more than its 6"
	printf '@ cycles [10 samples]\n\n100.0%%  [99999999999999999999]     f\n' > "$T/e.txt"
	run pmcstat2spaa --cut-chains "$T/e.txt"
	assert_failure 1
	assert_output "pmcstat2spaa: $T/e.txt:3: sample count out of range: [99999999999999999999]"
}

@test "empty, truncated, another format: one message each, exit 1" {
	: > "$T/e.txt"
	run pmcstat2spaa --cut-chains "$T/e.txt"
	assert_failure 1
	assert_output "pmcstat2spaa: $T/e.txt: empty input: no profile written"
	gzip -c "$DP/simple.txt" | head -c 300 > "$T/cut.gz"
	run pmcstat2spaa --cut-chains "$T/cut.gz"
	assert_failure 1
	assert_output "pmcstat2spaa: $T/cut.gz: truncated gzip data"
	# text cut short: fewer samples than the header says, a warning
	printf '@ cycles [10 samples]\n\n60.00%%  [6]     f @ /usr/lib/libc.so.7\n 100.0%%  [6]      main\n' > "$T/cut.txt"
	run pmcstat2spaa --cut-chains -o "$T/p.spaa" "$T/cut.txt"
	assert_success
	assert_output "pmcstat2spaa: $T/cut.txt:1: warning: the functions of cycles count 6 samples, its header 10 (a part of pmcstat's output?)"
	printf 'a;b 1\n' > "$T/f.txt"
	run pmcstat2spaa --cut-chains "$T/f.txt"
	assert_failure 1
	assert_output "pmcstat2spaa: $T/f.txt: this is folded stacks, not a pmcstat callgraph: run folded2spaa"
	run pmcstat2spaa --cut-chains "$D/instruments/7.3.1-simple-time-profile-deep-copy.txt"
	assert_output "pmcstat2spaa: $D/instruments/7.3.1-simple-time-profile-deep-copy.txt: this is an Apple Instruments deep copy, not a pmcstat callgraph: run instruments2spaa"
	pmcstat2spaa --cut-chains "$DP/simple.txt" 2>/dev/null > "$T/p.spaa"
	run pmcstat2spaa --cut-chains "$T/p.spaa"
	assert_output "pmcstat2spaa: $T/p.spaa: this is SPAA already, not a pmcstat callgraph: no conversion needed"
}

@test "any2spaa recognises a callgraph and runs pmcstat2spaa" {
	run any2spaa --verbose -o "$T/a.spaa" "$DP/simple.txt"
	assert_success
	assert_line -n 0 "any2spaa: $DP/simple.txt: a pmcstat callgraph: pmcstat2spaa"
	pmcstat2spaa "$DP/simple.txt" 2>/dev/null | cmp - "$T/a.spaa"
}

@test "the filters read a callgraph in process, as pmcstat2spaa's output" {
	run spaa-fold "$EX/pmcstat-callgraph.txt"
	assert_success
	[ "$output" = "$(pmcstat2spaa "$EX/pmcstat-callgraph.txt" | spaa-fold)" ]
}

# pmcstat's own figures: every line without indent is a sampled function,
# its [N] the samples pmcstat counts for it (and its percentage of the
# event's header); by default each keeps exactly those (issue 30 item 6)
@test "by default, each sampled function's samples are the [N] pmcstat prints on its line" {
	for f in simple.txt simple-with-invalids.txt; do
		awk '/^[0-9.]+%  *\[[0-9]+\]/ { n = $2; gsub(/[][]/, "", n); print $3 " " n }' "$DP/$f" | LC_ALL=C sort > "$T/theirs"
		[ -s "$T/theirs" ]
		grep -q '^fletcher_2_native 5156$' "$T/theirs"
		pmcstat2spaa "$DP/$f" 2>/dev/null | spaa-top -n 0 -J | jq -r 'select(.type == "row" and .self > 0) | "\(.name) \(.self)"' | LC_ALL=C sort > "$T/ours"
		diff "$T/theirs" "$T/ours"
	done
	# the percentages of the header's samples pmcstat prints: 14.44%
	run sh -c "pmcstat2spaa '$DP/simple.txt' 2>/dev/null | spaa-top -J | jq -r 'select(.type == \"row\" and .name == \"fletcher_2_native\") | .self * 10000 / 35705 | round / 100'"
	assert_output 14.44
}

@test "the bundled example: as pmcstat counts it (bzero's 3 samples of a chain cut short kept), and as speedscope" {
	run sh -c "pmcstat2spaa --cut-chains '$EX/pmcstat-callgraph.txt' | spaa-fold --raw"
	assert_output "bzero 3
main 10
main;parse_file;parse_block;memcpy 30
main;parse_file;parse_block;tokenize 35
main;read_input;memcpy 10
trap;trap_pfault;vm_fault;bzero 12"
	run sh -c "pmcstat2spaa '$EX/pmcstat-callgraph.txt' | spaa-fold --raw | awk '{ s += \$NF } END { print s }'"
	assert_output 100
	run sh -c "pmcstat2spaa --no-cut-chains '$EX/pmcstat-callgraph.txt' | spaa-fold --raw | awk '{ s += \$NF } END { print s }'"
	assert_output 97
}

@test "the example cut at every byte: an error naming the file, or the whole profile, or (at a line's end) a warning (issue 28)" {
	f=$EX/pmcstat-callgraph.txt
	# pmcstat prints no end: a cut at a line's end is seen by the
	# samples' count only, which pmcstat's threshold may lower too: a
	# warning
	cut_may_end() {
		at_line_end && grep -q "^pmcstat2spaa: $T/cut:1: warning: the functions of CPU_CLK_UNHALTED_CORE count" "$T/err"
	}
	cut_sweep "$f" "$(every_byte "$f")" pmcstat2spaa
	head -c 70 "$f" > "$T/cut"
	run pmcstat2spaa "$T/cut"
	assert_failure 1
	assert_output "pmcstat2spaa: $T/cut:3: the last line has no newline: the file is cut short (a whole file ends with one: add it)"
}
