#!/usr/bin/env bats
# stackprof2spaa: Ruby stackprof profiles made here (ruby-stackprof, modes
# cpu, wall and object), against the same files read on their own
# (tests/data/stackprof/fold.py, speedscope's reading) and stackprof's own
# per-frame sample counts.
load common

setup_file() {
	command -v ruby >/dev/null || return 0
	cd "$BATS_FILE_TMPDIR"
	cat > sp.rb <<'END'
require 'stackprof'
require 'json'
def fib(n) n < 2 ? n : fib(n - 1) + fib(n - 2) end
def alloc_some; a = []; 2000.times { |i| a << "s#{i}" * 3 }; a end
class Worker; def run; fib(20); alloc_some; GC.start; end; end
mode = ARGV[0].to_sym
res = StackProf.run(mode: mode, raw: true, interval: mode == :object ? 1 : 100) { 8.times { Worker.new.run } }
File.write(ARGV[1], JSON.generate(res))
END
	for m in cpu wall object; do ruby sp.rb $m sp-$m.json; done
}

need_ruby() {
	ruby -rstackprof -e 1 2>/dev/null || fail "ruby-stackprof is missing: sh .ci/deps installs it"
	F=$BATS_FILE_TMPDIR
}

@test "cpu, wall and object profiles: the stacks and weights speedscope reads" {
	need_ruby
	for m in cpu wall object; do
		stackprof2spaa "$F/sp-$m.json" > "$T/p.spaa"
		spaa-validate --strict "$T/p.spaa"
		spaa-fold "$T/p.spaa" > "$T/ours"
		python3 "$BATS_TEST_DIRNAME/data/stackprof/fold.py" "$F/sp-$m.json" > "$T/theirs"
		[ -s "$T/theirs" ]
		diff "$T/theirs" "$T/ours"
	done
	grep -q '"primary_metric":"wall_us"' <(stackprof2spaa "$F/sp-wall.json")
	grep -q '"name":"object","kind":"allocation"' <(stackprof2spaa "$F/sp-object.json")
}

# $T/theirs and $T/ours differ: only where stackprof's raw stacks and its
# frames' counts disagree, which they do around garbage collection (seen in
# one CI run of several: GC.start 2 in "frames", 1 in "raw", and (marking)
# one more in "raw"): a sample that stackprof's "frames" count for a frame X
# went to a GC stack in "raw", which is what speedscope and stackprof2spaa
# read.  So the totals are equal, frames other than GC's have at most their
# "frames" count, GC frames at least theirs, and what moved is at most 1% of
# the samples.
gc_quirk_only() {
	python3 - "$T/theirs" "$T/ours" <<'PY'
import sys
def counts(p):
    d = {}
    for line in open(p):
        n, name = line.rstrip("\n").split(" ", 1)
        d[name] = d.get(name, 0) + int(n)
    return d
theirs, ours = counts(sys.argv[1]), counts(sys.argv[2])
gc = {"(garbage collection)", "(marking)", "(sweeping)"}
total = sum(theirs.values())
assert total == sum(ours.values()), "totals differ"
moved = 0
for k in set(theirs) | set(ours):
    t, o = theirs.get(k, 0), ours.get(k, 0)
    if k in gc:
        assert o >= t, "GC frame with fewer samples than stackprof's: " + k
    else:
        assert o <= t, "more samples than stackprof's: " + k
        moved += t - o
assert moved * 100 <= total, "%d of %d samples moved" % (moved, total)
PY
}

@test "each frame's own samples are stackprof's" {
	need_ruby
	for m in cpu wall object; do
		metric=samples
		[ $m = object ] && metric=alloc_count
		stackprof2spaa "$F/sp-$m.json" | spaa-fold --raw -m $metric > "$T/folded"
		awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); self[f[k]] += n }
		     END { for (x in self) print self[x], x }' "$T/folded" | LC_ALL=C sort -k2 > "$T/ours"
		# stackprof's "samples" per frame, summed per name (garbage collection
		# stacks sit on the stack before them, so their leaf is still theirs)
		jq -r '[.frames[] | select(.samples > 0) | {name, samples}] | group_by(.name)[] |
			"\(map(.samples) | add) \(.[0].name)"' "$F/sp-$m.json" | LC_ALL=C sort -k2 > "$T/theirs"
		diff "$T/theirs" "$T/ours" >&2 || gc_quirk_only
	done
}

