#!/usr/bin/env bats
load common

H=$D/heaptrack

# The nonzero values of heaptrack_print's flame graph file for one cost
# type, sorted (one line per allocation site).
print_values() { # FILE
	awk '{ print $NF }' "$1" | grep -v '^0$' | LC_ALL=C sort -n
}
# The same metric from the conversion, one value per stack.
spaa_values() { # FILE METRIC
	heaptrack2spaa "$1" | jq -r --arg m "$2" 'select(.type == "stack") | .weights[] | select(.metric == $m) | .value' |
		grep -v '^0$' | LC_ALL=C sort -n
}
cost_metric() { # heaptrack_print's cost type -> the SPAA metric
	case $1 in allocations) echo alloc_count ;; temporary) echo temporary_count ;;
		leaked) echo live_bytes ;; peak) echo peak_bytes ;; esac
}

@test "allocations, temporary allocations, leaked and peak bytes of every site are heaptrack_print's" {
	local t
	for t in allocations temporary leaked peak; do
		print_values "$H/heaptrack_print-$t.txt" > "$T/want"
		spaa_values "$H/heap.heaptrack.zst" "$(cost_metric $t)" > "$T/got"
		[ -s "$T/want" ]
		run diff "$T/want" "$T/got"
		assert_success
	done
}

@test "the profile: event malloc, metrics, frames with their lines, an inlined allocator, valid" {
	run sh -c "heaptrack2spaa '$H/heap.heaptrack.zst' | head -n 1"
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"heaptrack","frame_order":"leaf_to_root","events":[{"name":"malloc","kind":"allocation","sampling":{"mode":"event","primary_metric":"alloc_bytes"},"allocation_tracking":{"tracks_frees":true,"has_timestamps":false}}],"source":{"tool":"heaptrack","command":"./heap"},"stack_id_mode":"content_addressable"}'
	run sh -c "heaptrack2spaa '$H/heap.heaptrack.zst' | spaa-fold --inline"
	assert_output "[ld-linux-x86-64.so.2];_dl_init;call_init;call_init_[i];[libstdc++.so.6] 72704
_start;__libc_start_main_impl;__libc_start_call_main;main;alloc_live 1638400
_start;__libc_start_main_impl;__libc_start_call_main;main;alloc_temp 1638400
_start;__libc_start_main_impl;__libc_start_call_main;main;grow;grab_[i] 6553600"
	run sh -c "heaptrack2spaa '$H/heap.heaptrack.zst' | grep '\"func\":\"grab\"'"
	assert_output --partial '"srcline":"/tmp/ht/heap.c:28","inlined":true,"inline_depth":1'
	run sh -c "heaptrack2spaa -m peak_bytes '$H/heap.heaptrack.zst' | spaa-top -n 2"
	assert_output "malloc/peak_bytes, total 7.49MB
      flat  flat%   sum%        cum   cum%  function
    6.25MB 83.43% 83.43%     6.25MB 83.43%  grab (inline)
    1.17MB 15.64% 99.07%     1.17MB 15.64%  alloc_live"
	run sh -c "heaptrack2spaa '$H/heap.heaptrack.zst' | spaa-validate --strict"
	assert_success
	# every allocation is freed or live: alloc = free + live, site by site
	run sh -c "heaptrack2spaa '$H/heap.heaptrack.zst' | jq -r 'select(.type == \"stack\") | [.weights[] | {(.metric): .value}] | add | (.alloc_count == (.free_count // 0) + (.live_count // 0)) and (.alloc_bytes == (.free_bytes // 0) + (.live_bytes // 0))' | sort -u"
	assert_output true
	run sh -c "heaptrack2spaa -m free_count '$H/heap.heaptrack.zst' | spaa-top -n 2"
	assert_output "malloc/free_count, total 601
      flat  flat%   sum%        cum   cum%  function
       400 66.56% 66.56%        400 66.56%  grab (inline)
       200 33.28% 99.83%        200 33.28%  alloc_temp"
}

@test "a fresh heaptrack recording agrees with heaptrack_print" {
	command -v heaptrack >/dev/null || fail "heaptrack is not installed (.ci/deps installs it)"
	cd "$T"
	cc -O2 -g -o heap "$H/heap.c"
	heaptrack -o "$T/ht" ./heap > /dev/null 2>&1
	local t f
	f=$(ls "$T"/ht.*)
	# temporary allocations too: heaptrack_print also counts as temporary a
	# deallocation of the first site that comes right after another
	# deallocation (its "last allocation" is 0 then), and so does heaptrack2spaa
	for t in allocations temporary leaked peak; do
		heaptrack_print -f "$f" -F "$T/fg-$t.txt" --flamegraph-cost-type $t > /dev/null 2>&1
		print_values "$T/fg-$t.txt" > "$T/want"
		spaa_values "$f" "$(cost_metric $t)" > "$T/got"
		[ -s "$T/want" ]
		run diff "$T/want" "$T/got"
		assert_success
	done
}

