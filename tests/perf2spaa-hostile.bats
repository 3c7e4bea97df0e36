#!/usr/bin/env bats
# perf2spaa reading hostile perf.data of size and number: captures made
# here with perf (as root) of a program built here, grown by
# tests/data/perf/hostile.py to millions of samples without the
# FINISHED_ROUND records perf's reading flushes its queue at, to a million
# threads or mappings, or with a sum past 2^64.  Skipped, saying why, only
# where perf cannot record.
load common

# one_cpu CMD...: CMD on the first cpu only.  hostile.py samples spreads
# copies of each sample up to the next sample's time, which keeps time
# order only where the capture's samples are in time order in the file: a
# program that moved between cpus (a busy machine) has its samples in
# the per-cpu buffers' order, and one test in three counted thousands of
# records out of order
one_cpu() { taskset -c 0 "$@"; }

hostile() { python3 "$D/perf/hostile.py" "$@"; }

# the sample records' times going back, counted (perf2spaa -s on stdin)
descents() {
	grep '"type":"sample"' | sed -E 's/.*"timestamp":([0-9.]+).*/\1/' |
		awk 'NR > 1 && $1 < last { n++ } { last = $1 } END { print n + 0 }'
}

@test "perf2spaa perf.data: pipe mode, a million samples and no FINISHED_ROUND: memory bounded (what waits to be sorted by time, 32 MiB), the same profile and samples in the same order as with a round every 1000 samples, -j 1 and 2" {
	can_record
	c_prog
	one_cpu perf record -q -N -e cpu-clock -g -o - "$T/prog" 50 2>/dev/null > "$T/pipe.data"
	set -o pipefail
	hostile samples "$T/pipe.data" - 1000000 1000 | perf2spaa -s - | cksum > "$T/rounds.sum"
	local j
	for j in 1 2; do
		# (before: every record held to the end, 190 MB of address
		# space here, 1.08 GB for ten million)
		hostile samples "$T/pipe.data" - 1000000 | MALLOC_ARENA_MAX=1 bounded 150 60 perf2spaa -j $j -s - 2> "$T/err" | cksum > "$T/none.sum" ||
			fail "-j $j: exit $?: $(head -c 4000 "$T/err")"
		cmp "$T/rounds.sum" "$T/none.sum"
		[ ! -s "$T/err" ] || fail "standard error: $(cat "$T/err")"
	done
}

@test "perf2spaa perf.data: perf record -z, a million samples in 1.7 MB of compressed records and no FINISHED_ROUND: memory bounded, the same profile and samples in the same order as uncompressed with rounds, -j 1 and 2" {
	can_record
	c_prog
	one_cpu perf record -q -N -e cpu-clock -g -o - "$T/prog" 50 2>/dev/null > "$T/pipe.data"
	set -o pipefail
	hostile samples "$T/pipe.data" - 1000000 1000 | perf2spaa -s - | cksum > "$T/rounds.sum"
	hostile samples "$T/pipe.data" - 1000000 | hostile pipe-compress - "$T/z.data"
	local j
	for j in 1 2; do
		# (before: the decompressed records of the round held, up to
		# 1 GiB, then an error: 190 MB of address space here; one malloc
		# arena: a thread's own arena reserves 64 MB of address space,
		# which is not the records' memory)
		MALLOC_ARENA_MAX=1 bounded 150 60 perf2spaa -j $j -s "$T/z.data" 2> "$T/err" | cksum > "$T/z.sum" ||
			fail "-j $j: exit $?: $(head -c 4000 "$T/err")"
		cmp "$T/rounds.sum" "$T/z.sum"
		[ ! -s "$T/err" ] || fail "standard error: $(cat "$T/err")"
	done
}

@test "perf2spaa perf.data: file mode, a million samples and no FINISHED_ROUND: memory bounded beside the file's mapping, the same profile and samples in the same order as with a round every 1000 samples, -j 1 and 2" {
	can_record
	c_prog
	one_cpu perf record -q -N -e cpu-clock -g -o "$T/fp.data" "$T/prog" 50 >/dev/null
	set -o pipefail
	hostile samples "$T/fp.data" "$T/r.data" 1000000 1000
	perf2spaa -s "$T/r.data" | cksum > "$T/rounds.sum"
	rm "$T/r.data"
	hostile samples "$T/fp.data" "$T/n.data" 1000000
	local j mb
	mb=$(($(stat -c %s "$T/n.data") >> 20))
	# a 1 MB queue (the default 32 MiB is not far under this file's
	# size): the mapped file and 52 MB (35 here with -j 2; before: 64 and
	# more, an entry of 40 bytes a record, three copies of them in the
	# sort, and the file's pages never given back)
	export SPAA_PERF_QUEUE=1000000
	for j in 1 2; do
		bounded $((mb + 52)) 60 perf2spaa -j $j -s "$T/n.data" 2> "$T/err" | cksum > "$T/none.sum" ||
			fail "-j $j: exit $?: $(head -c 4000 "$T/err")"
		cmp "$T/rounds.sum" "$T/none.sum"
		[ ! -s "$T/err" ] || fail "standard error: $(cat "$T/err")"
	done
}

