#!/usr/bin/env bats
load common
bats_require_minimum_version 1.5.0

# small.spaa: two events (cycles, instructions); fib is recursive (frames 2
# and 3 are both fib); one cycles stack has no period weight.

@test "spaa-top: default table, first event, warnings on stderr" {
	run --separate-stderr spaa-top "$D/top/small.spaa"
	assert_success
	assert_output - <<'OUT'
cycles/period, total 2,000
      flat  flat%   sum%        cum   cum%  function
     1,000 50.00% 50.00%      1,000 50.00%  page_fault
       700 35.00% 85.00%        900 45.00%  fib
       200 10.00% 95.00%      1,200 60.00%  memcpy
       100  5.00%   100%      1,100 55.00%  parse
         0     0%   100%      2,000   100%  main
OUT
	assert_equal "$stderr" "spaa-top: $D/top/small.spaa:1: 2 events; ranking only cycles (use --event)
spaa-top: $D/top/small.spaa: 1 stack of event cycles has no 'period' weight (left out)"
}

@test "spaa-top: recursion counted once in total; --sort total; -n" {
	run --separate-stderr spaa-top --event cycles --sort total -n 2 "$D/top/small.spaa"
	assert_success
	assert_output - <<'OUT'
cycles/period, total 2,000
      flat  flat%   sum%        cum   cum%  function
         0     0%     0%      2,000   100%  main
       200 10.00% 10.00%      1,200 60.00%  memcpy
OUT
}

@test "spaa-top: --metric samples counts the stack without period" {
	run --separate-stderr spaa-top --event cycles -m samples -n 0 "$D/top/small.spaa"
	assert_success
	assert_output - <<'OUT'
cycles/samples, total 12
      flat  flat%   sum%        cum   cum%  function
         7 58.33% 58.33%          9 75.00%  fib
         2 16.67% 75.00%          3 25.00%  memcpy
         1  8.33% 83.33%         12   100%  main
         1  8.33% 91.67%          1  8.33%  page_fault
         1  8.33%   100%          2 16.67%  parse
OUT
	assert_equal "$stderr" ""
}

@test "spaa-top: --by dso" {
	run --separate-stderr spaa-top --event cycles --by dso "$D/top/small.spaa"
	assert_success
	assert_output - <<'OUT'
cycles/period, total 2,000
      flat  flat%   sum%        cum   cum%  dso
     1,000 50.00% 50.00%      1,000 50.00%  [kernel.kallsyms]
       800 40.00% 90.00%      2,000   100%  /bin/app
       200 10.00%   100%      1,200 60.00%  /lib/libc.so.6
OUT
}

@test "spaa-top: --by srcline, missing srclines named ?? (func)" {
	run --separate-stderr spaa-top --event cycles --by srcline -n 0 "$D/top/small.spaa"
	assert_success
	assert_output - <<'OUT'
cycles/period, total 2,000
      flat  flat%   sum%        cum   cum%  srcline
     1,000 50.00% 50.00%      1,000 50.00%  ?? (page_fault)
       400 20.00% 70.00%        900 45.00%  app.c:3
       300 15.00% 85.00%        500 25.00%  app.c:5
       200 10.00% 95.00%      1,200 60.00%  ?? (memcpy)
       100  5.00%   100%      1,100 55.00%  app.c:20
         0     0%   100%      2,000   100%  app.c:10
OUT
}

@test "spaa-top: --json" {
	run --separate-stderr spaa-top --event instructions --json "$D/top/small.spaa"
	assert_success
	assert_output - <<'OUT'
{"type":"summary","event":"instructions","metric":"period","unit":"count","by":"func","total":5000,"stacks":1}
{"type":"row","rank":1,"name":"parse","self":5000,"self_percent":100.00,"total":5000,"total_percent":100.00}
{"type":"row","rank":2,"name":"main","self":0,"self_percent":0.00,"total":5000,"total_percent":100.00}
OUT
}

@test "spaa-top: --callers and --callees (sandwich), recursion not a caller of itself" {
	run --separate-stderr spaa-top --event cycles --callers fib --callees fib "$D/top/small.spaa"
	assert_success
	assert_output - <<'OUT'
cycles/period, fib: self 700 (35.00%), total 900 (45.00%) of 2,000
    weight      %  caller
       900   100%  main

    weight      %  callee
       700 77.78%  [self]
       200 22.22%  memcpy
OUT
}

@test "spaa-top: --callees of the root, --callers reaching [root], --json" {
	run --separate-stderr spaa-top --event cycles --callers main --json "$D/top/small.spaa"
	assert_success
	assert_output - <<'OUT'
{"type":"focus","name":"main","event":"cycles","metric":"period","unit":"count","self":0,"self_percent":0.00,"total":2000,"total_percent":100.00,"profile_total":2000}
{"type":"caller","depth":1,"name":"[root]","weight":2000,"percent":100.00}
OUT
	run --separate-stderr spaa-top --event cycles --by dso --callees /bin/app "$D/top/small.spaa"
	assert_success
	assert_output - <<'OUT'
cycles/period, /bin/app: self 800 (40.00%), total 2,000 (100%) of 2,000
    weight      %  callee
     1,200 60.00%  /lib/libc.so.6
       800 40.00%  [self]
OUT
}

@test "spaa-top: unknown function for --callers" {
	run --separate-stderr spaa-top --event cycles --callers nope "$D/top/small.spaa"
	assert_failure 1
	assert_equal "$stderr" "spaa-top: $D/top/small.spaa: 1 stack of event cycles has no 'period' weight (left out)
spaa-top: $D/top/small.spaa: no function 'nope' in the stacks of event cycles; no name contains it (ignoring case); -E matches a regular expression"
}

