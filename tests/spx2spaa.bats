#!/usr/bin/env bats
# spx2spaa: SPX (PHP profiler) full reports to SPAA.
#
# The corpus figures: each tests/data/spx/NN-*/EXPECTED.txt (copied from the
# corpus, with its report) gives per function the calls and the inclusive and
# exclusive totals of every metric.  figures.tsv beside it is derived from it
# by expected-figures.awk ("metric name exclusive inclusive", rows where both
# are 0 left out, and "calls name N"); the SPAA view that gives the same
# figures is spaa-top per metric: self = exclusive, total = inclusive
# (recursion counted once), and the self of "calls" = calls.
load common

S=$D/spx
R01=$S/01-small-default-metrics/spx-full-20261122_031743-vm-22767-1804289383
R02=$S/02-all-22-metrics/spx-full-20261122_031743-vm-22769-1804289383
R03=$S/03-uncaught-exception-unwound/spx-full-20261122_031744-vm-22775-1804289383

# "metric name self total" for every metric of the report (calls: self
# only), from spaa-top --json, sorted like figures.tsv
figures() {
	local m
	for m in $(awk -F' = ' '/^metrics_in_file_order/ { print $2 }' "$2") calls; do
		spaa-top -n 0 --json -m "$m" "$1" |
			sed -n 's/^{"type":"row","rank":[0-9]*,"name":"\(.*\)","self":\([-0-9]*\),"self_percent":[^,]*,"total":\([-0-9]*\),.*/\1\t\2\t\3/p' |
			awk -v m="$m" -F'\t' 'BEGIN { OFS = "\t" } { if (m == "calls") print m, $1, $2; else print m, $1, $2, $3 }'
	done | sort
}

# the tiny report's metadata without its counts, for events written here
nocounts() {
	grep -v '_count"' "$S/tiny.json" > "$T/m.json"
}

check_report() {
	local r=$1 dir
	dir=$(dirname "$r")
	run spx2spaa -o "$T/out.spaa" "$r.json"
	assert_success
	assert_output ""
	run figures "$T/out.spaa" "$dir/EXPECTED.txt"
	assert_success
	assert_output "$(cat "$dir/figures.tsv")"
	run spaa-validate --verbose "$T/out.spaa"
	assert_success
	assert_output --partial "; 0 errors,"
}

@test "figures.tsv are derived from EXPECTED.txt" {
	for d in "$S"/0*/; do
		run bash -c "awk -f '$S/expected-figures.awk' '$d/EXPECTED.txt' | sort"
		assert_success
		assert_output "$(cat "$d/figures.tsv")"
	done
}

@test "01 (wt zm, recursion, closure): spaa-top figures as in EXPECTED.txt, valid" {
	check_report "$R01"
}

@test "02 (all 22 metrics): spaa-top figures as in EXPECTED.txt, valid" {
	check_report "$R02"
}

@test "03 (uncaught exception, deep recursion): spaa-top figures as in EXPECTED.txt, valid" {
	check_report "$R03"
}

@test "sum of self = root inclusive (EXPECTED [totals]), negative self kept" {
	spx2spaa "$R01.json" > "$T/out.spaa"
	run spaa-top -n 0 -m zm --raw-units "$T/out.spaa"
	assert_success
	assert_line --index 0 "spx/zm, total 14776"
	assert_line "    -10616 -71.85%   100%      14776   100%  /work/steering/tools/spx_php/small.php"
	run spaa-top -n 1 -m wt --raw-units "$T/out.spaa"
	assert_line --index 0 "spx/wt, total 1853416"
	# in units: zm is bytes, wt microseconds
	run spaa-top -n 1 -m wt "$T/out.spaa"
	assert_line --index 0 "spx/wt, total 1853.42us"
}

