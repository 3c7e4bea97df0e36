#!/usr/bin/env bats
# bpftrace2spaa on real bpftrace 0.17 captures of tests/data/bpftrace/burn.c
# (tests/data/bpftrace/capture.sh made them), and on captures made here when
# bpftrace runs (as root).  The expected figures come from bpftrace's own
# text, read by the awk below, not by the converter's code.
load common

X=$D/bpftrace

# bt_fold FILE MAP KSTACK: folds the entries of map MAP (e.g. "@") of a
# bpftrace printout as spaa-fold --raw does: "comm;root;...;leaf COUNT",
# the user stack below the kernel stack (KSTACK: the position, 1 or 2, of
# the kernel stack among the entry's stacks; 0 none), "+off" dropped, a
# perf-mode frame named by its symbol (or "0xADDR" when it has none), the
# comm the first key after the stacks (an empty stack printed as nothing,
# ", , comm]"); stacks summed, sorted.
bt_fold() {
	awk -v map="$2" -v kpos="$3" '
		function fname(f,   w, n) {
			sub(/^[ \t]+/, "", f); sub(/[ \t]+$/, "", f)
			n = split(f, w, " ")
			if (n >= 2 && w[1] ~ /^[0-9a-f]+$/) {
				if (w[2] == "[unknown]" || w[2] ~ /^0x/) return "0x" w[1]
				f = w[2]
			}
			if (f !~ /^0x/) sub(/\+[0-9]+$/, "", f)
			return f
		}
		function emit(rest,   comm, keys, line, s, i, v) {
			v = rest; sub(/.*\]: /, "", v)
			sub(/\]: .*/, "", rest); sub(/^(, )+/, "", rest); sub(/^\]/, "", rest)
			comm = rest; sub(/, .*/, "", comm)
			line = comm
			for (s = 1; s <= ns; s++) if (s != kpos) for (i = nf[s]; i >= 1; i--) line = line (line == "" ? "" : ";") fr[s, i]
			if (kpos) for (i = nf[kpos]; i >= 1; i--) line = line (line == "" ? "" : ";") fr[kpos, i]
			# an entry of empty stacks (a sample bpftrace took with
			# none): the placeholder frame, which spaa-fold --raw shows
			if (nf[1] + nf[2] == 0) line = line (line == "" ? "" : ";") "[unknown]"
			sum[line] += v
			inent = 0
		}
		index($0, map "[") == 1 {
			inent = 1; ns = 1; nf[1] = 0; nf[2] = 0
			if ($0 ~ /\[, $/) { ns = 2 }
			else if ($0 ~ /\]: /) { ns = 0; emit(substr($0, length(map) + 2)) }
			next
		}
		/^@/ { inent = 0; next }
		!inent { next }
		/^[ \t]/ { fr[ns, ++nf[ns]] = fname($0); next }
		/^, ?$/ { ns++; next }
		/\]: / { emit($0) }
		END { for (l in sum) print l, sum[l] }
	' "$1" | LC_ALL=C sort
}

# The sum of the values of map MAP's entries.
bt_total() {
	awk -v map="$2" '
		index($0, map "[") == 1 { inent = 1 }
		/^@/ && index($0, map "[") != 1 { inent = 0 }
		inent && /\]: -?[0-9]+$/ { t += $NF; inent = 0 }
		END { print t + 0 }
	' "$1"
}

@test "--help and --version" {
	run bpftrace2spaa --help
	assert_success
	assert_line --index 0 'Usage: bpftrace2spaa [OPTION]... [FILE]...'
	run bpftrace2spaa --version
	assert_success
	assert_output --regexp '^bpftrace2spaa \(spaa-tools\) '
}

