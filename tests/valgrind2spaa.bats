#!/usr/bin/env bats
# valgrind2spaa: massif, DHAT and callgrind output of programs built and
# run here, against valgrind's own reading of the same files (ms_print's
# heap tree, DHAT's totals on standard error, callgrind_annotate's costs);
# and speedscope's callgrind sample files against its importer's figures.
load common

setup_file() {
	command -v valgrind >/dev/null || return 0
	cd "$BATS_FILE_TMPDIR"
	cat > m.c <<'END'
#include <stdlib.h>
#include <string.h>
static void *keep[1000];
__attribute__((noinline)) void *leaf_alloc(size_t n) { void *p = malloc(n); memset(p, 1, n); return p; }
__attribute__((noinline)) void build(int k) { for (int i = 0; i < 100; i++) keep[k*100+i] = leaf_alloc(1000 + i); }
__attribute__((noinline)) void other(void) { for (int i = 0; i < 50; i++) free(leaf_alloc(20000)); }
int main(void) { for (int k = 0; k < 10; k++) { build(k); other(); } for (int i = 0; i < 500; i++) free(keep[i]); return 0; }
END
	cat > cpp.cc <<'END'
#include <map>
#include <string>
#include <vector>
std::map<int, std::string> g;
template <class T> struct Holder { std::vector<T> v; void fill(int n) { for (int i = 0; i < n; i++) v.push_back(T(i)); } };
int main() { Holder<double> h; h.fill(100000); for (int i = 0; i < 2000; i++) g[i] = std::string(100 + i % 50, 'x'); return h.v.size() == 100000 ? 0 : 1; }
END
	cc -O1 -g -o m m.c && c++ -O1 -g -o cpp cpp.cc
	valgrind --tool=massif --massif-out-file=massif.m ./m 2>/dev/null
	valgrind --tool=massif --massif-out-file=massif.cpp ./cpp 2>/dev/null
	valgrind --tool=massif --time-unit=ms --stacks=yes --massif-out-file=massif.ms ./m 2>/dev/null
	valgrind --tool=dhat --dhat-out-file=dhat.m ./m 2> dhat.m.err
	valgrind --tool=dhat --dhat-out-file=dhat.cpp ./cpp 2> dhat.cpp.err
	cat > rec.c <<'END'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__attribute__((noinline)) long even(int n);
__attribute__((noinline)) long odd(int n) { return n == 0 ? 0 : even(n - 1) + 1; }
__attribute__((noinline)) long even(int n) { return n == 0 ? 1 : odd(n - 1) * 2 % 1000003; }
static inline long sq(long x) { return x * x; }
__attribute__((noinline)) long work(int k) { long s = 0; for (int i = 0; i < k; i++) s += sq(i) % 7; return s; }
int main(void) { long r = fib(18) + even(500) + work(20000); char *p = malloc(100); p[0] = (char)r; printf("%d\\n", p[0] != 1); free(p); return 0; }
END
	cc -O2 -g -o rec rec.c
	valgrind --tool=callgrind --callgrind-out-file=cg.rec ./rec > /dev/null 2>&1
	valgrind --tool=callgrind --dump-instr=yes --cache-sim=yes --callgrind-out-file=cg.instr ./rec > /dev/null 2>&1
	valgrind --tool=callgrind --callgrind-out-file=cg.cpp ./cpp > /dev/null 2>&1
}

need_valgrind() {
	command -v valgrind >/dev/null || fail "valgrind is missing: sh .ci/deps installs it"
	F=$BATS_FILE_TMPDIR
}