@test "metric names, units and order of the file; wt primary; calls" {
	spx2spaa "$R02.txt.gz" > "$T/out.spaa"
	run bash -c "grep -m1 '\"type\":\"stack\"' '$T/out.spaa' | grep -o '\"metric\":\"[a-z]*\",\"value\":[-0-9]*,\"unit\":\"[a-z]*\"' | sed 's/\"metric\":\"\\([a-z]*\\)\".*\"unit\":\"\\([a-z]*\\)\"/\\1 \\2/' | head -23 | tr '\n' ' '"
	assert_success
	assert_output "wt nanoseconds ct nanoseconds it nanoseconds zm bytes zmac count zmab bytes zmfc count zmfb bytes zgr count zgb count zgc count zif count zil count zuc count zuf count zuo count zo count ze count mor bytes io bytes ior bytes iow bytes calls count "
	run grep -c '"primary_metric":"wt"' "$T/out.spaa"
	assert_output 1
}

@test "both input paths, stdin with --metadata, and - give the same bytes" {
	spx2spaa "$R01.json" > "$T/a"
	spx2spaa "$R01.txt.gz" > "$T/b"
	spx2spaa --metadata "$R01.json" < "$R01.txt.gz" > "$T/c"
	zcat "$R01.txt.gz" | spx2spaa --metadata "$R01.json" - > "$T/d"
	cp "$R01.txt.gz" "$T/elsewhere.gz"
	spx2spaa --metadata "$R01.json" "$T/elsewhere.gz" > "$T/e"
	cmp "$T/a" "$T/b"
	cmp "$T/a" "$T/c"
	cmp "$T/a" "$T/d"
	cmp "$T/a" "$T/e"
}

@test "uncompressed .txt and zstd .txt.zst events beside the .json" {
	spx2spaa "$S/tiny.json" > "$T/want"
	cp "$S/tiny.json" "$T/p.json"
	zcat "$S/tiny.txt.gz" > "$T/p.txt"
	run spx2spaa "$T/p.json"
	assert_success
	assert_output "$(cat "$T/want")"
	run spx2spaa "$T/p.txt"
	assert_output "$(cat "$T/want")"
	cp "$S/tiny.json" "$T/q.json"
	zcat "$S/tiny.txt.gz" | zstd -q -c > "$T/q.txt.zst"
	run spx2spaa "$T/q.json"
	assert_success
	assert_output "$(cat "$T/want")"
	run spx2spaa "$T/q.txt.zst"
	assert_output "$(cat "$T/want")"
}

@test "tiny report: exact output (recursion, closure, ::pseudo-function, -1023.9999 read as -1024)" {
	run spx2spaa "$S/tiny.json"
	assert_success
	assert_output "$(cat "$S/tiny.spaa")"
}

@test "tiny report: folded self cost per metric, negative memory self values kept" {
	spx2spaa "$S/tiny.txt.gz" > "$T/out.spaa"
	run spaa-fold -m wt "$T/out.spaa"
	assert_output "php;/srv/app/index.php 500
php;/srv/app/index.php;Foo::{closure} 110
php;/srv/app/index.php;Foo::{closure};::gc_collect_cycles 90
php;/srv/app/index.php;fib 200
php;/srv/app/index.php;fib;fib 100"
	run spaa-fold --no-comm -m zm "$T/out.spaa"
	assert_output "/srv/app/index.php 1048
/srv/app/index.php;Foo::{closure};::gc_collect_cycles -1024
/srv/app/index.php;fib -1024"
	run spaa-fold --no-comm -m calls "$T/out.spaa"
	assert_output "/srv/app/index.php 1
/srv/app/index.php;Foo::{closure} 1
/srv/app/index.php;Foo::{closure};::gc_collect_cycles 1
/srv/app/index.php;fib 1
/srv/app/index.php;fib;fib 1"
}