@test "real @[ustack, comm, pid]: every stack's count is bpftrace's, the total too" {
	bpftrace2spaa -F 999 "$X/ustack-comm-pid.txt" > "$T/o.spaa"
	run spaa-validate --strict "$T/o.spaa"
	assert_success
	spaa-fold --raw "$T/o.spaa" | LC_ALL=C sort > "$T/got"
	bt_fold "$X/ustack-comm-pid.txt" @ 0 > "$T/want"
	[ -s "$T/want" ]
	cmp "$T/got" "$T/want"
	run spaa-stat "$T/o.spaa"
	assert_output --partial "$(bt_total "$X/ustack-comm-pid.txt" @)"
	# the exact figures of this capture: 23 entries, 793 samples
	[ "$(grep -c '^@\[' "$X/ustack-comm-pid.txt")" = 23 ]
	[ "$(bt_total "$X/ustack-comm-pid.txt" @)" = 793 ]
	[ "$(jq -s '[.[] | select(.type == "stack") | .weights[0].value] | add' "$T/o.spaa")" = 793 ]
}

@test "real @[ustack, comm, pid]: header, frames, thread, context" {
	bpftrace2spaa -F 999 "$X/ustack-comm-pid.txt" > "$T/o.spaa"
	run head -1 "$T/o.spaa"
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"bpftrace","frame_order":"leaf_to_root","events":[{"name":"@","kind":"timer","sampling":{"mode":"frequency","primary_metric":"samples","frequency_hz":999}}],"source":{"tool":"bpftrace"},"stack_id_mode":"content_addressable"}'
	pid=$(sed -n 's/^, burn, \([0-9]*\)\]: .*/\1/p' "$X/ustack-comm-pid.txt" | head -1)
	run grep -x "{\"type\":\"thread\",\"pid\":$pid,\"tid\":$pid,\"comm\":\"burn\"}" "$T/o.spaa"
	assert_success
	# "middle+39": symoff in hex (a function is one frame: the offset of
	# its first line is kept)
	run grep -x '{"type":"frame","id":[0-9]*,"func":"middle","dso":1,"symoff":"0x27","kind":"user"}' "$T/o.spaa"
	assert_success
	run grep -x '{"type":"dso","id":1,"name":"\[unknown\]","is_kernel":false}' "$T/o.spaa"
	assert_success
	run jq -c 'select(.type == "stack") | .context' "$T/o.spaa"
	assert_line "{\"event\":\"@\",\"pid\":$pid,\"tid\":$pid,\"comm\":\"burn\"}"
	run jq -r 'select(.type == "stack") | .stack_type' "$T/o.spaa"
	refute_line --regexp '^(null|kernel)$'
}

@test "real stripped binary: bare addresses are frames with an ip, counts exact" {
	bpftrace2spaa "$X/stripped.txt" > "$T/o.spaa"
	run spaa-validate --strict "$T/o.spaa"
	assert_success
	cmp <(spaa-fold --raw "$T/o.spaa" | LC_ALL=C sort) <(bt_fold "$X/stripped.txt" @ 0)
	# every 0x frame line of the capture is one unresolved frame
	want=$(grep -o '^    0x[0-9a-f]*$' "$X/stripped.txt" | sort -u | wc -l)
	got=$(jq -r 'select(.type == "frame" and .func_resolved == false) | select(.ip == .func) | .ip' "$T/o.spaa" | sort -u | wc -l)
	[ "$want" -gt 0 ]
	[ "$got" = "$want" ]
	run spaa-fold --addrs "$T/o.spaa"
	assert_line --regexp '^burnstrip;__libc_start_call_main;\[unknown <[0-9a-f]+>\];getppid [0-9]+$'
}

