#!/usr/bin/env bats
load common

X=$D/dtrace

@test "corpus: dtrace2spaa | spaa-fold equals stackcollapse.pl, byte for byte" {
	dtrace2spaa "$X/example-dtrace-stacks.txt.gz" > "$T/d.spaa"
	spaa-fold "$T/d.spaa" > "$T/out"
	cmp "$T/out" "$X/example-dtrace-stacks-collapsed.txt"
	run spaa-validate -q "$T/d.spaa"
	assert_success
}

@test "corpus: header, kernel stack guessed from unix/genunix frames, offsets in symoff" {
	dtrace2spaa "$X/example-dtrace-stacks.txt.gz" > "$T/d.spaa"
	run head -1 "$T/d.spaa"
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"dtrace","frame_order":"leaf_to_root","events":[{"name":"profile-997","kind":"timer","sampling":{"mode":"frequency","primary_metric":"samples","frequency_hz":997}}],"source":{"tool":"dtrace"},"stack_id_mode":"content_addressable"}'
	run grep -F -x '{"type":"frame","id":3,"func":"genunix`vn_free","dso":1,"symoff":"0x9a","kind":"kernel"}' "$T/d.spaa"
	assert_success
	run grep -c '"stack_type":"kernel"' "$T/d.spaa"
	assert_output 434
}