# The figures of corpus/trace/small-trace.EXPECTED.txt [all threads]: self
# time per name and inclusive time with recursion counted once.  The fixture
# holds the trace's spans as self-time stacks (what a span converter writes).
@test "spaa-top: self and total agree with small-trace.EXPECTED.txt" {
	run --separate-stderr spaa-top "$D/top/small-trace.spaa"
	assert_success
	assert_output - <<'OUT'
spans/self_time, total 1165us
      flat  flat%   sum%        cum   cum%  function
     240us 20.60% 20.60%      488us 41.89%  fib
     191us 16.39% 37.00%      489us 41.97%  emit
     181us 15.54% 52.53%      480us 41.20%  sché∂ule
     179us 15.36% 67.90%      518us 44.46%  main
     156us 13.39% 81.29%      511us 43.86%  lex
     124us 10.64% 91.93%      271us 23.26%  parse
      94us  8.07%   100%      207us 17.77%  alloc
OUT
	run --separate-stderr spaa-top -m calls -n 1 "$D/top/small-trace.spaa"
	assert_success
	assert_line --index 2 "        66 22.84% 22.84%        142 49.13%  fib"
}

@test "spaa-top: gzip and zstd input, stdin, -o" {
	gzip -c "$D/top/small.spaa" > "$T/s.spaa.gz"
	zstd -q -c "$D/top/small.spaa" > "$T/s.spaa.zst"
	run --separate-stderr spaa-top --event instructions -n 1 "$T/s.spaa.gz"
	assert_success
	assert_line --index 2 "     5,000   100%   100%      5,000   100%  parse"
	run --separate-stderr spaa-top --event instructions -n 1 - < "$T/s.spaa.zst"
	assert_success
	assert_line --index 2 "     5,000   100%   100%      5,000   100%  parse"
	run spaa-top --event instructions -n 1 -o "$T/out" "$D/top/small.spaa"
	assert_success
	assert_output ""
	assert_file_eq "$T/out" <<'OUT'
instructions/period, total 5,000
      flat  flat%   sum%        cum   cum%  function
     5,000   100%   100%      5,000   100%  parse
OUT
}

@test "spaa-top: bad options" {
	run spaa-top --by nosuch "$D/top/small.spaa"
	assert_failure 2
	assert_output "spaa-top: --by: 'nosuch' is not func, dso, srcline, file, comm, pid or tid (each once, at most 8)
Try 'spaa-top --help' for more information."
	run spaa-top --by comm,dso,comm "$D/top/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-top: --by: 'comm' is not func, dso, srcline, file, comm, pid or tid (each once, at most 8)"
	run spaa-top --by comm --callers main "$D/top/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-top: --callers and --callees go with one key of frames (func, dso, srcline or file)"
	run spaa-top --node-fraction 1.5 "$D/top/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-top: --node-fraction: '1.5' is not a number from 0 to 1"
	run spaa-top --focus '(' "$D/top/small.spaa"
	assert_failure 2
	assert_line --index 0 --partial "spaa-top: --focus '(': "
	run spaa-top --sort name "$D/top/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-top: --sort: 'name' is not self or total"
	run spaa-top -n x "$D/top/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-top: -n: 'x' is not a non-negative integer"
	run spaa-top --callers a --callees b "$D/top/small.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-top: --callers and --callees must name the same function"
	run spaa-top - - < "$D/top/small.spaa"
	assert_failure 2
	run spaa-top --bogus
	assert_failure 2
}

@test "spaa-top: bad input" {
	run spaa-top --event nosuch "$D/top/small.spaa"
	assert_failure 1
	assert_output "spaa-top: $D/top/small.spaa:1: event nosuch is not declared in the header (events: cycles, instructions)"
	printf '{"type":"header","events":[]}\n{"type":"stack",\n' > "$T/bad.spaa"
	run spaa-top "$T/bad.spaa"
	assert_failure 1
	assert_output --partial "spaa-top: $T/bad.spaa:2: invalid JSON"
	run spaa-top /nonexistent
	assert_failure 1
	assert_output "spaa-top: /nonexistent: No such file or directory"
	: > "$T/empty"
	run sh -c 'spaa-top < "$1"' sh "$T/empty"
	assert_failure 1
	assert_output "spaa-top: -: no header record (empty input)"
}

@test "spaa-top: write error" {
	run sh -c 'spaa-top --event instructions "$1" > /dev/full' sh "$D/top/small.spaa"
	assert_failure 1
	assert_output "spaa-top: standard output: write error: No space left on device"
	run spaa-top --event instructions -o "$T/no/dir/x.txt" "$D/top/small.spaa"
	assert_failure 1
	assert_output "spaa-top: $T/no/dir/x.txt: No such file or directory"
}

@test "spaa-top: --help and --version" {
	run spaa-top --help
	assert_success
	assert_line --index 0 "Usage: spaa-top [OPTION]... [FILE]..."
	run spaa-top --version
	assert_success
	assert_output --regexp '^spaa-top \(spaa-tools\) '
}