@test "damaged and other inputs: one message each, exit 1; usage" {
	run heaptrack2spaa - < /dev/null
	assert_failure 1
	assert_output "heaptrack2spaa: -: empty input: no profile written"
	# another converter's input: named
	printf 'a;b 1\n' > "$T/f.txt"
	run heaptrack2spaa "$T/f.txt"
	assert_failure 1
	assert_output "heaptrack2spaa: $T/f.txt: this is folded stacks, not a heaptrack data file: run folded2spaa"
	printf 'hello world\n' > "$T/f.txt"
	run heaptrack2spaa "$T/f.txt"
	assert_failure 1
	assert_output "heaptrack2spaa: $T/f.txt:1: not a heaptrack record (a letter and a space)"
	printf 's 3 abc\n' > "$T/nov.txt"
	run heaptrack2spaa "$T/nov.txt"
	assert_failure 1
	assert_output "heaptrack2spaa: $T/nov.txt:1: no 'v' version line first: not a heaptrack data file (or one written before heaptrack 1.0; run heaptrack --analyze on the raw trace)"
	printf 'v 10400 3\ns 3 abc\ni 10 1\nt 1 0\na 10 1\n+ 1\n' > "$T/idx.txt"
	run heaptrack2spaa "$T/idx.txt"
	assert_failure 1
	assert_output "heaptrack2spaa: $T/idx.txt:6: allocation 1 is not defined (yet)"
	printf 'v 10400 3\ns 3 abc\ni 10 1\nt 1 0\na 10 1\n- 0\n+ 0\n# strings: 1\n# ips: 1\n' > "$T/free.txt"
	run heaptrack2spaa -o "$T/out.spaa" "$T/free.txt"
	assert_success
	assert_output "heaptrack2spaa: $T/free.txt:6: a deallocation with no live allocation of its kind: ignored (memory allocated before heaptrack attached?)"
	# a command line with newlines (sh -c, python -c) spans several lines
	printf 'v 10400 3\nX python3 -c \nd = 1\nimport os\ns 1 a\ni 10 1\nt 1 0\na 10 1\n+ 0\n# strings: 1\n# ips: 1\n' > "$T/x.txt"
	run sh -c "heaptrack2spaa '$T/x.txt' | head -n 1"
	assert_output --partial '"source":{"tool":"heaptrack","command":"python3 -c \nd = 1\nimport os"}'
	printf 'v 10400 3\nX ./a\n# strings: 0\n# ips: 0\n' > "$T/none.txt"
	run heaptrack2spaa "$T/none.txt"
	assert_failure 1
	assert_output "heaptrack2spaa: $T/none.txt: no stacks found: 4 lines, no allocation (no profile written)"
	run heaptrack2spaa -m nope "$H/heap.heaptrack.zst"
	assert_failure 2
	assert_line --index 0 "heaptrack2spaa: --metric: 'nope' is none of alloc_count, alloc_bytes, free_count, free_bytes, live_count, live_bytes, peak_bytes, temporary_count"
	run heaptrack2spaa --help
	assert_success
	assert_line --index 0 "Usage: heaptrack2spaa [OPTION]... [FILE]..."
}

@test "temporary allocations follow heaptrack's rule to the letter: info 0 freed after another free counts" {
	# + 1, - 1: temporary; + 0, + 1, - 1: temporary; - 0 right after a
	# deallocation: heaptrack_print counts it (its last allocation is 0 then)
	printf 'v 10400 3\ns 1 a\ni 10 1\nt 1 0\na 10 1\na 20 1\n+ 1\n- 1\n+ 0\n+ 1\n- 1\n- 0\n# strings: 1\n# ips: 1\n' > "$T/t.txt"
	run sh -c "heaptrack2spaa '$T/t.txt' | jq -c 'select(.type == \"stack\") | [.weights[] | select(.metric == \"temporary_count\" or .metric == \"alloc_count\") | .value]'"
	assert_output '[3,3]'
	# a record between the allocation and its deallocation does not matter
	printf 'v 10400 3\ns 1 a\ni 10 1\nt 1 0\na 10 1\n+ 0\nc 10\n- 0\n# strings: 1\n# ips: 1\n' > "$T/c.txt"
	run sh -c "heaptrack2spaa -m temporary_count '$T/c.txt' | spaa-fold"
	assert_output "[a] 1"
}

