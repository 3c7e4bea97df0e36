#!/usr/bin/env bats
# spaa-symbolize: names for frames that have only an address, checked
# against what binutils (nm, addr2line) and elfutils (eu-addr2line) say about
# real programs built here from tests/data/symbolize/.

load common
bats_require_minimum_version 1.5.0

SRC=$SPAA_TESTDATA/symbolize

setup_file() {
	B=$BATS_FILE_TMPDIR/b
	mkdir -p "$B"
	cp "$SPAA_TESTDATA/symbolize/prog.c" "$SPAA_TESTDATA/symbolize/prog.cc" "$B/"
	cd "$B"
	gcc -O2 -g -fno-omit-frame-pointer -o prog prog.c          # PIE, DWARF, inlining
	gcc -O2 -fno-omit-frame-pointer -o nodebug prog.c          # symbols, no DWARF
	gcc -O2 -g -fno-omit-frame-pointer -no-pie -o fixed prog.c # fixed addresses
	g++ -O2 -g -o cxx prog.cc
	# stripped, its DWARF in a separate file found by build id
	objcopy --only-keep-debug prog prog.debug
	objcopy --strip-all --add-gnu-debuglink=prog.debug prog stripped
	local id
	id=$(eu-readelf -n prog | awk '/Build ID:/ { print $3 }')
	mkdir -p "debug/${id:0:2}"
	mv prog.debug "debug/${id:0:2}/${id:2}.debug"
}

setup() {
	T=$BATS_TEST_TMPDIR
	B=$BATS_FILE_TMPDIR/b
}

# mix_addrs BIN: the instructions of leaf_work that are mix() inlined
mix_addrs() {
	local x
	for x in $(addrs "$1" leaf_work); do
		addr2line -i -f -e "$1" "$x" | head -1 | grep -qx mix && echo "$x"
	done
	true
}

# addrs BIN FUNC: the address of every instruction of FUNC, 0x-prefixed
addrs() {
	objdump -d --no-show-raw-insn "$1" |
		awk -v f="<$2>:" '$2 == f { on = 1; next } on && /^$/ { exit } on && /^ *[0-9a-f]+:/ { sub(":", "", $1); print "0x" $1 }'
}

# fold_addrs BIN ADDR...: one folded stack per address, in BIN's dso
fold_addrs() {
	local bin=$1 a
	shift
	for a in "$@"; do echo "$a 1"; done | folded2spaa --addrs --binary="$bin"
}

# chain FILE ADDR: the frames at ADDR, innermost first, "func srcline"
chain() {
	jq -r --arg ip "$2" 'select(.type == "frame" and .ip == $ip) | [(.inline_depth // 0), .func, (.srcline // "-")] | @tsv' "$1" |
		sort -t "$(printf '\t')" -k1,1nr | cut -f2- | tr '\t' ' '
}

# want_chain BIN ADDR: the same as addr2line -i -f prints it
want_chain() {
	addr2line -i -f -e "$1" "$2" | sed 's/ (discriminator [0-9]*)//' | paste -d ' ' - -
}

@test "C, -O2 -g: every instruction of the program's functions resolves as addr2line -i -f says, inlined calls included" {
	cd "$B"
	local all=() a f n=0
	for f in main outer leaf_work; do all+=($(addrs prog $f)); done
	[ "${#all[@]}" -gt 20 ]
	fold_addrs "$B/prog" "${all[@]}" | spaa-symbolize >"$T/out.spaa"
	spaa-validate --strict -q "$T/out.spaa"
	for a in "${all[@]}"; do
		want=$(want_chain prog "$a")
		# padding after a function's end: no function for elfutils
		case $want$(eu-addr2line -f -e prog "$a") in *'??'*) continue ;; esac
		got=$(chain "$T/out.spaa" "$a")
		[ "$got" = "$want" ] || fail "$a: got '$got', addr2line says '$want'"
		n=$((n + 1))
	done
	[ "$n" -gt 20 ]
	# the inlined chain of a mix() instruction is mix, step, leaf_work, as
	# eu-addr2line also says
	a=$(mix_addrs prog | head -1)
	[ -n "$a" ]
	run chain "$T/out.spaa" "$a"
	assert_output --regexp "^mix $B/prog.c:[0-9]+
