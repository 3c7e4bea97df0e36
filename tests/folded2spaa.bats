#!/usr/bin/env bats
# folded2spaa: folded stacks to SPAA.

load common
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
}

@test "a small profile: header, one dso, frames, summed stacks with content ids" {
	printf 'a;b 1\n# comment\n\nmain;foo 2\r\nmain;foo 3\n' >"$T/x.folded"
	run folded2spaa "$T/x.folded"
	assert_success
	assert_output - <<'EOF'
{"type":"header","format":"spaa","version":"1.0","source_tool":"folded","frame_order":"leaf_to_root","events":[{"name":"cpu","kind":"software","sampling":{"mode":"frequency","primary_metric":"samples"}}],"source":{"tool":"folded"},"stack_id_mode":"content_addressable"}
{"type":"dso","id":1,"name":"[unknown]","is_kernel":false}
{"type":"frame","id":1,"func":"a","dso":1,"kind":"unknown"}
{"type":"frame","id":2,"func":"b","dso":1,"kind":"unknown"}
{"type":"frame","id":3,"func":"main","dso":1,"kind":"unknown"}
{"type":"frame","id":4,"func":"foo","dso":1,"kind":"unknown"}
{"type":"stack","id":"0x03634fb5361274dd","frames":[2,1],"context":{"event":"cpu"},"weights":[{"metric":"samples","value":1}],"exclusive":{"frame":2,"weights":[{"metric":"samples","value":1}]},"x_path_id":"0x1e27b32149aca326"}
{"type":"stack","id":"0xd4ca7a13314738c7","frames":[4,3],"context":{"event":"cpu"},"weights":[{"metric":"samples","value":5}],"exclusive":{"frame":4,"weights":[{"metric":"samples","value":5}]},"x_path_id":"0x7f0b54acb5ef5208"}
EOF
}

@test "round trip: folded2spaa | spaa-fold --raw gives the input summed and sorted" {
	for f in before after; do
		folded2spaa "$D/folded/$f.txt" | spaa-fold --raw >"$T/out"
		sort "$D/folded/$f.txt" | cmp - "$T/out"
	done
	cat "$D/folded/before.txt" "$D/folded/before.txt" | folded2spaa | spaa-fold --raw >"$T/out"
	run grep -c . "$T/out"
	assert_output 8
	run grep -F 'dd;[unknown];read 28' "$T/out"
	assert_success
}

@test "several inputs are one profile" {
	folded2spaa "$D/folded/before.txt" "$D/folded/after.txt" | spaa-fold --raw >"$T/out"
	run grep -F 'dd;[unknown];[dd] 10' "$T/out"
	assert_success
}

@test "fractional counts" {
	run sh -c "folded2spaa '$D/folded/before_fractionals.txt' | spaa-fold --raw"
	assert_success
	assert_output - <<'EOF'
dd;[unknown];0x234f2abc;system_call_[k];0xF1BDE348 1
dd;[unknown];[dd] 3
dd;[unknown];read 14.234398324872284
dd;[unknown];read;system_call_[k];__fdget_pos_[k] 11.98
dd;[unknown];read;system_call_[k];sys_read_[k];vfs_read_[k];fsnotify_[k] 6.2
dd;[unknown];write;system_call_[k];sys_write_[k];vfs_write_[k];fsnotify_[k];__srcu_read_unlock_[k] 20
dd;[unknown];write;system_call_[k];sys_write_[k];vfs_write_[k];rw_verify_area_[k] 3.11
dd;write;system_call_[k];sys_write_[k];vfs_write_[k];fsnotify_[k];__srcu_read_unlock_[k] 7.56
EOF
}

@test "a line without a count is an error naming the line" {
	run folded2spaa "$D/folded/bad_before.txt"
	assert_failure 1
	assert_output "folded2spaa: $D/folded/bad_before.txt:3: no count at the end of the line (expected \"frame;frame;... COUNT\")"
	run folded2spaa -o "$T/out.spaa" "$D/folded/bad_before.txt"
	assert_failure 1
	[ ! -e "$T/out.spaa" ]
}