@test "execname key, user and kernel stacks linked, inline chain, hex frame, banner skipped" {
	run dtrace2spaa --event profile-97 "$X/two-stacks.txt"
	assert_success
	assert_output - <<'OUT'
{"type":"header","format":"spaa","version":"1.0","source_tool":"dtrace","frame_order":"leaf_to_root","events":[{"name":"profile-97","kind":"timer","sampling":{"mode":"frequency","primary_metric":"samples","frequency_hz":97}}],"source":{"tool":"dtrace"},"stack_id_mode":"content_addressable"}
{"type":"dso","id":1,"name":"libc.so.1","is_kernel":false}
{"type":"dso","id":2,"name":"[unknown]","is_kernel":false}
{"type":"dso","id":3,"name":"unix","is_kernel":true}
{"type":"dso","id":4,"name":"genunix","is_kernel":true}
{"type":"dso","id":5,"name":"a.out","is_kernel":false}
{"type":"frame","id":1,"func":"libc.so.1`__pollsys","dso":1,"symoff":"0xa","kind":"user"}
{"type":"frame","id":2,"func":"inl_b","dso":1,"symoff":"0x52","inlined":true,"inline_depth":2,"kind":"user"}
{"type":"frame","id":3,"func":"inl_a","dso":1,"symoff":"0x52","inlined":true,"inline_depth":1,"kind":"user"}
{"type":"frame","id":4,"func":"libc.so.1`poll","dso":1,"symoff":"0x52","inline_depth":0,"kind":"user"}
{"type":"frame","id":5,"func":"0x7fffdeadbeef","func_resolved":false,"dso":2,"ip":"0x7fffdeadbeef","kind":"user"}
{"type":"frame","id":6,"func":"unix`sys_syscall","dso":3,"symoff":"0x17a","kind":"kernel"}
{"type":"frame","id":7,"func":"genunix`poll","dso":4,"symoff":"0x20","kind":"kernel"}
{"type":"frame","id":8,"func":"libc.so.1`__read","dso":1,"symoff":"0x15","kind":"user"}
{"type":"frame","id":9,"func":"a.out`main","dso":5,"symoff":"0x10","kind":"user"}
{"type":"frame","id":10,"func":"genunix`read","dso":4,"symoff":"0x1","kind":"kernel"}
{"type":"stack","id":"0x1e3f6045ffeeb8b5","frames":[1,2,3,4,5],"stack_type":"user","context":{"event":"profile-97","comm":"sshd"},"weights":[{"metric":"samples","value":3}],"exclusive":{"frame":1,"weights":[{"metric":"samples","value":3}]},"related_stacks":["0xb009ad80d00c27c4"],"x_path_id":"0x34243d759769d718"}
{"type":"stack","id":"0xb009ad80d00c27c4","frames":[6,7],"stack_type":"kernel","context":{"event":"profile-97","comm":"sshd"},"weights":[{"metric":"samples","value":3}],"exclusive":{"frame":6,"weights":[{"metric":"samples","value":3}]},"related_stacks":["0x1e3f6045ffeeb8b5"],"x_path_id":"0xab2c357116b69321"}
{"type":"stack","id":"0x28b97f6d5f6f81e7","frames":[8,9],"stack_type":"user","context":{"event":"profile-97","comm":"bash"},"weights":[{"metric":"samples","value":12}],"exclusive":{"frame":8,"weights":[{"metric":"samples","value":12}]},"related_stacks":["0x90a56a05d86d5d80"],"x_path_id":"0xa892dbe295235e72"}
{"type":"stack","id":"0x90a56a05d86d5d80","frames":[10],"stack_type":"kernel","context":{"event":"profile-97","comm":"bash"},"weights":[{"metric":"samples","value":12}],"exclusive":{"frame":10,"weights":[{"metric":"samples","value":12}]},"related_stacks":["0x28b97f6d5f6f81e7"],"x_path_id":"0xae0566811ae6c4d1"}
OUT
	dtrace2spaa "$X/two-stacks.txt" | spaa-fold > "$T/out"
	assert_file_eq "$T/out" <<'OUT'
bash;a.out`main;libc.so.1`__read 12
bash;genunix`read 12
sshd;0x7fffdeadbeef;libc.so.1`poll;inl_a_[i];inl_b_[i];libc.so.1`__pollsys 3
sshd;genunix`poll;unix`sys_syscall 3
OUT
}

@test "--keys names the keys: pid, other keys as x_ context, stack kinds" {
	printf '\n  1234  7\n              libc.so.1`read+0x1\n              a.out`main+0x2\n                5\n' > "$T/in.txt"
	dtrace2spaa -k pid,x,ustack "$T/in.txt" > "$T/o"
	run grep -c '"type":"thread","pid":1234,"tid":1234' "$T/o"
	assert_output 1
	run grep -o '"stack_type":"user","context":{[^}]*}' "$T/o"
	assert_output '"stack_type":"user","context":{"event":"profile-997","pid":1234,"tid":1234,"x_x":7}'
}

@test "--event: probe kind and count metric; --frequency" {
	printf '\n              a.out`main+0x2\n                5\n' > "$T/in.txt"
	run sh -c "dtrace2spaa --event syscall::read:entry '$T/in.txt' | head -1"
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"dtrace","frame_order":"leaf_to_root","events":[{"name":"syscall::read:entry","kind":"probe","sampling":{"mode":"event","primary_metric":"count"}}],"source":{"tool":"dtrace"},"stack_id_mode":"content_addressable"}'
	run sh -c "dtrace2spaa --event tick-5s -F 2 '$T/in.txt' | head -1 | grep -o '\"sampling\":{[^}]*}'"
	assert_output '"sampling":{"mode":"frequency","primary_metric":"samples","frequency_hz":2}'
	run dtrace2spaa -F 0 "$T/in.txt"
	assert_failure 2
}

@test "a stack without its count at the end is an error naming its line" {
	printf '\n              foo`bar+0x1\n' > "$T/in.txt"
	run dtrace2spaa "$T/in.txt"
	assert_failure 1
	assert_output "dtrace2spaa: $T/in.txt:2: truncated entry: stack without a count at the end of the input"
}

@test "empty input is an error" {
	run dtrace2spaa /dev/null
	assert_failure 1
	assert_output 'dtrace2spaa: /dev/null: empty input: no profile written'
	printf 'dtrace: description matched 1 probe\n\n' > "$T/none.txt"
	run dtrace2spaa "$T/none.txt"
	assert_failure 1
	assert_output "dtrace2spaa: $T/none.txt: no stacks found: 2 lines, no stack aggregation entry (printa output of @[...] = count()) (no profile written)"
}

