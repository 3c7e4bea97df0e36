#!/bin/sh
# bench/chrome.sh CMD_DIR - chrome2spaa and spaa-heapdiff next to wc -w
# (C.UTF-8) on the same files: a CPU profile of 20 million samples over a
# call tree of 20,000 nodes (bench/gen-cpuprofile.py, about 180 MB), a
# Chrome trace holding 6 million samples in ProfileChunk events among other
# events (about 200 MB), and,
# when node is installed, heap snapshots of a real Node.js program that
# builds and keeps a large object graph.  Called by `make bench`.
#
# Each command runs BENCH_RUNS times (default 5) with its output thrown away;
# printed are the median CPU time (user + sys) with the spread (min..max),
# MB/s of input per CPU second, and the peak RSS of the last run.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"

prof=$OUT/big.cpuprofile
[ -s "$prof" ] || python3 "$HERE/gen-cpuprofile.py" 20000 20000000 > "$prof"
trace=$OUT/big.trace.json
[ -s "$trace" ] || python3 "$HERE/gen-cpuprofile.py" --trace 20000 6000000 > "$trace"

echo "median CPU seconds of $RUNS runs (spread), MB/s of input, peak RSS"
size=$(wc -c < "$prof")
bench_row_bytes "chrome2spaa (.cpuprofile)" "$size" "$CMD/chrome2spaa" "$prof"
bench_row_bytes "wc -w (C.UTF-8), same file" "$size" env LC_ALL=C.UTF-8 wc -w "$prof"
size=$(wc -c < "$trace")
bench_row_bytes "chrome2spaa (trace, ProfileChunks)" "$size" "$CMD/chrome2spaa" "$trace"
bench_row_bytes "wc -w (C.UTF-8), same file" "$size" env LC_ALL=C.UTF-8 wc -w "$trace"
if command -v node >/dev/null 2>&1 && [ -x "$CMD/spaa-heapdiff" ]; then
	if [ ! -s "$OUT/after.heapsnapshot" ]; then
		(cd "$OUT" && node --max-old-space-size=8192 -e '
			const v8 = require("v8");
			class Item { constructor(i) { this.id = i; this.name = "item" + i; this.tags = [i % 7, i % 11]; } }
			const keep = new Map();
			function grow(n) { for (let i = 0; i < n; i++) keep.set(keep.size, new Item(keep.size)); }
			grow(1500000);
			v8.writeHeapSnapshot("before.heapsnapshot");
			grow(500000);
			v8.writeHeapSnapshot("after.heapsnapshot");')
	fi
	b=$(($(wc -c < "$OUT/before.heapsnapshot") + $(wc -c < "$OUT/after.heapsnapshot")))
	bench_row_bytes "spaa-heapdiff (two snapshots)" "$b" "$CMD/spaa-heapdiff" "$OUT/before.heapsnapshot" "$OUT/after.heapsnapshot"
	# the snapshots' integer arrays (nodes and edges, 4 bytes an integer),
	# against which spaa-heapdiff's RSS is judged
	for f in before after; do
		head -c 4096 "$OUT/$f.heapsnapshot" | tr -d ' \n' | awk -v f="$f" '{
			nf = ef = 0
			if (match($0, /"node_fields":\[[^\]]*\]/)) { s = substr($0, RSTART, RLENGTH); nf = gsub(/,/, ",", s) + 1 }
			if (match($0, /"edge_fields":\[[^\]]*\]/)) { s = substr($0, RSTART, RLENGTH); ef = gsub(/,/, ",", s) + 1 }
			match($0, /"node_count":[0-9]+/); nc = substr($0, RSTART + 13, RLENGTH - 13)
			match($0, /"edge_count":[0-9]+/); ec = substr($0, RSTART + 13, RLENGTH - 13)
			printf "  %s: %d nodes x %d fields, %d edges x %d fields: integer arrays %.0f MB\n", f, nc, nf, ec, ef, (nc * nf + ec * ef) * 4 / 1e6 }'
	done
	bench_row_bytes "wc -w (C.UTF-8), same files" "$b" env LC_ALL=C.UTF-8 wc -w "$OUT/before.heapsnapshot" "$OUT/after.heapsnapshot"
fi