@test "deep traces: at most --max-frames frames per stack, said on stderr; time and memory follow the nodes" {
	# a chain of 20,000 trace nodes, each its own instruction pointer, an
	# allocation site at every depth (quadratic: 33 s and 829 MB once)
	python3 - "$T/deep" <<'PY'
import sys
n = 20000
with open(sys.argv[1], "w") as f:
    f.write("v 10400 3\ns 4 deep\n")
    f.writelines("i %x 1\n" % (0x1000 + k) for k in range(n))
    f.writelines("t %x %x\n" % (k + 1, k) for k in range(n))
    f.writelines("a 10 %x\n" % (k + 1) for k in range(n))
    f.writelines("+ %x\n" % k for k in range(n))
    f.write("# strings: 1\n# ips: %d\n" % n)
PY
	run bounded 256 10 heaptrack2spaa -o "$T/out.spaa" "$T/deep"
	assert_success
	assert_output "heaptrack2spaa: $T/deep: 19488 stacks of more than 512 frames: cut to the 512 innermost under [truncated] (--max-frames)"
	run sh -c "jq -c 'select(.type == \"stack\") | .frames | length' '$T/out.spaa' | sort -n | uniq -c | tail -n 1"
	assert_output "  19488 513"
	# (spaa-fold names address frames by their dso: the 512 innermost of
	# all the cut stacks are alike there)
	run sh -c "spaa-fold '$T/out.spaa' | grep '^\[truncated\];' | cut -d' ' -f2"
	assert_output 311808
	run heaptrack2spaa --max-frames=0 "$T/deep"
	assert_failure 2
	assert_line --index 0 "heaptrack2spaa: --max-frames: '0' is not from 1 to 1000000"
}

@test "live bytes beyond 64 bits: an error at the allocation, never a wrapped total" {
	local f=$BATS_TEST_DIRNAME/../fuzz/crashes/heaptrack2spaa/live-bytes-overflow.txt
	run heaptrack2spaa "$f"
	assert_failure 1
	assert_output "heaptrack2spaa: $f:8: the live bytes overflow 64 bits"
}

@test "a fresh recording where the first allocation is freed right after another free: temporary counts as heaptrack_print's" {
	command -v heaptrack >/dev/null || fail "heaptrack is not installed (.ci/deps installs it)"
	cd "$T"
	cat > t.c <<'C'
#include <stdlib.h>
#include <string.h>
int main(void)
{
	char *volatile p = malloc(100);
	char *volatile q = malloc(200);
	memset(p, 1, 100);
	memset(q, 2, 200);
	free(q);
	free(p);
	return 0;
}
C
	cc -O0 -g -o t t.c
	heaptrack -o "$T/ht" ./t > /dev/null 2>&1
	local f
	f=$(ls "$T"/ht.*)
	heaptrack_print -f "$f" -F "$T/fg.txt" --flamegraph-cost-type temporary > /dev/null 2>&1
	print_values "$T/fg.txt" > "$T/want"
	spaa_values "$f" temporary_count > "$T/got"
	[ -s "$T/want" ]
	run diff "$T/want" "$T/got"
	assert_success
	# the sum too: heaptrack_print's "temporary allocations" line
	local total
	total=$(heaptrack_print -f "$f" 2>/dev/null | sed -n 's/^temporary memory allocations: \([0-9]*\).*/\1/p')
	run sh -c "heaptrack2spaa -m temporary_count '$f' | spaa-top -n 0 | head -n 1"
	assert_output "malloc/temporary_count, total $total"
}

@test "a recording cut short: an error, never fewer allocations (issue 28)" {
	# heaptrack writes the counts of its strings and ips last; the example
	# cut at every 5th line, and at every byte of its last lines
	zstd -dc "$H/heap.heaptrack.zst" > "$T/h"
	heaptrack2spaa "$T/h" > "$T/full"
	tail -n 2 "$T/h" > "$T/tail"
	assert_file_eq "$T/tail" <<'END'
# strings: 25
# ips: 14
END
	n=$(wc -l < "$T/h")
	c=$(wc -c < "$T/h")
	cut_check() {
		rc=0
		heaptrack2spaa "$T/cut" > "$T/out" 2> "$T/err" || rc=$?
		if [ "$rc" = 0 ]; then cmp -s "$T/full" "$T/out" || fail "cut $1: another profile"
		else
			[ "$rc" = 1 ] && [ ! -s "$T/out" ] || fail "cut $1: exit $rc"
			grep -q "^heaptrack2spaa: $T/cut" "$T/err" || fail "cut $1: $(cat "$T/err")"
		fi
	}
	for ((i = 0; i < n; i += 5)); do head -n "$i" "$T/h" > "$T/cut"; cut_check "after line $i"; done
	for ((i = c - 80; i < c; i++)); do head -c "$i" "$T/h" > "$T/cut"; cut_check "after byte $i"; done
	head -n -2 "$T/h" > "$T/cut"
	run heaptrack2spaa "$T/cut"
	assert_failure 1
	assert_output "heaptrack2spaa: $T/cut:$((n - 2)): no '# strings:' line, which heaptrack writes last: the file is cut short"
	head -n 100 "$T/h" > "$T/cut"
	tail -n 2 "$T/h" >> "$T/cut"
	run heaptrack2spaa "$T/cut"
	assert_failure 1
	assert_output --regexp "^heaptrack2spaa: $T/cut:101: the file says 25 strings, it has [0-9]+: a file cut short\?\$"
}
