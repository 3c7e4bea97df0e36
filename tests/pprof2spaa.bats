#!/usr/bin/env bats
load common

P=$D/pprof

# pprof's own -top table for one sample type: "function flat cum", sorted,
# units dropped, " (inline)" dropped.
pprof_top() { # FILE SAMPLE_INDEX UNIT
	go tool pprof -top -nodecount=1000000 -nodefraction=0 -edgefraction=0 \
		-sample_index="$2" -unit="$3" "$1" 2>/dev/null |
		sed -E 's/ \(inline\)$//' |
		awk 'f { n = $6; for (i = 7; i <= NF; i++) n = n " " $i
		         sub(/[a-zA-Z]+$/, "", $1); sub(/[a-zA-Z]+$/, "", $4); print n, $1, $4 }
		     /flat%/ { f = 1 }' | LC_ALL=C sort
}
# The same from spaa-top on the conversion ("_[i]" is spaa-fold's mark of an
# inlined frame, as pprof's "(inline)").
spaa_top() { # FILE METRIC
	pprof2spaa -m "$2" "$1" | spaa-top --inline -n 0 --json |
		jq -r 'select(.type == "row") | "\(.name) \(.self) \(.total)"' |
		sed 's/_\[i\] / /' | LC_ALL=C sort
}
same_as_pprof() { # FILE: every sample type, every function, flat and cum
	local types t
	types=$(go tool pprof -raw "$1" 2>/dev/null | awk '/^Samples:/ { getline; print; exit }')
	[ -n "$types" ]
	for t in $types; do
		pprof_top "$1" "${t%%/*}" "$(case ${t#*/} in nanoseconds) echo ns ;; bytes) echo B ;; *) echo B ;; esac)" > "$T/pprof.txt"
		spaa_top "$1" "${t%%/*}" > "$T/spaa.txt"
		[ -s "$T/pprof.txt" ]
		run diff "$T/pprof.txt" "$T/spaa.txt"
		assert_success
	done
}

@test "a Go CPU profile: event cpu, metrics samples and cpu (ns), period, exact time range, frames with lines" {
	run pprof2spaa "$P/cpu.pprof"
	assert_success
	assert_line --index 0 '{"type":"header","format":"spaa","version":"1.0","source_tool":"pprof","frame_order":"leaf_to_root","events":[{"name":"cpu","kind":"timer","sampling":{"mode":"period","primary_metric":"cpu","sample_period":10000000,"x_period_type":{"type":"cpu","unit":"nanoseconds"},"x_metrics":["samples","cpu"]}}],"time_range":{"start":1795600668087541031,"end":1795600668589979029,"unit":"nanoseconds"},"source":{"tool":"pprof","x_duration_nanos":502437998},"stack_id_mode":"content_addressable"}'
	assert_line '{"type":"frame","id":1,"func":"main.sumSquares","dso":1,"ip":"0x4b0c64","srcline":"/tmp/gop/main.go:29","kind":"user"}'
	run sh -c "pprof2spaa '$P/cpu.pprof' | spaa-fold"
	assert_success
	assert_output "runtime.main;main.main;main.fib;main.fib;main.fib;main.fib;main.fib;main.fib;main.fib;main.fib;main.fib;main.fib;main.fib;main.fib;main.fib;main.fib;main.fib;main.fib;main.fib;main.fib;main.fib 10000000
runtime.main;main.main;main.sumSquares 300000000
runtime.main;main.main;main.sumSquares;runtime.asyncPreempt 10000000"
	run sh -c "pprof2spaa -m samples '$P/cpu.pprof' | spaa-validate --strict"
	assert_success
}