step $B/prog.c:[0-9]+
leaf_work $B/prog.c:[0-9]+$"
	got=$(chain "$T/out.spaa" "$a" | cut -d' ' -f1 | tr '\n' ' ')
	want=$(eu-addr2line -i -f -e prog "$a" | awk 'NR % 2 == 1 { printf "%s ", $1 }')
	assert_equal "$got" "$want"
	# ... and leaf_work's symbol offset is what nm gives
	start=$(nm prog | awk '$3 == "leaf_work" { print $1 }')
	run jq -r --arg ip "$a" 'select(.type == "frame" and .ip == $ip) | .symoff' "$T/out.spaa"
	assert_output "$(printf '0x%x\n0x%x\n0x%x' $((a - 0x$start)) $((a - 0x$start)) $((a - 0x$start)))"
}

@test "stacks are rewritten leaf first with their inlined frames, and become one stack when their names do" {
	cd "$B"
	mixes=$(mix_addrs prog)
	set -- $mixes
	[ $# -ge 2 ]
	m=$(nm prog | awk '$3 == "main" { print "0x" $1 }')
	o=$(nm prog | awk '$3 == "outer" { print "0x" $1 }')
	# two addresses with the same lines: one stack; validated strictly
	a1=$1 a2=
	for x in "${@:2}"; do [ "$(want_chain prog "$x")" = "$(want_chain prog "$a1")" ] && { a2=$x; break; }; done
	[ -n "$a2" ]
	printf '%s;%s;%s 3\n%s;%s;%s 4\n' "$m" "$o" "$a1" "$m" "$o" "$a2" |
		folded2spaa --addrs --binary="$B/prog" | spaa-symbolize >"$T/out.spaa"
	spaa-validate --strict -q "$T/out.spaa"
	run spaa-fold "$T/out.spaa"
	assert_output "main;outer;leaf_work;step;mix 7"
	run jq -c 'select(.type == "stack") | [.weights, .exclusive.weights]' "$T/out.spaa"
	assert_output '[[{"metric":"samples","value":7}],[{"metric":"samples","value":7}]]'
	# the id is the content id of the new stack: folding the names back in
	# gives the same id
	spaa-fold "$T/out.spaa" >"$T/f"
	id1=$(jq -r 'select(.type == "stack") | .id' "$T/out.spaa")
	[ "$(grep -c '"type":"stack"' "$T/out.spaa")" = 1 ]
	[ -n "$id1" ]
}

@test "source files named relative to the unit's directory are joined with DW_AT_comp_dir, as addr2line -f -i prints them" {
	# built from rel/build as ../src/rel.c with -I../inc: the line table
	# names ../src/rel.c and ../inc/relh.h
	cp -r "$SRC/rel" "$T/rel"
	mkdir -p "$T/rel/build"
	cd "$T/rel/build"
	gcc -O2 -g -I../inc -o rel ../src/rel.c
	local all=() a n=0
	all=($(addrs rel work))
	[ "${#all[@]}" -gt 10 ]
	fold_addrs "$T/rel/build/rel" "${all[@]}" | spaa-symbolize > "$T/out.spaa"
	for a in "${all[@]}"; do
		want=$(want_chain rel "$a")
		got=$(chain "$T/out.spaa" "$a")
		[ "$got" = "$want" ] || fail "$a: got '$got', addr2line says '$want'"
		n=$((n + 1))
	done
	[ "$n" -gt 10 ]
	run sh -c "jq -r 'select(.type == \"frame\") | .srcline' '$T/out.spaa' | sed 's/:[0-9]*\$//' | sort -u"
	assert_output "$T/rel/build/../inc/relh.h
$T/rel/build/../src/rel.c"
}

@test "a large -O2 -g program (bench/symbolize.sh's, any2spaa): every frame as addr2line -f -i says (tests/data/symbolize/a2l-compare.py's rules)" {
	# a copy of any2spaa as built (the bench's program), every 4th of its
	# first 100,000 instructions, one stack each
	cp "$SPAA_CMDDIR/any2spaa" "$T/big"
	readelf -S "$T/big" | grep -q '\.debug_info' || skip "any2spaa built without -g"
	objdump -d --no-show-raw-insn "$T/big" |
		awk '/^ *[0-9a-f]+:/ && n++ % 4 == 0 && n <= 100000 { sub(":", "", $1); print "0x" $1, 1 }' >"$T/addrs"
	[ "$(wc -l <"$T/addrs")" -gt 10000 ]
	folded2spaa --addrs --binary="$T/big" "$T/addrs" | spaa-symbolize >"$T/out.spaa"
	run python3 "$SRC/a2l-compare.py" "$T/big" "$T/out.spaa"
	assert_success
	assert_output --regexp '^[0-9]+ addresses: 0 different, '
}

@test "a symbol of no size ends with its section: the PLT after _init is no function" {
	cd "$B"
	a=$(objdump -d --no-show-raw-insn -j .plt prog | awk '/^ *[0-9a-f]+:/ { sub(":", "", $1); print "0x" $1; exit }')
	[ -n "$a" ]
	i=$(nm prog | awk '$3 == "_init" { print "0x" $1 }')
	[ -n "$i" ] && [ $((a)) -gt $((i)) ]
	fold_addrs "$B/prog" "$a" | spaa-symbolize --verbose >"$T/out.spaa" 2>"$T/err"
	run jq -r 'select(.type == "frame") | .func' "$T/out.spaa"
	assert_output "$a"
	run cat "$T/err"
	assert_output "spaa-symbolize: $B/prog: 0 resolved, 1 address outside any symbol"
}

@test "C without -g: names from the symbol table, no source lines" {
	cd "$B"
	l=$(addrs nodebug leaf_work | sed -n 5p)
	o=$(addrs nodebug outer | sed -n 1p)
	fold_addrs "$B/nodebug" "$o" "$l" | spaa-symbolize >"$T/out.spaa"
	spaa-validate --strict -q "$T/out.spaa"
	run chain "$T/out.spaa" "$l"
	assert_output "leaf_work -"
	run chain "$T/out.spaa" "$o"
	assert_output "outer -"
}

@test "C++: mangled names as nm prints them, the inlined member as addr2line -i -f says" {
	cd "$B"
	area=$(nm cxx | awk '$3 == "_ZN6shapes4areaEm" { print $3 }')
	[ "$area" = _ZN6shapes4areaEm ]
	all=($(addrs cxx _ZN6shapes4areaEm))
	fold_addrs "$B/cxx" "${all[@]}" | spaa-symbolize >"$T/out.spaa"
	spaa-validate --strict -q "$T/out.spaa"
	inl=0
	for a in "${all[@]}"; do
		want=$(want_chain cxx "$a")
		case $want$(eu-addr2line -f -e cxx "$a") in *'??'*) continue ;; esac
		assert_equal "$(chain "$T/out.spaa" "$a")" "$want"
		case $want in _ZN6shapes7Counter4bumpEm*) inl=$((inl + 1)) ;; esac
	done
	[ "$inl" -gt 0 ]
}