@test "spaa-top: the corpus's after.txt through folded2spaa: table, sandwich, --json" {
	run sh -c 'folded2spaa "$1" | spaa-top -n 4' sh "$D/folded/after.txt"
	assert_success
	assert_output - <<'OUT'
cpu/samples, total 80
      flat  flat%   sum%        cum   cum%  function
        21 26.25% 26.25%         21 26.25%  __srcu_read_unlock_[k]
        15 18.75% 45.00%         27 33.75%  __fdget_pos_[k]
        13 16.25% 61.25%         32 40.00%  read
        12 15.00% 76.25%         12 15.00%  __fget_light_[k]
OUT
	run sh -c 'folded2spaa "$1" | spaa-top --callers "fsnotify_[k]" --callees "fsnotify_[k]"' sh "$D/folded/after.txt"
	assert_success
	assert_output - <<'OUT'
cpu/samples, fsnotify_[k]: self 4 (5.00%), total 25 (31.25%) of 80
    weight      %  caller
        21 84.00%  vfs_write_[k]
         4 16.00%  vfs_read_[k]

    weight      %  callee
        21 84.00%  __srcu_read_unlock_[k]
         4 16.00%  [self]
OUT
	run sh -c 'folded2spaa "$1" | spaa-top --sort total -n 2 --json' sh "$D/folded/after.txt"
	assert_success
	assert_output - <<'OUT'
{"type":"summary","event":"cpu","metric":"samples","unit":"count","by":"func","total":80,"stacks":8}
{"type":"row","rank":1,"name":"dd","self":0,"self_percent":0.00,"total":80,"total_percent":100.00}
{"type":"row","rank":2,"name":"[unknown]","self":0,"self_percent":0.00,"total":62,"total_percent":77.50}
OUT
}

@test "spaa-top: header only; a weight of 2^64-1; a sum beyond 64 bits" {
	head -n 1 "$D/top/small.spaa" >"$T/h.spaa"
	run --separate-stderr spaa-top "$T/h.spaa"
	assert_success
	assert_output "cycles/period, total 0
      flat  flat%   sum%        cum   cum%  function"
	{ cat "$T/h.spaa"
	  echo '{"type":"dso","id":1,"name":"x","is_kernel":false}'
	  echo '{"type":"frame","id":1,"func":"f","dso":1,"kind":"user"}'
	  echo '{"type":"stack","id":"0x1","frames":[1],"context":{"event":"cycles"},"weights":[{"metric":"period","value":18446744073709551615}]}'; } >"$T/one.spaa"
	run --separate-stderr spaa-top "$T/one.spaa"
	assert_success
	assert_output "cycles/period, total 18,446,744,073,709,551,615
                      flat  flat%   sum%                        cum   cum%  function
18,446,744,073,709,551,615   100%   100% 18,446,744,073,709,551,615   100%  f"
	run --separate-stderr spaa-top --raw-units "$T/one.spaa"
	assert_success
	assert_output "cycles/period, total 18446744073709551615
                flat  flat%   sum%                  cum   cum%  function
18446744073709551615   100%   100% 18446744073709551615   100%  f"
	{ cat "$T/one.spaa"; echo '{"type":"stack","id":"0x2","frames":[1],"context":{"event":"cycles","comm":"b"},"weights":[{"metric":"period","value":1}]}'; } >"$T/two.spaa"
	run --separate-stderr spaa-top "$T/two.spaa"
	assert_failure 1
	assert_equal "$stderr" "spaa-top: $T/two.spaa:1: 2 events; ranking only cycles (use --event)
spaa-top: $T/two.spaa:5: weights add up beyond 64 bits"
}

@test "one name for a frame: spaa-top, spaa-grep, spaa-stat and spaa-window --list name unresolved frames as spaa-fold does" {
	run sh -c 'spaa-fold "$1" | grep -c "\[libc.so.6\] "' sh "$EX/parser.spaa"
	assert_output 1
	run spaa-top --callers '[libc.so.6]' "$EX/parser.spaa"
	assert_success
	assert_output "cpu-clock:pppH/period, [libc.so.6]: self 1ms (14.29%), total 1ms (14.29%) of 7.01ms
    weight      %  caller
       1ms   100%  worker_loop"
	run sh -c 'spaa-grep -e "^\[libc.so.6\]$" "$1" | spaa-fold' sh "$EX/parser.spaa"
	assert_output "parser;__clone3;start_thread;worker_loop;[libc.so.6] 1001001"
	run sh -c 'spaa-stat -n 0 "$1" | grep -c "  \[libc.so.6\]$"' sh "$EX/parser.spaa"
	assert_output 1
	# the naming options of spaa-fold apply
	run sh -c 'spaa-top --addrs -n 0 "$1" | grep "\[libc"' sh "$EX/parser.spaa"
	assert_output "       1ms 14.29% 71.43%        1ms 14.29%  [libc.so.6 <7f1e2a49a1f0>]"
	run sh -c 'spaa-grep --addrs -c -e "<7f1e2a49a1f0>" "$1"' sh "$EX/parser.spaa"
	assert_output "1 stack, 1ms period"
	run sh -c 'spaa-fold --kernel "$1" | grep -o "copy_user_enhanced_fast_string_\[k\]"; spaa-top --kernel -n 0 "$1" | grep -o "copy_user_enhanced_fast_string_\[k\]"' sh "$EX/parser.spaa"
	assert_output "copy_user_enhanced_fast_string_[k]
copy_user_enhanced_fast_string_[k]"
}