@test "the differential 3-column form (two counts on every line) is an error; on some lines the last word is the count" {
	printf 'a;b 3 1\na;c 1 2\n' >"$T/d.folded"
	run folded2spaa "$T/d.folded"
	assert_failure 1
	assert_output "folded2spaa: $T/d.folded:1: two counts on every line: differential folded stacks (\"stack COUNT1 COUNT2\") are not a profile; convert each side separately"
	# what spaa-fold writes for a symbol ending in a number reads back
	printf 'a;b 1\np;foo 12 1\n' >"$T/n.folded"
	run sh -c 'folded2spaa "$1" | spaa-fold --raw' sh "$T/n.folded"
	assert_output "a;b 1
p;foo 12 1"
}

@test "a frame that is a single space (stackcollapse-perf.pl's frame with no symbol) is kept" {
	printf 'a; ;b 3\na;  4\n' >"$T/s.folded"
	run sh -c 'folded2spaa "$1" | spaa-fold --raw' sh "$T/s.folded"
	assert_output "a;  4
a; ;b 3"
	run sh -c 'folded2spaa "$1" | grep -c "\"func\":\" \""' sh "$T/s.folded"
	assert_output 1
}

@test "double counts whose sum passes the largest double are an error, not 0" {
	printf 'a 1.7976931348623157e308\na 1.7976931348623157e308\n' >"$T/big.folded"
	run folded2spaa "$T/big.folded"
	assert_failure 1
	assert_output "folded2spaa: $T/big.folded:2: metric samples of a stack overflows 64 bits"
}

@test "--event, --kind, --metric, --unit set the header" {
	printf 'a;b 4096\n' | folded2spaa --event malloc --kind allocation -m alloc_bytes -u bytes >"$T/out"
	run head -1 "$T/out"
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"folded","frame_order":"leaf_to_root","events":[{"name":"malloc","kind":"allocation","sampling":{"mode":"event","primary_metric":"alloc_bytes"}}],"source":{"tool":"folded"},"stack_id_mode":"content_addressable"}'
	run grep -c '"weights":\[{"metric":"alloc_bytes","value":4096,"unit":"bytes"}\]' "$T/out"
	assert_output 1
	run spaa-fold --raw "$T/out"
	assert_output "a;b 4096"
}

@test "bad --kind is a usage error" {
	run folded2spaa --kind bogus
	assert_failure 2
	assert_output "folded2spaa: --kind: unknown kind 'bogus' (hardware, software, allocation, deallocation, timer or probe)
Try 'folded2spaa --help' for more information."
}

@test "gzip and zstd input, -z and -o output" {
	gzip -c "$D/folded/before.txt" >"$T/b.gz"
	zstd -q -c "$D/folded/before.txt" >"$T/b.zst"
	folded2spaa "$D/folded/before.txt" >"$T/plain.spaa"
	folded2spaa "$T/b.gz" | cmp - "$T/plain.spaa"
	folded2spaa <"$T/b.zst" | cmp - "$T/plain.spaa"
	folded2spaa -z "$D/folded/before.txt" | zstd -dc | cmp - "$T/plain.spaa"
	run folded2spaa -o "$T/o.spaa" "$D/folded/before.txt"
	assert_success
	assert_output ""
	cmp "$T/o.spaa" "$T/plain.spaa"
}

@test "output is valid SPAA for spaa-validate" {
	if ! spaa-validate --help >/dev/null 2>&1; then skip "spaa-validate not built yet"; fi
	folded2spaa "$D/folded/after.txt" >"$T/a.spaa"
	run spaa-validate "$T/a.spaa"
	assert_success
}

@test "names with spaces, empty stacks" {
	printf 'x y;z w 2\n 5\n' | folded2spaa | spaa-fold --raw >"$T/out"
	run cat "$T/out"
	assert_output " 5
x y;z w 2"
}

@test "write error on /dev/full" {
	run sh -c "folded2spaa '$D/folded/before.txt' >/dev/full"
	assert_failure 1
	assert_output "folded2spaa: standard output: write error: No space left on device"
}