@test "a stripped binary: its debug file is found by build id under --debug-dir; without it the frames stay and --verbose says why" {
	cd "$B"
	all=($(addrs prog leaf_work))
	fold_addrs "$B/stripped" "${all[@]}" >"$T/in.spaa"
	fold_addrs "$B/prog" "${all[@]}" | spaa-symbolize >"$T/want.spaa"
	spaa-symbolize --debug-dir="$B/debug" "$T/in.spaa" >"$T/out.spaa"
	spaa-validate --strict -q "$T/out.spaa"
	for a in "${all[@]}"; do
		assert_equal "$(chain "$T/out.spaa" "$a")" "$(chain "$T/want.spaa" "$a")"
	done
	# the debug file's own path is not where the frames point
	grep -q "\"dso\":2" "$T/out.spaa"
	run spaa-symbolize --verbose --debug-dir="$T/none" "$T/in.spaa"
	assert_success
	assert_line "spaa-symbolize: $B/stripped: 0 resolved, ${#all[@]} stripped (no symbols)"
	run spaa-symbolize --debug-dir="$T/none" -o "$T/same.spaa" "$T/in.spaa"
	cmp "$T/in.spaa" "$T/same.spaa"
}

@test "a PIE's run-time addresses through its saved /proc/PID/maps: folded2spaa --addrs --pid | spaa-symbolize --maps | spaa-fold" {
	cd "$B"
	read -r m o l < <(./prog maps "$T/maps.txt")
	lw=$(nm prog | awk '$3 == "leaf_work" { print "0x" $1 }')
	mix=$(mix_addrs prog | head -1)
	leaf=$(printf '0x%x' $((l + mix - lw)))
	printf '%s;%s;%s 5\n' "$m" "$o" "$leaf" >"$T/stacks.folded"
	run sh -c "folded2spaa --addrs --pid=4242 '$T/stacks.folded' | spaa-symbolize --maps=4242='$T/maps.txt' | spaa-fold"
	assert_success
	assert_output "main;outer;leaf_work;step;mix 5"
	# the dso is the mapped file, the ip stays the run-time address
	folded2spaa --addrs --pid=4242 "$T/stacks.folded" | spaa-symbolize --maps=4242="$T/maps.txt" >"$T/out.spaa"
	spaa-validate --strict -q "$T/out.spaa"
	run jq -r --arg ip "$leaf" 'select(.type == "frame" and .ip == $ip) | .func' "$T/out.spaa"
	assert_output "mix
step
leaf_work"
	run jq -r 'select(.type == "dso") | .name' "$T/out.spaa"
	assert_output "[unknown]
$B/prog"
	# a directory of saved maps, one file per pid
	mkdir "$T/maps"
	cp "$T/maps.txt" "$T/maps/4242"
	run sh -c "folded2spaa --addrs --pid=4242 '$T/stacks.folded' | spaa-symbolize --maps='$T/maps' | spaa-fold"
	assert_output "main;outer;leaf_work;step;mix 5"
	# another pid: nothing known, nothing changed
	run sh -c "folded2spaa --addrs --pid=7 '$T/stacks.folded' | spaa-symbolize --verbose --maps='$T/maps' --perf-map='$T' 2>'$T/err' | spaa-fold"
	assert_output "[unknown];[unknown];[unknown] 5"
	run cat "$T/err"
	assert_output "spaa-symbolize: [unknown]: 0 resolved, 3 no file known for the address"
}