@test "zstd input, -o, -z" {
	zstd -q -c "$X/two-stacks.txt" > "$T/a.zst"
	dtrace2spaa "$X/two-stacks.txt" > "$T/plain"
	dtrace2spaa -o "$T/o.spaa" < "$T/a.zst"
	cmp "$T/plain" "$T/o.spaa"
	dtrace2spaa -z "$X/two-stacks.txt" | zstd -dc | cmp - "$T/plain"
}

@test "write error on /dev/full" {
	run sh -c "dtrace2spaa '$X/two-stacks.txt' > /dev/full"
	assert_failure 1
	assert_output 'dtrace2spaa: standard output: write error: No space left on device'
}

@test "bad option, bad --keys, --help, --version" {
	run dtrace2spaa --bogus
	assert_failure 2
	assert_line --index 1 "Try 'dtrace2spaa --help' for more information."
	run dtrace2spaa --keys 'a,,b'
	assert_failure 2
	assert_line --index 0 "dtrace2spaa: --keys: empty key name in 'a,,b'"
	run dtrace2spaa --help
	assert_success
	assert_line --index 0 'Usage: dtrace2spaa [OPTION]... [FILE]...'
	run dtrace2spaa --version
	assert_success
	assert_output --regexp '^dtrace2spaa \(spaa-tools\) '
}

# Keys after the stacks: DTrace prints the key tuple in order, a scalar key
# blank-padded without a newline, so keys after the last stack share the
# count's line ("  sshd<pad>   7").

@test "@[ustack(), execname]: the key after the stack is the comm, on the count's line" {
	run dtrace2spaa -k ustack,execname "$X/ustack-execname.txt"
	assert_success
	assert_output - <<'OUT'
{"type":"header","format":"spaa","version":"1.0","source_tool":"dtrace","frame_order":"leaf_to_root","events":[{"name":"profile-997","kind":"timer","sampling":{"mode":"frequency","primary_metric":"samples","frequency_hz":997}}],"source":{"tool":"dtrace"},"stack_id_mode":"content_addressable"}
{"type":"dso","id":1,"name":"libc.so.1","is_kernel":false}
{"type":"dso","id":2,"name":"sshd","is_kernel":false}
{"type":"dso","id":3,"name":"a.out","is_kernel":false}
{"type":"frame","id":1,"func":"libc.so.1`__pollsys","dso":1,"symoff":"0xa","kind":"user"}
{"type":"frame","id":2,"func":"libc.so.1`poll","dso":1,"symoff":"0x52","kind":"user"}
{"type":"frame","id":3,"func":"sshd`main","dso":2,"symoff":"0x1c","kind":"user"}
{"type":"frame","id":4,"func":"libc.so.1`__read","dso":1,"symoff":"0x15","kind":"user"}
{"type":"frame","id":5,"func":"a.out`main","dso":3,"symoff":"0x10","kind":"user"}
{"type":"stack","id":"0x96df1a1a3e0cb081","frames":[1,2,3],"stack_type":"user","context":{"event":"profile-997","comm":"sshd"},"weights":[{"metric":"samples","value":7}],"exclusive":{"frame":1,"weights":[{"metric":"samples","value":7}]},"x_path_id":"0x58515556a6214ddf"}
{"type":"stack","id":"0xcafa363d24e6f474","frames":[4,5],"stack_type":"user","context":{"event":"profile-997","comm":"bash"},"weights":[{"metric":"samples","value":12}],"exclusive":{"frame":4,"weights":[{"metric":"samples","value":12}]},"x_path_id":"0xa892dbe295235e72"}
{"type":"stack","id":"0x79e2cad2a6844050","frames":[1,2,3],"stack_type":"user","context":{"event":"profile-997","comm":"sshd-child"},"weights":[{"metric":"samples","value":2}],"exclusive":{"frame":1,"weights":[{"metric":"samples","value":2}]},"x_path_id":"0x58515556a6214ddf"}
OUT
	dtrace2spaa "$X/ustack-execname.txt" | spaa-fold > "$T/out"
	assert_file_eq "$T/out" <<'OUT'
bash;a.out`main;libc.so.1`__read 12
sshd-child;sshd`main;libc.so.1`poll;libc.so.1`__pollsys 2
sshd;sshd`main;libc.so.1`poll;libc.so.1`__pollsys 7
OUT
	dtrace2spaa "$X/ustack-execname.txt" > "$T/d.spaa"
	run spaa-validate -q "$T/d.spaa"
	assert_success
}