@test "metadata goes to header source: command, host, report_key, x_spx (raw object)" {
	spx2spaa "$S/tiny.json" > "$T/out.spaa"
	run bash -c "head -1 '$T/out.spaa' | grep -o '\"source\":.*}},'"
	assert_output '"source":{"tool":"spx","format":"spx-full","command":"/srv/app/index.php --quick","host":"web1","report_key":"spx-full-20261122_120000-web1-4242-1804289383","x_spx":{"key":"spx-full-20261122_120000-web1-4242-1804289383","exec_ts":1795348800,"host_name":"web1","process_pid":4242,"process_tid":4243,"process_pwd":"/srv/app","cli":1,"cli_command_line":"/srv/app/index.php --quick","http_request_uri":"n/a","http_method":"n/a","http_host":"n/a","custom_metadata_str":"deploy \"blue\"","wall_time_ms":1,"peak_memory_usage":400000,"called_function_count":4,"call_count":5,"recorded_call_count":5,"enabled_metrics":["wt","zm"]}},'
	run grep -c '"type":"thread","pid":4242,"tid":4243,"comm":"php"' "$T/out.spaa"
	assert_output 1
}

@test "--samples: one sample per call, start time = exec_ts + wt, x_dur_ns; valid" {
	run spx2spaa --samples "$S/tiny.json"
	assert_success
	assert_line --index 12 '{"type":"sample","timestamp":1795348800.0000002,"pid":4242,"tid":4243,"x_dur_ns":100,"x_weights":[{"metric":"wt","value":100},{"metric":"zm","value":0},{"metric":"calls","value":1}],"event":"spx","stack_id":"0xd572254f7553137b"}'
	spx2spaa -s "$S/tiny.json" > "$T/s.spaa"
	run grep -c '"type":"sample"' "$T/s.spaa"
	assert_output 5
	run bash -c "grep -o '\"x_dur_ns\":[0-9]*' '$T/s.spaa' | tr '\n' ' '"
	assert_output '"x_dur_ns":100 "x_dur_ns":300 "x_dur_ns":90 "x_dur_ns":200 "x_dur_ns":1000 '
	run spaa-validate "$T/s.spaa"
	assert_success
	spx2spaa -s "$R01.json" > "$T/big.spaa"
	run grep -c '"type":"sample"' "$T/big.spaa"
	assert_output 1070
	run spaa-validate "$T/big.spaa"
	assert_success
}

@test "--samples without wt is an error" {
	sed 's/"wt"/"zmac"/' "$S/tiny.json" > "$T/nowt.json"
	run spx2spaa -s --metadata "$T/nowt.json" "$S/tiny.txt.gz"
	assert_failure 1
	assert_output "spx2spaa: $T/nowt.json: --samples needs the wt metric (call start times), which this report does not record"
}

@test "without wt: first metric is primary, time range from the metadata" {
	sed 's/"wt"/"zmac"/' "$S/tiny.json" > "$T/nowt.json"
	run spx2spaa --metadata "$T/nowt.json" "$S/tiny.txt.gz" -o "$T/out.spaa"
	assert_success
	run grep -c '"primary_metric":"zmac".*"time_range":{"start":1795348800,"end":1795348800.000001,' "$T/out.spaa"
	assert_output 1
	run spaa-fold --no-comm -m calls "$T/out.spaa"
	assert_line "/srv/app/index.php;fib;fib 1"
	run spaa-fold --no-comm -m zmac "$T/out.spaa"
	assert_line "/srv/app/index.php;fib 200"
	run spaa-validate "$T/out.spaa"
	assert_success
}