@test "a JIT's perf-PID.map resolves the frames of that pid; its path becomes their dso" {
	printf '7f0000001000 40 LazyCompile:*fib app.js:3\n7f0000002000 100 Builtin:ArgumentsAdaptorTrampoline\n' >"$T/perf-31337.map"
	printf '0x7f0000002010;0x7f0000001004 2\n0x7f0000001040 1\n' |
		folded2spaa --addrs --pid=31337 >"$T/in.spaa"
	spaa-symbolize --perf-map="$T" "$T/in.spaa" >"$T/out.spaa"
	spaa-validate --strict -q "$T/out.spaa"
	run spaa-fold "$T/out.spaa"
	assert_output "Builtin:ArgumentsAdaptorTrampoline;LazyCompile:*fib app.js:3 2
[unknown] 1"
	run jq -r 'select(.type == "dso") | .name' "$T/out.spaa"
	assert_output "[unknown]
$T/perf-31337.map"
}

@test "kernel addresses through a kallsyms file: the greatest symbol at or below, module names as the dso" {
	cat >"$T/kallsyms" <<-'EOF'
	ffffffff81000000 T _stext
	ffffffff81000100 t do_work
	ffffffff81000180 D some_data
	ffffffff81000200 T vfs_read
	ffffffff81000300 r last_thing
	ffffffffc0000000 t ext4_file_read_iter	[ext4]
	ffffffffc0000080 t ext4_end	[ext4]
	EOF
	printf 'main;0xffffffff81000210;0xffffffff81000104 1\nmain;0xffffffffc0000010 2\nmain;0xffffffff81000190 3\n' |
		folded2spaa --addrs >"$T/in.spaa"
	spaa-symbolize --verbose --kallsyms="$T/kallsyms" "$T/in.spaa" >"$T/out.spaa" 2>"$T/err"
	spaa-validate --strict -q "$T/out.spaa"
	run spaa-fold "$T/out.spaa"
	assert_output "main;[[kernel.kallsyms]] 3
main;ext4_file_read_iter 2
main;vfs_read;do_work 1"
	run jq -c 'select(.type == "dso")' "$T/out.spaa"
	assert_output '{"type":"dso","id":1,"name":"[unknown]","is_kernel":false}
{"type":"dso","id":2,"name":"[kernel.kallsyms]","is_kernel":true}
{"type":"dso","id":3,"name":"[ext4]","is_kernel":true}'
	run jq -c 'select(.type == "frame" and .func == "vfs_read")' "$T/out.spaa"
	assert_output '{"type":"frame","id":2,"func":"vfs_read","dso":2,"ip":"0xffffffff81000210","symoff":"0x10","kind":"kernel"}'
	run cat "$T/err"
	assert_output "spaa-symbolize: [kernel.kallsyms]: 3 resolved, 1 kernel address outside any symbol"
	# no kernel symbols: the frames stay
	run spaa-symbolize --verbose --kallsyms=none -o "$T/same.spaa" "$T/in.spaa"
	assert_output "spaa-symbolize: [kernel.kallsyms]: 0 resolved, 4 kernel address and no kallsyms"
	cmp "$T/in.spaa" "$T/same.spaa"
}