@test "@[stack(), pid]: the pid after the stack (8 blanks in for pid 0); x_key1 without --keys" {
	dtrace2spaa "$X/stack-pid.txt" > "$T/d.spaa"
	spaa-fold "$T/d.spaa" > "$T/out"
	assert_file_eq "$T/out" <<'OUT'
unix`sys_syscall;genunix`read 3
unix`thread_start;unix`idle;unix`cpu_idle;unix`i86_mwait 512
OUT
	run grep -o '"stack_type":"[a-z]*","context":{[^}]*}' "$T/d.spaa"
	assert_output - <<'OUT'
"stack_type":"kernel","context":{"event":"profile-997","x_key1":0}
"stack_type":"kernel","context":{"event":"profile-997","x_key1":1234}
OUT
	dtrace2spaa -k stack,pid "$X/stack-pid.txt" > "$T/d.spaa"
	run grep -o -e '"stack_type":"[a-z]*","context":{[^}]*}' -e '^{"type":"thread".*' "$T/d.spaa"
	assert_output - <<'OUT'
{"type":"thread","pid":0,"tid":0}
{"type":"thread","pid":1234,"tid":1234}
"stack_type":"kernel","context":{"event":"profile-997","pid":0,"tid":0}
"stack_type":"kernel","context":{"event":"profile-997","pid":1234,"tid":1234}
OUT
}

@test "@[ustack(), stack(), execname]: both stacks get the comm and are linked" {
	dtrace2spaa "$X/ustack-stack-execname.txt" > "$T/d.spaa"
	spaa-fold "$T/d.spaa" > "$T/out"
	assert_file_eq "$T/out" <<'OUT'
bash;a.out`main;libc.so.1`__read 12
bash;unix`sys_syscall;genunix`read 12
sshd;genunix`poll 3
sshd;libc.so.1`__pollsys 3
OUT
	run grep -o -e '"stack_type":"[a-z]*","context":{[^}]*}' -e '"related_stacks":[^]]*]' "$T/d.spaa"
	assert_output - <<'OUT'
"stack_type":"user","context":{"event":"profile-997","comm":"bash"}
"related_stacks":["0x4daf22e689f10064"]
"stack_type":"kernel","context":{"event":"profile-997","comm":"bash"}
"related_stacks":["0xcafa363d24e6f474"]
"stack_type":"user","context":{"event":"profile-997","comm":"sshd"}
"related_stacks":["0x66af01fa1ab9a942"]
"stack_type":"kernel","context":{"event":"profile-997","comm":"sshd"}
"related_stacks":["0xab78b63976e0bf0d"]
OUT
	dtrace2spaa -k ustack,stack,execname "$X/ustack-stack-execname.txt" | cmp - "$T/d.spaa"
}

