#!/usr/bin/env bats
load common

P=$D/pprof

# go tool pprof -top for one sample type: "function flat cum", sorted, units
# and " (inline)" dropped.
pprof_top() { # FILE SAMPLE_INDEX [UNIT]
	go tool pprof -top -nodecount=1000000 -nodefraction=0 -edgefraction=0 \
		-sample_index="$2" -unit="${3:-B}" "$1" 2>/dev/null |
		sed -E 's/ \(inline\)$//' |
		awk 'f { n = $6; for (i = 7; i <= NF; i++) n = n " " $i
		         sub(/[a-zA-Z]+$/, "", $1); sub(/[a-zA-Z]+$/, "", $4); print n, $1, $4 }
		     /flat%/ { f = 1 }' | LC_ALL=C sort
}

@test "go tool pprof reads the output: its flat and cum per function are spaa-top's self and total" {
	spaa2pprof -o "$T/p.pprof" "$EX/parser.spaa"
	pprof_top "$T/p.pprof" cpu ns > "$T/pprof.txt"
	spaa-top --inline -n 0 --json "$EX/parser.spaa" |
		jq -r 'select(.type == "row") | "\(.name) \(.self) \(.total)"' |
		sed 's/_\[i\] / /' | LC_ALL=C sort > "$T/spaa.txt"
	[ -s "$T/spaa.txt" ]
	run diff "$T/pprof.txt" "$T/spaa.txt"
	assert_success
	# the samples, leaf first, with the inlined frames joined to their location
	run sh -c "go tool pprof -traces '$T/p.pprof' 2>/dev/null | grep -A4 check_bounds | head -n 5"
	assert_line --index 0 --regexp '^ +2ms   check_bounds \(inline\)$'
	assert_line --index 1 --regexp '^ +validate_token \(inline\)$'
	assert_line --index 2 --regexp '^ +parse_file$'
}

@test "a round trip pprof -> SPAA -> pprof keeps every value of every sample type, per function" {
	local f t
	for f in cpu heap; do
		pprof2spaa "$P/$f.pprof" | spaa2pprof -o "$T/rt-$f.pprof"
		for t in $(go tool pprof -raw "$P/$f.pprof" 2>/dev/null | awk '/^Samples:/ { getline; print; exit }'); do
			pprof_top "$P/$f.pprof" "${t%%/*}" > "$T/a.txt"
			pprof_top "$T/rt-$f.pprof" "${t%%/*}" > "$T/b.txt"
			[ -s "$T/a.txt" ]
			run diff "$T/a.txt" "$T/b.txt"
			assert_success
		done
	done
	# the sample types, their units, the period, the default type and the time
	run sh -c "go tool pprof -raw '$T/rt-heap.pprof' 2>/dev/null | head -n 6"
	assert_output --partial 'PeriodType: space bytes
Period: 4096
Time: 2026-11-25 09:57:48.633445689 +0000 UTC'
	run sh -c "go tool pprof -raw '$T/rt-heap.pprof' 2>/dev/null | grep -A1 '^Samples:'"
	assert_line --index 1 --regexp '^ *alloc_objects/count +alloc_space/bytes +inuse_objects/count +inuse_space/bytes\[dflt\]$'
	run sh -c "go tool pprof -top '$T/rt-heap.pprof' 2>/dev/null | grep '^Type:'"
	assert_output "Type: inuse_space"
}

@test "pid, tid, comm and x_labels become labels" {
	spaa2pprof -o "$T/p.pprof" "$EX/parser.spaa"
	run sh -c "go tool pprof -raw '$T/p.pprof' 2>/dev/null | grep -m1 -A2 ' 1001001: '"
	assert_line --index 1 --regexp '^ +comm:\[parser\]$'
	assert_line --index 2 --regexp '^ +pid:\[41207\] tid:\[41207\]$'
	printf '\012\004\010\001\020\002\022\022\010\001\020\005\032\004\010\003\020\004\032\006\010\005\030@ \006"\006\010\001"\002\010\001*\004\010\001\020\0072\0002\007samples2\005count2\001k2\001v2\004size2\005bytes2\002fn' > "$T/l.pb"
	pprof2spaa "$T/l.pb" | spaa2pprof -o "$T/l.pprof"
	run sh -c "go tool pprof -raw '$T/l.pprof' 2>/dev/null | sed -n '/^Samples:/,/^Locations/p'"
	assert_output --partial 'k:[v]'
	assert_output --partial 'size:[64 bytes]'
}