@test "real @[kstack, ustack, comm]: one stack per entry, kernel frames first, counts exact" {
	bpftrace2spaa -F 999 "$X/kstack-ustack.txt" > "$T/o.spaa"
	run spaa-validate --strict "$T/o.spaa"
	assert_success
	cmp <(spaa-fold --raw "$T/o.spaa" | LC_ALL=C sort) <(bt_fold "$X/kstack-ustack.txt" @ 1)
	[ "$(jq -s '[.[] | select(.type == "stack") | .weights[0].value] | add' "$T/o.spaa")" = \
		"$(bt_total "$X/kstack-ustack.txt" @)" ]
	# kernel frames have kind kernel and the kernel's dso; each stack is
	# its kernel frames, then its user frames
	run grep -x '{"type":"dso","id":[0-9]*,"name":"\[kernel.kallsyms\]","is_kernel":true}' "$T/o.spaa"
	assert_success
	run grep -x '{"type":"frame","id":[0-9]*,"func":"entry_SYSCALL_64_after_hwframe","dso":[0-9]*,"symoff":"0x76","kind":"kernel"}' "$T/o.spaa"
	assert_success
	jq -s -r '(map(select(.type == "frame") | {key: (.id | tostring), value: .kind}) | from_entries) as $k
		| .[] | select(.type == "stack") | [.frames[] | $k[tostring]] | join(",")' "$T/o.spaa" > "$T/kinds"
	run grep -v -x -E '(kernel,)*kernel(,user)*|(user,)*user' "$T/kinds"
	assert_output ''
	run grep -c -E '^kernel.*,user' "$T/kinds"
	refute_output 0
	# stacks of both kinds are unified (no stack_type), user-only ones "user"
	run jq -r 'select(.type == "stack") | .stack_type // "unified"' "$T/o.spaa"
	refute_line kernel
	assert_line user
	assert_line unified
}

@test "an empty stack beside a full one (a stack-map collision): the entry keeps its comm" {
	# bpftrace prints a stack it could not record (bpf_get_stackid failed) as
	# nothing: "@[KSTACK, , comm]" or "@[, USTACK, comm]"
	printf '@[\n    do_syscall_64+1\n    asm_sysvec_apic_timer_interrupt+2\n, , burn]: 3\n@[, \n    main+3\n, burn]: 2\n' > "$T/in.txt"
	bpftrace2spaa -F 999 "$T/in.txt" > "$T/o.spaa"
	spaa-validate --strict -q "$T/o.spaa"
	run spaa-fold --raw "$T/o.spaa"
	assert_output - <<'OUT'
burn;asm_sysvec_apic_timer_interrupt;do_syscall_64 3
burn;main 2
OUT
	run bt_fold "$T/in.txt" @ 1
	assert_output "$(spaa-fold --raw "$T/o.spaa" | LC_ALL=C sort)"
}

@test "real perf mode: ip, symoff and the dso of each frame, counts exact" {
	bpftrace2spaa --map=@ -F 999 "$X/perf.txt" > "$T/o.spaa"
	run spaa-validate --strict "$T/o.spaa"
	assert_success
	cmp <(spaa-fold --raw --no-comm "$T/o.spaa" | LC_ALL=C sort) \
		<(bt_fold "$X/perf.txt" @ 1 | sed 's/^burn;//; s/^burn / /' | LC_ALL=C sort)
	line=$(grep -m1 -P '^\t[0-9a-f]+ main\+166 \(' "$X/perf.txt")
	addr=$(printf '%s\n' "$line" | awk '{ print $1 }')
	dso=$(printf '%s\n' "$line" | sed 's/.*(\(.*\))$/\1/')
	dsoid=$(jq -r --arg n "$dso" 'select(.type == "dso" and .name == $n) | .id' "$T/o.spaa")
	run grep -x "{\"type\":\"frame\",\"id\":[0-9]*,\"func\":\"main\",\"dso\":$dsoid,\"ip\":\"0x$addr\",\"symoff\":\"0xa6\",\"kind\":\"user\"}" "$T/o.spaa"
	assert_success
	kaddr=$(grep -m1 -P '^\tffffffff[0-9a-f]+ do_syscall_64\+113$' "$X/perf.txt" | awk '{ print $1 }')
	run grep -x "{\"type\":\"frame\",\"id\":[0-9]*,\"func\":\"do_syscall_64\",\"dso\":1,\"ip\":\"0x$kaddr\",\"symoff\":\"0x71\",\"kind\":\"kernel\"}" "$T/o.spaa"
	assert_success
	# the tid key (named by the first number: pid)
	tid=$(sed -n 's/^, burn, \([0-9]*\)\]: .*/\1/p' "$X/perf.txt" | head -1)
	run grep -x "{\"type\":\"thread\",\"pid\":$tid,\"tid\":$tid,\"comm\":\"burn\"}" "$T/o.spaa"
	assert_success
}