@test "a Go heap profile: event heap (allocation), spaa(5)'s memory metrics, inlined frames by inline depth" {
	run sh -c "pprof2spaa '$P/heap.pprof' | head -n 1"
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"pprof","frame_order":"leaf_to_root","events":[{"name":"heap","kind":"allocation","sampling":{"mode":"period","primary_metric":"live_bytes","sample_period":4096,"x_period_type":{"type":"space","unit":"bytes"},"x_metrics":["alloc_count","alloc_bytes","live_count","live_bytes"]}}],"time_range":{"start":1795600668633445689,"end":1795600668633445689,"unit":"nanoseconds"},"source":{"tool":"pprof"},"stack_id_mode":"content_addressable"}'
	run sh -c "pprof2spaa '$P/heap.pprof' | spaa-top --inline -n 3"
	assert_output "heap/live_bytes, total 1181.80kB
      flat  flat%   sum%        cum   cum%  function
 1164.31kB 98.52% 98.52%  1164.31kB 98.52%  main.allocLive
    9.25kB  0.78% 99.30%     9.25kB  0.78%  hash/crc32.slicingMakeTable
    4.21kB  0.36% 99.66%     4.21kB  0.36%  runtime.malg"
	run sh -c "pprof2spaa -m alloc_space '$P/heap.pprof' | spaa-top --inline -n 1"
	assert_line --index 0 "heap/alloc_bytes, total 19.12MB"
	assert_line --index 2 "   15.68MB 82.00% 82.00%    15.68MB 82.00%  main.allocTemp"
	# hash/crc32.archInitIEEE is inlined into hash/crc32.ieeeInit at one address
	run sh -c "pprof2spaa '$P/heap.pprof' | grep -E '\"func\":\"hash/crc32.(archInitIEEE|ieeeInit)\"'"
	assert_line --partial '"func":"hash/crc32.archInitIEEE","dso":1,"ip":"0x'
	assert_line --partial '"inlined":true,"inline_depth":1'
	assert_line --partial '"inline_depth":0'
	run sh -c "pprof2spaa '$P/heap.pprof' | spaa-validate --strict"
	assert_success
}

@test "every sample type: spaa-top's self and total per function are go tool pprof -top's flat and cum" {
	same_as_pprof "$P/cpu.pprof"
	same_as_pprof "$P/heap.pprof"
}

@test "a fresh Go program's CPU and heap profiles agree with go tool pprof" {
	export HOME=$T GOCACHE=$T/gocache GOPATH=$T/gopath GOFLAGS=-mod=mod
	mkdir "$T/gen" && cp "$P/gen/main.go" "$T/gen/" && cd "$T/gen"
	printf 'module gen\n\ngo 1.19\n' > go.mod
	go build -o gen .
	./gen
	same_as_pprof "$T/gen/cpu.pprof"
	same_as_pprof "$T/gen/heap.pprof"
}

@test "gzip, zstd and plain protobuf; standard input; -o" {
	zcat "$P/cpu.pprof" > "$T/cpu.pb"
	pprof2spaa "$P/cpu.pprof" > "$T/a.spaa"
	run pprof2spaa "$T/cpu.pb"
	assert_output "$(cat "$T/a.spaa")"
	zstd -q "$T/cpu.pb" -o "$T/cpu.pb.zst"
	run pprof2spaa - < "$T/cpu.pb.zst"
	assert_output "$(cat "$T/a.spaa")"
	run pprof2spaa -o "$T/b.spaa" "$P/cpu.pprof"
	assert_success
	assert_output ""
	cmp "$T/a.spaa" "$T/b.spaa"
}

@test "labels are kept in the context as x_labels" {
	# a hand-made profile: sample_type samples/count, one sample at one
	# location with a string label and a numeric label with a unit
	printf '\012\004\010\001\020\002\022\022\010\001\020\005\032\004\010\003\020\004\032\006\010\005\030@ \006"\006\010\001"\002\010\001*\004\010\001\020\0072\0002\007samples2\005count2\001k2\001v2\004size2\005bytes2\002fn' > "$T/l.pb"
	run pprof2spaa "$T/l.pb"
	assert_success
	assert_line --partial '"context":{"event":"samples","x_labels":{"k":"v","size":{"num":64,"unit":"bytes"}}}'
	assert_line --partial '"func":"fn","dso":1'
}