@test "a real perf capture of a stripped program: perf's [unknown] frames get the names nm gives, samples follow their stacks" {
	command -v perf >/dev/null || skip "perf is not installed"
	cd "$B"
	cp fixed "$T/fixed"
	perf record -q --no-buildid-cache -e cpu-clock -g -o "$T/perf.data" "$T/fixed" 200000000 >/dev/null 2>&1 ||
		skip "perf record does not work here"
	strip "$T/fixed" # as if it had been stripped at record time
	perf script -i "$T/perf.data" 2>/dev/null | perf2spaa -s >"$T/in.spaa"
	grep -q '"func_resolved":false,"dso":[0-9]*' "$T/in.spaa"
	# perf could not name them
	run spaa-fold "$T/in.spaa"
	refute_output --partial leaf_work
	spaa-symbolize --root="$T/root" "$T/in.spaa" >"$T/out.spaa" # nothing under the root
	mkdir -p "$T/root$T"
	cp fixed "$T/root$T/fixed"
	spaa-symbolize --root="$T/root" "$T/in.spaa" >"$T/out.spaa"
	spaa-validate --strict -q "$T/out.spaa"
	run spaa-fold "$T/out.spaa"
	assert_output --partial "main;leaf_work;step;mix"
	# every frame of the program now has the name of the symbol nm puts at
	# or below its address (perf gave file offsets: + 0x400000 here)
	nm fixed | awk 'NF == 3 && ($2 == "t" || $2 == "T") { print $1, $3 }' | sort | while read -r v s; do echo "$((0x$v)) $s"; done >"$T/syms"
	jq -r --arg d "$T/fixed" 'select(.type == "frame") | [.ip, .func, .dso] | @tsv' "$T/out.spaa" >"$T/frames"
	dso=$(jq -r --arg d "$T/fixed" 'select(.type == "dso" and .name == $d) | .id' "$T/out.spaa")
	# (a sample in the PLT, a first call's lazy binding, is in no symbol:
	# nm's nearest below it, _init, does not cover it)
	text=$((0x$(readelf -SW fixed | awk '{ for (i = 1; i < NF; i++) if ($i == ".text") print $(i + 2) }')))
	n=0
	while IFS=$'\t' read -r ip func d; do
		[ "$d" = "$dso" ] || continue
		case $func in mix | step) continue ;; esac # inlined
		a=$((ip + 0x400000))
		[ "$a" -ge "$text" ] || continue
		want=$(awk -v a="$a" '$1 + 0 <= a + 0 { s = $2 } END { print s }' "$T/syms")
		assert_equal "$func" "$want"
		n=$((n + 1))
	done <"$T/frames"
	[ "$n" -gt 0 ]
	# samples still name stacks of the file
	ids=$(jq -r 'select(.type == "stack") | .id' "$T/out.spaa" | sort -u)
	jq -r 'select(.type == "sample") | .stack_id' "$T/out.spaa" | sort -u | while read -r s; do
		grep -qx "$s" <<<"$ids" || fail "sample names stack $s, not in the file"
	done
	[ "$(jq -s '[.[] | select(.type == "sample")] | length' "$T/out.spaa")" = \
	  "$(jq -s '[.[] | select(.type == "sample")] | length' "$T/in.spaa")" ]
}

@test "frames with names and members the command does not know pass unchanged" {
	cat >"$T/in.spaa" <<-EOF
	{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"cycles","kind":"hardware","sampling":{"mode":"period","primary_metric":"period"}}],"stack_id_mode":"content_addressable"}
	{"type":"dso","id":1,"name":"$B/nodebug","is_kernel":false}
	{"type":"frame","id":1,"func":"main","dso":1,"ip":"0x10","kind":"user","x_note":"kept"}
	{"type":"frame","id":7,"func":"$(addrs nodebug outer | head -1)","func_resolved":false,"dso":1,"ip":"$(addrs nodebug outer | head -1)","kind":"user","x_custom":{"a":[1,2]}}
	{"type":"stack","id":"0x0000000000000001","frames":[7,1],"context":{"event":"cycles","x_k":"v"},"weights":[{"metric":"period","value":5}],"exclusive":{"frame":7,"weights":[{"metric":"period","value":5}]},"x_other":true}
	EOF
	run spaa-symbolize "$T/in.spaa"
	assert_success
	assert_line --index 2 "{\"type\":\"frame\",\"id\":1,\"func\":\"main\",\"dso\":1,\"ip\":\"0x10\",\"kind\":\"user\",\"x_note\":\"kept\"}"
	assert_line --index 3 '{"type":"frame","id":7,"func":"outer","dso":1,"ip":"'"$(addrs nodebug outer | head -1)"'","x_custom":{"a":[1,2]},"symoff":"0x0","kind":"user"}'
	assert_line --index 4 --regexp '^\{"type":"stack","id":"0x[0-9a-f]{16}","frames":\[7,1\],"context":\{"event":"cycles","x_k":"v"\},"weights":\[\{"metric":"period","value":5\}\],"exclusive":\{"frame":7,"weights":\[\{"metric":"period","value":5\}\]\},"x_other":true\}$'
}