@test "@[execname, ustack(), pid]: keys before and after the stack; --keys in tuple order" {
	dtrace2spaa "$X/keys-before-after.txt" > "$T/d.spaa"
	spaa-fold "$T/d.spaa" > "$T/out"
	assert_file_eq "$T/out" <<'OUT'
bash;a.out`main 9
sshd;sshd`main;libc.so.1`__pollsys 4
OUT
	run grep -o '"stack_type":"[a-z]*","context":{[^}]*}\|"context":{[^}]*}' "$T/d.spaa"
	assert_output - <<'OUT'
"context":{"event":"profile-997","comm":"sshd","x_key2":501}
"context":{"event":"profile-997","comm":"bash","x_key2":7}
OUT
	dtrace2spaa -k execname,ustack,pid "$X/keys-before-after.txt" > "$T/d.spaa"
	run grep -o -e '"stack_type":"[a-z]*","context":{[^}]*}' -e '^{"type":"thread".*' "$T/d.spaa"
	assert_output - <<'OUT'
{"type":"thread","pid":501,"tid":501,"comm":"sshd"}
{"type":"thread","pid":7,"tid":7,"comm":"bash"}
"stack_type":"user","context":{"event":"profile-997","pid":501,"tid":501,"comm":"sshd"}
"stack_type":"user","context":{"event":"profile-997","pid":7,"tid":7,"comm":"bash"}
OUT
}

@test "--keys not in the printed order: error naming the entry's line" {
	run dtrace2spaa -k ustack,execname,pid "$X/keys-before-after.txt"
	assert_failure 1
	assert_output "dtrace2spaa: $X/keys-before-after.txt:10: --keys: key 'execname' is printed after 0 stack(s), not 1: list the keys in the order of the aggregation's key tuple"
	run dtrace2spaa -k pid,ustack,execname "$X/keys-before-after.txt"
	assert_failure 1
	assert_output "dtrace2spaa: $X/keys-before-after.txt:7: --keys: key 'pid' is not a number: 'sshd' (list the keys in the order of the aggregation's key tuple)"
}

@test "a key between two stacks; keys and count on lines of their own; --keys decides a lone number" {
	# @[ustack(), execname, stack()]: the key line comes right before the kernel frames
	printf '\n              a.out`main+0x10\n  bash                                               \n              genunix`read+0x1\n                5\n' > "$T/in.txt"
	run sh -c "dtrace2spaa '$T/in.txt' | grep -o '\"stack_type\":\"[a-z]*\",\"context\":{[^}]*}'"
	assert_output - <<'OUT'
"stack_type":"user","context":{"event":"profile-997","comm":"bash"}
"stack_type":"kernel","context":{"event":"profile-997","comm":"bash"}
OUT
	# one key per line, the count alone: a lone number at most 8 blanks in after a key is a key
	printf '\n              a.out`main+0x10\n  bash\n     42\n                5\n\n              a.out`foo+0x1\n  sh\n                6\n' > "$T/in.txt"
	run sh -c "dtrace2spaa '$T/in.txt' | grep -o '\"context\":{[^}]*},\"weights\":[^]]*]'"
	assert_output - <<'OUT'
"context":{"event":"profile-997","comm":"bash","x_key2":42},"weights":[{"metric":"samples","value":5}]
"context":{"event":"profile-997","comm":"sh"},"weights":[{"metric":"samples","value":6}]
OUT
	# right after the frames a lone number is the count, unless --keys expects a key there
	printf '\n              a.out`main+0x10\n     42\n                5\n' > "$T/in.txt"
	run sh -c "dtrace2spaa -k ustack,pid '$T/in.txt' | grep -o '\"context\":{[^}]*},\"weights\":[^]]*]'"
	assert_output '"context":{"event":"profile-997","pid":42,"tid":42},"weights":[{"metric":"samples","value":5}]'
}

@test "keys after a stack without a count: error naming the blank line and the entry" {
	printf '\n              a.out`main+0x10\n  bash\n\n              a.out`foo+0x1\n                6\n' > "$T/in.txt"
	run dtrace2spaa "$T/in.txt"
	assert_failure 1
	assert_output "dtrace2spaa: $T/in.txt:4: blank line after the keys of the entry at line 2: its count is missing"
	printf '\n              a.out`main+0x10\n  bash\n' > "$T/in.txt"
	run dtrace2spaa "$T/in.txt"
	assert_failure 1
	assert_output "dtrace2spaa: $T/in.txt:2: truncated entry: stack without a count at the end of the input"
}

