#!/usr/bin/env bats
# pstats2spaa: Python cProfile statistics, against pstats' own figures.
load common

P=$D/pstats

# compare PSTATS: each function's self time (wall_ns) and calls in
# pstats2spaa's profile (spaa-top, exact integers) against pstats' tottime
# and call count, and its total against pstats' cumtime for a function that
# is in no cycle of calls (to the microsecond: the stacks share the
# edges' times out in whole nanoseconds); one line per difference.
compare() {
	python3 "$P/truth.py" "$1" > "$T/truth"
	pstats2spaa "$1" > "$T/p.spaa"
	spaa-top -n 0 -J --raw-units "$T/p.spaa" > "$T/wall"
	spaa-top -n 0 -J --raw-units -m calls "$T/p.spaa" > "$T/calls"
	python3 - "$T/truth" "$T/wall" "$T/calls" <<-'PY'
	import json, sys
	truth = {}
	for line in open(sys.argv[1]):
	    name, tt, ct, nc, rec = line.rstrip("\n").split("\t")
	    truth[name] = (int(tt), int(ct), int(nc), rec == "1")
	def rows(path):
	    return {r["name"]: r for r in map(json.loads, open(path)) if r["type"] == "row"}
	wall, calls = rows(sys.argv[2]), rows(sys.argv[3])
	for name, (tt, ct, nc, rec) in sorted(truth.items()):
	    w = wall.get(name, {"self": 0, "total": 0})
	    c = calls.get(name, {"self": 0})
	    if w["self"] != tt:
	        print(f"{name}: self {w['self']} ns, tottime {tt} ns")
	    if not rec and abs(w["total"] - ct) > 100000:
	        print(f"{name}: total {w['total']} ns, cumtime {ct} ns")
	    if c["self"] != nc:
	        print(f"{name}: calls {c['self']}, pstats {nc}")
	for name in wall:
	    if name not in truth:
	        print(f"{name}: not a function of pstats")
	PY
}

@test "pstats2spaa: a recording shipped: every function's self time, total and calls are pstats' tottime, cumtime and ncalls" {
	run compare "$P/prog.pstats"
	assert_success
	assert_output ''
}

@test "pstats2spaa: the stacks rebuilt from the callers, exactly" {
	run sh -c "pstats2spaa '$P/prog.pstats' | spaa-fold"
	assert_success
	assert_output "{built-in method builtins.exec} 8752
{built-in method builtins.exec};prog.py:1(<module>) 54408
{built-in method builtins.exec};prog.py:1(<module>);prog.py:37(main) 57392
{built-in method builtins.exec};prog.py:1(<module>);prog.py:37(main);prog.py:17(a) 5871
{built-in method builtins.exec};prog.py:1(<module>);prog.py:37(main);prog.py:17(a);prog.py:13(helper) 43850
{built-in method builtins.exec};prog.py:1(<module>);prog.py:37(main);prog.py:17(a);prog.py:13(helper);prog.py:6(leaf) 90038436
{built-in method builtins.exec};prog.py:1(<module>);prog.py:37(main);prog.py:21(b) 41734
{built-in method builtins.exec};prog.py:1(<module>);prog.py:37(main);prog.py:21(b);prog.py:13(helper) 19687
{built-in method builtins.exec};prog.py:1(<module>);prog.py:37(main);prog.py:21(b);prog.py:13(helper);prog.py:6(leaf) 40424353
{built-in method builtins.exec};prog.py:1(<module>);prog.py:37(main);prog.py:21(b);{built-in method builtins.sorted} 28215
{built-in method builtins.exec};prog.py:1(<module>);prog.py:37(main);prog.py:25(fib) 1031734
{built-in method builtins.exec};prog.py:1(<module>);prog.py:37(main);prog.py:29(even) 71158
{built-in method builtins.exec};prog.py:1(<module>);prog.py:37(main);prog.py:29(even);prog.py:33(odd) 363004
{built-in method builtins.exec};prog.py:1(<module>);prog.py:37(main);{built-in method time.sleep} 12447088
{method 'disable' of '_lsprof.Profiler' objects} 2046"
}

@test "pstats2spaa: a recording made now (python3 -m cProfile) of a program using the standard library agrees with pstats" {
	command -v python3 >/dev/null || skip "python3 is absent"
	cat > "$T/work.py" <<-'PY'
	import json, re, collections
	def parse(n):
	    data = [{"k": i, "v": [i, str(i)] * 3} for i in range(n)]
	    text = json.dumps(data)
	    back = json.loads(text)
	    words = re.findall(r"[0-9]+", text)
	    return len(back), collections.Counter(words).most_common(3)
	for _ in range(5):
	    parse(3000)
	PY
	(cd "$T" && python3 -m cProfile -o work.pstats work.py)
	run compare "$T/work.pstats"
	assert_success
	assert_output ''
	# any2spaa and every command know it by its content
	run any2spaa --verbose "$T/work.pstats"
	assert_line --partial "Python cProfile statistics (pstats): pstats2spaa"
	[ "$(pstats2spaa "$T/work.pstats" | spaa-fold)" = "$(spaa-fold "$T/work.pstats" 2>/dev/null || pstats2spaa "$T/work.pstats" | spaa-fold)" ]
}