@test "real perf mode, stripped: [unknown] frames are addresses; --keys names cpu and tid" {
	bpftrace2spaa "$X/stripped-perf.txt" > "$T/o.spaa"
	run spaa-validate --strict "$T/o.spaa"
	assert_success
	cmp <(spaa-fold --raw --no-comm "$T/o.spaa" | LC_ALL=C sort) \
		<(bt_fold "$X/stripped-perf.txt" @ 2 | sed -E 's/^[0-9]+;//' | LC_ALL=C sort)
	addr=$(grep -m1 -P '^\t[0-9a-f]+ 0x[0-9a-f]+ \(\[unknown\]\)$' "$X/stripped-perf.txt" | awk '{ print $1 }')
	run grep -x "{\"type\":\"frame\",\"id\":[0-9]*,\"func\":\"0x$addr\",\"func_resolved\":false,\"dso\":[0-9]*,\"ip\":\"0x$addr\",\"kind\":\"user\"}" "$T/o.spaa"
	assert_success
	# @depth[ustack(2), kstack(3), cpu]: cpu in the context, no thread
	bpftrace2spaa --map=@depth -k ustack,kstack,cpu "$X/perf.txt" > "$T/d.spaa"
	run spaa-validate --strict "$T/d.spaa"
	assert_success
	run grep -c '"type":"thread"' "$T/d.spaa"
	assert_output 0
	run jq -r 'select(.type == "stack") | .context.cpu' "$T/d.spaa"
	refute_line null
	[ "$(jq -s '[.[] | select(.type == "stack") | .weights[0].value] | add' "$T/d.spaa")" = \
		"$(bt_total "$X/perf.txt" @depth)" ]
}

@test "real sum() and count() maps: one event each, metrics named by -m, values exact" {
	bpftrace2spaa -m @bytes=bytes "$X/sum.txt" > "$T/o.spaa"
	run spaa-validate --strict "$T/o.spaa"
	assert_success
	run head -1 "$T/o.spaa"
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"bpftrace","frame_order":"leaf_to_root","events":[{"name":"@bytes","kind":"probe","sampling":{"mode":"event","primary_metric":"bytes"}},{"name":"@calls","kind":"probe","sampling":{"mode":"event","primary_metric":"count"}}],"source":{"tool":"bpftrace"},"stack_id_mode":"content_addressable"}'
	cmp <(spaa-fold --raw --event=@bytes "$T/o.spaa" | LC_ALL=C sort) <(bt_fold "$X/sum.txt" @bytes 0)
	cmp <(spaa-fold --raw --event=@calls "$T/o.spaa" | LC_ALL=C sort) <(bt_fold "$X/sum.txt" @calls 0)
	# the figures of this capture: 100 and 4000 bytes a call, the calls
	# from main+176 and main+237 (one function: one folded line)
	small=$(grep -A4 '^@calls' "$X/sum.txt" | awk '/main\+176/ { m = 1 } m && /\]: / { print $2; exit }')
	big=$(grep -A4 '^@calls' "$X/sum.txt" | awk '/main\+237/ { m = 1 } m && /\]: / { print $2; exit }')
	[ "$small" -gt 0 ] && [ "$big" -gt 0 ]
	run spaa-fold --raw --event=@bytes "$T/o.spaa"
	assert_output "burn;__libc_start_call_main;main;__GI___write $((small * 100 + big * 4000))"
}

