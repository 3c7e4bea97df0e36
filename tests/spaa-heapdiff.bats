#!/usr/bin/env bats
load common

H=$D/heapdiff
K=1234 # the Leaky objects the node script allocates between its snapshots
T_COUNT=321 # the Temp objects it frees between them

# Real snapshots, once for the file: node writes one, allocates K objects of
# class Leaky kept in a global array, and writes another.
setup_file() {
	command -v node >/dev/null || return 0
	cd "$BATS_FILE_TMPDIR" || return 1
	cat > leak.js <<-EOF
	const v8 = require('v8');
	class Leaky { constructor(i) { this.i = i; this.tag = 'leak' + i; } }
	class Temp { constructor(i) { this.i = i; } }
	globalThis.leaks = [];
	globalThis.temps = [];
	function fill(n) { for (let i = 0; i < n; i++) globalThis.leaks.push(new Leaky(i)); }
	for (let i = 0; i < $T_COUNT; i++) globalThis.temps.push(new Temp(i));
	v8.writeHeapSnapshot('before.heapsnapshot');
	globalThis.temps = null;
	fill($K);
	v8.writeHeapSnapshot('after.heapsnapshot');
	EOF
	node leak.js
}

# Count and bytes of the objects of constructor NAME (type object, that
# name), summed from the snapshot's JSON by python, independently.
py_figures() { # FILE NAME
	python3 - "$1" "$2" <<-'EOF'
	import json, sys
	s = json.load(open(sys.argv[1]))
	meta = s["snapshot"]["meta"]
	f = meta["node_fields"]
	nf, t, n, z = len(f), f.index("type"), f.index("name"), f.index("self_size")
	types = meta["node_types"][t]
	nodes, strings = s["nodes"], s["strings"]
	count = size = 0
	for i in range(0, len(nodes), nf):
	    if types[nodes[i + t]] == "object" and strings[nodes[i + n]] == sys.argv[2]:
	        count += 1
	        size += nodes[i + z]
	print(count, size)
	EOF
}

need_node() {
	command -v node >/dev/null || fail "node is not installed"
	[ -f "$BATS_FILE_TMPDIR/after.heapsnapshot" ] || fail "the node script wrote no snapshots"
}

@test "the hand-made pair: the whole report, byte for byte" {
	cd "$H"
	run spaa-heapdiff before.heapsnapshot after.heapsnapshot
	assert_success
	assert_output "$(cat expected.ndjson)"
	# the layout comes from meta: BEFORE lists its fields in another order
	grep -q '"node_fields":\["name","type"' before.heapsnapshot
	# the spec's example path
	assert_line '{"type":"retained","constructor":"Item","size":24,"id":15,"retention_path":["Window","app","cache","items","[42]"]}'
}

@test "-n and --retained: the first growth records, retained records of those constructors only" {
	cd "$H"
	run spaa-heapdiff -n 2 --retained=3 before.heapsnapshot after.heapsnapshot
	assert_success
	assert_output '{"type":"header","format":"heap-diff","version":"0.1","baseline":"before.heapsnapshot","target":"after.heapsnapshot"}
{"type":"growth","constructor":"Item","count_before":1,"count_after":4,"count_delta":3,"size_before":24,"size_after":136,"size_delta":112,"new_count":3,"deleted_count":0,"alloc_size":112,"freed_size":0}
{"type":"growth","constructor":"Café","count_before":0,"count_after":1,"count_delta":1,"size_before":0,"size_after":48,"size_delta":48,"new_count":1,"deleted_count":0,"alloc_size":48,"freed_size":0}
{"type":"retained","constructor":"Item","size":64,"id":17,"retention_path":[]}
{"type":"retained","constructor":"Café","size":48,"id":31,"retention_path":["Window","a\"b"]}
{"type":"retained","constructor":"Item","size":24,"id":15,"retention_path":["Window","app","cache","items","[42]"]}'
	run spaa-heapdiff --retained=0 -n 0 before.heapsnapshot after.heapsnapshot
	assert_success
	refute_output --partial '"retained"'
	[ "$(printf '%s\n' "$output" | grep -c '"growth"')" -eq 8 ]
	# the same with the same snapshot twice: nothing grew, nothing is new
	run spaa-heapdiff after.heapsnapshot after.heapsnapshot
	assert_success
	assert_output '{"type":"header","format":"heap-diff","version":"0.1","baseline":"after.heapsnapshot","target":"after.heapsnapshot"}'
}