@test "pstats2spaa: damaged statistics are errors naming the byte, never a short profile" {
	run pstats2spaa /dev/null
	assert_failure 1
	assert_output "pstats2spaa: /dev/null: empty input: no profile written"
	head -c 200 "$P/prog.pstats" > "$T/cut"
	run pstats2spaa "$T/cut"
	assert_failure 1
	assert_output "pstats2spaa: $T/cut: byte 198: a container longer than the rest of the data: the file is cut short (not cProfile statistics, or damaged)"
	# every cut: exit 1, never a profile
	n=$(wc -c < "$P/prog.pstats")
	i=1
	while [ "$i" -lt "$n" ]; do
		head -c "$i" "$P/prog.pstats" > "$T/c"
		pstats2spaa "$T/c" > /dev/null 2>&1 && fail "cut at byte $i converted"
		[ $? -eq 1 ] || fail "cut at byte $i: exit $?"
		i=$((i + 1))
	done
	# a reference to nothing, nesting beyond bounds, a count beyond 64 bits
	printf '\373r\005\000\000\000' > "$T/ref"
	run pstats2spaa "$T/ref"
	assert_failure 1
	assert_output "pstats2spaa: $T/ref: byte 6: a reference to no value read before (not cProfile statistics, or damaged)"
	{ printf '{'; for i in $(seq 100); do printf '('; printf '\001\000\000\000'; done; } > "$T/deep"
	run pstats2spaa "$T/deep"
	assert_failure 1
	assert_output --partial "values nested more than 64 deep"
	printf '{)\003z\001ai\001\000\000\000z\001f)\005l\006\000\000\000\377\177\377\177\377\177\377\177\377\177\377\177' > "$T/big"
	run pstats2spaa "$T/big"
	assert_failure 1
	assert_output --partial "an integer beyond 64 bits"
	# figures out of bounds: a call count that is not a whole number, a
	# time whose nanoseconds would not fit 64 bits
	python3 -c 'import marshal, sys; sys.stdout.buffer.write(marshal.dumps({("a.py", 1, "f"): (1.5, 1, 0.1, 0.1, {})}))' > "$T/f1"
	run pstats2spaa "$T/f1"
	assert_failure 1
	assert_output "pstats2spaa: $T/f1: a primitive call count is not a whole number of calls from 0 to 2^62"
	python3 -c 'import marshal, sys; sys.stdout.buffer.write(marshal.dumps({("a.py", 1, "f"): (1, 1, 1e300, 1e300, {})}))' > "$T/f2"
	run pstats2spaa "$T/f2"
	assert_failure 1
	assert_output "pstats2spaa: $T/f2: a tottime is not a number of seconds from 0 to 1e9"
	# data after the dictionary
	{ cat "$P/prog.pstats"; printf 'N'; } > "$T/after"
	run pstats2spaa "$T/after"
	assert_failure 1
	assert_output --partial "data after the statistics' dictionary"
}

@test "pstats2spaa: names with a NUL, ';', a number at the end, not ASCII: whole (a NUL as U+FFFD, as every reader writes it), valid under --strict" {
	python3 -c 'import marshal, sys; sys.stdout.buffer.write(marshal.dumps({("a;b.py", 1, "f\x00g"): (1, 1, 0.1, 0.1, {}), ("caf\xe9.py", 2, "h 12"): (1, 1, 0.2, 0.2, {})}))' > "$T/s.pstats"
	pstats2spaa "$T/s.pstats" > "$T/s.spaa"
	run spaa-validate --strict "$T/s.spaa"
	assert_success
	run spaa-fold "$T/s.pstats"
	assert_output "$(printf 'a:b.py:1(f\357\277\275g) 100000000\ncaf\303\251.py:2(h 12) 200000000')"
	jfr2spaa "$D/jfr/prog.jfr" | spaa-validate --strict -
}

@test "pstats2spaa: another format is named, with the command that reads it" {
	run pstats2spaa "$EX/go-cpu.pprof"
	assert_failure 1
	assert_output "pstats2spaa: $EX/go-cpu.pprof: this is a pprof profile (profile.proto), not cProfile statistics: run pprof2spaa"
}