@test "the output is gzip, whatever its name; - writes to standard output" {
	spaa2pprof -o "$T/p.pb" "$EX/parser.spaa"
	run gzip -t "$T/p.pb"
	assert_success
	spaa2pprof "$EX/parser.spaa" > "$T/stdout.pb"
	cmp "$T/p.pb" "$T/stdout.pb"
	# the same input, the same bytes
	spaa2pprof "$EX/parser.spaa" | cmp - "$T/p.pb"
}

@test "several events: --event chooses; a weight pprof cannot hold; errors" {
	# three events, frames root first
	run spaa2pprof -o "$T/x.pprof" "$D/validate/memory.spaa"
	assert_failure 1
	assert_output "spaa2pprof: $D/validate/memory.spaa:1: the profile has 3 events (malloc, free, cycles): choose one with --event (a pprof profile holds one)"
	spaa2pprof --event malloc -o "$T/m.pprof" "$D/validate/memory.spaa"
	run sh -c "go tool pprof -traces '$T/m.pprof' 2>/dev/null | sed -n '6,9p'"
	assert_output --regexp '^ +tid: +4511
 +100MB   malloc
 +load_cache
 +main$'
	run spaa2pprof --event nope -o "$T/x.pprof" "$EX/parser.spaa"
	assert_failure 1
	assert_output "spaa2pprof: $EX/parser.spaa:1: --event: no event 'nope' in the header (events: cpu-clock:pppH)"
	printf '%s\n' 'a;b 1.5' | folded2spaa > "$T/frac.spaa"
	run spaa2pprof -o "$T/x.pprof" "$T/frac.spaa"
	assert_failure 1
	assert_output --partial "samples weight 1.5 is not a signed 64-bit integer, as pprof's values are"
	# a pprof profile is read in process, and written again
	spaa2pprof -o "$T/again.pprof" "$D/pprof/cpu.pprof"
	pprof2spaa "$D/pprof/cpu.pprof" | spaa2pprof -o "$T/piped.pprof"
	cmp "$T/again.pprof" "$T/piped.pprof"
	run spaa2pprof a b
	assert_failure 1
	run spaa2pprof -o /dev/full "$EX/parser.spaa"
	assert_failure 1
}

@test "invalid SPAA is refused, nothing written: a stack without the primary metric, an empty metric name, no primary metric (issue 20)" {
	H='{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"e","kind":"software","sampling":{"mode":"event","primary_metric":"bytes"}}],"stack_id_mode":"local"}'
	F='{"type":"dso","id":1,"name":"a"}
{"type":"frame","id":1,"func":"f","dso":1}'
	printf '%s\n' "$H" "$F" '{"type":"stack","id":"s1","frames":[1],"context":{"event":"e"},"weights":[]}' > "$T/now.spaa"
	run spaa2pprof -o "$T/out" "$T/now.spaa"
	assert_failure 1
	assert_output "spaa2pprof: $T/now.spaa:4: stack s1: weights lack the primary metric \"bytes\" of event \"e\""
	[ ! -e "$T/out" ]
	printf '%s\n' "$H" "$F" '{"type":"stack","id":"s1","frames":[1],"context":{"event":"e"},"weights":[{"metric":"","value":1},{"metric":"bytes","value":1}]}' > "$T/empty.spaa"
	run spaa2pprof -o "$T/out" "$T/empty.spaa"
	assert_failure 1
	assert_output "spaa2pprof: $T/empty.spaa:4: stack s1: a weight with an empty metric name, which a pprof sample type cannot have"
	printf '%s\n' "${H/,\"primary_metric\":\"bytes\"/}" "$F" '{"type":"stack","id":"s1","frames":[1],"context":{"event":"e"},"weights":[{"metric":"bytes","value":1}]}' > "$T/nopm.spaa"
	run spaa2pprof -o "$T/out" "$T/nopm.spaa"
	assert_failure 1
	assert_output "spaa2pprof: $T/nopm.spaa:1: event e has no sampling.primary_metric string"
	[ ! -e "$T/out" ]
}

# go tool pprof's report as a user sees it (its times in UTC)
pprof_show() { # OPTION FILE [N]
	TZ=UTC go tool pprof "$1" -nodecount="${3:-3}" "$2" 2>/dev/null
}