@test "exit with no entry: reported with its line, the rest kept; --strict fails" {
	nocounts
	printf '%s\n' '[events]' '0 1 0 0' '1 1 10 0' '1 0 20 0' '1 0 25 0' '2 1 30 0' '2 0 40 8' '0 0 50 8' '[functions]' main a b > "$T/x.txt"
	run spx2spaa --metadata "$T/m.json" -o "$T/out.spaa" "$T/x.txt"
	assert_success
	assert_output "spx2spaa: $T/x.txt:5: exit of a while the open call is of main; taken as its exit
spx2spaa: $T/x.txt:8: end with no open begin on thread 4242/4243; ignored"
	# the stray exit closed main: b became a second root call
	run spaa-fold --no-comm -m wt "$T/out.spaa"
	assert_output "b 10
main 15
main;a 10"
	run spx2spaa --strict --metadata "$T/m.json" -o "$T/strict.spaa" "$T/x.txt"
	assert_failure 1
	assert_output "spx2spaa: $T/x.txt:5: exit of a while the open call is of main; taken as its exit"
	[ ! -e "$T/strict.spaa" ]
}

@test "exit with nothing open at all" {
	nocounts
	printf '%s\n' '[events]' '0 0 0 0' '0 1 5 0' '0 0 9 0' '[functions]' main > "$T/x.txt"
	run spx2spaa --metadata "$T/m.json" -o "$T/out.spaa" "$T/x.txt"
	assert_success
	assert_output "spx2spaa: $T/x.txt:2: end with no open begin on thread 4242/4243; ignored"
	run spaa-fold --no-comm -m wt "$T/out.spaa"
	assert_output "main 4"
}

@test "calls never closed (events cut short): an error naming the innermost open call (issue 28)" {
	printf '%s\n' '[events]' '0 1 0 0' '1 1 10 0' '1 0 20 4' '1 1 30 4' '[functions]' main a > "$T/x.txt"
	run spx2spaa --metadata "$S/tiny.json" -o "$T/out.spaa" "$T/x.txt"
	assert_failure 1
	assert_output "spx2spaa: $T/x.txt:5: call of a never returns: the events are cut short (a whole report closes every call)"
	[ ! -e "$T/out.spaa" ]
}

@test "no [functions] section: an error (issue 28)" {
	printf '%s\n' '[events]' '0 1 0 0' '1 1 10 0' '1 0 20 4' '0 0 30 4' > "$T/x.txt"
	run spx2spaa --metadata "$S/tiny.json" -o "$T/out.spaa" "$T/x.txt"
	assert_failure 1
	assert_output "spx2spaa: $T/x.txt:6: no [functions] section: the file is cut short (a whole report ends with the function names)"
	[ ! -e "$T/out.spaa" ]
}

@test "truncated gzip: an error naming the line where the good data ends (issue 28)" {
	head -c 5000 "$R01.txt.gz" > "$T/t.txt.gz"
	cp "$R01.json" "$T/t.json"
	run spx2spaa -o "$T/out.spaa" "$T/t.json"
	assert_failure 1
	assert_output "spx2spaa: $T/t.txt.gz:765: truncated compressed data after line 764: the file is cut short"
	[ ! -e "$T/out.spaa" ]
}

@test "a last line without its newline: the file is cut short (issue 28)" {
	printf '%s\n' '[events]' '0 1 0 0' '1 1 10 0' '1 0 20 4' '0 0 30 4' '[functions]' main > "$T/x.txt"
	printf 'a' >> "$T/x.txt"
	run spx2spaa --metadata "$S/tiny.json" -o "$T/out.spaa" "$T/x.txt"
	assert_failure 1
	assert_output "spx2spaa: $T/x.txt:8: the last line has no newline: the file is cut short (a whole file ends with one: add it)"
	[ ! -e "$T/out.spaa" ]
}