# ms_print's heap tree of the peak snapshot as "BYTES leaf;caller;..." per
# node, and the same figures from our stacks (the weight of the folded
# lines whose path, read leaf first, starts with the node's path)
msprint_tree() {
	ms_print "$1" | awk '
		/^ *Detailed snapshots:/ { s = $0; sub(/ \(peak\).*/, "", s); sub(/.* /, "", s); peak = s + 0 }
		/^ *n +time/ { tree = 0 }
		/^ +[0-9]+ +[0-9,]+ +[0-9,]+ +[0-9,]+ +[0-9,]+ +[0-9,]+$/ { row = $1 + 0 }
		/^[0-9.]+% \([0-9,]+B\) \(heap allocation functions\)/ { if (row == peak) tree = 1; next }
		tree && /->/ {
			d = index($0, "->"); depth = (d - 1) / 2 + 1
			b = $0; sub(/^[^(]*\(/, "", b); sub(/B\).*/, "", b); gsub(/,/, "", b)
			name = $0; sub(/^[^:]*: /, "", name)
			if (name ~ /^\?\?\?/ || $0 ~ /below ms_print/ || $0 ~ /below massif/) { depth_name[depth] = ""; next }
			sub(/ \([^()]*\)$/, "", name); sub(/\(.*/, "", name)
			depth_name[depth] = name; p = ""
			for (i = 1; i <= depth; i++) { if (depth_name[i] == "") { p = ""; break }; p = p (i > 1 ? ";" : "") depth_name[i] }
			if (p != "") print b, p
		}'
}
ours_tree() { # FOLDED NODES: for each node line "BYTES path", our sum
	awk 'NR == FNR { n = split($0, w, " "); c = w[n]; sub(/ [^ ]*$/, ""); k = split($0, f, ";"); r = f[k]
		for (i = k - 1; i >= 1; i--) r = r ";" f[i]; line[r] += c; next }
		{ p = substr($0, index($0, " ") + 1); s = 0; for (r in line) if (r == p || index(r, p ";") == 1) s += line[r]; print s, p }' "$1" "$2"
}

@test "massif: the peak snapshot's heap tree, each node's bytes as ms_print prints them" {
	need_valgrind
	for f in massif.m massif.cpp; do
		valgrind2spaa "$F/$f" | spaa-fold --inline=plain > "$T/folded"
		msprint_tree "$F/$f" > "$T/want"
		[ "$(wc -l < "$T/want")" -ge 3 ]
		ours_tree "$T/folded" "$T/want" > "$T/got"
		diff "$T/want" "$T/got"
	done
	# the total is the peak's useful heap
	valgrind2spaa "$F/massif.m" | spaa-fold | awk '{ s += $NF } END { print s }' > "$T/total"
	grep -A1 '^heap_tree=peak' "$F/massif.m" >/dev/null
	peak=$(awk '/^mem_heap_B=/ { b = substr($0, 12) } /^heap_tree=peak/ { print b }' "$F/massif.m")
	assert_file_eq "$T/total" <<< "$peak"
	valgrind2spaa "$F/massif.cpp" | spaa-validate --strict
}

@test "massif: exact stacks of a known program; inlined chains marked; --snapshot" {
	need_valgrind
	valgrind2spaa "$F/massif.m" | spaa-fold > "$T/f"
	assert_file_eq "$T/f" <<'END'
main;build;leaf_alloc 1049500
main;other;leaf_alloc 20000
END
	valgrind2spaa "$F/massif.cpp" | spaa-fold --inline=mark | grep '^main;fill' > "$T/f"
	assert_file_eq "$T/f" <<'END'
main;fill_[i];push_back_[i];emplace_back<double>_[i];void std::vector<double, std::allocator<double> >::_M_realloc_insert<double>;_M_allocate_[i];allocate_[i];allocate_[i] 1572864
END
	first=$(awk '/^snapshot=/ { s = substr($0, 10) } /^heap_tree=detailed/ { print s; exit }' "$F/massif.m")
	valgrind2spaa --snapshot="$first" "$F/massif.m" | spaa-fold > "$T/f"
	assert_file_eq "$T/f" <<'END'
main;build;leaf_alloc 104950
END
	run valgrind2spaa --snapshot=0 "$F/massif.m"
	assert_failure 1
	assert_output --regexp "^valgrind2spaa: $F/massif.m: snapshot 0 is not a detailed one; the detailed ones are $first, .* \(peak\)"
}

@test "massif --all-snapshots: a window per detailed snapshot, stacks weighed at the peak" {
	need_valgrind
	valgrind2spaa --all-snapshots "$F/massif.ms" > "$T/a.spaa"
	spaa-validate --strict "$T/a.spaa"
	n=$(grep -c '^heap_tree=\(detailed\|peak\)' "$F/massif.ms")
	[ "$(grep -c '"type":"window"' "$T/a.spaa")" -eq "$n" ]
	grep -q '"unit":"milliseconds"' "$T/a.spaa"
	# each window's bytes are its snapshot's mem_heap_B
	awk '/^mem_heap_B=/ { b = substr($0, 12) } /^heap_tree=(detailed|peak)/ { print b }' "$F/massif.ms" > "$T/want"
	grep '"type":"window"' "$T/a.spaa" | jq '[.by_stack[].weights[0].value] | add // 0' > "$T/got"
	diff "$T/want" "$T/got"
	valgrind2spaa "$F/massif.ms" | spaa-fold > "$T/peak"
	spaa-fold "$T/a.spaa" > "$T/all"
	cmp "$T/peak" "$T/all"
}

@test "DHAT: every program point a stack; the totals are DHAT's own" {
	need_valgrind
	for f in dhat.m dhat.cpp; do
		valgrind2spaa "$F/$f" > "$T/d.spaa"
		spaa-validate --strict "$T/d.spaa"
		sum() { spaa-fold -m "$1" "$T/d.spaa" | awk '{ s += $NF } END { printf "%.0f\n", s }'; }
		# "Total:     11,049,500 bytes in 1,500 blocks" and the like
		num() { grep "$1" "$F/$f.err" | sed 's/.*: *//' | awk -v k="$2" '{ gsub(/,/, ""); print $k }'; }
		[ "$(sum alloc_bytes)" = "$(num 'Total:' 1)" ]
		[ "$(sum alloc_count)" = "$(num 'Total:' 4)" ]
		[ "$(sum peak_bytes)" = "$(num 'At t-gmax:' 1)" ]
		[ "$(sum peak_count)" = "$(num 'At t-gmax:' 4)" ]
		[ "$(sum live_bytes)" = "$(num 'At t-end:' 1)" ]
		[ "$(sum live_count)" = "$(num 'At t-end:' 4)" ]
		[ "$(sum read_bytes)" = "$(num 'Reads:' 1)" ]
		[ "$(sum write_bytes)" = "$(num 'Writes:' 1)" ]
	done
	valgrind2spaa "$F/dhat.m" | spaa-fold > "$T/f"
	assert_file_eq "$T/f" <<'END'
main;build;leaf_alloc;malloc 1049500
main;other;leaf_alloc;malloc 10000000
END
}

@test "format by content, --format, and exact errors" {
	need_valgrind
	run valgrind2spaa "$EX/parser.perf.txt"
	assert_failure 1
	assert_output "valgrind2spaa: $EX/parser.perf.txt: not a massif, DHAT or callgrind file (massif's start with \"desc:\", DHAT's are JSON with \"dhatFileVersion\", callgrind's have an \"events:\" line; --format forces one)"
	run valgrind2spaa --format=dhat "$F/massif.m"
	assert_failure 1
	assert_output "valgrind2spaa: $F/massif.m:1: not a DHAT file: it does not start with a JSON object (byte 0)"
	run valgrind2spaa --format=cachegrind "$F/massif.m"
	assert_failure 2
	printf 'desc: x\ncmd: ./a\ntime_unit: i\n#-----------\nsnapshot=0\n#-----------\ntime=0\nmem_heap_B=10\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=peak\nn1: 10 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n n0: 11 0x1: f (a.c:1)\n' > "$T/bad"
	run valgrind2spaa "$T/bad"
	assert_failure 1
	assert_output "valgrind2spaa: $T/bad:13: heap tree: the children of a node hold more bytes (11) than it (10)"
	: > "$T/empty"
	run valgrind2spaa "$T/empty"
	assert_failure 1
	assert_output "valgrind2spaa: $T/empty: empty input: no profile written"
}

@test "callgrind: every function's own cost in every event is callgrind_annotate's" {
	need_valgrind
	V=$BATS_TEST_DIRNAME/data/valgrind
	for f in cg.rec cg.instr cg.cpp; do
		valgrind2spaa "$F/$f" > "$T/c.spaa"
		spaa-validate --strict "$T/c.spaa"
		for ev in $(sed -n 's/^events://p' "$F/$f"); do
			python3 "$V/selfs.py" "$T/c.spaa" "$ev" | LC_ALL=C sort -k2 > "$T/ours"
			sh "$V/annotate.sh" "$F/$f" "$ev" > "$T/theirs"
			[ "$(wc -l < "$T/theirs")" -ge 20 ]
			diff "$T/theirs" "$T/ours"
		done
	done
	# the header says the stacks are reconstructed
	run valgrind2spaa "$F/cg.rec"
	assert_line --partial '"stacks":"reconstructed from callgrind'"'"'s call graph (each call'"'"'s share'
	# recursion (fib'2 calls itself, even'2 and odd'2 each other): no
	# function is entered twice on one path
	valgrind2spaa --format=callgrind "$F/cg.rec" | spaa-fold --raw > "$T/f"
	grep -q "fib'2" "$T/f"
	grep -q "even'2;odd'2" "$T/f"
	run awk '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";"); delete seen
		for (i = 1; i <= n; i++) { if ((f[i] in seen) && f[i] ~ /^(fib|even|odd)/) print; seen[f[i]] = 1 } }' "$T/f"
	assert_output ""
}