@test "spaa-top --depth: the callers' and callees' trees; -E and -i: a regex as the focus" {
	run spaa-top --callers parse_file --callees parse_file --depth 3 "$EX/parser.spaa"
	assert_success
	assert_output "cpu-clock:pppH/period, parse_file: self 0 (0%), total 4ms (57.14%) of 7.01ms
    weight      %  caller
       4ms   100%  main
       4ms   100%    __libc_start_call_main
       4ms   100%      __libc_start_main_impl

    weight      %  callee
       2ms 50.00%  tokenize
       2ms 50.00%    [self]
       2ms 50.00%  validate_token
       2ms 50.00%    check_bounds
       2ms 50.00%      [self]"
	run spaa-top -E --callers '^(tokenize|check_bounds)$' --depth 2 "$EX/parser.spaa"
	assert_success
	assert_output "cpu-clock:pppH/period, ^(tokenize|check_bounds)$: self 4ms (57.14%), total 4ms (57.14%) of 7.01ms
    weight      %  caller
       2ms 50.00%  parse_file
       2ms 50.00%    main
       2ms 50.00%  validate_token
       2ms 50.00%    parse_file"
	run spaa-top -i --callees 'PARSE_' --depth 5 --json "$EX/parser.spaa"
	assert_success
	assert_output '{"type":"focus","name":"PARSE_","event":"cpu-clock:pppH","metric":"period","unit":"nanoseconds","self":0,"self_percent":0.00,"total":4004004,"total_percent":57.14,"profile_total":7007007}
{"type":"callee","depth":1,"name":"tokenize","weight":2002002,"percent":50.00}
{"type":"callee","depth":2,"name":"[self]","weight":2002002,"percent":50.00}
{"type":"callee","depth":1,"name":"validate_token","weight":2002002,"percent":50.00}
{"type":"callee","depth":2,"name":"check_bounds","weight":2002002,"percent":50.00}
{"type":"callee","depth":3,"name":"[self]","weight":2002002,"percent":50.00}'
	run spaa-top --depth 2 "$EX/parser.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-top: -E, -i and --depth go with --callers or --callees"
	run spaa-top -E --callers '(' "$EX/parser.spaa"
	assert_failure 2
	run spaa-top -E --callers '^nosuch' "$EX/parser.spaa"
	assert_failure 1
	assert_output "spaa-top: $EX/parser.spaa: no function '^nosuch' in the stacks of event cpu-clock:pppH"
}

@test "spaa-top: a Go profile's table is go tool pprof -top's: same figures, same units (cpu and every heap sample type, by pprof's names)" {
	command -v go >/dev/null || fail "go is not installed (.ci/deps installs golang-go)"
	# flat, flat%, cum, cum% and name of every row, sorted (ties may be ordered
	# differently; pprof prints no thousands separator)
	norm() { sed 's/ (inline)$//' | awk '{ $3 = ""; print }' | tr -d , | sort; }
	for si in cpu inuse_space inuse_objects alloc_space alloc_objects; do
		case $si in cpu) p=$EX/go-cpu.pprof ;; *) p=$EX/go-heap.pprof ;; esac
		want=$(go tool pprof -sample_index=$si -top -nodefraction=0 -edgefraction=0 -nodecount=100000 "$p" 2>/dev/null |
			sed -n '/^ *flat  flat%/,$p' | tail -n +2 | norm)
		[ -n "$want" ]
		got=$(pprof2spaa "$p" | spaa-top -m $si -n 0 2>/dev/null | tail -n +3 | norm)
		assert_equal "$got" "$want"
		# and the total, in the table's unit
		want=$(go tool pprof -sample_index=$si -top -nodefraction=0 "$p" 2>/dev/null | sed -n 's/^Showing nodes accounting for .* of \(.*\) total$/\1/p')
		got=$(pprof2spaa "$p" | spaa-top -m $si -n 0 2>/dev/null | sed -n '1s/.*, total //p' | tr -d ,)
		assert_equal "$got" "$want"
	done
}

@test "spaa-top: units as pprof prints them; --iec, --raw-units; -J keeps exact integers and names the unit" {
	pprof2spaa "$EX/go-cpu.pprof" > "$T/cpu.spaa"
	pprof2spaa "$EX/go-heap.pprof" > "$T/heap.spaa"
	run --separate-stderr spaa-top "$T/cpu.spaa"
	assert_success
	assert_output - <<'OUT'
cpu/cpu, total 320ms
      flat  flat%   sum%        cum   cum%  function
     300ms 93.75% 93.75%      310ms 96.88%  main.sumSquares
      10ms  3.12% 96.88%       10ms  3.12%  main.fib
      10ms  3.12%   100%       10ms  3.12%  runtime.asyncPreempt
         0     0%   100%      320ms   100%  main.main
         0     0%   100%      320ms   100%  runtime.main
OUT
	run --separate-stderr spaa-top -m inuse_space -n 4 "$T/heap.spaa"
	assert_success
	assert_output - <<'OUT'
heap/live_bytes, total 1181.80kB
      flat  flat%   sum%        cum   cum%  function
 1164.31kB 98.52% 98.52%  1164.31kB 98.52%  main.allocLive
    9.25kB  0.78% 99.30%     9.25kB  0.78%  hash/crc32.slicingMakeTable
    4.21kB  0.36% 99.66%     4.21kB  0.36%  runtime.malg
    4.04kB  0.34%   100%     4.04kB  0.34%  runtime.(*scavengerState).init
OUT
	# pprof2spaa writes live_count 0: no stack is said to lack it
	assert_equal "$stderr" ""
	run --separate-stderr spaa-top -m inuse_objects -n 1 "$T/heap.spaa"
	assert_success
	assert_equal "$stderr" ""
	run --separate-stderr spaa-top -m alloc_objects -n 1 "$T/heap.spaa"
	assert_line --index 0 "heap/alloc_count, total 2,395"
	assert_line --index 2 "     2,006 83.76% 83.76%      2,006 83.76%  main.allocTemp"
	run --separate-stderr spaa-top -m inuse_space -n 2 --iec "$T/heap.spaa"
	assert_output - <<'OUT'
heap/live_bytes, total 1181.80KiB
      flat  flat%   sum%        cum   cum%  function
1164.31KiB 98.52% 98.52% 1164.31KiB 98.52%  main.allocLive
   9.25KiB  0.78% 99.30%    9.25KiB  0.78%  hash/crc32.slicingMakeTable
OUT
	run --separate-stderr spaa-top -m inuse_space -n 2 --raw-units "$T/heap.spaa"
	assert_output - <<'OUT'
heap/live_bytes, total 1210167
      flat  flat%   sum%        cum   cum%  function
   1192250 98.52% 98.52%    1192250 98.52%  main.allocLive
      9474  0.78% 99.30%       9474  0.78%  hash/crc32.slicingMakeTable
OUT
	run --separate-stderr spaa-top -m inuse_space -n 1 -J "$T/heap.spaa"
	assert_output - <<'OUT'
{"type":"summary","event":"heap","metric":"live_bytes","unit":"bytes","by":"func","total":1210167,"stacks":18}
{"type":"row","rank":1,"name":"main.allocLive","self":1192250,"self_percent":98.52,"total":1192250,"total_percent":98.52}
OUT
}