@test "real hist(): refused with its line, unless --map leaves it out" {
	run bpftrace2spaa "$X/hist.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $X/hist.txt:15: map @sizes holds a histogram (hist() or lhist()), not counts: bpftrace2spaa reads maps of count() and sum(); leave it out with --map naming the others"
	run bpftrace2spaa --map=@calls "$X/hist.txt"
	assert_success
	run bpftrace2spaa --map=@calls -o "$T/o.spaa" "$X/hist.txt"
	assert_success
	assert_output ''
	cmp <(spaa-fold --raw "$T/o.spaa" | LC_ALL=C sort) <(bt_fold "$X/hist.txt" @calls 0)
	# ustack(2) of "__GI___write+0" and "main+...": user frames, by their names
	run jq -r 'select(.type == "frame") | .kind' "$T/o.spaa"
	assert_output - <<<$'user\nuser'
	run bpftrace2spaa "$X/write.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $X/write.txt:24: map @sizes holds a histogram (hist() or lhist()), not counts: bpftrace2spaa reads maps of count() and sum(); leave it out with --map naming the others"
}

@test "real lhist(), stats(), maps without a stack, empty kstacks" {
	run bpftrace2spaa "$X/mixed.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $X/mixed.txt:$(grep -n '^@l: $' "$X/mixed.txt" | cut -d: -f1): map @l holds a histogram (hist() or lhist()), not counts: bpftrace2spaa reads maps of count() and sum(); leave it out with --map naming the others"
	run bpftrace2spaa --map=@s "$X/mixed.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $X/mixed.txt:$(grep -n '^@s\[' "$X/mixed.txt" | cut -d: -f1): map @s holds stats(), not counts: bpftrace2spaa reads maps of count() and sum(); leave it out with --map naming the others"
	run bpftrace2spaa --map=@n --map=@c "$X/mixed.txt"
	assert_failure 1
	assert_output - <<OUT
bpftrace2spaa: $X/mixed.txt: warning: map @c has no stack key: its 2 entries are left out
bpftrace2spaa: $X/mixed.txt: warning: map @n has no stack key: its 1 entry is left out
bpftrace2spaa: $X/mixed.txt: no stacks found: 5 maps, no entry with a stack key (kstack, ustack) (no profile written)
OUT
	# @k[kstack(2)]: the samples in user mode have an empty kstack ("@k[]: N"),
	# one placeholder frame that spaa-fold leaves out
	bpftrace2spaa --map=@k --map=@c -q "$X/mixed.txt" > "$T/o.spaa"
	run spaa-validate --strict "$T/o.spaa"
	assert_success
	empty=$(sed -n 's/^@k\[\]: //p' "$X/mixed.txt")
	[ "$empty" -gt 0 ]
	run jq -c 'select(.type == "frame" and .x_perf_no_callchain)' "$T/o.spaa"
	assert_output --regexp '^\{"type":"frame","id":[0-9]+,"func":"\[unknown\]","dso":[0-9]+,"kind":"unknown","x_perf_no_callchain":true\}$'
	[ "$(jq -s '[.[] | select(.type == "stack") | .weights[0].value] | add' "$T/o.spaa")" = "$(bt_total "$X/mixed.txt" @k)" ]
	run jq -r 'select(.type == "stack") | .stack_type // "unified"' "$T/o.spaa"
	assert_line kernel
	refute_line user
	# the placeholder left out (and, the map having no comm, nothing else)
	run spaa-fold "$T/o.spaa"
	refute_output --partial unknown
	assert_line " $empty"
	[ "$(spaa-fold "$T/o.spaa" | awk '{ t += $NF } END { print t }')" = "$(bt_total "$X/mixed.txt" @k)" ]
}