# A capture made here (tests/data/valgrind/README.md): cgprog.c under
# valgrind --tool=callgrind, and what callgrind_annotate --inclusive=yes
# printed for it.
@test "callgrind: every function's total is callgrind_annotate --inclusive=yes's, recursion aside (issue 30 item 5)" {
	V=$BATS_TEST_DIRNAME/data/valgrind
	valgrind2spaa "$V/cgprog.callgrind.zst" > "$T/c.spaa"
	spaa-validate --strict "$T/c.spaa"
	python3 "$V/totals.py" "$T/c.spaa" Ir > "$T/ours"
	sh "$V/annotate-text.sh" < "$V/cgprog.annotate-inclusive.txt" > "$T/theirs"
	sh "$V/both.sh" "$T/theirs" "$T/ours" | tr '\t' ' ' > "$T/both"
	[ "$(wc -l < "$T/both")" -eq 219 ]
	# the program's own functions
	run sh -c "grep '^/tmp/rs/cg/cgprog.c:' '$T/both'"
	assert_output "/tmp/rs/cg/cgprog.c:fib 317416 317416
/tmp/rs/cg/cgprog.c:fib'2 4042980 317398
/tmp/rs/cg/cgprog.c:heavy 6321026 6321026
/tmp/rs/cg/cgprog.c:is_even 2412 2412
/tmp/rs/cg/cgprog.c:is_even'2 180600 2396
/tmp/rs/cg/cgprog.c:is_odd 2404 2404
/tmp/rs/cg/cgprog.c:is_odd'2 179400 1196
/tmp/rs/cg/cgprog.c:leaf 6001023 6001023
/tmp/rs/cg/cgprog.c:light 2455 2455
/tmp/rs/cg/cgprog.c:main 6323490 6323490
/tmp/rs/cg/cgprog.c:shared 6002832 6002832"
	# every other function alike: only the recursive ones differ, where
	# callgrind_annotate counts each recursive call again (fib'2 calls
	# itself: 4,042,980 of a 6,446,700 program); here their cost once, the
	# cost of the call that enters the recursion (fib's 317,416 less its
	# own 18)
	run awk '$(NF - 1) != $NF' "$T/both"
	assert_output "/tmp/rs/cg/cgprog.c:fib'2 4042980 317398
/tmp/rs/cg/cgprog.c:is_even'2 180600 2396
/tmp/rs/cg/cgprog.c:is_odd'2 179400 1196"
	# the own costs stay callgrind_annotate's too
	zstd -dc "$V/cgprog.callgrind.zst" > "$T/cg"
	if command -v callgrind_annotate >/dev/null; then
		python3 "$V/selfs.py" "$T/c.spaa" Ir | LC_ALL=C sort -k2 | diff <(sh "$V/annotate.sh" "$T/cg" Ir) -
	fi
}