@test "errors: bad options, a file that is not SPAA, a bad kallsyms or maps file" {
	run spaa-symbolize --maps=abc
	assert_failure 2
	assert_output "spaa-symbolize: --maps: 'abc' is not PID=FILE nor a directory
Try 'spaa-symbolize --help' for more information."
	run spaa-symbolize --maps=x=file
	assert_failure 2
	assert_line --index 0 "spaa-symbolize: --maps: 'x=file' is not PID=FILE (PID a process id)"
	# folded stacks are read in process (folded2spaa's output)
	printf 'main;foo 1\n' >"$T/x.folded"
	run spaa-symbolize "$T/x.folded"
	assert_success
	[ "$output" = "$(folded2spaa "$T/x.folded" | spaa-symbolize)" ]
	printf 'ffffffff81000000 T\n' >"$T/kallsyms"
	printf 'main;0xffffffff81000000 1\n' | folded2spaa --addrs >"$T/in.spaa"
	run spaa-symbolize --kallsyms="$T/kallsyms" -o "$T/out.spaa" "$T/in.spaa"
	assert_failure 1
	assert_output "spaa-symbolize: $T/kallsyms:1: not a kallsyms line (expected \"ADDRESS TYPE NAME [MODULE]\")"
	[ ! -e "$T/out.spaa" ]
	printf '0x1000 1\n' | folded2spaa --addrs --pid=5 >"$T/in.spaa"
	printf '00400000-00401000 r-xp 00000000\n' >"$T/maps.txt"
	run spaa-symbolize --maps=5="$T/maps.txt" "$T/in.spaa"
	assert_failure 1
	assert_output "spaa-symbolize: $T/maps.txt:1: not a /proc/PID/maps line (expected \"START-END PERMS OFFSET DEV INODE [PATH]\")"
}

@test "stacks that become one: samples before and after them and a window name the summed stack" {
	cd "$B"
	set -- $(addrs nodebug leaf_work | sed -n '3p;5p')
	cat >"$T/in.spaa" <<-EOF
	{"type":"header","format":"spaa","version":"1.0","source_tool":"folded","frame_order":"leaf_to_root","events":[{"name":"cpu","kind":"software","sampling":{"mode":"frequency","primary_metric":"samples"}}],"stack_id_mode":"content_addressable"}
	{"type":"dso","id":1,"name":"$B/nodebug","is_kernel":false}
	{"type":"frame","id":1,"func":"$1","func_resolved":false,"dso":1,"ip":"$1","kind":"user"}
	{"type":"frame","id":2,"func":"$2","func_resolved":false,"dso":1,"ip":"$2","kind":"user"}
	{"type":"sample","timestamp":1.5,"stack_id":"0x0000000000000002"}
	{"type":"stack","id":"0x0000000000000001","frames":[1],"context":{"event":"cpu"},"weights":[{"metric":"samples","value":3}],"exclusive":{"frame":1,"weights":[{"metric":"samples","value":3}]}}
	{"type":"stack","id":"0x0000000000000002","frames":[2],"context":{"event":"cpu"},"weights":[{"metric":"samples","value":4}],"exclusive":{"frame":2,"weights":[{"metric":"samples","value":4}]}}
	{"type":"window","id":"w1","start":1,"end":2,"unit":"seconds","by_stack":[{"stack_id":"0x0000000000000001","weights":[{"metric":"samples","value":3}]},{"stack_id":"0x0000000000000002","weights":[{"metric":"samples","value":4}]}],"x_w":1}
	{"type":"sample","timestamp":1.7,"stack_id":"0x0000000000000001"}
	EOF
	spaa-symbolize "$T/in.spaa" >"$T/out.spaa"
	spaa-validate --strict -q "$T/out.spaa"
	run jq -c 'select(.type == "stack") | [.frames, .weights, .exclusive]' "$T/out.spaa"
	assert_output '[[1],[{"metric":"samples","value":7}],{"frame":1,"weights":[{"metric":"samples","value":7}]}]'
	id=$(jq -r 'select(.type == "stack") | .id' "$T/out.spaa")
	run jq -r 'select(.type == "sample") | .stack_id' "$T/out.spaa"
	assert_output "$id
$id"
	# the window's entries of the two stacks are one entry, summed
	run grep '"type":"window"' "$T/out.spaa"
	assert_output '{"type":"window","id":"w1","start":1,"end":2,"unit":"seconds","by_stack":[{"stack_id":"'"$id"'","weights":[{"metric":"samples","value":7}]}],"x_w":1}'
	# the content id: spaa-cat --merge, which makes every id again from the
	# content, leaves it as it is
	run sh -c "spaa-cat --merge '$T/out.spaa' | jq -r 'select(.type == \"stack\") | .id'"
	assert_output "$id"
	# and for the stacks of the first test too
	fold_addrs "$B/prog" $(addrs prog leaf_work) | spaa-symbolize >"$T/many.spaa"
	jq -r 'select(.type == "stack") | .id' "$T/many.spaa" | sort >"$T/ids1"
	spaa-cat --merge "$T/many.spaa" | jq -r 'select(.type == "stack") | .id' | sort >"$T/ids2"
	[ -s "$T/ids1" ]
	cmp "$T/ids1" "$T/ids2"
}