@test "events cut at every byte (tiny report), at the example's first and last lines and last bytes, its gzip every 401 bytes: an error naming the file, or the whole profile (issue 28)" {
	zcat "$S/tiny.txt.gz" > "$T/tiny.txt"
	cut_sweep "$T/tiny.txt" "$(seq 0 "$(wc -c < "$T/tiny.txt")")" spx2spaa --metadata "$S/tiny.json"
	zcat "$EX/spx-small.txt.gz" > "$T/full.txt"
	n=$(wc -c < "$T/full.txt")
	cut_sweep "$T/full.txt" "$(awk '{ n += length($0) + 1 } NR <= 60 || NR > 2120 { print n }' "$T/full.txt") $(seq $((n - 200)) "$n")" \
		spx2spaa --metadata "$EX/spx-small.json"
	n=$(wc -c < "$EX/spx-small.txt.gz")
	for ((i = 0; i < n; i += 401)); do
		head -c "$i" "$EX/spx-small.txt.gz" > "$T/cut.txt.gz"
		rm -f "$T/out"
		run spx2spaa --metadata "$EX/spx-small.json" -o "$T/out" "$T/cut.txt.gz"
		[ "$status" = 1 ] && [ ! -e "$T/out" ] || fail "gzip cut after $i bytes: exit $status"
		[[ "$output" == "spx2spaa: $T/cut.txt.gz"* ]] || fail "gzip cut after $i bytes: $output"
	done
}

@test "bad event lines: reported and skipped; -0.5 and 1.5e1 read as -1 and 15" {
	nocounts
	printf '%s\n' '[events]' '0 1 0 0' 'x 1 1 1' '1 2 1 1' '1 1 5' '1 1 5 1 2' '1 1 5 abc' '1 1 6 -0.5' '1 0 8 1.5e1' '' '[oops]' '0 0 10 20' '[functions]' main a > "$T/x.txt"
	run spx2spaa --metadata "$T/m.json" -o "$T/out.spaa" "$T/x.txt"
	assert_success
	assert_output "spx2spaa: $T/x.txt:3: bad event line (expected FUNCTION 0|1 and 2 values); ignored
spx2spaa: $T/x.txt:4: bad event line (expected FUNCTION 0|1 and 2 values); ignored
spx2spaa: $T/x.txt:5: only 1 value where the metadata enables 2 metrics; event ignored
spx2spaa: $T/x.txt:6: more than 2 values where the metadata enables 2 metrics; event ignored
spx2spaa: $T/x.txt:7: bad value in column 4 (zm); event ignored
spx2spaa: $T/x.txt:10: bad event line (expected FUNCTION 0|1 and 2 values); ignored
spx2spaa: $T/x.txt:11: unknown section [oops]; ignored up to [functions]"
	run spaa-fold --no-comm -m zm "$T/out.spaa"
	assert_output "main 4
main;a 16"
	run spx2spaa --strict --metadata "$T/m.json" "$T/x.txt"
	assert_failure 1
	assert_output "spx2spaa: $T/x.txt:3: bad event line (expected FUNCTION 0|1 and 2 values); ignored"
}

@test "the metadata's called_function_count and recorded_call_count disagreeing with the events: an error (issue 28)" {
	zcat "$S/tiny.txt.gz" > "$T/t.txt"
	sed 's/"recorded_call_count": 5/"recorded_call_count": 6/' "$S/tiny.json" > "$T/t.json"
	run spx2spaa -o "$T/out.spaa" "$T/t.json"
	assert_failure 1
	assert_output "spx2spaa: $T/t.txt: 5 calls read, where the metadata's recorded_call_count is 6: the file is cut short or damaged, or the metadata is another report's"
	[ ! -e "$T/out.spaa" ]
	sed 's/"called_function_count": 4/"called_function_count": 5/' "$S/tiny.json" > "$T/t.json"
	run spx2spaa -o "$T/out.spaa" "$T/t.json"
	assert_failure 1
	assert_output "spx2spaa: $T/t.txt: 4 function names, where the metadata's called_function_count is 5: the file is cut short, or the metadata is another report's"
	[ ! -e "$T/out.spaa" ]
}