@test "callgrind: a light call keeps its callees under it; totals exact (issue 30 item 5's minimal case)" {
	printf 'events: Ir\nfl=m.c\nfn=main\n1 1\ncfn=big\ncalls=1 1\n2 1000000\ncfn=small\ncalls=1 1\n3 50\nfn=big\n5 1000000\nfn=small\n7 10\ncfn=leaf\ncalls=1 1\n8 40\nfn=leaf\n9 40\ntotals: 1000051\n' > "$T/min.cg"
	valgrind2spaa "$T/min.cg" | spaa-fold > "$T/f"
	assert_file_eq "$T/f" <<'END'
main 1
main;big 1000000
main;small 10
main;small;leaf 40
END
	run sh -c "valgrind2spaa '$T/min.cg' | spaa-top -J | jq -r 'select(.type == \"row\") | \"\\(.name) \\(.total)\"'"
	assert_output "big 1000000
leaf 40
small 50
main 1000051"
}

@test "callgrind: '(below main)', a function of valgrind's naming, is a frame of folds and tables, as callgrind_annotate lists it" {
	printf 'events: Ir\nfl=x.c\nfn=(below main)\n1 1\ncfn=main\ncalls=1 1\n2 10\nfn=main\n3 10\n' > "$T/b.cg"
	valgrind2spaa "$T/b.cg" | spaa-fold > "$T/f"
	assert_file_eq "$T/f" <<'END'
(below main) 1
(below main);main 10
END
	# the capture: 6,325,771 in callgrind_annotate, the program's own
	run sh -c "valgrind2spaa '$BATS_TEST_DIRNAME/data/valgrind/cgprog.callgrind.zst' | spaa-top -n 0 -J | jq -r 'select(.type == \"row\" and .name == \"(below main)\") | .total'"
	assert_output 6325771
	grep -q '^ *6,325,771 (98.12%)  ???:(below main) \[/tmp/rs/cg/cgprog\]$' "$BATS_TEST_DIRNAME/data/valgrind/cgprog.annotate-inclusive.txt"
}