@test "spaa-top, spaa-stat: a metric no stack has is an error naming the file's metrics (not total 0)" {
	pprof2spaa "$EX/go-heap.pprof" > "$T/heap.spaa"
	for c in spaa-top spaa-stat; do
		run --separate-stderr $c -m nosuch "$T/heap.spaa"
		assert_failure 1
		assert_output ""
		assert_equal "$stderr" "$c: $T/heap.spaa: no stack of event heap has metric 'nosuch' (metrics: live_count, live_bytes, alloc_count, alloc_bytes)"
	done
	# heaptrack's and V8's names
	run --separate-stderr spaa-top -m leaked -n 1 "$T/heap.spaa"
	assert_line --index 0 "heap/live_bytes, total 1.15MB"
	run --separate-stderr spaa-top -m allocations -n 1 "$T/heap.spaa"
	assert_line --index 0 "heap/alloc_count, total 2,395"
	run --separate-stderr spaa-top -m samples -n 1 "$EX/perf-cpu.spaa"
	assert_line --index 0 "cycles/samples, total 14"
}

@test "spaa-top: fractional times (speedscope's and Firefox's milliseconds of 1e-6 and 5e-7) are scaled as spaa-stat scales them, below a nanosecond too: not total 0 and rows of 0" {
	run spaa-top "$D/diff/ms-before.spaa"
	assert_success
	assert_output - <<'OUT'
cpu/wall_ms, total 1.50ns
      flat  flat%   sum%        cum   cum%  function
       1ns 66.67% 66.67%        1ns 66.67%  work
    0.50ns 33.33%   100%     1.50ns   100%  main
OUT
	run spaa-top --raw-units "$D/diff/ms-before.spaa"
	assert_line --index 0 "cpu/wall_ms, total 0.0000015"
	run spaa-top -J "$D/diff/ms-before.spaa"
	assert_line --index 0 '{"type":"summary","event":"cpu","metric":"wall_ms","unit":"milliseconds","by":"func","total":0.0000015,"stacks":2}'
}

# ---- pprof's verbs: the frame filters, --node-fraction, --by (issue 31) -----

# the rows of a -top table (go tool pprof's or spaa-top's), blanks squeezed:
# "flat flat% sum% cum cum% NAME..."
top_rows() { grep -E '^ +[-0-9.]+[a-zµ]* +[0-9.]+% +[0-9.]+%' | tr -s ' ' | sed 's/^ //'; }

# same_rows_as_pprof SPAA DIR: for each line "NAME@PPROF-FLAGS@SPAA-TOP-FLAGS"
# of tests/data/filters/cases, spaa-top's rows with SPAA-TOP-FLAGS on SPAA
# are DIR/NAME.txt's, go tool pprof -top's with PPROF-FLAGS: flat, flat%,
# sum%, cum, cum%, in the same unit, the same order (ties in name order) and
# (inline) marks
same_rows_as_pprof() {
	local name pflags sflags n=0 out=
	set -f
	while IFS=@ read -r name pflags sflags; do
		case $name in '#'*) continue ;; esac
		# shellcheck disable=SC2086
		spaa-top $sflags "$1" | top_rows > "$T/got" || out="$out$name: spaa-top failed"$'\n'
		top_rows < "$2/$name.txt" > "$T/want"
		[ -s "$T/want" ] || [ "$name" = nothing ] || out="$out$name: no rows from pprof"$'\n'
		diff "$T/want" "$T/got" > "$T/diff" || out="$out$name ($pflags / $sflags):"$'\n'"$(cat "$T/diff")"$'\n'
		n=$((n + 1))
	done < "$D/filters/cases"
	set +f
	[ -z "$out" ] || { printf '%s' "$out"; false; }
	[ "$n" -ge 30 ]
}

@test "spaa-top: --focus, --ignore, --hide, --show, --show-from, --prune-from, --node-fraction, --by=file and --by=func,srcline give go tool pprof -top's rows, figure by figure (a Go profile: recursion, mutual recursion, a shared helper, inlined calls; pprof's output stored)" {
	pprof2spaa "$D/filters/cpu.pprof" -o "$T/cpu.spaa"
	same_rows_as_pprof "$T/cpu.spaa" "$D/filters/pprof"
}