@test "stacks that become one: a metric only the second has is kept, units too (nothing lost)" {
	cd "$B"
	set -- $(addrs nodebug leaf_work | sed -n '3p;5p')
	cat >"$T/in.spaa" <<-EOF
	{"type":"header","format":"spaa","version":"1.0","source_tool":"folded","frame_order":"leaf_to_root","events":[{"name":"cpu","kind":"software","sampling":{"mode":"frequency","primary_metric":"samples"}}],"stack_id_mode":"content_addressable"}
	{"type":"dso","id":1,"name":"$B/nodebug","is_kernel":false}
	{"type":"frame","id":1,"func":"$1","func_resolved":false,"dso":1,"ip":"$1","kind":"user"}
	{"type":"frame","id":2,"func":"$2","func_resolved":false,"dso":1,"ip":"$2","kind":"user"}
	{"type":"stack","id":"0x0000000000000001","frames":[1],"context":{"event":"cpu"},"weights":[{"metric":"samples","value":1}]}
	{"type":"stack","id":"0x0000000000000002","frames":[2],"context":{"event":"cpu"},"weights":[{"metric":"samples","value":2},{"metric":"bytes","value":5,"unit":"B"}]}
	{"type":"window","id":"w1","start":1,"end":2,"unit":"seconds","by_stack":[{"stack_id":"0x0000000000000001","weights":[{"metric":"samples","value":1,"unit":"n"}]},{"stack_id":"0x0000000000000002","weights":[{"metric":"samples","value":2},{"metric":"bytes","value":5,"unit":"B"}]}]}
	EOF
	spaa-symbolize "$T/in.spaa" >"$T/out.spaa"
	run jq -c 'select(.type == "stack") | .weights' "$T/out.spaa"
	assert_output '[{"metric":"samples","value":3},{"metric":"bytes","value":5,"unit":"B"}]'
	run jq -c 'select(.type == "window") | [.by_stack[].weights]' "$T/out.spaa"
	assert_output '[[{"metric":"samples","value":3,"unit":"n"},{"metric":"bytes","value":5,"unit":"B"}]]'
}

@test "only regular files are read: a dso that is a FIFO, a device, a socket or a directory is skipped, and --verbose says why (issue 20)" {
	mkfifo "$T/fifo"
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/sock"
	mkdir "$T/dir"
	i=0
	for f in "$T/fifo" /dev/zero "$T/sock" "$T/dir"; do
		i=$((i + 1))
		echo "0x1139 1" | folded2spaa --addrs --binary="$f" > "$T/$i.spaa"
	done
	spaa-cat --merge "$T"/[1-4].spaa > "$T/in.spaa"
	run timeout 20 spaa-symbolize --verbose -o "$T/out.spaa" "$T/in.spaa"
	assert_success
	assert_line "spaa-symbolize: $T/fifo: 0 resolved, 1 a FIFO, not a regular file"
	assert_line "spaa-symbolize: /dev/zero: 0 resolved, 1 a device, not a regular file"
	assert_line "spaa-symbolize: $T/sock: 0 resolved, 1 a socket, not a regular file"
	assert_line "spaa-symbolize: $T/dir: 0 resolved, 1 a directory, not a regular file"
	assert_equal "$(sort "$T/out.spaa")" "$(sort "$T/in.spaa")" # (dictionaries first)
	# under --root as well, reached through a symbolic link
	mkdir -p "$T/r/usr/bin" && mkfifo "$T/r/usr/bin/fifo" && ln -s fifo "$T/r/usr/bin/app"
	echo "0x1139 1" | folded2spaa --addrs --binary=/usr/bin/app > "$T/app.spaa"
	run timeout 20 spaa-symbolize --verbose --root="$T/r" -o /dev/null "$T/app.spaa"
	assert_success
	assert_output "spaa-symbolize: /usr/bin/app: 0 resolved, 1 a FIFO, not a regular file"
}