@test "-s: a sample record per sample, at its time (raw_sample_timestamps), in the file's order" {
	need_ruby
	stackprof2spaa -s "$F/sp-wall.json" > "$T/s.spaa"
	spaa-validate --strict "$T/s.spaa"
	n=$(jq '[.raw_timestamp_deltas[]] | length' "$F/sp-wall.json")
	[ "$(grep -c '"type":"sample"' "$T/s.spaa")" -eq "$n" ]
	grep '"type":"sample"' "$T/s.spaa" | jq -r '.timestamp * 1000000 | round' > "$T/ts"
	jq -r '.raw_sample_timestamps[]' "$F/sp-wall.json" > "$T/want"
	diff "$T/want" "$T/ts"
	# the same stacks with or without samples
	stackprof2spaa "$F/sp-wall.json" | spaa-fold > "$T/a"
	spaa-fold "$T/s.spaa" > "$T/b"
	cmp "$T/a" "$T/b"
}

@test "standard input, and exact errors" {
	need_ruby
	stackprof2spaa < "$F/sp-cpu.json" | spaa-fold > "$T/a"
	stackprof2spaa "$F/sp-cpu.json" | spaa-fold > "$T/b"
	cmp "$T/a" "$T/b"
	bad() { printf '%s' "$1" > "$T/b.json"; run stackprof2spaa "$T/b.json"; assert_failure 1; assert_output "stackprof2spaa: $T/b.json:$2"; }
	bad '{"mode":"cpu","interval":100,"frames":{}}' '1: no "raw" stacks: record with StackProf.run(raw: true) (stackprof writes them only then) (byte 41)'
	bad '{"mode":"heap","frames":{},"raw":[]}' '1: mode "heap": stackprof'"'"'s modes are cpu, wall, object and custom (byte 14)'
	bad '{"mode":"object","frames":{"1":{"name":"f"}},"raw":[1,2,5]}' '1: raw stack names frame 2, which "frames" does not have (byte 55)'
	bad '{"mode":"wall","frames":{"1":{"name":"f"}},"raw":[1,1,2]}' '1: a wall profile without "raw_timestamp_deltas" (the samples'"'"' durations) (byte 57)'
	bad '{"mode":"wall","frames":{"1":{"name":"f"}},"raw":[1,1,2],"raw_timestamp_deltas":[5]}' '1: fewer raw_timestamp_deltas (1) than samples (byte 83)'
	: > "$T/e.json"
	run stackprof2spaa "$T/e.json"
	assert_failure 1
	assert_output "stackprof2spaa: $T/e.json: empty input: no profile written"
}

@test "several files: converted one by one and merged as spaa-cat --merge (issue 19)" {
	stackprof2spaa "$EX/stackprof-cpu.json" | spaa-fold > "$T/one"
	stackprof2spaa "$EX/stackprof-cpu.json" "$EX/stackprof-cpu.json" | spaa-fold > "$T/two"
	awk '{ $NF = $NF * 2; print }' "$T/one" > "$T/want"
	diff "$T/want" "$T/two"
}

@test "garbage collection entries in a row: on top of the stack before them once, not piled up (quadratic); keys given twice are errors" {
	python3 -c '
import json
raw = [2, 1, 2, 1] + [1, 3, 1] * 20000
print(json.dumps({"mode": "cpu", "interval": 1000, "frames": {"1": {"name": "main"}, "2": {"name": "work"},
	"3": {"name": "(garbage collection)"}}, "raw": raw}))' > "$T/gc.json"
	run bounded 200 20 stackprof2spaa -o "$T/gc.spaa" "$T/gc.json"
	assert_success
	run spaa-fold "$T/gc.spaa"
	assert_output $'main;work 1000\nmain;work;(garbage collection) 20000000'
	P='"mode":"cpu","interval":1000,"frames":{"1":{"name":"main"}}'
	bad() { printf '%s' "$1" > "$T/b.json"; run stackprof2spaa -o "$T/out" "$T/b.json"; assert_failure 1
		assert_output "stackprof2spaa: $T/b.json:$2"; [ ! -e "$T/out" ]; }
	bad "{$P,\"raw\":[1,1,1],\"raw\":[1,1,5]}" '1: a second "raw" (byte 81)'
	bad "{$P,\"raw\":[1,1,1],\"interval\":10}" '1: a second "interval" (byte 86)'
	bad "{\"mode\":\"wall\",$P,\"raw\":[1,1,2],\"raw_timestamp_deltas\":[1,2],\"raw_timestamp_deltas\":[3,4]}" \
		'1: a second "mode" (byte 22)'
}

@test "a raw stack of height 0: a stack of the frame (no frames), not an invalid stack of none; garbage collection after it stands alone" {
	printf '%s' '{"mode":"cpu","interval":1000,"frames":{"1":{"name":"main"},"3":{"name":"(garbage collection)"}},"raw":[0,3,1,3,1,1,1,1]}' > "$T/z.json"
	stackprof2spaa -o "$T/z.spaa" "$T/z.json"
	spaa-validate --strict "$T/z.spaa"
	run spaa-fold "$T/z.spaa"
	assert_output $'(garbage collection) 1000\n(no frames) 3000\nmain 1000'
}