@test "spaa-top: the frame filters and --node-fraction against go tool pprof -top run here, on a fresh profile of the same Go program" {
	command -v go >/dev/null || fail "go is not installed (.ci/deps installs golang-go)"
	export HOME=$T GOCACHE=$T/gocache GOPATH=$T/gopath GOFLAGS=-mod=mod
	mkdir "$T/gen" && cp "$D/filters/main.go" "$D/filters/go.mod" "$T/gen/" && cd "$T/gen"
	go build -o prog .
	./prog cpu.pprof 3
	mkdir "$T/pprof"
	local name pflags sflags
	set -f
	while IFS=@ read -r name pflags sflags; do
		case $name in '#'*) continue ;; esac
		# shellcheck disable=SC2086
		go tool pprof -top $pflags cpu.pprof < /dev/null > "$T/pprof/$name.txt" 2>/dev/null
	done < "$D/filters/cases"
	set +f
	pprof2spaa cpu.pprof -o "$T/cpu.spaa"
	same_rows_as_pprof "$T/cpu.spaa" "$T/pprof"
}

@test "spaa-top: with a filter, the percentages and the unit are of the whole profile, as pprof's; -J gives both totals" {
	run --separate-stderr spaa-top --event cycles --focus=memcpy "$D/top/small.spaa"
	assert_success
	assert_output - <<'OUT'
cycles/period, total 2,000, 1,200 (60.00%) after the filters
      flat  flat%   sum%        cum   cum%  function
     1,000 50.00% 50.00%      1,000 50.00%  page_fault
       200 10.00% 60.00%      1,200 60.00%  memcpy
         0     0% 60.00%        200 10.00%  fib
         0     0% 60.00%      1,200 60.00%  main
         0     0% 60.00%      1,000 50.00%  parse
OUT
	run --separate-stderr spaa-top --event cycles -J -n 1 --hide=page_fault "$D/top/small.spaa"
	assert_output - <<'OUT'
{"type":"summary","event":"cycles","metric":"period","unit":"count","by":"func","total":2000,"filtered_total":2000,"stacks":5}
{"type":"row","rank":1,"name":"memcpy","self":1200,"self_percent":60.00,"total":1200,"total_percent":60.00}
OUT
}

@test "spaa-top: --node-fraction leaves out the rows whose total is below F of the filtered total; -n still caps" {
	run --separate-stderr spaa-top --event cycles --node-fraction=0.5 "$D/top/small.spaa"
	assert_output - <<'OUT'
cycles/period, total 2,000
      flat  flat%   sum%        cum   cum%  function
     1,000 50.00% 50.00%      1,000 50.00%  page_fault
       200 10.00% 60.00%      1,200 60.00%  memcpy
       100  5.00% 65.00%      1,100 55.00%  parse
         0     0% 65.00%      2,000   100%  main
OUT
	run --separate-stderr spaa-top --event cycles --node-fraction=0.5 -n 2 --sort=total "$D/top/small.spaa"
	assert_output - <<'OUT'
cycles/period, total 2,000
      flat  flat%   sum%        cum   cum%  function
         0     0%     0%      2,000   100%  main
       200 10.00% 10.00%      1,200 60.00%  memcpy
OUT
}

# ctx.spaa: the stacks of two processes (one of two threads), their commands
# in the context or in the thread records
ctx_spaa() {
	cat > "$T/ctx.spaa" <<'EOF2'
{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"cycles","kind":"hardware","sampling":{"mode":"period","primary_metric":"period"}}],"stack_id_mode":"local"}
{"type":"dso","id":1,"name":"/usr/bin/gzip","is_kernel":false}
{"type":"dso","id":2,"name":"/lib/libc.so.6","is_kernel":false}
{"type":"dso","id":3,"name":"[kernel.kallsyms]","is_kernel":true}
{"type":"frame","id":1,"func":"main","dso":1,"srcline":"gzip.c:10","kind":"user"}
{"type":"frame","id":2,"func":"deflate","dso":1,"srcline":"deflate.c:5","kind":"user"}
{"type":"frame","id":3,"func":"memcpy","dso":2,"kind":"user"}
{"type":"frame","id":4,"func":"clear_page","dso":3,"kind":"kernel"}
{"type":"thread","pid":10,"tid":10,"comm":"gzip"}
{"type":"thread","pid":10,"tid":11,"comm":"gzip"}
{"type":"thread","pid":20,"tid":20,"comm":"sh"}
{"type":"stack","id":1,"frames":[2,1],"context":{"event":"cycles","pid":10,"tid":10,"comm":"gzip"},"weights":[{"metric":"period","value":600}]}
{"type":"stack","id":2,"frames":[3,2,1],"context":{"event":"cycles","pid":10,"tid":11},"weights":[{"metric":"period","value":300}]}
{"type":"stack","id":3,"frames":[4,3,1],"context":{"event":"cycles","tid":11},"weights":[{"metric":"period","value":50}]}
{"type":"stack","id":4,"frames":[3,1],"context":{"event":"cycles","pid":20,"tid":20,"comm":"sh"},"weights":[{"metric":"period","value":50}]}
EOF2
}

