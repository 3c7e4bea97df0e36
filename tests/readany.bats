#!/usr/bin/env bats
# Every reading command reads every format in process (issue 29): for one
# profile of each format any2spaa recognises, each command's output and exit
# status are those of "any2spaa FILE | COMMAND" (the SPAA written to a file
# named as the input, so that names in the output agree).
load common

# One file of each format (any2spaa --help lists them).
FORMATS=(
	"perf-script $EX/parser.perf.txt"
	"perf-data $EX/small.perf.data"
	"dtrace $EX/dtrace-stacks.txt"
	"bpftrace $EX/bpftrace-stacks.txt"
	"folded $EX/dd.folded"
	"chrome-trace $EX/chrome-trace.json.gz"
	"cpuprofile $D/chrome/cpuprofile.json"
	"heapprofile $D/chrome/small.heapprofile"
	"heapsnapshot $D/chrome/heap-snapshot.heapsnapshot.json"
	"pprof $EX/go-cpu.pprof"
	"pprof-heap-text $D/pprof/jemalloc.heap"
	"heaptrack $EX/heap.heaptrack.zst"
	"trace-json $EX/small-trace.json"
	"spall $EX/small-trace.spall"
	"spx $EX/spx-small.json"
	"afperf $EX/basic.afperf"
	"speedscope $D/speedscope/two-sampled-0.6.0.json"
	"stackprof $EX/stackprof-cpu.json"
	"massif $EX/massif.out"
	"dhat $EX/dhat.out"
	"callgrind $EX/callgrind.out"
	"gecko $EX/firefox-recursion.json.gz"
	"instruments $EX/instruments-deep-copy.txt"
	"pmcstat $EX/pmcstat-callgraph.txt"
	"v8-log $D/v8log/speedscope-node-8.5.0.v8log.zst"
	"v8-log-json $D/v8log/speedscope-simple.v8log.json.zst"
	"ghc-prof $EX/ghc-binary-trees.prof"
	"safari $EX/safari-recording.json"
	"pstats $D/pstats/prog.pstats"
	"jfr $D/jfr/prog.jfr"
	"spaa $EX/parser.spaa"
)

# Each command as a user would run it on one file (IN is its name).
COMMANDS=(
	"spaa-fold IN"
	"spaa-fold --all-events IN"
	"spaa-fold --all --addrs --inline IN"
	"spaa-flamegraph IN"
	"spaa-top IN"
	"spaa-stat IN"
	"spaa-grep -e a IN"
	"spaa-window --list --every 1 IN"
	"spaa-diff IN IN"
	"spaa-cat IN"
	"spaa-cat --merge IN IN"
	"spaa2pprof IN"
	"spaa2speedscope IN"
	"spaa-demangle IN"
	"spaa-symbolize IN"
	"spaa-annotate . IN"
)

# run_as DIR "CMD": the command on DIR's files, its stdout to DIR.out, its
# exit status to DIR.status
# (each run in the one directory $T/w, a copy of DIR's files: a path in
# the output is the same for both)
run_as() {
	local st=0
	rm -rf "$T/w" && mkdir "$T/w" && cp "$1"/* "$T/w/"
	(cd "$T/w" && eval "$2") > "$1.out" 2> "$1.err" || st=$?
	echo "$st" > "$1.status"
}

@test "every reading command, every format: the same as any2spaa FILE | COMMAND" {
	bad=0
	for f in "${FORMATS[@]}"; do
		name=${f%% *} file=${f#* }
		rm -rf "$T/a" "$T/b" && mkdir "$T/a" "$T/b"
		# the input under its own name (an SPX report finds its other
		# file beside it, by name)
		in=${file##*/}
		cp "$file" "$T/a/$in"
		case $name in spx) cp "${file%.json}.txt.gz" "$T/a/" ;; esac
		any2spaa "$file" > "$T/b/$in"
		# spaa-window reads the samples (-s) of what it converts: its
		# converter with -s where it has one
		conv=$(any2spaa --verbose "$file" 2>&1 >/dev/null | sed 's/.*: //')
		case $conv in
		*2spaa) if $conv --help | grep -q -e '^  -s, --samples'; then
				$conv -s "$file" > "$T/b/$in.s"
			else
				cp "$T/b/$in" "$T/b/$in.s"
			fi ;;
		*) cp "$T/b/$in" "$T/b/$in.s" ;;
		esac
		for c in "${COMMANDS[@]}"; do
			c=${c//IN/$in}
			run_as "$T/a" "$c"
			case $c in
			spaa-window*) run_as "$T/b" "${c/$in/$in.s}" ;;
			*) run_as "$T/b" "$c" ;;
			esac
			if ! cmp -s "$T/a.out" "$T/b.out" || ! cmp -s "$T/a.status" "$T/b.status"; then
				echo "$name: $c: differs (status $(cat "$T/a.status") vs $(cat "$T/b.status"))"
				head -c 300 "$T/a.err"
				bad=$((bad + 1))
			fi
		done
	done
	[ "$bad" -eq 0 ]
}

