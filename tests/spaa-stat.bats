#!/usr/bin/env bats
load common
bats_require_minimum_version 1.5.0

@test "spaa-stat: the summary" {
	run spaa-stat "$D/stat/small.spaa"
	assert_success
	assert_output - <<OUT
file:        $D/stat/small.spaa
source:      perf 6.1.0: perf record -g ./app
frame order: leaf_to_root
stack ids:   content_addressable
time range:  clock 100s + 10s
events:      cycles (kind hardware, mode period, primary metric period)
records:     header 1, dso 1, frame 4, thread 1, stack 3, sample 7, window 1, other 1
weights:     cycles: samples 7, period 570
threads:     1 (app 7/7)
hottest:     cycles/period, total 570 in 3 stacks
      flat  flat%   sum%        cum   cum%  function
       300 52.63% 52.63%        550 96.49%  work
       250 43.86% 96.49%        250 43.86%  parse
        20  3.51%   100%         20  3.51%  idle
         0     0%   100%        570   100%  main
OUT
}

@test "spaa-stat: several events, --event, --metric, -n; no time range" {
	run --separate-stderr spaa-stat --event instructions -m samples -n 1 "$D/top/small.spaa"
	assert_success
	assert_output - <<OUT
file:        $D/top/small.spaa
source:      perf
frame order: leaf_to_root
stack ids:   local
time range:  clock 0 + 2s
events:      cycles (kind hardware, mode period, primary metric period)
             instructions (kind hardware, mode period, primary metric period)
records:     header 1, dso 3, frame 6, thread 0, stack 7, sample 0, window 0, other 0
weights:     cycles: samples 12, period 2,000
             instructions: samples 5, period 5,000
threads:     0
hottest:     instructions/samples, total 5 in 1 stack
      flat  flat%   sum%        cum   cum%  function
         5   100%   100%          5   100%  parse
OUT
	assert_equal "$stderr" ""
	run spaa-stat "$D/window/early.spaa"
	assert_success
	assert_line --index 4 "time range:  (none)"
	assert_line --index 1 "source:      dtrace"
	assert_line --index 3 "stack ids:   local"
	assert_line --index 2 "frame order: root_to_leaf"
}

@test "spaa-stat: --json" {
	run spaa-stat --json -n 2 "$D/stat/small.spaa"
	assert_success
	assert_output '{"file":"'"$D"'/stat/small.spaa","source_tool":"perf","command":"perf record -g ./app","tool_version":"6.1.0","frame_order":"leaf_to_root","stack_id_mode":"content_addressable","time_range":{"start":100,"end":110,"unit":"seconds"},"events":[{"name":"cycles","kind":"hardware","mode":"period","primary_metric":"period"}],"records":{"header":1,"dso":1,"frame":4,"thread":1,"stack":3,"sample":7,"window":1,"other":1},"weights":[{"event":"cycles","metric":"samples","value":7,"unit":"count"},{"event":"cycles","metric":"period","value":570,"unit":"count"}],"threads":[{"pid":7,"tid":7,"comm":"app"}],"hottest":{"event":"cycles","metric":"period","unit":"count","total":570,"stacks":3,"functions":[{"rank":1,"name":"work","self":300,"self_percent":52.63,"total":550,"total_percent":96.49},{"rank":2,"name":"parse","self":250,"self_percent":43.86,"total":250,"total_percent":43.86}]}}'
}

@test "spaa-stat: stdin, gzip, zstd, -o" {
	gzip -c "$D/stat/small.spaa" > "$T/s.gz"
	zstd -q -c "$D/stat/small.spaa" > "$T/s.zst"
	want=$(spaa-stat - < "$D/stat/small.spaa")
	assert_equal "$(echo "$want" | head -n 1)" "file:        -"
	run spaa-stat - < "$T/s.gz"
	assert_output "$want"
	run sh -c 'spaa-stat < "$1"' sh "$T/s.zst"
	assert_output "$want"
	run spaa-stat -o "$T/out" - < "$D/stat/small.spaa"
	assert_success
	assert_output ""
	assert_equal "$(cat "$T/out")" "$want"
}

@test "spaa-stat: bad input" {
	printf '{"type":"stack"}\n' > "$T/bad.spaa"
	run spaa-stat "$T/bad.spaa"
	assert_failure 1
	assert_output "spaa-stat: $T/bad.spaa:1: the first record is a stack, not the header"
	: > "$T/empty"
	run spaa-stat "$T/empty"
	assert_failure 1
	assert_output "spaa-stat: $T/empty: no header record (empty input)"
	run spaa-stat --event nosuch "$D/stat/small.spaa"
	assert_failure 1
	assert_output "spaa-stat: $D/stat/small.spaa:1: event nosuch is not declared in the header (events: cycles)"
	run spaa-stat /nonexistent
	assert_failure 1
	assert_output "spaa-stat: /nonexistent: No such file or directory"
}