@test "live: bpftrace records burn.c here; the counts per stack are its own" {
	command -v bpftrace >/dev/null || skip "bpftrace not installed"
	[ "$(id -u)" = 0 ] || skip "bpftrace needs root"
	command -v cc >/dev/null || skip "no C compiler"
	sh "$X/capture.sh" "$T" ustack-comm-pid.txt kstack-ustack.txt perf.txt || true
	for f in ustack-comm-pid.txt kstack-ustack.txt perf.txt; do
		grep -q '^@' "$T/$f" 2>/dev/null || skip "bpftrace could not record here ($f)"
	done
	for f in ustack-comm-pid.txt kstack-ustack.txt; do
		k=0; [ $f = kstack-ustack.txt ] && k=1
		bpftrace2spaa -F 999 "$T/$f" > "$T/o.spaa"
		spaa-validate --strict -q "$T/o.spaa"
		diff <(spaa-fold --raw "$T/o.spaa" | LC_ALL=C sort) <(bt_fold "$T/$f" @ $k)
	done
	bpftrace2spaa --map=@ "$T/perf.txt" > "$T/o.spaa"
	spaa-validate --strict -q "$T/o.spaa"
	diff <(spaa-fold --raw "$T/o.spaa" | LC_ALL=C sort) <(bt_fold "$T/perf.txt" @ 1)
	# the functions of burn.c, named by bpftrace's symbols
	run spaa-fold "$T/o.spaa"
	assert_output --partial 'main;middle;leaf_a'
}

@test "--keys: a pid that is not a number, a count that does not match, a stack named as text" {
	printf '@[\n    main+1\n, burn, 12]: 3\n' > "$T/in.txt"
	run bpftrace2spaa -k ustack,pid,comm "$T/in.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $T/in.txt:3: map @: key 2 (pid) is not a number: 'burn' (name the keys in the order of the map's key with --keys)"
	run bpftrace2spaa -k ustack,comm "$T/in.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $T/in.txt:1: map @: --keys names 2 keys, the entry has 3"
	run bpftrace2spaa -k comm,tid,cpu "$T/in.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $T/in.txt:1: map @: --keys says key 1 is comm, but it is a stack"
	run bpftrace2spaa -k @=ustack,comm,kstack "$T/in.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $T/in.txt:1: map @: --keys says key 3 is kstack, but it is '12'"
	bpftrace2spaa -k @other=x -k ustack,comm,tid "$T/in.txt" > "$T/o.spaa"
	run jq -c 'select(.type == "stack") | .context' "$T/o.spaa"
	assert_output '{"event":"@","tid":12,"comm":"burn"}'
	bpftrace2spaa -k ustack,comm,slot "$T/in.txt" > "$T/o.spaa"
	run jq -c 'select(.type == "stack") | .context' "$T/o.spaa"
	assert_output '{"event":"@","comm":"burn","x_slot":12}'
}

@test "guessed keys: the first text is the comm, the first number the pid, others x_keyN" {
	printf '@x[7, burn, \n    main+1\n, tag, 9]: 3\n' > "$T/in.txt"
	bpftrace2spaa "$T/in.txt" > "$T/o.spaa"
	run jq -c 'select(.type == "stack") | .context' "$T/o.spaa"
	assert_output '{"event":"@x","pid":7,"tid":7,"comm":"burn","x_key4":"tag","x_key5":9}'
	run spaa-validate --strict "$T/o.spaa"
	assert_success
}

@test "bad input: truncated entry, a value that is not a number, text after a stack" {
	printf 'Attaching 1 probe...\n\n@[\n    main+1\n' > "$T/in.txt"
	run bpftrace2spaa "$T/in.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $T/in.txt:3: truncated entry of map @: no ']: VALUE' at the end of the input"
	printf '@[\n    main+1\n]: abc\n' > "$T/in.txt"
	run bpftrace2spaa "$T/in.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $T/in.txt:3: map @: the value 'abc' is not a number: bpftrace2spaa reads maps of count() and sum()"
	printf '@[\n    main+1\nxyz\n' > "$T/in.txt"
	run bpftrace2spaa "$T/in.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $T/in.txt:3: map @: expected a frame, ', ' or ']: VALUE' in the entry begun at line 1"
	printf '@[\n    main+1\n]: 99999999999999999999\n' > "$T/in.txt"
	run bpftrace2spaa "$T/in.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $T/in.txt:3: map @: value out of range: 99999999999999999999"
	printf '{"type": "attached_probes", "data": {"probes": 2}}\n' > "$T/in.txt"
	run bpftrace2spaa "$T/in.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $T/in.txt:1: this is bpftrace's JSON output (-f json), not its text: run bpftrace without -f json"
	printf '@[\n    main+1\n]: 18446744073709551615\n@[\n    main+1\n]: 1\n' > "$T/in.txt"
	run bpftrace2spaa "$T/in.txt"
	assert_failure 1
	assert_output --partial 'overflow'
}