# gcc's cc1 compiling cgprog.c under callgrind (tests/data/valgrind/README.md):
# a call graph whose tree is too large to grow whole
@test "callgrind: a tree too large to grow whole keeps its light calls under their callers: main's total is callgrind_annotate's" {
	V=$BATS_TEST_DIRNAME/data/valgrind
	valgrind2spaa "$V/cc1.callgrind.zst" > "$T/c.spaa"
	spaa-validate --strict "$T/c.spaa"
	python3 "$V/totals.py" "$T/c.spaa" Ir > "$T/ours"
	# callgrind_annotate --inclusive=yes: 134,115,159 (99.37%)  ???:main,
	# of 134,967,906 PROGRAM TOTALS (the file's totals: line)
	run grep -E ' \?\?\?:(main|0x000000000001ab70|\[calls not grown\])$' "$T/ours"
	assert_output "134967906 ???:0x000000000001ab70
32365600 ???:[calls not grown]
134115159 ???:main"
	if command -v callgrind_annotate >/dev/null; then
		zstd -dc "$V/cc1.callgrind.zst" > "$T/cg"
		(cd / && callgrind_annotate --auto=no --threshold=100 --inclusive=yes "$T/cg") | sh "$V/annotate-text.sh" > "$T/theirs"
		grep -q '^134115159 ???:main$' "$T/theirs"
	fi
}