@test "an inline chain a->b: one frame per depth and address; the last entry without a blank line after it counts" {
	printf '\n  java\n              libjvm.so`a->b+0x10\n              libjvm.so`c->d->b+0x20\n              libc.so`main+0x4\n               7\n\n  java\n              libjvm.so`x+0x1\n               3\n' > "$T/j.txt"
	dtrace2spaa "$T/j.txt" | spaa-validate -q --strict -
	run sh -c 'dtrace2spaa "$1" | spaa-fold' sh "$T/j.txt"
	assert_output 'java;libc.so`main;libjvm.so`c;d_[i];b_[i];libjvm.so`a;b_[i] 7
java;libjvm.so`x 3'
	run sh -c 'dtrace2spaa "$1" | grep -o "\"func\":\"b\",[^}]*\"inline_depth\":[0-9]"' sh "$T/j.txt"
	assert_output '"func":"b","dso":1,"symoff":"0x10","inlined":true,"inline_depth":1
"func":"b","dso":1,"symoff":"0x20","inlined":true,"inline_depth":2'
}

@test "identical stacks under different scalar keys are two stacks with two content ids" {
	printf '\n  foo\n              libc.so.1`_write+0x8\n  1\n              7\n\n  foo\n              libc.so.1`_write+0x8\n  2\n              3\n\n' > "$T/keys.txt"
	dtrace2spaa -k execname,ustack,x "$T/keys.txt" > "$T/k.spaa"
	spaa-validate -q --strict "$T/k.spaa"
	run sh -c 'grep -o "\"context\":{[^}]*}" "$1"' sh "$T/k.spaa"
	assert_output '"context":{"event":"profile-997","comm":"foo","x_x":1}
"context":{"event":"profile-997","comm":"foo","x_x":2}'
	run sh -c 'grep "\"type\":\"stack\"" "$1" | grep -o "\"id\":\"0x[0-9a-f]*\"" | sort -u | wc -l' sh "$T/k.spaa"
	assert_output 2
	spaa-cat --merge "$T/k.spaa" | spaa-validate -q --strict -
}

@test "the last entry without a blank line after it, frames indented less than DTrace's 14 or not at all" {
	# frames 4 blanks in: the lone count and the last entry are read
	printf '    libc.so.1`foo+0x1\n    a.out`main+0x2\n      5\n\n    libc.so.1`bar+0x1\n    a.out`main+0x2\n      7\n' > "$T/in.txt"
	run sh -c "dtrace2spaa '$T/in.txt' 2>&1 | spaa-fold"
	assert_output - <<'OUT'
a.out`main;libc.so.1`bar 7
a.out`main;libc.so.1`foo 5
OUT
	# not indented at all: module`function and 0x... lines are frames, a
	# line of words ending with a number holds the keys and the count
	printf 'libc.so.1`foo+0x1\n0x401000\nbash 5\n\nlibc.so.1`bar+0x1\n3\n' > "$T/in.txt"
	run sh -c "dtrace2spaa '$T/in.txt' 2>&1 | spaa-fold"
	assert_output - <<'OUT'
bash;0x401000;libc.so.1`foo 5
libc.so.1`bar 3
OUT
}

@test "tab-indented entries (a tab counts to the next multiple of 8 columns)" {
	printf '\n  bash\n\tlibc.so.1`__read+0x15\n\ta.out`main+0x10\n\t\t12\n\n\tlibc.so.1`__read+0x15\n\t\t3\n' > "$T/in.txt"
	run sh -c "dtrace2spaa '$T/in.txt' 2>&1 | spaa-fold"
	assert_output - <<'OUT'
bash;a.out`main;libc.so.1`__read 12
libc.so.1`__read 3
OUT
}

@test "the example cut at every byte: an error naming the file, or the whole profile, but between whole entries (issue 28)" {
	f=$EX/dtrace-stacks.txt
	# the ends of its whole entries: the file may end there
	ends=" $(awk '/^ +[0-9]+$/ { print b + length($0) + 1 } { b += length($0) + 1 }' "$f" | tr '\n' ' ')"
	cut_may_end() { [[ "$ends" == *" $1 "* || "$ends" == *" $(($1 - 1)) "* ]]; }
	cut_sweep "$f" "$(every_byte "$f")" dtrace2spaa
	head -c 272 "$f" > "$T/cut"
	run dtrace2spaa "$T/cut"
	assert_failure 1
	assert_output "dtrace2spaa: $T/cut:13: keys without a stack or count at the end of the input: the file is cut short"
	head -c 162 "$f" > "$T/cut"
	run dtrace2spaa "$T/cut"
	assert_failure 1
	assert_output "dtrace2spaa: $T/cut:7: the last line has no newline: the file is cut short (a whole file ends with one: add it)"
}