@test "spaa-stat: bad options" {
	run spaa-stat -n -1 "$D/stat/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-stat: -n: '-1' is not a non-negative integer"
	# several files are read and merged: a missing one is named
	run spaa-stat a b
	assert_failure 1
	assert_line --index 0 "spaa-stat: a: No such file or directory"
	run spaa-stat --bogus
	assert_failure 2
}

@test "spaa-stat: write error" {
	run sh -c 'spaa-stat "$1" > /dev/full' sh "$D/stat/small.spaa"
	assert_failure 1
	assert_output "spaa-stat: standard output: write error: No space left on device"
	run spaa-stat -o "$T/no/dir/x.txt" "$D/stat/small.spaa"
	assert_failure 1
	assert_output "spaa-stat: $T/no/dir/x.txt: No such file or directory"
}

@test "spaa-stat: --help and --version" {
	run spaa-stat --help
	assert_success
	assert_line --index 0 "Usage: spaa-stat [OPTION]... [FILE]..."
	run spaa-stat --version
	assert_success
	assert_output --regexp '^spaa-stat \(spaa-tools\) '
}

@test "spaa-stat: a perf profile: a short time range printed readably" {
	run spaa-stat "$EX/perf-cpu.spaa"
	assert_success
	assert_output - <<OUT
file:        $EX/perf-cpu.spaa
source:      perf 6.1.76: perf record -F 999 -g --call-graph dwarf ./wordfreq input.txt
frame order: leaf_to_root
stack ids:   content_addressable
time range:  clock 14.53hrs + 10ms
events:      cycles (kind hardware, mode frequency, primary metric period)
records:     header 1, dso 3, frame 15, thread 2, stack 7, sample 14, window 0, other 0
weights:     cycles: samples 14, period 31,629,620
threads:     2 (wordfreq 31337/31337, wf-reader 31337/31338)
hottest:     cycles/period, total 31,629,620 in 7 stacks
      flat  flat%   sum%        cum   cum%  function
12,516,741 39.57% 39.57% 12,516,741 39.57%  hashbrown::map::HashMap::insert (inline)
 5,011,029 15.84% 55.42% 17,527,770 55.42%  core::hash::BuildHasher::hash_one (inline)
 4,989,207 15.77% 71.19%  4,989,207 15.77%  core::str::<impl str>::to_lowercase (inline)
 3,714,219 11.74% 82.93%  3,714,219 11.74%  copy_user_enhanced_fast_string
 2,506,002  7.92% 90.86% 27,514,178 86.99%  wordfreq::count_words
OUT
}

@test "spaa-stat: folded2spaa output of the corpus's before.txt, from a pipe" {
	run sh -c 'folded2spaa "$1" | spaa-stat' sh "$D/folded/before.txt"
	assert_success
	assert_output - <<'OUT'
file:        -
source:      folded
frame order: leaf_to_root
stack ids:   content_addressable
time range:  (none)
events:      cpu (kind software, mode frequency, primary metric samples)
records:     header 1, dso 1, frame 16, thread 0, stack 8, sample 0, window 0, other 0
weights:     cpu: samples 65
threads:     0
hottest:     cpu/samples, total 65 in 8 stacks
      flat  flat%   sum%        cum   cum%  function
        27 41.54% 41.54%         27 41.54%  __srcu_read_unlock_[k]
        14 21.54% 63.08%         31 47.69%  read
        11 16.92% 80.00%         11 16.92%  __fdget_pos_[k]
         6  9.23% 89.23%         33 50.77%  fsnotify_[k]
         3  4.62% 93.85%          3  4.62%  [dd]
OUT
}

@test "spaa-stat: header only; unknown frame; weights beyond 64 bits; bad JSON" {
	head -n 1 "$D/stat/small.spaa" >"$T/h.spaa"
	run spaa-stat "$T/h.spaa"
	assert_success
	assert_line --index 6 "records:     header 1, dso 0, frame 0, thread 0, stack 0, sample 0, window 0, other 0"
	assert_line --index 7 "weights:     (none)"
	{ cat "$T/h.spaa"; echo '{"type":"stack","id":"0x1","frames":[9],"context":{"event":"cycles"},"weights":[{"metric":"period","value":1}]}'; } >"$T/u.spaa"
	run spaa-stat "$T/u.spaa"
	assert_failure 1
	assert_output "spaa-stat: $T/u.spaa:2: stack 0x1 refers to unknown frame 9"
	{ cat "$T/h.spaa"; for i in 1 2; do echo '{"type":"stack","id":"0x'$i'","frames":[],"context":{"event":"cycles"},"weights":[{"metric":"period","value":18446744073709551615}]}'; done; } >"$T/big.spaa"
	run spaa-stat "$T/big.spaa"
	assert_failure 1
	assert_output "spaa-stat: $T/big.spaa:3: the period weights add up beyond 64 bits"
	{ cat "$T/h.spaa"; echo '{"type":"stack",'; } >"$T/j.spaa"
	run spaa-stat "$T/j.spaa"
	assert_failure 1
	assert_output "spaa-stat: $T/j.spaa:2: invalid JSON at byte 17: unexpected end of line"
}