@test "--root confines every path: .. stops at the root, symbolic links resolve inside it, absolute ones from it (issue 20)" {
	cd "$B"
	a=$(addrs prog leaf_work | head -1)
	R=$T/root
	mkdir -p "$R/usr/bin" "$R/opt"
	cp prog "$R/usr/bin/prog"
	ln -s /usr/bin/prog "$R/opt/abs"                # absolute: from the root, found
	ln -s ../usr/bin/prog "$R/opt/rel"              # relative, inside: found
	ln -s "$B/prog" "$R/opt/host"                   # the host's file: not followed out
	ln -s ../../../../../../../../.."$B/prog" "$R/opt/up" # .. above the root stays at it
	ln -s loop2 "$R/opt/loop1" && ln -s loop1 "$R/opt/loop2"
	i=0
	for d in /usr/bin/prog /opt/abs /opt/rel /opt/host /opt/up "/../../../../../..$B/prog" /opt/loop1; do
		i=$((i + 1))
		echo "$a 1" | folded2spaa --addrs --binary="$d" > "$T/$i.spaa"
	done
	spaa-cat --merge "$T"/[1-7].spaa > "$T/in.spaa"
	run spaa-symbolize --verbose --root="$R" -o "$T/out.spaa" "$T/in.spaa"
	assert_success
	assert_output "spaa-symbolize: /usr/bin/prog: 1 resolved
spaa-symbolize: /opt/abs: 1 resolved
spaa-symbolize: /opt/rel: 1 resolved
spaa-symbolize: /opt/host: 0 resolved, 1 no file known for the address
spaa-symbolize: /opt/up: 0 resolved, 1 no file known for the address
spaa-symbolize: /../../../../../..$B/prog: 0 resolved, 1 no file known for the address
spaa-symbolize: /opt/loop1: 0 resolved, 1 too many symbolic links"
	# what is inside the root resolves as the host's copy does
	echo "$a 1" | folded2spaa --addrs --binary="$B/prog" | spaa-symbolize > "$T/want.spaa"
	assert_equal "$(chain "$T/out.spaa" "$a" | grep -v "^$a -" | sort -u)" "$(chain "$T/want.spaa" "$a")"
}

@test "a bad sample or window stops the command, as in spaa-cat (found by fuzz_spaa-symbolize, issue 20)" {
	H='{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"e","kind":"software","sampling":{"mode":"event","primary_metric":"n"}}],"stack_id_mode":"local"}'
	printf '%s\n' "$H" '{"type":"dso","id":1,"name":"a"}' '{"type":"frame","id":1,"func":"f","dso":1}' \
		'{"type":"stack","id":"s1","frames":[1],"context":{"event":"e"},"weights":[{"metric":"n","value":2}]}' \
		'{"type":"sample","timestamp":1.5}' > "$T/smp.spaa"
	run spaa-symbolize --kallsyms=none -o "$T/out" "$T/smp.spaa"
	assert_failure 1
	assert_output "spaa-symbolize: $T/smp.spaa:5: sample has no valid \"stack_id\""
	[ ! -e "$T/out" ]
	printf '%s\n' "$H" '{"type":"dso","id":1,"name":"a"}' '{"type":"frame","id":1,"func":"f","dso":1}' \
		'{"type":"stack","id":"s1","frames":[1],"context":{"event":"e"},"weights":[{"metric":"n","value":2}]}' \
		'{"type":"window","start":0,"end":1,"unit":"seconds","by_stack":[{"stack_id":"s1","weights":[{"metric":"n","value":"x"}]}]}' > "$T/win.spaa"
	run spaa-symbolize --kallsyms=none -o "$T/out" "$T/win.spaa"
	assert_failure 1
	assert_output "spaa-symbolize: $T/win.spaa:5: window entry for stack s1: weights[0] needs a \"metric\" string and a numeric \"value\""
}

@test "a .gnu_debuglink is followed under --root only: next to the file, in its .debug/, the CRC checked (issue 20)" {
	cd "$B"
	a=$(addrs prog leaf_work | head -1)
	R=$T/r
	mkdir -p "$R/x" "$R/y/.debug"
	cp stripped "$R/x/" && cp "$B"/debug/*/*.debug "$R/x/prog.debug"
	cp stripped "$R/y/" && cp "$R/x/prog.debug" "$R/y/.debug/"
	for d in x y; do
		echo "$a 1" | folded2spaa --addrs --binary=/$d/stripped | spaa-symbolize --root="$R" > "$T/$d.spaa"
		assert_equal "$(chain "$T/$d.spaa" "$a")" "$(want_chain prog "$a")"
	done
	echo junk > "$R/x/prog.debug"
	echo "$a 1" | folded2spaa --addrs --binary=/x/stripped > "$T/in.spaa"
	run spaa-symbolize --verbose --root="$R" -o /dev/null "$T/in.spaa"
	assert_output "spaa-symbolize: /x/stripped: 0 resolved, 1 stripped (no symbols)"
}