@test "function index outside the [functions] list: an error (issue 28)" {
	printf '%s\n' '[events]' '0 1 0 0' '7 1 1 0' '7 0 2 0' '0 0 3 0' '[functions]' main > "$T/x.txt"
	run spx2spaa --metadata "$S/tiny.json" -o "$T/out.spaa" "$T/x.txt"
	assert_failure 1
	assert_output "spx2spaa: $T/x.txt:3: function index 7 is not in the [functions] list (1 name): the list is cut short, or the index is wrong"
	[ ! -e "$T/out.spaa" ]
}

@test "not an events file; empty events file" {
	run spx2spaa --metadata "$S/tiny.json" "$S/tiny.json"
	assert_failure 1
	assert_output "spx2spaa: $S/tiny.json:1: not an SPX events file (the first line is not [events])"
	: > "$T/empty.txt"
	run spx2spaa --metadata "$S/tiny.json" "$T/empty.txt"
	assert_failure 1
	assert_output "spx2spaa: $T/empty.txt: empty input: no profile written"
}

@test "bad metadata" {
	printf '{\n  "key": "x",\n  "enabled_metrics": [ "wt" ,, ]\n}\n' > "$T/bad.json"
	run spx2spaa --metadata "$T/bad.json" "$S/tiny.txt.gz"
	assert_failure 1
	assert_output --regexp "^spx2spaa: $T/bad.json:3: bad JSON in the metadata: .+"
	echo '{"key":"x"}' > "$T/nom.json"
	run spx2spaa --metadata "$T/nom.json" "$S/tiny.txt.gz"
	assert_failure 1
	assert_output "spx2spaa: $T/nom.json: no \"enabled_metrics\" array: not the metadata of an SPX full report"
	echo '{"enabled_metrics":["wt","wt"]}' > "$T/dup.json"
	run spx2spaa --metadata "$T/dup.json" "$S/tiny.txt.gz"
	assert_failure 1
	assert_output "spx2spaa: $T/dup.json: metric wt enabled twice"
	echo '{"enabled_metrics":["wt",3]}' > "$T/num.json"
	run spx2spaa --metadata "$T/num.json" "$S/tiny.txt.gz"
	assert_failure 1
	assert_output "spx2spaa: $T/num.json: enabled_metrics[1] is not a metric key"
	echo '[]' > "$T/arr.json"
	run spx2spaa --metadata "$T/arr.json" "$S/tiny.txt.gz"
	assert_failure 1
	assert_output "spx2spaa: $T/arr.json:1: the metadata is not a JSON object"
	: > "$T/empty.json"
	run spx2spaa --metadata "$T/empty.json" "$S/tiny.txt.gz"
	assert_failure 1
	assert_output "spx2spaa: $T/empty.json: empty metadata file"
}

@test "missing files" {
	run spx2spaa "$T/none.json"
	assert_failure 1
	assert_output "spx2spaa: $T/none.json: no events file beside it ($T/none.txt.gz)"
	cp "$S/tiny.txt.gz" "$T/lone.txt.gz"
	run spx2spaa "$T/lone.txt.gz"
	assert_failure 1
	assert_output "spx2spaa: $T/lone.json: No such file or directory"
	run spx2spaa "$T/report.dat"
	assert_failure 1
	assert_output "spx2spaa: $T/report.dat: not named like an SPX report (NAME.json or NAME.txt.gz); give its metadata with --metadata"
	run spx2spaa --metadata "$S/tiny.json" "$T/none.txt.gz"
	assert_failure 1
	assert_output "spx2spaa: $T/none.txt.gz: No such file or directory"
}

@test "usage errors" {
	run spx2spaa
	assert_failure 2
	assert_output "spx2spaa: reading the events from standard input needs --metadata FILE
Try 'spx2spaa --help' for more information."
	run spx2spaa - < "$S/tiny.txt.gz"
	assert_failure 2
	spx2spaa "$S/tiny.json" > "$T/1.spaa"
	spx2spaa "$S/tiny.json" > "$T/2.spaa"
	run spx2spaa "$S/tiny.json" "$S/tiny.json"
	assert_success
	assert_output "$(spaa-cat --merge "$T/1.spaa" "$T/2.spaa")"
	run spx2spaa --bogus "$S/tiny.json"
	assert_failure 2
	assert_line --index 1 "Try 'spx2spaa --help' for more information."
	run spx2spaa --metadata
	assert_failure 2
}

