#!/usr/bin/env bats
load common

P=$D/pprof

# go tool pprof -top for one sample type: "function flat cum", sorted, units
# and " (inline)" dropped.
pprof_top() { # FILE SAMPLE_INDEX
	go tool pprof -top -nodecount=1000000 -nodefraction=0 -edgefraction=0 \
		-sample_index="$2" -unit=B "$1" 2>/dev/null |
		sed -E 's/ \(inline\)$//' |
		awk 'f { n = $6; for (i = 7; i <= NF; i++) n = n " " $i
		         sub(/[a-zA-Z]+$/, "", $1); sub(/[a-zA-Z]+$/, "", $4); print n, $1, $4 }
		     /flat%/ { f = 1 }' | LC_ALL=C sort
}

@test "go tool pprof reads the output: its flat and cum per function are spaa-top's self and total" {
	spaa2pprof -o "$T/p.pprof" "$EX/parser.spaa"
	pprof_top "$T/p.pprof" period > "$T/pprof.txt"
	spaa-top --inline -n 0 --json "$EX/parser.spaa" |
		jq -r 'select(.type == "row") | "\(.name) \(.self) \(.total)"' |
		sed 's/_\[i\] / /' | LC_ALL=C sort > "$T/spaa.txt"
	[ -s "$T/spaa.txt" ]
	run diff "$T/pprof.txt" "$T/spaa.txt"
	assert_success
	# the samples, leaf first, with the inlined frames joined to their location
	run sh -c "go tool pprof -traces '$T/p.pprof' 2>/dev/null | grep -A4 check_bounds | head -n 5"
	assert_line --index 0 --regexp '^ +2002002   check_bounds \(inline\)$'
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
	run sh -c "go tool pprof -traces '$T/m.pprof' 2>/dev/null | sed -n '5,8p'"
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
	run spaa2pprof "$D/pprof/cpu.pprof"
	assert_failure 1
	assert_output --partial "run pprof2spaa"
	run spaa2pprof a b
	assert_failure 2
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