@test "perf2spaa perf.data: with no FINISHED_ROUND, a record later than the queue's bound with a time before those delivered comes out of order, as perf takes it, with a warning counting such records; within the bound it is sorted in" {
	can_record
	c_prog
	one_cpu perf record -q -N -e cpu-clock -g -o - "$T/prog" 50 2>/dev/null > "$T/pipe.data"
	# 100000 samples, the earliest moved to the end of the data
	hostile samples "$T/pipe.data" "$T/late.data" 100000 late
	hostile samples "$T/pipe.data" "$T/inorder.data" 100000
	SPAA_PERF_QUEUE=1000000 run perf2spaa -s -o "$T/late.spaa" "$T/late.data"
	assert_success
	assert_output "perf2spaa: $T/late.data: warning: 1 records taken out of time order: with no FINISHED_ROUND record, the records waiting to be sorted by time reached 1000000 bytes, and the earlier half of them was taken (as perf does when its queue is full); these came after, with earlier times"
	run descents < "$T/late.spaa"
	assert_output 1
	# its stacks' weights the same all the same
	spaa-fold "$T/late.spaa" > "$T/late.fold"
	perf2spaa "$T/inorder.data" | spaa-fold | cmp - "$T/late.fold"
	SPAA_PERF_QUEUE=1000000 run perf2spaa -q -o /dev/null "$T/late.data"
	assert_success
	assert_output ""
	# the default bound (32 MiB) holds all 100000: sorted in, no warning
	run perf2spaa -s -o "$T/sorted.spaa" "$T/late.data"
	assert_success
	assert_output ""
	perf2spaa -s "$T/inorder.data" | cmp - "$T/sorted.spaa"
}

@test "perf2spaa perf.data: a period summed past 2^64 - 1 names the file and the byte offset of the sample record, in file and pipe mode, -j 1 and 2, nothing written, exit 1" {
	can_record
	c_prog
	perf record -q -N -e cpu-clock -g -o "$T/fp.data" "$T/prog" 20 >/dev/null
	perf record -q -N -e cpu-clock -g -o - "$T/prog" 20 2>/dev/null > "$T/pipe.data"
	local m o j
	for m in fp pipe; do
		# the first sample twice, of period 2^63 each
		o=$(hostile dup-first "$T/$m.data" "$T/$m.dup.data" 9223372036854775808)
		for j in 1 2; do
			run perf2spaa -j $j -o "$T/out.spaa" "$T/$m.dup.data"
			assert_failure 1
			assert_output "perf2spaa: $T/$m.dup.data: byte $o: metric period of a stack overflows 64 bits"
			[ ! -e "$T/out.spaa" ]
		done
	done
	run perf2spaa - < "$T/pipe.dup.data"
	assert_failure 1
	assert_output "perf2spaa: -: byte $o: metric period of a stack overflows 64 bits"
}

@test "perf2spaa perf.data: 200000 threads of distinct command names (a COMM record and a sample each) are read in time and memory that grow with the threads, each thread's own" {
	can_record
	c_prog
	perf record -q -N -e cpu-clock -g -o - "$T/prog" 20 2>/dev/null > "$T/pipe.data"
	local n
	n=$(perf2spaa "$T/pipe.data" | grep -c '"type":"thread"')
	# (a million: 12 s, 650 MB, for 405 MB of output)
	hostile pipe-threads "$T/pipe.data" "$T/th.data" 200000
	run bounded 300 60 perf2spaa -o "$T/th.spaa" "$T/th.data"
	assert_success
	assert_equal "$(grep -c '"type":"thread"' "$T/th.spaa")" $((n + 200000))
	grep -q '"tid":1199999,"comm":"t199999"' "$T/th.spaa"
}

@test "perf2spaa perf.data: a process of a million mappings, all in one round, is read in bounded memory (the round's records held 32 MiB at most) and folds as the capture itself does" {
	can_record
	c_prog
	perf record -q -N -e cpu-clock -g -o - "$T/prog" 50 2>/dev/null > "$T/pipe.data"
	perf2spaa "$T/pipe.data" | spaa-fold > "$T/plain.fold"
	hostile pipe-maps "$T/pipe.data" "$T/maps.data" 1000000 0
	# (before: the 112 MB of mapping records held at once, 260 MB)
	run bounded 200 60 perf2spaa -o "$T/maps.spaa" "$T/maps.data"
	assert_success
	assert_output ""
	spaa-fold "$T/maps.spaa" | cmp - "$T/plain.fold"
}