@test "damaged, truncated, empty and other inputs: one message each, exit 1" {
	run pprof2spaa "$T/none.pprof"
	assert_failure 1
	assert_output "pprof2spaa: $T/none.pprof: No such file or directory"
	run pprof2spaa - < /dev/null
	assert_failure 1
	assert_output "pprof2spaa: -: empty input: no profile written"
	printf 'garbage\n' > "$T/g.txt"
	run pprof2spaa "$T/g.txt"
	assert_failure 1
	assert_output "pprof2spaa: $T/g.txt: not a pprof profile (profile.proto, binary; or a tcmalloc or jemalloc heap profile): text whose first line is \"garbage\" (any2spaa recognises every format this toolbox reads)"
	printf '\001\377garbage' > "$T/g.bin"
	run pprof2spaa "$T/g.bin"
	assert_failure 1
	assert_output "pprof2spaa: $T/g.bin: not a valid pprof profile: malformed protobuf field (byte 0 of the decompressed data)"
	zcat "$P/cpu.pprof" | head -c 300 > "$T/cut.pb"
	run pprof2spaa "$T/cut.pb"
	assert_failure 1
	assert_output --partial "pprof2spaa: $T/cut.pb: not a valid pprof profile: malformed protobuf field (byte "
	head -c 300 "$P/cpu.pprof" > "$T/cut.pprof"
	run pprof2spaa "$T/cut.pprof"
	assert_failure 1
	assert_output "pprof2spaa: $T/cut.pprof: truncated gzip data"
	printf 'heap profile: 1: 2 [3: 4] @ heap_v2/524288\n' > "$T/legacy.txt"
	run pprof2spaa "$T/legacy.txt"
	assert_failure 1
	assert_output "pprof2spaa: $T/legacy.txt: no stacks found: a heap profile with no sample (no profile written)"
	printf 'heap profile: 1: 2 [3: 4] @ heap_v2/524288\n 1: 2 [3: 4] @ 0x10 zz\n' > "$T/legacy.txt"
	run pprof2spaa "$T/legacy.txt"
	assert_failure 1
	assert_output "pprof2spaa: $T/legacy.txt:2: not an address: 'zz'"
	printf -- '--- contention:\ncycles/second=1\n' > "$T/contention.txt"
	run pprof2spaa "$T/contention.txt"
	assert_failure 1
	assert_output "pprof2spaa: $T/contention.txt:1: a legacy text profile ('--- contention'), not profile.proto: not read"
	# a sample at location 9, which is not defined
	printf '\x0a\x04\x08\x01\x10\x02\x12\x04\x08\x09\x10\x05\x32\x00\x32\x07samples\x32\x05count' > "$T/noloc.pb"
	run pprof2spaa "$T/noloc.pb"
	assert_failure 1
	assert_output "pprof2spaa: $T/noloc.pb: not a valid pprof profile: a sample refers to location 9, which is not defined (byte 8 of the decompressed data)"
	# sample types but no sample
	printf '\x0a\x04\x08\x01\x10\x02\x32\x00\x32\x07samples\x32\x05count' > "$T/nos.pb"
	run pprof2spaa "$T/nos.pb"
	assert_failure 1
	assert_output "pprof2spaa: $T/nos.pb: no stacks found: a profile of 1 sample types with no sample (no profile written)"
	# a filter reads a pprof profile in process (pprof2spaa's output)
	run spaa-fold "$P/cpu.pprof"
	assert_success
	[ "$output" = "$(pprof2spaa "$P/cpu.pprof" | spaa-fold)" ]
}

@test "usage: -m names a sample type; one file; --help and --version" {
	run pprof2spaa -m nope "$P/cpu.pprof"
	assert_failure 2
	assert_line --index 0 "pprof2spaa: --metric: the profile has no sample type 'nope' (it has samples, cpu)"
	pprof2spaa "$P/cpu.pprof" > "$T/1.spaa"
	pprof2spaa "$P/heap.pprof" > "$T/2.spaa"
	run pprof2spaa "$P/cpu.pprof" "$P/heap.pprof"
	assert_success
	assert_output "$(spaa-cat --merge "$T/1.spaa" "$T/2.spaa")"
	run sh -c "pprof2spaa --event=mycpu -m samples '$P/cpu.pprof' | head -n 1"
	assert_output --partial '"events":[{"name":"mycpu","kind":"timer","sampling":{"mode":"period","primary_metric":"samples",'
	run pprof2spaa --help
	assert_success
	assert_line --index 0 "Usage: pprof2spaa [OPTION]... [FILE]..."
	run pprof2spaa -V
	assert_success
	assert_output --partial "pprof2spaa (spaa-tools)"
	run pprof2spaa -o /dev/full "$P/cpu.pprof"
	assert_failure 1
}