@test "compressed input, standard input, -o (plain and .zst)" {
	cd "$H"
	gzip -c after.heapsnapshot > "$T/after.heapsnapshot.gz"
	zstd -q -c before.heapsnapshot > "$T/before.heapsnapshot.zst"
	run sh -c "spaa-heapdiff '$T/before.heapsnapshot.zst' - < '$T/after.heapsnapshot.gz' | tail -n +2"
	assert_success
	assert_output "$(tail -n +2 expected.ndjson)"
	run spaa-heapdiff -o "$T/out.ndjson" before.heapsnapshot after.heapsnapshot
	assert_success
	assert_output ''
	assert_file_eq "$T/out.ndjson" < expected.ndjson
	run spaa-heapdiff -o "$T/out.ndjson.zst" before.heapsnapshot after.heapsnapshot
	assert_success
	run sh -c "zstd -dc '$T/out.ndjson.zst' | cmp - expected.ndjson"
	assert_success
}

@test "paths longer than 20 segments: the first 10, \"...\", the last 9" {
	# a chain root -> Link 1 -> Link 2 ... -> Link 30 (property p1, p2, ...)
	python3 - "$T" <<-'EOF'
	import json, sys
	meta = {"node_fields": ["type", "name", "id", "self_size", "edge_count"],
	        "node_types": [["object", "synthetic"], "string", "number", "number", "number"],
	        "edge_fields": ["type", "name_or_index", "to_node"],
	        "edge_types": [["element", "property", "weak"], "string_or_number", "node"]}
	strings = ["", "Link"] + ["p%d" % k for k in range(1, 30)]
	def snap(links):
	    nodes = [1, 0, 1, 0, 1 if links else 0]
	    edges = [0, 1, 5] if links else []
	    for k in range(1, links + 1):
	        nodes += [0, 1, 100 + 2 * k, k, 1 if k < links else 0]
	        if k < links:
	            edges += [1, 1 + k, 5 * (k + 1)]
	    return {"snapshot": {"meta": meta, "node_count": len(nodes) // 5, "edge_count": len(edges) // 3},
	            "nodes": nodes, "edges": edges, "strings": strings}
	json.dump(snap(0), open(sys.argv[1] + "/b.heapsnapshot", "w"))
	json.dump(snap(30), open(sys.argv[1] + "/a.heapsnapshot", "w"))
	EOF
	run spaa-heapdiff --retained=11 "$T/b.heapsnapshot" "$T/a.heapsnapshot"
	assert_success
	assert_line --index 1 '{"type":"growth","constructor":"Link","count_before":0,"count_after":30,"count_delta":30,"size_before":0,"size_after":465,"size_delta":465,"new_count":30,"deleted_count":0,"alloc_size":465,"freed_size":0}'
	assert_line --index 2 '{"type":"retained","constructor":"Link","size":30,"id":160,"retention_path":["Link","p1","p2","p3","p4","p5","p6","p7","p8","p9","...","p21","p22","p23","p24","p25","p26","p27","p28","p29"]}'
	# 20 segments are kept whole
	assert_line --index 12 '{"type":"retained","constructor":"Link","size":20,"id":140,"retention_path":["Link","p1","p2","p3","p4","p5","p6","p7","p8","p9","p10","p11","p12","p13","p14","p15","p16","p17","p18","p19"]}'
	[ "${#lines[@]}" -eq 13 ]
}

@test "node's snapshots: the Leaky objects grew by exactly $K, as python counts them" {
	need_node
	local B=$BATS_FILE_TMPDIR/before.heapsnapshot A=$BATS_FILE_TMPDIR/after.heapsnapshot
	spaa-heapdiff --retained=100000 "$B" "$A" > "$T/report"
	run jq -c 'select(.type == "growth" and .constructor == "Leaky") | [.count_before, .count_after, .count_delta]' "$T/report"
	assert_output "[0,$K,$K]"
	# the sizes, against python's sums over the snapshots' JSON
	local before after
	before=$(py_figures "$B" Leaky)
	after=$(py_figures "$A" Leaky)
	[ "$before" = "0 0" ]
	[ "${after% *}" = "$K" ]
	run jq -r 'select(.type == "growth" and .constructor == "Leaky") | "\(.size_before) \(.size_after) \(.size_delta)"' "$T/report"
	assert_output "0 ${after#* } ${after#* }"
	# every Leaky is new and retained through an element of the array
	run jq -r 'select(.type == "retained" and .constructor == "Leaky") | .retention_path[-1]' "$T/report"
	[ "${#lines[@]}" -eq "$K" ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -cE '^\[[0-9]+\]$')" -eq "$K" ]
	[ "$(printf '%s\n' "${lines[@]}" | sort -u | wc -l)" -eq "$K" ]
	# the report's order: growth by size_delta descending, retained by size descending
	run jq -s -c '[.[] | select(.type == "growth") | .size_delta] | . == (sort | reverse)' "$T/report"
	assert_output true
	run jq -s -c '[.[] | select(.type == "retained") | .size] | . == (sort | reverse)' "$T/report"
	assert_output true
	run jq -s -c '[.[].type] | .[0] == "header" and (map(select(. == "header")) | length) == 1' "$T/report"
	assert_output true
}

@test "node's snapshots: the retained records' ids are AFTER's, not BEFORE's" {
	need_node
	local B=$BATS_FILE_TMPDIR/before.heapsnapshot A=$BATS_FILE_TMPDIR/after.heapsnapshot
	spaa-heapdiff "$B" "$A" | jq -r 'select(.type == "retained") | .id' | sort > "$T/ids"
	[ "$(wc -l < "$T/ids")" -eq 20 ]
	python3 - "$B" "$A" "$T/ids" <<-'EOF'
	import json, sys
	def ids(path):
	    s = json.load(open(path))
	    f = s["snapshot"]["meta"]["node_fields"]
	    nf, i = len(f), f.index("id")
	    return set(s["nodes"][i::nf])
	before, after = ids(sys.argv[1]), ids(sys.argv[2])
	for line in open(sys.argv[3]):
	    x = int(line)
	    assert x in after and x not in before, x
	EOF
}

@test "usage: two operands, one of them standard input at most; bad option values" {
	run spaa-heapdiff "$H/before.heapsnapshot"
	assert_failure 2
	assert_output "spaa-heapdiff: two snapshots needed: BEFORE AFTER
Try 'spaa-heapdiff --help' for more information."
	run spaa-heapdiff "$H/before.heapsnapshot" "$H/after.heapsnapshot" "$H/after.heapsnapshot"
	assert_failure 2
	assert_line --index 0 "spaa-heapdiff: too many arguments (two snapshots: BEFORE AFTER)"
	run spaa-heapdiff - -
	assert_failure 2
	assert_line --index 0 "spaa-heapdiff: standard input (-) can be read only once"
	run spaa-heapdiff --retained=many "$H/before.heapsnapshot" "$H/after.heapsnapshot"
	assert_failure 2
	assert_line --index 0 "spaa-heapdiff: --retained: 'many' is not a non-negative integer"
	run spaa-heapdiff --bogus "$H/before.heapsnapshot" "$H/after.heapsnapshot"
	assert_failure 2
}

@test "bad input: one message naming the file and line, exit 1, nothing written" {
	printf '{"traceEvents":[]}\n' > "$T/trace.json"
	run spaa-heapdiff "$T/trace.json" "$H/after.heapsnapshot"
	assert_failure 1
	assert_output "spaa-heapdiff: $T/trace.json:1: not a V8 heap snapshot (.heapsnapshot): the first member is \"traceEvents\", not \"snapshot\" (byte 15)"
	head -c 900 "$H/after.heapsnapshot" > "$T/cut.heapsnapshot"
	run spaa-heapdiff -o "$T/out" "$H/before.heapsnapshot" "$T/cut.heapsnapshot"
	assert_failure 1
	assert_output "spaa-heapdiff: $T/cut.heapsnapshot:3: input ends inside the JSON text (truncated file?) (byte 900)"
	[ ! -e "$T/out" ]
	[ -z "$(ls "$T" | grep -v -e trace.json -e cut.heapsnapshot)" ]
	run spaa-heapdiff - "$H/after.heapsnapshot" < /dev/null
	assert_failure 1
	assert_output "spaa-heapdiff: -:1: empty input, not a V8 heap snapshot (byte 0)"
	printf '{"nodes":[],"snapshot":{}}' > "$T/order.json"
	run spaa-heapdiff "$H/before.heapsnapshot" "$T/order.json"
	assert_failure 1
	assert_output "spaa-heapdiff: $T/order.json:1: the nodes array comes before \"snapshot\", the meta that gives its layout (byte 9)"
	# a layout without self_size, a node type not in meta, an edge to no node
	sed 's/"self_size"/"size"/' "$H/after.heapsnapshot" > "$T/nosize.json"
	run spaa-heapdiff "$H/before.heapsnapshot" "$T/nosize.json"
	assert_failure 1
	assert_output --regexp "^spaa-heapdiff: $T/nosize.json:1: snapshot.meta.node_fields has no self_size \(byte [0-9]+\)$"
	sed 's/^,15,0,39,4,0,0,0/,16,0,39,4,0,0,0/' "$H/after.heapsnapshot" > "$T/type.json"
	run spaa-heapdiff "$H/before.heapsnapshot" "$T/type.json"
	assert_failure 1
	assert_output --regexp "^spaa-heapdiff: $T/type.json:20: node type 16 is not in snapshot.meta.node_types \(byte [0-9]+\)$"
	sed 's/^,2,13,112\]/,2,13,133]/' "$H/after.heapsnapshot" > "$T/edge.json"
	run spaa-heapdiff "$H/before.heapsnapshot" "$T/edge.json"
	assert_failure 1
	assert_output --regexp "^spaa-heapdiff: $T/edge.json:[0-9]+: edge 12 leads to node 19, of 19 nodes \(byte [0-9]+\)$"
	sed 's/^,2,13,112\]/,2,13,111]/' "$H/after.heapsnapshot" > "$T/edge2.json"
	run spaa-heapdiff "$H/before.heapsnapshot" "$T/edge2.json"
	assert_failure 1
	assert_output --partial "an edge to_node 111 that is not a node's place in the nodes array"
	sed 's/^,3,16,33,8,0,0,0/,3,16,33,8,1,0,0/' "$H/after.heapsnapshot" > "$T/count.json"
	run spaa-heapdiff "$H/before.heapsnapshot" "$T/count.json"
	assert_failure 1
	assert_output --partial "the nodes' edge counts add up to 14, but the edges array has 13 edges"
	sed 's/"Bad\\udc00","a\\"b"\]/"Bad"]/' "$H/after.heapsnapshot" > "$T/strings.json"
	run spaa-heapdiff "$H/before.heapsnapshot" "$T/strings.json"
	assert_failure 1
	assert_output --partial "string 17 is used but the strings array has 17"
}

@test "--help and -V" {
	run spaa-heapdiff --help
	assert_success
	assert_line --index 0 'Usage: spaa-heapdiff [OPTION]... BEFORE AFTER'
	assert_equal "${lines[-1]}" 'Exit status: 0 ok, 1 bad input or write error, 2 usage error.'
	assert_line '  -o, --output=FILE    write to FILE, replaced only when all went well,'
	assert_line '  -h, --help           display this help and exit'
	assert_line '  -V, --version        output version information and exit'
	run spaa-heapdiff -V
	assert_success
	assert_output --regexp '^spaa-heapdiff \(spaa-tools\) [0-9]'
}

@test "a node id given to two nodes is refused, in either snapshot (issue 20)" {
	sed 's/^,3,8,19,24,0,0,0/,3,8,17,24,0,0,0/' "$H/after.heapsnapshot" > "$T/dup-after.json"
	run spaa-heapdiff -o "$T/out" "$H/before.heapsnapshot" "$T/dup-after.json"
	assert_failure 1
	assert_output "spaa-heapdiff: $T/dup-after.json:20: node id 17 is given to two nodes (nodes 8 and 9) (byte 1195)"
	[ ! -e "$T/out" ]
	sed 's/^,4,3,9,1,32/,4,3,7,1,32/' "$H/before.heapsnapshot" > "$T/dup-before.json"
	run spaa-heapdiff "$T/dup-before.json" "$H/after.heapsnapshot"
	assert_failure 1
	assert_output --regexp "^spaa-heapdiff: $T/dup-before.json:[0-9]+: node id 7 is given to two nodes \(nodes 3 and 4\) \(byte [0-9]+\)$"
}

@test "a table like DevTools' Comparison view: on a terminal, or with --table; -J the NDJSON even there" {
	cd "$H"
	run spaa-heapdiff --table before.heapsnapshot after.heapsnapshot
	assert_success
	assert_output - <<'OUT'
before.heapsnapshot: 760B in 9 objects; after.heapsnapshot: 460B in 19 objects; delta -300B, +10 objects
# New  # Deleted  # Delta  Alloc. Size  Freed Size  Size Delta  Constructor
    3          0       +3         112B           0       +112B  Item
    1          0       +1          48B           0        +48B  Café
    2          0       +2          44B           0        +44B  (string)
    1          0       +1          44B           0        +44B  (closure)
    1          0       +1          16B           0        +16B  (system)
    1          0       +1           8B           0         +8B  (bigint)
    1          0       +1           8B           0         +8B  Bad�
    1          0       +1           4B           0         +4B  (wasm object)
    0          1       -1            0        500B       -500B  Gone

The largest new object of each, retained by (from the GC roots):
 64B  Item @17  (no path from the GC roots)
 48B  Café @31  Window.a"b
 24B  (string) @27  Window.app.cache.items[42].label
 44B  (closure) @23  (no path from the GC roots)
 16B  (system) @29  (no path from the GC roots)
  8B  (bigint) @37  (no path from the GC roots)
  8B  Bad� @33  Window.a"b.label
  4B  (wasm object) @39  (no path from the GC roots)
OUT
	run spaa-heapdiff --table -n 2 --retained=1 --raw-units before.heapsnapshot after.heapsnapshot
	assert_output - <<'OUT'
before.heapsnapshot: 760 in 9 objects; after.heapsnapshot: 460 in 19 objects; delta -300, +10 objects
# New  # Deleted  # Delta  Alloc. Size  Freed Size  Size Delta  Constructor
    3          0       +3          112           0        +112  Item
    1          0       +1           48           0         +48  Café

The largest new object of each, retained by (from the GC roots):
  64  Item @17  (no path from the GC roots)
OUT
	# a terminal gets the table, -J the NDJSON
	run script -qec "spaa-heapdiff before.heapsnapshot after.heapsnapshot" /dev/null
	assert_success
	assert_line --index 1 $'# New  # Deleted  # Delta  Alloc. Size  Freed Size  Size Delta  Constructor\r'
	run script -qec "spaa-heapdiff -J before.heapsnapshot after.heapsnapshot" /dev/null
	assert_line --index 0 $'{"type":"header","format":"heap-diff","version":"0.1","baseline":"before.heapsnapshot","target":"after.heapsnapshot"}\r'
	# deleted objects are counted: Gone's in the NDJSON's growth records' figures
	run spaa-heapdiff before.heapsnapshot after.heapsnapshot
	assert_line '{"type":"growth","constructor":"Item","count_before":1,"count_after":4,"count_delta":3,"size_before":24,"size_after":136,"size_delta":112,"new_count":3,"deleted_count":0,"alloc_size":112,"freed_size":0}'
}

@test "retention paths avoid V8's internals ((system), (compiled code), hidden classes) when they can; --all-retainers keeps them" {
	# root -handle-> a hidden "system / Map" -x-> Foo, and root -app-> App -ref-> Holder -foo-> Foo
	python3 - "$T" <<-'EOF'
	import json, sys
	meta = {"node_fields": ["type", "name", "id", "self_size", "edge_count"],
	        "node_types": [["synthetic", "object", "hidden"], "string", "number", "number", "number"],
	        "edge_fields": ["type", "name_or_index", "to_node"],
	        "edge_types": [["element", "property", "weak"], "string_or_number", "node"]}
	strings = ["", "system / Map", "App", "Holder", "Foo", "handle", "app", "x", "ref", "foo"]
	after = ([0, 0, 1, 0, 2,  2, 1, 3, 10, 1,  1, 2, 5, 10, 1,  1, 3, 7, 10, 1,  1, 4, 9, 100, 0],
	         [1, 5, 5,  1, 6, 10,  1, 7, 20,  1, 8, 15,  1, 9, 20])
	before = ([0, 0, 1, 0, 0], [])
	for name, (nodes, edges) in (("b", before), ("a", after)):
	    s = {"snapshot": {"meta": meta, "node_count": len(nodes) // 5, "edge_count": len(edges) // 3},
	         "nodes": nodes, "edges": edges, "strings": strings}
	    json.dump(s, open(sys.argv[1] + "/" + name + ".heapsnapshot", "w"))
	EOF
	run spaa-heapdiff -J -n 1 --retained=1 "$T/b.heapsnapshot" "$T/a.heapsnapshot"
	assert_success
	assert_line --index 2 '{"type":"retained","constructor":"Foo","size":100,"id":9,"retention_path":["app","ref","foo"]}'
	run spaa-heapdiff -J -n 1 --retained=1 --all-retainers "$T/b.heapsnapshot" "$T/a.heapsnapshot"
	assert_line --index 2 '{"type":"retained","constructor":"Foo","size":100,"id":9,"retention_path":["handle","x"]}'
	# an object only internals lead to keeps its path through them
	run spaa-heapdiff -J --retained=10 "$T/b.heapsnapshot" "$T/a.heapsnapshot"
	assert_line '{"type":"retained","constructor":"(system)","size":10,"id":3,"retention_path":["handle"]}'
}

@test "node's snapshots: objects freed between the snapshots are counted as deleted" {
	need_node
	local B=$BATS_FILE_TMPDIR/before.heapsnapshot A=$BATS_FILE_TMPDIR/after.heapsnapshot
	run sh -c "spaa-heapdiff --table '$B' '$A' | grep -E ' (Leaky|Temp)\$'"
	assert_success
	assert_line --index 0 --regexp "^ *1,234 +0 +\+1,234 .* Leaky$"
	assert_line --index 1 --regexp "^ *0 +$T_COUNT +-$T_COUNT .* Temp$"
	# the path to a Leaky starts at the global object, as DevTools shows it,
	# not at (GC roots)
	run sh -c "spaa-heapdiff --table '$B' '$A' | grep -E '  Leaky @'"
	assert_output --regexp "^ *[0-9.]+[kB]+  Leaky @[0-9]+  global\.leaks\[[0-9]+\]$"
}