@test "a perf cpu-clock profile in pprof: the program, CPU time in ms, and its event back through pprof2spaa" {
	spaa2pprof -o "$T/p.pprof" "$EX/parser.spaa"
	run pprof_show -top "$T/p.pprof"
	assert_success
	assert_output "File: parser
spaa event=cpu-clock:pppH kind=software mode=period metric.cpu=period
Type: cpu
Duration: 5ms, Total samples = 7.01ms (140.00%)
Showing nodes accounting for 5.01ms, 71.43% of 7.01ms total
Showing top 3 nodes out of 24
      flat  flat%   sum%        cum   cum%
       2ms 28.57% 28.57%        2ms 28.57%  check_bounds
       2ms 28.57% 57.14%        2ms 28.57%  tokenize
       1ms 14.29% 71.43%        1ms 14.29%  [libc.so.6]"
	run sh -c "TZ=UTC go tool pprof -raw '$T/p.pprof' 2>/dev/null | sed -n '2,9p'"
	assert_output "PeriodType: cpu nanoseconds
Period: 0
Duration: 5.00
Samples:
samples/count cpu/nanoseconds[dflt]
          2    2002002: 1 2 3 4 5 
                comm:[parser]
                pid:[41207] tid:[41207]"
	run sh -c "go tool pprof -traces '$T/p.pprof' 2>/dev/null | sed -n '5,12p'"
	assert_output "-----------+-------------------------------------------------------
      comm:  parser
       pid:  41207
       tid:  41207
       2ms   check_bounds (inline)
             validate_token (inline)
             parse_file
             main"
	# the round trip keeps the event, its kind and mode, and the metric
	run sh -c "pprof2spaa '$T/p.pprof' | head -n 1"
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"pprof","frame_order":"leaf_to_root","events":[{"name":"cpu-clock:pppH","kind":"software","sampling":{"mode":"period","primary_metric":"period","x_period_type":{"type":"cpu","unit":"nanoseconds"},"x_metrics":["samples","period"]}}],"source":{"tool":"pprof","x_duration_nanos":5005000},"stack_id_mode":"content_addressable"}'
	# the same stacks and weights (the comm is a label in pprof)
	run sh -c "pprof2spaa '$T/p.pprof' | spaa-fold | LC_ALL=C sort"
	assert_output "$(spaa-fold "$EX/parser.spaa" | sed 's/^[^;]*;//' | LC_ALL=C sort)"
}

@test "a perf cycles profile counts cycles; the main mapping is the program, not the kernel" {
	spaa2pprof -o "$T/c.pprof" "$EX/perf-cpu.spaa"
	run pprof_show -top "$T/c.pprof" 2
	assert_output "File: wordfreq
spaa event=cycles kind=hardware mode=frequency metric.cycles=period
Type: cycles
Duration: 10ms, Total samples = 31629620 
Showing nodes accounting for 17527770, 55.42% of 31629620 total
Showing top 2 nodes out of 15
      flat  flat%   sum%        cum   cum%
  12516741 39.57% 39.57%   12516741 39.57%  hashbrown::map::HashMap::insert (inline)
   5011029 15.84% 55.42%   17527770 55.42%  core::hash::BuildHasher::hash_one"
	# the stacks of the kernel only: the program's name
	spaa-grep -e process_one_work "$EX/parser.spaa" | spaa2pprof -o "$T/k.pprof"
	run sh -c "TZ=UTC go tool pprof -top '$T/k.pprof' 2>/dev/null | head -n 1"
	assert_output "File: kworker_2:1"
}

@test "Go profiles through pprof2spaa and spaa2pprof: go tool pprof shows the same report, date included" {
	pprof2spaa "$EX/go-cpu.pprof" | spaa2pprof -o "$T/cpu.pprof"
	run pprof_show -top "$T/cpu.pprof"
	assert_output "File: gen
spaa event=cpu kind=timer mode=period
Type: cpu
Time: Nov 25, 2026 at 9:57am (UTC)
Duration: 502.44ms, Total samples = 320ms (63.69%)
Showing nodes accounting for 320ms, 100% of 320ms total
Showing top 3 nodes out of 5
      flat  flat%   sum%        cum   cum%
     300ms 93.75% 93.75%      310ms 96.88%  main.sumSquares
      10ms  3.12% 96.88%       10ms  3.12%  main.fib
      10ms  3.12%   100%       10ms  3.12%  runtime.asyncPreempt"
	assert_equal "$(pprof_show -top "$T/cpu.pprof" 100 | sed 2d)" "$(pprof_show -top "$EX/go-cpu.pprof" 100)"
	pprof2spaa "$EX/go-heap.pprof" | spaa2pprof -o "$T/heap.pprof"
	assert_equal "$(pprof_show -top "$T/heap.pprof" 100 | sed 2d)" "$(pprof_show -top "$EX/go-heap.pprof" 100)"
	assert_equal "$(pprof_show -top "$T/heap.pprof" 100 -sample_index=alloc_space | sed 2d)" \
		"$(pprof_show -top "$EX/go-heap.pprof" 100 -sample_index=alloc_space)"
}