@test "--help and --version" {
	run folded2spaa --help
	assert_success
	assert_line -n 0 "Usage: folded2spaa [OPTION]... [FILE]..."
	run folded2spaa --version
	assert_success
	assert_output --regexp '^folded2spaa \(spaa-tools\) '
}

@test "counts: negative, beyond 64 bits, not finite, a sum beyond 64 bits" {
	run sh -c "printf 'a;b -1024\na;c 5\na;c -9223372036854775808\nx 2.5\nx -0.5\n' | folded2spaa -m zm | spaa-fold --raw -m zm"
	assert_success
	assert_output "a;b -1024
a;c -9223372036854775803
x 2"
	run sh -c "printf 'a;b -9223372036854775809\n' | folded2spaa"
	assert_failure 1
	assert_output "folded2spaa: -:1: count -9223372036854775809 out of range (-9223372036854775808 to 18446744073709551615)"
	run sh -c "printf 'a;b 18446744073709551616\n' | folded2spaa"
	assert_failure 1
	assert_output "folded2spaa: -:1: count 18446744073709551616 out of range (-9223372036854775808 to 18446744073709551615)"
	run sh -c "printf 'a;b 1e999\n' | folded2spaa"
	assert_failure 1
	assert_output "folded2spaa: -:1: count 1e999 out of range (-9223372036854775808 to 18446744073709551615)"
	printf 'a;b 18446744073709551615\n# x\na;c 1\na;b 1\n' >"$T/big.folded"
	run folded2spaa "$T/big.folded"
	assert_failure 1
	assert_output "folded2spaa: $T/big.folded:4: metric samples of a stack overflows 64 bits"
	run sh -c "head -1 '$T/big.folded' | folded2spaa | spaa-fold --raw"
	assert_success
	assert_output "a;b 18446744073709551615"
	run sh -c "printf 'a;b -0\n' | folded2spaa | grep -c '\"weights\":\[{\"metric\":\"samples\",\"value\":0}\]'"
	assert_output 1
}

@test "empty input, comments only: the converters' empty-input error, no profile written" {
	run folded2spaa </dev/null
	assert_failure 1
	assert_output "folded2spaa: -: empty input: no profile written"
	printf '# only\n\n  \n' > "$T/c.folded"
	run folded2spaa -o "$T/out.spaa" "$T/c.folded"
	assert_failure 1
	assert_output "folded2spaa: $T/c.folded: empty input: no profile written"
	[ ! -e "$T/out.spaa" ]
}

@test "standard input twice is a usage error; missing file; -o in a missing directory" {
	run folded2spaa - "$D/folded/before.txt" -
	assert_failure 2
	assert_output "folded2spaa: standard input (-) can be read only once
Try 'folded2spaa --help' for more information."
	run folded2spaa "$T/missing.folded"
	assert_failure 1
	assert_output "folded2spaa: $T/missing.folded: No such file or directory"
	run folded2spaa -o "$T/no/such/dir/x.spaa" "$D/folded/before.txt"
	assert_failure 1
	assert_output "folded2spaa: $T/no/such/dir/x.spaa: No such file or directory"
	echo old >"$T/keep.spaa"
	run folded2spaa -o "$T/keep.spaa" "$D/folded/bad_before.txt"
	assert_failure 1
	run cat "$T/keep.spaa"
	assert_output "old"
}


@test "names that are not UTF-8 are one frame as written (U+FFFD), and the stack ids are those of the file as written" {
	printf 'a;f\377oo 1\na;f\376oo 2\nb\303 3\n' > "$T/u.folded"
	run folded2spaa -o "$T/u.spaa" "$T/u.folded"
	assert_success
	run grep -c $'"func":"f\xef\xbf\xbdoo"' "$T/u.spaa"
	assert_output 1
	run grep -c '"type":"stack"' "$T/u.spaa"
	assert_output 2
	# spaa-cat --merge recomputes every content id: the same ids come out
	grep -o '"type":"stack","id":"0x[0-9a-f]*"' "$T/u.spaa" > "$T/ids"
	spaa-cat --merge "$T/u.spaa" | grep -o '"type":"stack","id":"0x[0-9a-f]*"' > "$T/merged"
	run diff "$T/ids" "$T/merged"
	assert_success
}