@test "spaa-top: --by=comm,dso groups as perf report --sort comm,dso (rows of both keys, flat as its overhead); pid groups processes, tid threads; -J gives each key its own field" {
	ctx_spaa
	run spaa-top --by=comm,dso "$T/ctx.spaa"
	assert_success
	assert_output - <<'OUT'
cycles/period, total 1,000
      flat  flat%   sum%        cum   cum%  comm  dso
       600 60.00% 60.00%        950 95.00%  gzip  /usr/bin/gzip
       300 30.00% 90.00%        350 35.00%  gzip  /lib/libc.so.6
        50  5.00% 95.00%         50  5.00%  gzip  [kernel.kallsyms]
        50  5.00%   100%         50  5.00%  sh    /lib/libc.so.6
         0     0%   100%         50  5.00%  sh    /usr/bin/gzip
OUT
	run spaa-top --by=pid "$T/ctx.spaa"
	assert_output - <<'OUT'
cycles/period, total 1,000
      flat  flat%   sum%        cum   cum%  pid
       950 95.00% 95.00%        950 95.00%  10
        50  5.00%   100%         50  5.00%  20
OUT
	run spaa-top -J --by=tid,comm,func "$T/ctx.spaa"
	assert_output - <<'OUT'
{"type":"summary","event":"cycles","metric":"period","unit":"count","by":"tid,comm,func","total":1000,"stacks":4}
{"type":"row","rank":1,"tid":10,"comm":"gzip","func":"deflate","self":600,"self_percent":60.00,"total":600,"total_percent":60.00}
{"type":"row","rank":2,"tid":11,"comm":"gzip","func":"memcpy","self":300,"self_percent":30.00,"total":350,"total_percent":35.00}
{"type":"row","rank":3,"tid":11,"comm":"gzip","func":"clear_page","self":50,"self_percent":5.00,"total":50,"total_percent":5.00}
{"type":"row","rank":4,"tid":20,"comm":"sh","func":"memcpy","self":50,"self_percent":5.00,"total":50,"total_percent":5.00}
{"type":"row","rank":5,"tid":10,"comm":"gzip","func":"main","self":0,"self_percent":0.00,"total":600,"total_percent":60.00}
{"type":"row","rank":6,"tid":11,"comm":"gzip","func":"deflate","self":0,"self_percent":0.00,"total":300,"total_percent":30.00}
{"type":"row","rank":7,"tid":11,"comm":"gzip","func":"main","self":0,"self_percent":0.00,"total":350,"total_percent":35.00}
{"type":"row","rank":8,"tid":20,"comm":"sh","func":"main","self":0,"self_percent":0.00,"total":50,"total_percent":5.00}
OUT
	run spaa-top --by=file "$T/ctx.spaa"
	assert_output - <<'OUT'
cycles/period, total 1,000
      flat  flat%   sum%        cum   cum%  file
       600 60.00% 60.00%        900 90.00%  deflate.c
       350 35.00% 95.00%        400 40.00%  ?? (memcpy)
        50  5.00%   100%         50  5.00%  ?? (clear_page)
         0     0%   100%      1,000   100%  gzip.c
OUT
}