@test "empty input, no map, no stack; -o, -z, stdin, compressed input" {
	: > "$T/empty"
	run bpftrace2spaa "$T/empty"
	assert_failure 1
	assert_output "bpftrace2spaa: $T/empty: empty input: no profile written"
	printf 'Attaching 1 probe...\nhello\n' > "$T/text"
	run bpftrace2spaa "$T/text"
	assert_failure 1
	assert_output "bpftrace2spaa: $T/text: no stacks found: 2 lines, no bpftrace map (@name[...]: value) (no profile written)"
	run bpftrace2spaa --map=@nope "$X/sum.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $X/sum.txt: --map @nope: no such map in the input"
	run bpftrace2spaa --map=bytes "$X/sum.txt"
	assert_failure 2
	assert_line --index 0 "bpftrace2spaa: --map: 'bytes': a map name starts with '@' (\"@\", \"@bytes\")"
	run bpftrace2spaa -m @bytes "$X/sum.txt"
	assert_failure 2
	assert_line --index 0 "bpftrace2spaa: --metric: '@bytes': write @MAP=VALUE for one map, or VALUE for all"
	bpftrace2spaa "$X/sum.txt" > "$T/a.spaa"
	gzip -c "$X/sum.txt" > "$T/s.gz"
	zstd -q -c "$X/sum.txt" > "$T/s.zst"
	bpftrace2spaa < "$T/s.gz" > "$T/b.spaa"
	bpftrace2spaa -z -o "$T/c.spaa.zst" "$T/s.zst"
	cmp "$T/a.spaa" "$T/b.spaa"
	cmp "$T/a.spaa" <(zstd -dc "$T/c.spaa.zst")
}

@test "a NUL byte in a map entry: said what and where, not read as a cut name" {
	local F=$BATS_TEST_DIRNAME/../fuzz/crashes/bpftrace2spaa
	run bpftrace2spaa "$F/nul-in-frame.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $F/nul-in-frame.txt:5: a NUL byte in a map entry's line (column 8): not bpftrace's text output"
	run bpftrace2spaa "$F/nul-in-value-line.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $F/nul-in-value-line.txt:3: a NUL byte in a map entry's line (column 2): not bpftrace's text output"
	printf '@x[a\000b]: 3\n' > "$T/key.txt"
	run bpftrace2spaa "$T/key.txt"
	assert_failure 1
	assert_output "bpftrace2spaa: $T/key.txt:1: a NUL byte in a map line (column 5): not bpftrace's text output"
}

@test "the examples cut at every byte: an error naming the file, or the whole profile, or (at a line's end) the entries before (issue 28)" {
	# bpftrace prints no count of entries: a cut between two whole ones
	# cannot be seen
	cut_may_end() { at_line_end; }
	sweep() { local f=$1; shift; cut_sweep "$f" "$(every_byte "$f")" bpftrace2spaa "$@"; }
	sweep "$EX/bpftrace-write.txt" --map=@bytes -m bytes
	head -n 40 "$EX/bpftrace-stacks.txt" > "$T/s.txt"
	sweep "$T/s.txt" -F 999
	head -c 109 "$EX/bpftrace-write.txt" > "$T/cut"
	run bpftrace2spaa --map=@bytes -m bytes "$T/cut"
	assert_failure 1
	assert_output "bpftrace2spaa: $T/cut:8: the last line has no newline: the file is cut short (a whole file ends with one: add it)"
}