@test "callgrind: a capture made now, every function's total is callgrind_annotate's, recursion aside" {
	need_valgrind
	V=$BATS_TEST_DIRNAME/data/valgrind
	for f in cg.rec cg.cpp; do
		valgrind2spaa "$F/$f" > "$T/c.spaa"
		python3 "$V/totals.py" "$T/c.spaa" Ir > "$T/ours"
		(cd / && callgrind_annotate --auto=no --threshold=100 --inclusive=yes "$F/$f") | sh "$V/annotate-text.sh" > "$T/theirs"
		sh "$V/both.sh" "$T/theirs" "$T/ours" > "$T/both"
		[ "$(wc -l < "$T/both")" -ge 50 ]
		run awk -F '\t' '$2 != $3 && $1 !~ /'"'"'[0-9]+$/' "$T/both"
		assert_output ""
	done
}

@test "callgrind: speedscope's sample files give its importer's figures" {
	V=$BATS_TEST_DIRNAME/data/valgrind
	for f in example name-compression subposition-compression multiple-event-types; do
		valgrind2spaa "$V/callgrind.$f.txt" | spaa-fold > "$T/f"
		assert_file_eq "$T/f" <<'END'
main 20
main;func1 100
main;func1;func2 300
main;func2 400
END
	done
	valgrind2spaa "$V/callgrind.multiple-event-types.txt" | spaa-fold -m 'Memory_(bytes)' > "$T/f"
	assert_file_eq "$T/f" <<'END'
main 15000
main;func1 15000
main;func1;func2 5000
main;func2 3000
END
	# gamma's callers send it 20, its own cost line says 10: the 10 is kept
	valgrind2spaa "$V/callgrind.cfn-reset.txt" | spaa-fold > "$T/f"
	assert_file_eq "$T/f" <<'END'
alpha 10
alpha;beta 10
alpha;delta 10
alpha;delta;gamma 5
alpha;gamma 5
END
}

@test "callgrind: exact errors" {
	bad() { printf "$1" > "$T/b"; run valgrind2spaa --format=callgrind "$T/b"; assert_failure 1; assert_output "valgrind2spaa: $T/b:$2"; }
	bad 'events: Ir\nfl=a.c\n16 20\n' '3: a cost line before any fn='
	bad 'events: Ir\nfl=a.c\nfn=(1)\n' '3: name (1) used before it is defined'
	bad 'events: Ir\nfl=a.c\nfn=(1) m\nfn=(1) n\n' '4: name (1) defined twice, differently'
	bad 'events: Ir\nfl=a.c\nfn=m\ncfn=f\ncalls=1 1\n' '5: the file ends after calls='
	bad 'events: Ir\nsummary: 21\nfl=a.c\nfn=m\n1 20\n' ' the costs of Ir add up to 20, but the file'"'"'s summary says 21'
	bad 'events: Ir\nfl=a.c\nfn=m\n1 x\n' '4: not a cost line (1 position, then up to 1 costs): 1 x'
	bad 'fl=a.c\nfn=m\n1 2\n' '3: a cost line before the events: line (what the costs measure)'
}

@test "several files: converted one by one and merged as spaa-cat --merge (issue 19)" {
	valgrind2spaa "$EX/massif.out" "$EX/massif.out" | spaa-fold > "$T/two"
	assert_file_eq "$T/two" <<'END'
main;build;leaf_alloc 2099000
main;other;leaf_alloc 40000
END
	run valgrind2spaa "$EX/massif.out" "$EX/nosuch.out"
	assert_failure 1
	assert_output "valgrind2spaa: $EX/nosuch.out: No such file or directory"
}