@test "heaptrack and Node.js profiles in pprof: bytes, milliseconds, the program, no 1970 date" {
	heaptrack2spaa "$EX/heap.heaptrack.zst" | spaa2pprof -o "$T/h.pprof"
	run pprof_show -top "$T/h.pprof"
	assert_output "File: heap
spaa event=malloc kind=allocation mode=event
Type: alloc_space
Showing nodes accounting for 9.38MB, 99.27% of 9.44MB total
Showing top 3 nodes out of 12
      flat  flat%   sum%        cum   cum%
    6.25MB 66.18% 66.18%     6.25MB 66.18%  grab
    1.56MB 16.54% 82.72%     1.56MB 16.54%  alloc_live
    1.56MB 16.54% 99.27%     1.56MB 16.54%  alloc_temp"
	run sh -c "go tool pprof -raw '$T/h.pprof' 2>/dev/null | sed -n '5p'"
	assert_output "alloc_objects/count alloc_space/bytes[dflt] free_count/count free_bytes/bytes peak_bytes/bytes inuse_objects/count inuse_space/bytes temporary_count/count"
	# V8's clock is not the wall clock: a duration, no date
	chrome2spaa "$D/chrome/cpuprofile.json" | spaa2pprof -o "$T/n.pprof"
	run pprof_show -top "$T/n.pprof"
	assert_output "File: app.js
spaa event=cpu kind=timer mode=period
Type: wall_us
Duration: 1s, Total samples = 900ms (90.00%)
Showing nodes accounting for 900ms, 100% of 900ms total
Showing top 3 nodes out of 5
      flat  flat%   sum%        cum   cum%
     500ms 55.56% 55.56%      500ms 55.56%  processData
     200ms 22.22% 77.78%      200ms 22.22%  computeHash
     200ms 22.22%   100%      900ms   100%  main"
}

@test "a Node.js CPU profile recorded here: pprof names the script, counts its microseconds exactly" {
	command -v node >/dev/null || skip "node not installed"
	cat > "$T/fib.js" <<'JS'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
const t = Date.now(); let x = 0;
while (Date.now() - t < 200) x += fib(20);
if (x < 0) console.log(x);
JS
	(cd "$T" && node --cpu-prof --cpu-prof-name=fib.cpuprofile fib.js)
	chrome2spaa "$T/fib.cpuprofile" > "$T/fib.spaa"
	spaa2pprof -o "$T/fib.pprof" "$T/fib.spaa"
	local total
	total=$(jq -s '[.[] | select(.type == "stack") | .weights[] | select(.metric == "wall_us") | .value] | add' "$T/fib.spaa")
	run sh -c "TZ=UTC go tool pprof -top -unit=us -nodecount=1 '$T/fib.pprof' 2>/dev/null | sed -n '1,4p' | sed 's/Duration: [^,]*, //; s/ (.*//'"
	assert_output "File: fib.js
spaa event=cpu kind=timer mode=period
Type: wall_us
Total samples = ${total}us"
	run sh -c "go tool pprof -raw '$T/fib.pprof' 2>/dev/null | sed -n '6p'"
	assert_output "wall_us/microseconds[dflt] samples/count"
}

@test "a time range that ends before it starts (spaa-validate warns) gives no duration, never a negative one pprof2spaa refuses" {
	cat > "$T/inv.spaa" <<'J'
{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"cycles","kind":"hardware","sampling":{"mode":"period","primary_metric":"period"}}],"stack_id_mode":"local","time_range":{"start":89,"end":20,"unit":"seconds"}}
{"type":"dso","id":1,"name":"/usr/bin/app","is_kernel":false}
{"type":"frame","id":1,"func":"main","dso":1,"kind":"user"}
{"type":"stack","id":"0x1","frames":[1],"context":{"event":"cycles"},"weights":[{"metric":"period","value":100}]}
J
	spaa2pprof -o "$T/inv.pprof" "$T/inv.spaa"
	run sh -c "pprof2spaa '$T/inv.pprof' | head -n 1"
	assert_success
	refute_output --partial 'x_duration_nanos'
	run sh -c "pprof2spaa '$T/inv.pprof' | spaa-fold"
	assert_output "main 100"
}

@test "spaa2pprof: fractional times (milliseconds of 1e-6, as speedscope and Firefox profiles have them) are refused, naming the weight, nothing written: pprof's values are integers" {
	run spaa2pprof -o "$T/x.pprof" "$D/diff/ms-before.spaa"
	assert_failure 1
	assert_output "spaa2pprof: $D/diff/ms-before.spaa:5: stack 0xde256d2e14fc8ce0: wall_ms weight 0.000001 is not a signed 64-bit integer, as pprof's values are"
	[ ! -e "$T/x.pprof" ]
}