# perf_rows DATA KEYS: perf report --no-children's rows of its own test
# programs (commands vbprog, vbgzip, vbsort) sorted by KEYS (pid: the
# thread, as perf's pid key), "PERCENT PERIOD VALUE...", dsos as perf
# names them (base names)
perf_rows() {
	perf report -i "$1" --stdio --no-children -g none --sort "${2//tid/pid}" --show-total-period 2>/dev/null |
		grep -v '^#' | grep -v '^$' | awk '{ $1 = $1; print }' | sed -E 's/ ([0-9]+):[^ ]*/ \1/' |
		grep -E ' vb(prog|gzip|sort)( |$)' | LC_ALL=C sort
}
# spaa_rows SPAA KEYS: the same from spaa-top -J --by=KEYS
spaa_rows() {
	spaa-top -J -n 0 --by="$2" "$1" 2>/dev/null |
		jq -r --arg keys "$2" 'select(.type == "row" and .self > 0) as $r |
			[($r.self_percent | tostring), ($r.self | tostring)] +
			[($keys | split(","))[] as $k | ($r[$k] // $r.name) | tostring |
			 if $k == "dso" and (startswith("[") | not) then split("/")[-1] else . end] | join(" ")' |
		awk '{ $1 = sprintf("%.2f%%", $1); print }' |
		grep -E ' vb(prog|gzip|sort)( |$)' | LC_ALL=C sort
}

@test "spaa-top --by: comm, dso, tid and their combinations give perf report --sort's rows of a system-wide capture of several programs, percent and period (its own programs compared)" {
	can_record
	c_prog
	command -v jq >/dev/null || fail "jq is not installed"
	cp "$T/prog" "$T/vbprog"
	cp "$(command -v gzip)" "$T/vbgzip"
	cp "$(command -v sort)" "$T/vbsort"
	seq 1 200000 | awk '{ print (($1 * 7919) % 200003) }' > "$T/nums"
	perf record -q -a -g -e cpu-clock -F 2000 -o "$T/sys.data" -- \
		sh -c "'$T/vbprog' 600 & '$T/vbgzip' -9 < '$T/nums' > /dev/null & '$T/vbsort' -n '$T/nums' > /dev/null; wait" \
		>/dev/null 2>&1 || skip "perf cannot record system-wide here"
	perf2spaa "$T/sys.data" -o "$T/sys.spaa"
	local keys out=
	for keys in comm comm,dso dso,comm tid,comm tid,comm,dso; do
		perf_rows "$T/sys.data" "$keys" > "$T/perf.txt"
		spaa_rows "$T/sys.spaa" "$keys" > "$T/spaa.txt"
		grep -q ' vbprog' "$T/perf.txt" || out="$out$keys: no row of vbprog in perf report"$'\n'
		diff "$T/perf.txt" "$T/spaa.txt" > "$T/diff" || out="$out--by=$keys:"$'\n'"$(cat "$T/diff")"$'\n'
	done
	[ -z "$out" ] || { printf '%s' "$out"; false; }
	# pid: whole processes, the sums of their threads
	spaa-top -J -n 0 --by=pid,tid "$T/sys.spaa" 2>/dev/null | jq -r 'select(.type == "row") | "\(.pid) \(.self)"' |
		awk '{ s[$1] += $2 } END { for (p in s) if (s[p]) printf "%s %.0f\n", p, s[p] }' | LC_ALL=C sort > "$T/sum.txt"
	spaa-top -J -n 0 --by=pid "$T/sys.spaa" 2>/dev/null | jq -r 'select(.type == "row" and .self > 0) | "\(.name) \(.self)"' |
		LC_ALL=C sort | diff "$T/sum.txt" -
}

@test "spaa-top --by with several keys: a value holding the byte that separates them (U+001F) stays one value, the byte shown as '?'; alone, func keeps it" {
	printf '%s\n' '{"type":"header","format":"spaa","version":"1.0","frame_order":"leaf_to_root","events":[{"name":"e","sampling":{"primary_metric":"n"}}]}' \
		'{"type":"dso","id":1,"name":"/bin/a\u001fb"}' '{"type":"frame","id":1,"func":"f\u001fg","dso":1}' \
		'{"type":"stack","id":1,"frames":[1],"context":{"event":"e","comm":"x\u001fy","pid":1,"tid":2},"weights":[{"metric":"n","value":3}]}' > "$T/sep.spaa"
	run spaa-top -J --by=comm,dso,func,pid "$T/sep.spaa"
	assert_success
	assert_line --index 1 '{"type":"row","rank":1,"comm":"x?y","dso":"/bin/a?b","func":"f?g","pid":1,"self":3,"self_percent":100.00,"total":3,"total_percent":100.00}'
	run spaa-top -J --by=comm "$T/sep.spaa"
	assert_line --index 1 '{"type":"row","rank":1,"name":"x?y","self":3,"self_percent":100.00,"total":3,"total_percent":100.00}'
	run spaa-top -J "$T/sep.spaa"
	assert_line --index 1 '{"type":"row","rank":1,"name":"f\u001fg","self":3,"self_percent":100.00,"total":3,"total_percent":100.00}'
}

@test "spaa-top: several files are merged as spaa-cat --merge merges them" {
	# issue 30: spaa-top took one file
	run spaa-top -n 3 "$EX/perf-cpu.spaa" "$EX/perf-cpu.spaa"
	assert_success
	assert_output "cycles/period, total 63,259,240
      flat  flat%   sum%        cum   cum%  function
25,033,482 39.57% 39.57% 25,033,482 39.57%  hashbrown::map::HashMap::insert (inline)
10,022,058 15.84% 55.42% 35,055,540 55.42%  core::hash::BuildHasher::hash_one (inline)
 9,978,414 15.77% 71.19%  9,978,414 15.77%  core::str::<impl str>::to_lowercase (inline)"
	assert_output "$(spaa-cat --merge "$EX/perf-cpu.spaa" "$EX/perf-cpu.spaa" | spaa-top -n 3)"
	run sh -c 'spaa-top --callers core::hash::BuildHasher::hash_one "$1" - < "$1"' sh "$EX/perf-cpu.spaa"
	assert_output "$(spaa-cat --merge "$EX/perf-cpu.spaa" "$EX/perf-cpu.spaa" | spaa-top --callers core::hash::BuildHasher::hash_one)"
	run spaa-top "$EX/perf-cpu.spaa" "$D/top/missing.spaa"
	assert_failure 1
	assert_output "spaa-top: $D/top/missing.spaa: No such file or directory"
	# a message about the merged profile names the inputs
	run spaa-top -n 1 "$EX/perf-cpu.spaa" "$EX/parser.spaa"
	assert_success
	assert_line --index 0 "spaa-top: the inputs:1: 2 events; ranking only cycles (use --event)"
}

@test "spaa-top(1): the notes on unnamed frames and missing source lines render as quotations followed by words" {
	command -v "${MANDOC:-mandoc}" >/dev/null || skip "mandoc not installed"
	# issue 30: it rendered as “[unknown] when empty”
	run sh -c '"${MANDOC:-mandoc}" -T ascii "$1" | col -b | tr -s " \n" "  "' sh "$SPAA_MANDIR/spaa-top.1"
	assert_output --partial 'as stored ("[unknown]" when empty);'
	assert_output --partial '("?? (FUNC)" when it has none),'
}

@test "spaa-top -j on a plain file: the stack records read in chunks on the threads give the table and messages of -j 1" {
	spaapar_variants
	spaapar_same spaa-top "r bad frame blank nonl cut big missing deep" "-n 0 --by=comm,pid --sort=total" \
		"--by=tid -J -n 20" "--callers=main --depth=2"
	run env SPAA_PAR_MIN=0 spaa-top -j 7 "$T/bad.spaa"
	assert_failure 1
	assert_output "spaa-top: $T/bad.spaa:13207: stack 0x33e726231ae2fa3f refers to unknown frame 99999999"
	run env SPAA_PAR_MIN=0 spaa-top -J -j 7 "$T/missing.spaa"
	assert_success
	assert_line --partial '"stacks":'
	run spaa-top -j0 "$T/r.spaa"
	assert_failure 2
	assert_output --partial "spaa-top: --jobs: '0' is not a number of threads from 1 to 256"
}