@test "spaa-stat: time ranges as an ISO 8601 start and a duration scaled as pprof does" {
	for r in "0 17.2 microseconds clock_0 17.20us" "0 1.72 seconds clock_0 1.72s" "0 150 seconds clock_0 150s" \
		 "0 5005 nanoseconds clock_0 5.01us" "0 3 ms clock_0 3ms" "0 7 ticks clock_0_ticks 7_ticks" \
		 "1795600668 1795600669.5 seconds 2026-11-25T09:57:48Z 1.50s" \
		 "1795600668087541031 1795600668589979029 nanoseconds 2026-11-25T09:57:48.087541031Z 502.44ms"; do
		set -- $r
		printf '{"type":"header","format":"spaa","version":"1.0","events":[],"time_range":{"start":%s,"end":%s,"unit":"%s"}}\n' "$1" "$2" "$3" > "$T/h.spaa"
		run sh -c 'spaa-stat "$1" | grep "^time range"' sh "$T/h.spaa"
		assert_output "time range:  $(echo "$4" | tr _ ' ') + $(echo "$5" | tr _ ' ')"
		run sh -c 'spaa-stat --raw-units "$1" | grep "^time range"' sh "$T/h.spaa"
		assert_output "time range:  $1 .. $2 $3"
	done
}

@test "spaa-stat: weights in their units (perf's cpu-clock periods are nanoseconds), --raw-units, -J with the unit" {
	run spaa-stat "$EX/parser.spaa"
	assert_success
	assert_line "weights:     cpu-clock:pppH: samples 7, period 7.01ms"
	assert_line "hottest:     cpu-clock:pppH/period, total 7.01ms in 5 stacks"
	run spaa-stat --raw-units "$EX/parser.spaa"
	assert_line "weights:     cpu-clock:pppH: samples 7, period 7007007"
	run sh -c 'spaa-stat -J "$1" | jq -c ".weights, .hottest.unit"' sh "$EX/parser.spaa"
	assert_output '[{"event":"cpu-clock:pppH","metric":"samples","value":7,"unit":"count"},{"event":"cpu-clock:pppH","metric":"period","value":7007007,"unit":"nanoseconds"}]
"nanoseconds"'
}

@test "spaa-stat: fractional times (milliseconds of 1e-6 and 5e-7) are scaled in the hottest table as in the weights line, not 0" {
	run spaa-stat "$D/diff/ms-before.spaa"
	assert_success
	assert_line "weights:     cpu: wall_ms 1.50ns"
	assert_line "hottest:     cpu/wall_ms, total 1.50ns in 2 stacks"
	assert_line "       1ns 66.67% 66.67%        1ns 66.67%  work"
	assert_line "    0.50ns 33.33%   100%     1.50ns   100%  main"
}

@test "threads are named by what they ran when sampled (after exec), as the folded stacks name them and perf report -s pid does, not by their first name (real capture)" {
	can_record
	c_prog
	# the shell burns its time as sh, then becomes prog (exec, one pid)
	perf record -q -N -g -e cpu-clock -o "$T/ex.data" -- \
		sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; exec "$0" 300' "$T/prog" >/dev/null
	perf2spaa "$T/ex.data" > "$T/ex.spaa"
	# the thread record keeps the first name, sh
	grep -q '"type":"thread",.*"comm":"sh"' "$T/ex.spaa"
	want=$(perf report -i "$T/ex.data" --stdio --no-children -g none -s pid -q 2>/dev/null | awk 'NF == 2 { split($2, a, ":"); print a[2], a[1] "/" a[1] }')
	[[ $want =~ ^prog\ [0-9]+/[0-9]+$ ]]
	run spaa-stat "$T/ex.spaa"
	assert_line "threads:     1 ($want)"
	spaa-stat --json "$T/ex.spaa" | jq -r '.threads[] | "\(.comm) \(.pid)/\(.tid)"' > "$T/json"
	assert_file_eq "$T/json" <<< "$want"
	# the folded stacks: mostly prog's
	spaa-fold "$T/ex.spaa" | grep -q '^prog;.*;main;leaf [0-9]*$'
}