@test "a gperftools (tcmalloc) heap profile: raw addresses in their mappings, the counts of each stack" {
	run sh -c "pprof2spaa '$P/tcmalloc.heap' | grep -v '\"type\":\"header\"'"
	assert_success
	assert_output '{"type":"dso","id":1,"name":"/tmp/tc/leak","is_kernel":false}
{"type":"dso","id":2,"name":"/usr/lib/x86_64-linux-gnu/libc.so.6","is_kernel":false}
{"type":"frame","id":1,"func":"0x562b0ea0615b","func_resolved":false,"dso":1,"ip":"0x562b0ea0615b","kind":"user"}
{"type":"frame","id":2,"func":"0x562b0ea06194","func_resolved":false,"dso":1,"ip":"0x562b0ea06194","kind":"user"}
{"type":"frame","id":3,"func":"0x7ffa8ce4524a","func_resolved":false,"dso":2,"ip":"0x7ffa8ce4524a","kind":"user"}
{"type":"frame","id":4,"func":"0x7ffa8ce45305","func_resolved":false,"dso":2,"ip":"0x7ffa8ce45305","kind":"user"}
{"type":"frame","id":5,"func":"0x562b0ea06071","func_resolved":false,"dso":1,"ip":"0x562b0ea06071","kind":"user"}
{"type":"stack","id":"0x420017dfce91530c","frames":[1,2,3,4,5],"context":{"event":"heap"},"weights":[{"metric":"live_count","value":300},{"metric":"live_bytes","value":1228800,"unit":"bytes"},{"metric":"alloc_count","value":300},{"metric":"alloc_bytes","value":1228800,"unit":"bytes"}],"exclusive":{"frame":1,"weights":[{"metric":"live_count","value":300},{"metric":"live_bytes","value":1228800,"unit":"bytes"},{"metric":"alloc_count","value":300},{"metric":"alloc_bytes","value":1228800,"unit":"bytes"}]},"x_path_id":"0x4dd768b26ac419db"}'
	run sh -c "pprof2spaa '$P/tcmalloc.heap' | head -n 1"
	assert_output --partial '"sampling":{"mode":"event","primary_metric":"live_bytes","x_metrics":["live_count","live_bytes","alloc_count","alloc_bytes"]}'
	assert_output --partial '"x_format":"gperftools heap profile"'
	run sh -c "pprof2spaa '$P/tcmalloc.heap' | spaa-fold"
	assert_output "[leak];[libc.so.6];[libc.so.6];[leak];[leak] 1228800"
}

@test "a jemalloc heap profile (heap_v2): the t* counts of each stack, the sampling rate" {
	run sh -c "pprof2spaa '$P/jemalloc.heap' | spaa-fold"
	assert_success
	assert_output "[ld-linux-x86-64.so.2];[ld-linux-x86-64.so.2];[ld-linux-x86-64.so.2];[libstdc++.so.6.0.30];[libjemalloc.so.2];[libjemalloc.so.2];[libjemalloc.so.2];[libjemalloc.so.2] 81920
[leak2];[libc.so.6];[libc.so.6];[leak2];[leak2];[libjemalloc.so.2];[libjemalloc.so.2];[libjemalloc.so.2];[libjemalloc.so.2] 1205710"
	run sh -c "pprof2spaa '$P/jemalloc.heap' | head -n 1"
	assert_output --partial '"sampling":{"mode":"period","primary_metric":"live_bytes","sample_period":1024,"x_sampled_counts":true,'
	run sh -c "pprof2spaa '$P/jemalloc.heap' | spaa-validate --strict"
	assert_success
}

@test "a fresh tcmalloc heap profile: the live objects and bytes of every stack are go tool pprof's" {
	[ -e /usr/lib/x86_64-linux-gnu/libtcmalloc.so ] || fail "libgoogle-perftools-dev is not installed (.ci/deps installs it)"
	cd "$T"
	cc -O1 -g -o leak "$P/gen/leak.c" -ltcmalloc
	HEAPPROFILE=$T/hp ./leak 2>/dev/null
	# pprof: one line per sample, "objects space"; it moves each address
	# back by one (to the call), spaa-tools keeps them as recorded
	go tool pprof -raw -symbolize=none hp.0001.heap 2>/dev/null |
		awk '/^Samples:/ { f = 1; getline; next } /^Locations/ { f = 0 } f && $1 ~ /^[0-9]+$/ { print $1, $2 }' |
		tr -d ':' | LC_ALL=C sort > pprof.txt
	pprof2spaa hp.0001.heap |
		jq -r 'select(.type == "stack") | [(.weights[] | select(.metric == "live_count") | .value),
			(.weights[] | select(.metric == "live_bytes") | .value)] | "\(.[0]) \(.[1])"' |
		LC_ALL=C sort > spaa.txt
	[ -s pprof.txt ]
	run diff pprof.txt spaa.txt
	assert_success
}

