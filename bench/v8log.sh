#!/bin/sh
# bench/v8log.sh CMD_DIR - v8log2spaa against node's own tick processor
# (node --prof-process, and its --preprocess JSON) on a real V8 tick log:
# node --prof at a 100 us sampling interval on a small program with many
# functions (made in bench/out the first time, about 5 s).  Also the same
# log with its ticks four times over (the tick lines appended three more
# times), to show that memory does not grow with the ticks.  Called by
# `make bench`; needs node (Debian's nodejs).
#
# Each command runs BENCH_RUNS times (default 5) with its output thrown away;
# printed are the median CPU time (user + sys) with the spread (min..max),
# MB/s of input per CPU second, and the peak RSS of the last run.
set -e
. "$(dirname "$0")/lib.sh"
bench_init 5 "$@"
command -v node > /dev/null || { echo "v8log: node is missing, skipped"; exit 0; }

log=$OUT/v8prof.v8log
if [ ! -s "$log" ]; then
	d=$OUT/v8prof.d
	rm -rf "$d"
	mkdir -p "$d"
	cat > "$d/prog.js" <<'END'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
const fns = [];
for (let k = 0; k < 200; k++)
	fns.push(new Function('x', 'let s = 0; for (let i = 0; i < x; i++) s += (i * ' + k + ') % 7; return s;'));
function spread(r) { let s = 0; for (const f of fns) s += f(r); return s; }
function objs() { const a = []; for (let i = 0; i < 20000; i++) a.push({ i, t: 'v' + i }); return a.length; }
const end = Date.now() + 4000;
let t = 0;
while (Date.now() < end) { t += fib(18) + spread(300) + objs(); }
if (t < 0) console.log(t);
END
	(cd "$d" && node --prof --prof-sampling-interval=100 prog.js)
	mv "$d"/isolate-*-v8.log "$log"
fi
json=$OUT/v8prof.json
[ -s "$json" ] || node --prof-process --preprocess "$log" > "$json" 2> /dev/null
big=$OUT/v8prof-4x.v8log
if [ ! -s "$big" ] || [ "$log" -nt "$big" ]; then
	cp "$log" "$big"
	for i in 1 2 3; do grep '^tick,' "$log" >> "$big"; done
fi

echo "v8log: $(grep -c '^tick,' "$log") ticks, $(grep -c '^code-creation,' "$log") code objects (median of $RUNS, CPU seconds)"
bench_row "v8log2spaa (log)" "$log" "$CMD/v8log2spaa" "$log"
bench_row "v8log2spaa -s (log)" "$log" "$CMD/v8log2spaa" -s "$log"
bench_row "v8log2spaa (log, ticks x4)" "$big" "$CMD/v8log2spaa" "$big"
bench_row "node --prof-process (log)" "$log" node --prof-process "$log"
bench_row "node --prof-process --preprocess" "$log" node --prof-process --preprocess "$log"
bench_row "v8log2spaa (preprocessed JSON)" "$json" "$CMD/v8log2spaa" "$json"