@test "--addrs: hex frames become unresolved frames with that ip, in --binary's dso or the kernel's; --pid sets the pid" {
	printf '0x401a2b;main;0xFFFFFFFF81000010 2\n0x401A2B;0x4011 1\n' >"$T/a.folded"
	run folded2spaa --addrs --binary=/usr/bin/app --pid=4242 "$T/a.folded"
	assert_success
	assert_output - <<'EOF2'
{"type":"header","format":"spaa","version":"1.0","source_tool":"folded","frame_order":"leaf_to_root","events":[{"name":"cpu","kind":"software","sampling":{"mode":"frequency","primary_metric":"samples"}}],"source":{"tool":"folded"},"stack_id_mode":"content_addressable"}
{"type":"dso","id":1,"name":"[unknown]","is_kernel":false}
{"type":"dso","id":2,"name":"/usr/bin/app","is_kernel":false}
{"type":"dso","id":3,"name":"[kernel.kallsyms]","is_kernel":true}
{"type":"frame","id":1,"func":"0x401a2b","func_resolved":false,"dso":2,"ip":"0x401a2b","kind":"user"}
{"type":"frame","id":2,"func":"main","dso":1,"kind":"unknown"}
{"type":"frame","id":3,"func":"0xffffffff81000010","func_resolved":false,"dso":3,"ip":"0xffffffff81000010","kind":"kernel"}
{"type":"frame","id":4,"func":"0x4011","func_resolved":false,"dso":2,"ip":"0x4011","kind":"user"}
{"type":"stack","id":"0x5770b5335e347129","frames":[3,2,1],"context":{"event":"cpu","pid":4242},"weights":[{"metric":"samples","value":2}],"exclusive":{"frame":3,"weights":[{"metric":"samples","value":2}]},"x_path_id":"0x58a2110b36204b5e"}
{"type":"stack","id":"0xf7849c10195eabcc","frames":[4,1],"context":{"event":"cpu","pid":4242},"weights":[{"metric":"samples","value":1}],"exclusive":{"frame":4,"weights":[{"metric":"samples","value":1}]},"x_path_id":"0x8a98ec4d0c7bb7f5"}
EOF2
	spaa-validate --strict -q <(folded2spaa --addrs --binary=/usr/bin/app --pid=4242 "$T/a.folded")
	# without --binary user addresses are in [unknown]; without --addrs
	# they are names
	run sh -c "folded2spaa --addrs '$T/a.folded' | grep -c '\"dso\":1,\"ip\":\"0x401a2b\",\"kind\":\"unknown\"'"
	assert_output 1
	run sh -c "folded2spaa '$T/a.folded' | grep -c '\"func\":\"0x401a2b\",\"dso\":1,\"kind\":\"unknown\"}'"
	assert_output 1
	run folded2spaa --binary=/x "$T/a.folded"
	assert_failure 2
	assert_output "folded2spaa: --binary needs --addrs
Try 'folded2spaa --help' for more information."
	run folded2spaa --addrs --pid=-3 "$T/a.folded"
	assert_failure 2
	assert_line --index 0 "folded2spaa: --pid: '-3' is not a process id"
}

@test "the example cut at every byte: an error naming the file, or the whole profile, or (at a line's end) the lines before (issue 28)" {
	f=$EX/dd.folded
	cut_may_end() { at_line_end; }
	cut_sweep "$f" "$(every_byte "$f")" folded2spaa
	head -c 40 "$f" > "$T/cut"
	run folded2spaa "$T/cut"
	assert_failure 1
	assert_output "folded2spaa: $T/cut:2: the last line has no newline: the file is cut short (a whole file ends with one: add it)"
	printf 'a;b 14' | folded2spaa -o "$T/x.spaa" 2> "$T/err" && fail "a count cut short taken"
	[ ! -e "$T/x.spaa" ]
}