@test "a fresh jemalloc heap profile converts and validates" {
	[ -e /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ] || fail "libjemalloc2 is not installed (.ci/deps installs it)"
	cd "$T"
	cc -O1 -g -o leak "$P/gen/leak.c"
	MALLOC_CONF=prof:true,prof_final:true,lg_prof_sample:10,prof_prefix:$T/je \
		LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ./leak
	run sh -c "pprof2spaa je.*.heap | spaa-validate --strict"
	assert_success
	# the t* totals of the file are the sums of the live metrics
	want=$(awk '/^@/ { s = 1; next } s && $1 == "t*:" { o += $2; b += $3; s = 0 } END { print o + 0, b + 0 }' je.*.heap | tr -d ':')
	got=$(pprof2spaa je.*.heap | spaa-stat --raw-units | sed -n 's/^weights: *heap: live_count \([0-9]*\), live_bytes \([0-9]*\).*/\1 \2/p')
	assert_equal "$got" "$want"
}

@test "a sample whose labels come before its locations keeps both (found by fuzz_pprof2spaa)" {
	run sh -c "pprof2spaa '$BATS_TEST_DIRNAME/../fuzz/crashes/pprof2spaa/labels-before-locations.pb' | spaa-validate -q"
	assert_success
	# hand-made: sample = label (k=v) first, then location 1, then value 5;
	# function 1 has a system name, so its frame carries x_system_name
	printf '\012\004\010\001\020\002\022\012\032\004\010\003\020\004\010\001\020\005"\006\010\001"\002\010\001*\006\010\001\020\005\030\0062\0002\007samples2\005count2\001k2\001v2\002fn2\003sys' > "$T/order.pb"
	run sh -c "pprof2spaa '$T/order.pb' | spaa-validate --strict"
	assert_success
	run sh -c "pprof2spaa '$T/order.pb' | grep -c 'x_labels\":{\"k\":\"v\"}'"
	assert_output 1
}

# Reproducers of issue 20, kept in fuzz/crashes/ for the sanitizer replay too.
FZ=$BATS_TEST_DIRNAME/../fuzz/crashes/pprof2spaa

@test "a decompression bomb is refused early, naming the file; --max-size bounds what is read" {
	# 35 KB of zstd, 1.1 GB of zeros (10 GB once took 2 GB and ended in an
	# "out of memory" naming no file): not a protobuf from its first byte
	run bounded 256 10 pprof2spaa "$FZ/zeros-1100M.zst"
	assert_failure 1
	assert_output "pprof2spaa: $FZ/zeros-1100M.zst: not a valid pprof profile: malformed protobuf field (byte 0 of the decompressed data)"
	# a field longer than the limit is refused before it is read
	run pprof2spaa "$FZ/field-2G.pb"
	assert_failure 1
	assert_output "pprof2spaa: $FZ/field-2G.pb: a field of the profile is more than 1073741824 bytes (decompressed), the limit (--max-size=BYTES raises it)"
	# a well-formed profile longer than --max-size
	run pprof2spaa --max-size=500 "$D/pprof/cpu.pprof"
	assert_failure 1
	assert_output "pprof2spaa: $D/pprof/cpu.pprof: the input is more than 500 bytes (decompressed), the limit (--max-size=BYTES raises it)"
	run pprof2spaa --max-size=1M -o /dev/null "$D/pprof/cpu.pprof"
	assert_success
	run pprof2spaa --max-size=0 "$D/pprof/cpu.pprof"
	assert_failure 2
	assert_line --index 0 "pprof2spaa: --max-size: '0' is not a size in bytes (a number, or with K, M or G)"
}

@test "out of memory names the file" {
	# (a sanitizer build's allocator aborts instead of failing)
	sanitized pprof2spaa && skip "the sanitizers' allocator does not return NULL"
	# a field of 512 MB, under a 200 MB limit
	(printf '\012\200\200\200\200\002'; head -c 600M /dev/zero) | zstd -q -1 > "$T/big.zst"
	run sh -c "ulimit -v 200000; pprof2spaa '$T/big.zst'"
	assert_failure 1
	assert_output "pprof2spaa: $T/big.zst: out of memory"
}

@test "labels: a key given twice is one key with an array, keys sorted; the same labels in another order are one stack" {
	# two samples: k=v2, k=v1, a=x (1) and a=x, k=v1, k=v2 (2)
	run sh -c "pprof2spaa '$FZ/repeated-label-keys.pb' | jq -c 'select(.type == \"stack\") | [.context.x_labels, .weights[0].value]'"
	assert_success
	assert_output '[{"a":"x","k":["v1","v2"]},3]'
}