@test "-o writes the file, silently; zstd output with -z and .zst" {
	run spx2spaa -o "$T/out.spaa" "$S/tiny.json"
	assert_success
	assert_output ""
	cmp "$T/out.spaa" "$S/tiny.spaa"
	spx2spaa -z "$S/tiny.json" | zstd -dc > "$T/z1"
	cmp "$T/z1" "$S/tiny.spaa"
	spx2spaa --zstd -o "$T/out.spaa.zst" "$S/tiny.json"
	zstd -dc "$T/out.spaa.zst" > "$T/z2"
	cmp "$T/z2" "$S/tiny.spaa"
	spx2spaa --output="$T/o3.spaa.zst" "$S/tiny.json"
	zstd -dc "$T/o3.spaa.zst" | cmp - "$S/tiny.spaa"
}

@test "write error to /dev/full" {
	run bash -c "spx2spaa '$S/tiny.json' > /dev/full"
	assert_failure 1
	assert_output --partial "write error"
	run bash -c "spx2spaa -s '$R02.json' > /dev/full"
	assert_failure 1
	assert_output --partial "write error"
}

@test "--help and --version" {
	run spx2spaa --help
	assert_success
	assert_line --index 0 "Usage: spx2spaa [OPTION]... [FILE]..."
	assert_line --partial "      --metadata=FILE  the report's .json metadata (events from FILE or"
	run spx2spaa -h
	assert_success
	run spx2spaa --version
	assert_success
	assert_output --regexp '^spx2spaa \(spaa-tools\) [0-9.]+$'
	run spx2spaa -V
	assert_success
}

@test "the example report converts and validates" {
	run spx2spaa -o "$T/ex.spaa" "$EX/spx-small.json"
	assert_success
	run figures "$T/ex.spaa" "$S/01-small-default-metrics/EXPECTED.txt"
	assert_output "$(cat "$S/01-small-default-metrics/figures.tsv")"
}

@test "metadata of another report (no event line fits): an error after the warnings" {
	run spx2spaa --metadata "$R02.json" "$S/tiny.txt.gz"
	assert_failure 1
	assert_line --index 0 "spx2spaa: $S/tiny.txt.gz:2: only 2 values where the metadata enables 22 metrics; event ignored"
	assert_line --index 10 "spx2spaa: $S/tiny.txt.gz: none of the 10 event lines could be read: is $R02.json the metadata of this report?"
}

@test "CRLF line ends are accepted" {
	zcat "$S/tiny.txt.gz" | sed 's/$/\r/' > "$T/crlf.txt"
	run spx2spaa --metadata "$S/tiny.json" "$T/crlf.txt"
	assert_success
	assert_output "$(cat "$S/tiny.spaa")"
}

@test "a metadata key read given twice (we took the first, JSON.parse the last): an error" {
	echo '{"enabled_metrics":["wt"],"enabled_metrics":["wt","zm"]}' > "$T/twice.json"
	run spx2spaa --metadata "$T/twice.json" -o "$T/out" "$S/tiny.txt.gz"
	assert_failure 1
	assert_output "spx2spaa: $T/twice.json: \"enabled_metrics\" given twice in the metadata"
	[ ! -e "$T/out" ]
	echo '{"enabled_metrics":["wt","zm"],"exec_ts":1,"exec_ts":2}' > "$T/twice.json"
	run spx2spaa --metadata "$T/twice.json" "$S/tiny.txt.gz"
	assert_failure 1
	assert_output "spx2spaa: $T/twice.json: \"exec_ts\" given twice in the metadata"
}