@test "massif, DHAT, callgrind cut at every byte: an error naming the file, or the whole profile (issue 28 item 10)" {
	local f
	for f in massif.out callgrind.out dhat.out; do
		cut_sweep "$EX/$f" "$(every_byte "$EX/$f")" valgrind2spaa
	done
	cut_sweep "$EX/massif.out" "0 $(line_ends "$EX/massif.out" | head -n -1)" valgrind2spaa --all-snapshots
	# the cut of the issue: after the peak's heap_tree= line
	head -c 1300 "$EX/massif.out" > "$T/cut"
	run valgrind2spaa "$T/cut"
	assert_failure 1
	assert_output "valgrind2spaa: $T/cut:51: snapshot 63: heap_tree=peak without its tree: the file is cut short"
	head -c 1560 "$EX/massif.out" > "$T/cut"
	run valgrind2spaa "$T/cut"
	assert_failure 1
	assert_output "valgrind2spaa: $T/cut:57: the last line has no newline: the file is cut short (a whole file ends with one: add it)"
}

@test "massif and callgrind files of real runs cut at every line: an error, or the whole profile (issue 28 item 10)" {
	need_valgrind
	cut_sweep "$F/massif.m" "0 $(line_ends "$F/massif.m" | head -n -1)" valgrind2spaa
	# callgrind ends with totals: (the sum of the cost lines)
	tail -n 1 "$F/cg.rec" | grep -q '^totals: [0-9]*$'
	head -n -1 "$F/cg.rec" > "$T/cut"
	run valgrind2spaa "$T/cut"
	assert_failure 1
	assert_output "valgrind2spaa: $T/cut:$(($(wc -l < "$F/cg.rec") - 1)): no totals: line, which callgrind writes last: the file is cut short"
	n=$(wc -l < "$F/cg.rec")
	for ((i = 20; i < n; i += 97)); do
		head -n "$i" "$F/cg.rec" > "$T/cut"
		run valgrind2spaa "$T/cut"
		assert_failure 1
	done
}

@test "massif: a snapshot's lines are massif's, whole and in order; its tree holds its mem_heap_B (issue 28 item 11)" {
	snap() { printf 'desc: x\ncmd: ./a\ntime_unit: i\n#-----------\nsnapshot=0\n#-----------\n'"$1"; }
	bad() { snap "$1" > "$T/m"; run valgrind2spaa "$T/m"; assert_failure 1; assert_output "valgrind2spaa: $T/m:$2"; }
	tree='n1: 3000 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n n0: 3000 0x1: f (a.c:1)\n'
	bad "time=0\nmem_heap_B=100000\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=peak\n$tree" \
		"12: snapshot 0: the heap tree holds 3000 bytes, but mem_heap_B says 100000"
	bad "time=0\nmem_heap_B=3000\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=peak\n" \
		"11: snapshot 0: heap_tree=peak without its tree: the file is cut short"
	bad "time=0\nmem_heap_B=3000\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=peak\n#-----------\nsnapshot=1\n" \
		"12: snapshot 0: heap_tree=peak without its tree"
	bad "time=0\nmem_heap_B=3000\nmem_heap_B=3000\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=peak\n$tree" \
		"9: snapshot 0: a second mem_heap_B= line"
	bad "time=0\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=peak\n$tree" \
		"10: snapshot 0: heap_tree= before its mem_heap_B= line"
	bad "time=0\nmem_heap_B=3000\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=big\n$tree" \
		"11: heap_tree=big: massif writes empty, detailed or peak"
	bad "time=0\nmem_heap_B=3000\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=peak\n$tree#-----------\nsnapshot=1\n#-----------\ntime=1\nmem_heap_B=3000\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=peak\n$tree" \
		"21: snapshot 1: a second peak snapshot (the first is 0)"
	bad "time=0\nmem_heap_B=0\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=empty\n#-----------\nsnapshot=0\n" \
		"13: snapshot 0 after snapshot 0 (massif numbers them in order)"
	bad "time=0\nmem_heap_B=0\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=empty\ncmd: ./b\n" \
		"12: cmd: after the first snapshot (massif writes it in the header)"
	bad "time=0\nmem_heap_B=0\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=empty\n#-----------\nsnapshot=1\n#-----------\ntime=1\n" \
		"15: the file ends in snapshot 1, before its heap_tree= line: it is cut short"
	bad "time=0\nmem_heap_B=0\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=detailed\nn0: 0 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n" \
		"12: no peak snapshot (heap_tree=peak), which massif writes when the program allocated: the file is cut short"
	# a whole snapshot is read
	snap "time=0\nmem_heap_B=3000\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=peak\n$tree" > "$T/m"
	valgrind2spaa "$T/m" | spaa-fold > "$T/f"
	assert_file_eq "$T/f" <<< "f 3000"
}