@test "a negative duration_nanos or period, a default_sample_type beyond the string table: refused, as a comment index is" {
	run pprof2spaa "$FZ/negative-duration.pb"
	assert_failure 1
	assert_output "pprof2spaa: $FZ/negative-duration.pb: not a valid pprof profile: a negative duration_nanos (byte 81 of the decompressed data)"
	run pprof2spaa "$FZ/negative-period.pb"
	assert_failure 1
	assert_output "pprof2spaa: $FZ/negative-period.pb: not a valid pprof profile: a negative period (byte 81 of the decompressed data)"
	run pprof2spaa "$FZ/default-sample-type-99.pb"
	assert_failure 1
	assert_output "pprof2spaa: $FZ/default-sample-type-99.pb: not a valid pprof profile: default_sample_type: string index 99 beyond the string table (8 strings) (byte 81 of the decompressed data)"
	# a function no location uses, its name beyond the table: the same rule
	run pprof2spaa "$FZ/unused-function-bad-name.pb"
	assert_failure 1
	assert_output "pprof2spaa: $FZ/unused-function-bad-name.pb: not a valid pprof profile: function name: string index 77 beyond the string table (4 strings) (byte 28 of the decompressed data)"
}

@test "a sum beyond 64 bits names the file (every message names its input)" {
	# three samples of 2^63-1 on one stack
	run pprof2spaa "$FZ/sum-overflow.pb"
	assert_failure 1
	assert_output "pprof2spaa: $FZ/sum-overflow.pb: metric samples of a stack overflows 64 bits"
}

@test "a NUL in a name of the string table is written as U+FFFD, hashed so: spaa-cat --merge keeps the ids (issue 20)" {
	gzip -dc "$P/cpu.pprof" | python3 -c 'import sys; d = sys.stdin.buffer.read(); sys.stdout.buffer.write(d.replace(b"main.fib", b"main\0fib", 1))' > "$T/nul.pb"
	pprof2spaa -o "$T/nul.spaa" "$T/nul.pb"
	run grep -c "$(printf '"func":"main\357\277\275fib"')" "$T/nul.spaa"
	assert_output 2
	run grep -c 'u0000' "$T/nul.spaa"
	assert_output 0
	assert_equal "$(spaa-cat --merge "$T/nul.spaa" | grep -o '"stack","id":"[^"]*"' | sort)" "$(grep -o '"stack","id":"[^"]*"' "$T/nul.spaa" | sort)"
	run sh -c 'spaa-fold "$1" | grep -c "main\\.main;main$(printf "\357\277\275")fib"' sh "$T/nul.spaa"
	assert_success
}

@test "spaa2pprof's note is input like the rest: a kind or mode SPAA has not, or a metric name given twice, is not taken" {
	FZ=$BATS_TEST_DIRNAME/../fuzz/crashes/spaa2pprof
	spaa2pprof -o "$T/k.pb" "$FZ/note-kind-not-spaa.spaa"
	pprof2spaa "$T/k.pb" > "$T/k.spaa"
	spaa-validate -q "$T/k.spaa"
	run grep -c hcrdware "$T/k.spaa"
	assert_output 0
}

@test "a tcmalloc or jemalloc heap profile cut short: an error, not fewer samples (issue 28)" {
	# at every byte up to the mappings: an error naming the file, or the
	# whole profile
	n=$(grep -b -m1 '^MAPPED_LIBRARIES:' "$EX/tcmalloc.heap" | cut -d: -f1)
	cut_sweep "$EX/tcmalloc.heap" "$(seq 0 "$n")" pprof2spaa
	# the header's live counts against the samples'
	{ echo 'heap profile:    301:  1228800 [   300:  1228800] @ heapprofile'; sed 1d "$EX/tcmalloc.heap"; } > "$T/h"
	run pprof2spaa "$T/h"
	assert_failure 1
	assert_output "pprof2spaa: $T/h:1: the samples count 300 live objects, the header 301: a file cut short?"
	head -c 150 "$EX/tcmalloc.heap" > "$T/h"
	run pprof2spaa "$T/h"
	assert_failure 1
	assert_output "pprof2spaa: $T/h:2: the last line has no newline: the file is cut short (a whole file ends with one: add it)"
	J=$BATS_TEST_DIRNAME/data/pprof/jemalloc.heap
	head -n 4 "$J" > "$T/j"
	run pprof2spaa "$T/j"
	assert_failure 1
	assert_output "pprof2spaa: $T/j:4: a stack without its counts ('t*: A: B [C: D]')"
	head -n 5 "$J" > "$T/j"
	run pprof2spaa "$T/j"
	assert_failure 1
	assert_output "pprof2spaa: $T/j:5: no MAPPED_LIBRARIES: section, which jemalloc writes after the samples: the file is cut short"
}