@test "every format in the equality test: one file of each format any2spaa --help lists" {
	any2spaa --help | awk '/^Formats/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }' | sort > "$T/formats"
	for f in "${FORMATS[@]}"; do echo "${f%% *}"; done | sort > "$T/tested"
	run diff "$T/formats" "$T/tested"
	assert_success
}

@test "every reading command takes several files of any formats, merged as spaa-cat --merge merges them" {
	a=$EX/parser.perf.txt b=$EX/go-cpu.pprof
	spaa-cat --merge "$a" "$b" > "$T/m.spaa"
	[ "$(spaa-cat --merge "$a" "$b")" = "$(perf2spaa "$a" > "$T/a.spaa" && pprof2spaa "$b" > "$T/b.spaa" &&
		spaa-cat --merge "$T/a.spaa" "$T/b.spaa")" ]
	for c in "spaa-fold --all-events" "spaa-top" "spaa-grep main" "spaa-demangle" "spaa2pprof --event=cpu-clock" \
		 "spaa-symbolize" "spaa-stat" "spaa-window --list --every 10ms --event=cpu-clock" "spaa-flamegraph --all-events"; do
		# shellcheck disable=SC2086
		one=$($c "$a" "$b" 2>&1 | sed 's/^file: .*//; s/the inputs/IN/') || fail "$c: exit $?"
		# shellcheck disable=SC2086
		two=$($c "$T/m.spaa" 2>&1 | sed 's/^file: .*//; s|'"$T"'/m.spaa|IN|') || fail "$c (merged): exit $?"
		[ "$one" = "$two" ] || fail "$c FILE FILE differs from spaa-cat --merge | $c"
	done
}

@test "spaa-top --by=srcline reading a perf.data asks its reader for the source lines (perf2spaa --srcline): perf report --sort srcline's figures" {
	can_record
	c_prog
	(cd "$T" && perf record -q -g -o "$T/p.data" ./prog 400 > /dev/null 2>&1)
	run spaa-top --by=srcline -n 0 -J --raw-units "$T/p.data"
	assert_success
	[ "$output" = "$(perf2spaa --srcline "$T/p.data" | spaa-top --by=srcline -n 0 -J --raw-units)" ]
	# the self share of each source line of the program, as perf report
	# prints it (two decimals)
	spaa-top --by=srcline -n 0 -J --raw-units "$T/p.data" |
		awk -F'"' '/"type":"row"/ && $10 ~ /^prog\.c:/ { split($0, a, "\"self_percent\":"); split(a[2], b, ","); if (b[1] + 0 > 0) printf "%s %.2f\n", $10, b[1] }' |
		sort > "$T/ours"
	perf report -i "$T/p.data" --stdio --no-children -g none --sort srcline 2>/dev/null |
		awk '$2 ~ /^prog\.c:/ { sub(/%/, "", $1); printf "%s %.2f\n", $2, $1 }' | sort > "$T/theirs"
	[ -s "$T/theirs" ]
	diff "$T/theirs" "$T/ours"
}

@test "another format from a pipe, standard input, /dev/stdin, <(...) or a FIFO: each read once, the same as from the file" {
	for f in "$EX/parser.perf.txt" "$EX/go-cpu.pprof" "$EX/small.perf.data" "$EX/massif.out" "$EX/chrome-trace.json.gz" \
		 "$D/pstats/prog.pstats"; do
		want=$(spaa-fold --all-events "$f")
		[ -n "$want" ] || fail "$f: nothing folded"
		[ "$(cat "$f" | spaa-fold --all-events)" = "$want" ] || fail "$f: a pipe differs"
		[ "$(spaa-fold --all-events < "$f")" = "$want" ] || fail "$f: standard input differs"
		[ "$(spaa-fold --all-events /dev/stdin < "$f")" = "$want" ] || fail "$f: /dev/stdin differs"
		[ "$(spaa-fold --all-events <(cat "$f"))" = "$want" ] || fail "$f: <(...) differs"
		rm -f "$T/fifo" && mkfifo "$T/fifo"
		cat "$f" > "$T/fifo" &
		[ "$(spaa-fold --all-events "$T/fifo")" = "$want" ] || fail "$f: a FIFO differs"
		wait
	done
	# a cut perf.data from a pipe: the reader's error, exit 1
	head -c 3000 "$EX/small.perf.data" | { run spaa-fold; assert_failure 1; }
}