@test "callgrind: an event named twice; totals: and summary: both checked (issue 28 item 15)" {
	bad() { printf "$1" > "$T/b"; run valgrind2spaa --format=callgrind "$T/b"; assert_failure 1; assert_output "valgrind2spaa: $T/b:$2"; }
	bad 'events: Ir Ir\nfl=a.c\nfn=m\n1 5 6\n' '1: events: Ir named twice'
	bad 'events: Ir Dr Ir\n' '1: events: Ir named twice'
	# totals: is the sum of the cost lines, summary: no less (the format
	# allows more); a real file has both, and neither was checked
	bad 'events: Ir\nsummary: 20\nfl=a.c\nfn=m\n1 20\ntotals: 21\n' " the costs of Ir add up to 20, but the file's totals say 21"
	bad 'events: Ir\nsummary: 19\nfl=a.c\nfn=m\n1 20\ntotals: 20\n' " the costs of Ir add up to 20, but the file's summary says 19"
	bad 'creator: callgrind-3.19.0\nevents: Ir\nsummary: 20\nfl=a.c\nfn=m\n1 20\n' "6: no totals: line, which callgrind writes last: the file is cut short"
	bad 'events: Ir\nsummary: 18446744073709551615\nsummary: 1\n' "3: the summary: lines add up beyond 64 bits"
	printf 'creator: callgrind-3.19.0\nevents: Ir\nsummary: 25\nfl=a.c\nfn=m\n1 20\ntotals: 20\n' > "$T/ok"
	valgrind2spaa "$T/ok" | spaa-fold > "$T/f"
	assert_file_eq "$T/f" <<< "m 20"
	need_valgrind
	for k in summary totals; do
		sed "s/^$k: [0-9]*$/$k: 1/" "$F/cg.rec" > "$T/b"
		run valgrind2spaa "$T/b"
		assert_failure 1
		assert_output --regexp "^valgrind2spaa: $T/b: the costs of Ir add up to [0-9]+, but the file's $k says? 1\$"
	done
}

@test "DHAT: figures up to 2^64-1; above, negative or fractional an error; sums never wrap (issue 28 item 16)" {
	dhat() { sed "s/\"tb\":1049500/\"tb\":$1/; $2" "$EX/dhat.out" > "$T/d.json"; }
	dhat 18446744073709551615
	valgrind2spaa "$T/d.json" | spaa-fold -m alloc_bytes > "$T/f"
	assert_file_eq "$T/f" <<'END'
main;build;leaf_alloc;malloc 18446744073709551615
main;other;leaf_alloc;malloc 10000000
END
	bad() { dhat "$1" "$3"; run valgrind2spaa "$T/d.json"; assert_failure 1; assert_output "valgrind2spaa: $T/d.json:$2"; }
	bad 18446744073709551616 '18: program point 0: "tb" is out of range (above 2^64-1) (byte 367)'
	bad 1e400 '18: program point 0: "tb" is out of range (above 2^64-1) (byte 352)'
	bad -1 '18: program point 0: "tb" is negative (byte 349)'
	bad 1.5 '18: program point 0: "tb" is not a whole number (byte 350)'
	bad 1049500,\"tb\":1 '18: program point 0: "tb" twice (byte 361)'
	bad 1049500 '4: "tu" twice (byte 101)' 's/"tu":"instrs"/"tu":"instrs","tu":"x"/'
	# two program points of one stack: their sum is beyond 64 bits
	bad 18446744073709551615 ' metric alloc_bytes of a stack overflows 64 bits' 's/"fs":\[1,2,5,6\]/"fs":[1,2,3,4]/'
}
