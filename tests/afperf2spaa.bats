#!/usr/bin/env bats
# afperf2spaa: AFPerf v1 files to SPAA.
#
# The figures come from the corpus EXPECTED.txt / EXPECTED.json files
# (tests/data/afperf), where durations are in each run's own unit; in SPAA
# they are nanoseconds (factor 1000 for microseconds, 10^6 for ms).  Views:
#  - regions: spaa-fold --raw --tid --event region; per run (root "comm-N/N") and
#    label path: calls = count, wall_ns = exclusive, the sum of wall_ns over a
#    path and its descendants = inclusive, the same with --exclude-pauses =
#    inclusive_minus_pauses;
#  - sections: spaa-fold --event section with -m intervals, wall_ns (sum of the
#    interval lengths), union_ns (their union; with --exclude-pauses the union
#    minus pauses);
#  - run info, measurement types, pauses, data record summaries and the file
#    counts: header.source (jq).
load common

A=$D/afperf
I=$D/afperf/invalid

# EXPECTED.txt region rows: run number, folded path, count, inclusive,
# exclusive, inclusive minus pauses (ns).
expected_regions() {
	awk -F'\t' '
	function path(s,   out, i, c, instr, n) {
		out = ""; instr = 0; n = 0
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (!instr) { if (c == "\"") { instr = 1; if (n++) out = out ";" } continue }
			if (c == "\\") { i++; c = substr(s, i, 1); if (c == "n") c = " "; out = out c; continue }
			if (c == "\"") { instr = 0; continue }
			out = out c
		}
		return out
	}
	/^\[run [0-9]+\]/ { run++ }
	/^unit = / { f = $0 ~ /= ns$/ ? 1 : $0 ~ /= us$/ ? 1000 : $0 ~ /= ms$/ ? 1000000 : 1000000000 }
	/^\[run .* regions\]/ { inr = 1; next }
	/^\[/ { inr = 0 }
	inr && /^[0-9]/ { printf "%s\t%s\t%d\t%.0f\t%.0f\t%.0f\n", run, path($5), $1, $2 * f, $3 * f, $4 * f }
	' "$1" | sort
}

# The same figures from SPAA: $1 converted plainly, $2 with --exclude-pauses.
actual_regions() {
	{
		spaa-fold --raw --tid --event region -m calls "$1" | sed 's/^/C /'
		spaa-fold --raw --tid --event region -m wall_ns "$1" | sed 's/^/W /'
		spaa-fold --raw --tid --event region -m wall_ns "$2" | sed 's/^/P /'
	} | awk '{
		k = substr($0, 1, 1); line = substr($0, 3)
		v = line; sub(/.* /, "", v); p = line; sub(/ [^ ]*$/, "", p)
		root = p; sub(/;.*/, "", root); rest = substr(p, length(root) + 2)
		run = root; sub(/\/.*/, "", run); sub(/.*-/, "", run)
		if (k == "C") { calls[run "\t" rest] += v; next }
		if (k == "W") ex[run "\t" rest] += v
		n = split(rest, f, ";"); q = ""
		for (i = 1; i <= n; i++) {
			q = (i > 1 ? q ";" : "") f[i]
			if (k == "W") inc[run "\t" q] += v; else incp[run "\t" q] += v
		}
	} END { for (x in calls) printf "%s\t%d\t%.0f\t%.0f\t%.0f\n", x, calls[x], inc[x], ex[x], incp[x] }' | sort
}

# EXPECTED.txt section rows with intervals: run, label, intervals, sum,
# union, union minus pauses (ns).
expected_sections() {
	awk -F'\t' '
	/^\[run [0-9]+\]/ { run++ }
	/^unit = / { f = $0 ~ /= ns$/ ? 1 : $0 ~ /= us$/ ? 1000 : $0 ~ /= ms$/ ? 1000000 : 1000000000 }
	/^\[run .* sections\]/ { ins = 1; next }
	/^\[/ { ins = 0 }
	ins && /^[0-9]/ && $2 > 0 {
		l = $8; sub(/^"/, "", l); sub(/"$/, "", l); gsub(/\\"/, "\"", l)
		printf "%s\t%s\t%d\t%.0f\t%.0f\t%.0f\n", run, l, $2, $3 * f, $4 * f, $5 * f
	}' "$1" | sort
}

actual_sections() {
	{
		spaa-fold --raw --tid --event section -m intervals "$1" | sed 's/^/I /'
		spaa-fold --raw --tid --event section -m wall_ns "$1" | sed 's/^/S /'
		spaa-fold --raw --tid --event section -m union_ns "$1" | sed 's/^/U /'
		spaa-fold --raw --tid --event section -m union_ns "$2" | sed 's/^/P /'
	} | awk '{
		k = substr($0, 1, 1); line = substr($0, 3)
		v = line; sub(/.* /, "", v); p = line; sub(/ [^ ]*$/, "", p)
		root = p; sub(/;.*/, "", root); rest = substr(p, length(root) + 2)
		run = root; sub(/\/.*/, "", run); sub(/.*-/, "", run)
		x = run "\t" rest; keys[x] = 1; w[k, x] += v
	} END { for (x in keys) printf "%s\t%d\t%.0f\t%.0f\t%.0f\n", x, w["I", x], w["S", x], w["U", x], w["P", x] }' | sort
}

convert_both() {
	afperf2spaa "$A/$1.afperf" >"$T/out.spaa"
	afperf2spaa --exclude-pauses "$A/$1.afperf" >"$T/outp.spaa"
}

check_corpus_file() {
	convert_both "$1"
	expected_regions "$A/$1.EXPECTED.txt" >"$T/want"
	actual_regions "$T/out.spaa" "$T/outp.spaa" >"$T/got"
	[ -s "$T/want" ]
	run diff "$T/want" "$T/got"
	assert_success
	assert_output ''
	expected_sections "$A/$1.EXPECTED.txt" >"$T/want"
	actual_sections "$T/out.spaa" "$T/outp.spaa" >"$T/got"
	run diff "$T/want" "$T/got"
	assert_success
	assert_output ''
}

# header.source.runs vs EXPECTED.json: run info, measurement types, pauses,
# data record counts (exact).
runinfo_view() {
	jq -S -c '.runs[] | [.runinfo_line, .start_timestamp, .units, .unit, .wallclock, .format_version,
		.application, .application_version, .tags, .pauses.count, .pauses.union_duration,
		(.data_record_counts // {}), [.measurement_types[] | [(.id|tostring), .name, .datatype, .units, .summary, .description]]]' "$1"
}
runinfo_actual() {
	head -n 1 "$1" | jq -S -c '.source.runs[] | [.line, .start_timestamp, .units, .unit, .wallclock, .format_version,
		.application, .application_version, .tags, .pauses.count, .pauses.union,
		.data_records, [.measurement_types[] | [.id, .name, .datatype, .units, .summary, .description]]]'
}

# data summaries: run, type, kind, n, +inf, -inf, nan, sum, min, max / distinct
values_expected() {
	jq -r '.runs | to_entries[] | .key as $r | .value.values[] |
		[$r + 1, .mt, .record, .n, (.n_pos_inf // "-"), (.n_neg_inf // "-"), (.n_nan // "-"),
		 (.sum // "-"), (.min // "-"), (.max // "-"), (.distinct // [] | tojson)] | @tsv' "$1"
}
values_actual() {
	head -n 1 "$1" | jq -r '.source.runs[] | .run as $r | .data[] |
		[$r, .type, .kind, .n, (.n_pos_inf // (if .distinct then "-" else 0 end)),
		 (.n_neg_inf // (if .distinct then "-" else 0 end)), (.n_nan // (if .distinct then "-" else 0 end)),
		 (.sum // "-"), (.min // "-"), (.max // "-"), (.distinct // [] | tojson)] | @tsv'
}
# numbers equal within a relative 1e-9 (doubles; integers here are < 2^53)
compare_values() {
	awk -F'\t' 'NR == FNR { want[$1 FS $2 FS $3] = $0; next }
	function close_enough(a, b) {
		if (a == "-" || b == "-") return a == b
		d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a
		return d <= 1e-9 * m || d == 0
	}
	{
		k = $1 FS $2 FS $3; seen[k] = 1
		if (!(k in want)) { print "unexpected: " $0; next }
		split(want[k], w, FS)
		for (i = 4; i <= 7; i++) if (w[i] != $i) print "field " i ": " want[k] " | " $0
		for (i = 8; i <= 10; i++) if (!close_enough(w[i], $i)) print "field " i ": " want[k] " | " $0
		if (w[11] != $11) print "distinct: " want[k] " | " $0
	}
	END { for (k in want) if (!(k in seen)) print "missing: " want[k] }' "$1" "$2"
}

check_header() {
	afperf2spaa "$A/$1.afperf" >"$T/out.spaa"
	runinfo_view "$A/$1.EXPECTED.json" >"$T/want"
	runinfo_actual "$T/out.spaa" >"$T/got"
	run diff "$T/want" "$T/got"
	assert_success
	assert_output ''
	values_expected "$A/$1.EXPECTED.json" >"$T/want"
	values_actual "$T/out.spaa" >"$T/got"
	[ "$(wc -l <"$T/want")" -eq "$(wc -l <"$T/got")" ]
	run compare_values "$T/want" "$T/got"
	assert_success
	assert_output ''
	# the file block, size aside
	jq -c '.file | del(.size_bytes)' "$A/$1.EXPECTED.json" | sed 's/ processed, blank record id//g' >"$T/want"
	head -n 1 "$T/out.spaa" | jq -c '.source.file | .processed_aggregates_with_blank_record_id |= with_entries(.key |= sub(" processed, blank record id"; ""))' >"$T/got"
	run jq -S -c . "$T/want"
	want=$output
	run jq -S -c . "$T/got"
	assert_equal "$output" "$want"
	# run ids (decimal, as in EXPECTED.txt)
	grep -o '^\[run [0-9]*\]  (hex 0x[0-9a-f]*)' "$A/$1.EXPECTED.txt" | sed 's/^\[run \([0-9]*\)\]  (hex \(.*\))/\1 \2/' >"$T/want"
	head -n 1 "$T/out.spaa" | jq -r '.source.runs[] | "\(.run_id) \(.run_id_hex)"' >"$T/got"
	run diff "$T/want" "$T/got"
	assert_success
}

@test "--help and --version" {
	run afperf2spaa --help
	assert_success
	assert_line --index 0 'Usage: afperf2spaa [OPTION]... [FILE]...'
	assert_line '      --exclude-pauses  deduct PauseResume pauses: wall_ns and union_ns'
	run afperf2spaa --version
	assert_success
	assert_output --regexp '^afperf2spaa \(spaa-tools\) '
}

@test "usage errors exit 2" {
	run afperf2spaa --bogus "$A/basic_two_runs.afperf"
	assert_failure 2
	assert_line "Try 'afperf2spaa --help' for more information."
	afperf2spaa "$A/basic_two_runs.afperf" > "$T/1.spaa"
	afperf2spaa "$A/basic_two_runs.afperf" > "$T/2.spaa"
	run afperf2spaa "$A/basic_two_runs.afperf" "$A/basic_two_runs.afperf"
	assert_success
	assert_output "$(spaa-cat --merge "$T/1.spaa" "$T/2.spaa")"
	run afperf2spaa "$T/missing.afperf"
	assert_failure 1
	assert_output "afperf2spaa: $T/missing.afperf: No such file or directory"
}

@test "basic_two_runs: region tree and sections match EXPECTED.txt" {
	check_corpus_file basic_two_runs
}

@test "crlf_numeric_types_later_minor: region tree and sections match EXPECTED.txt" {
	check_corpus_file crlf_numeric_types_later_minor
}

@test "afsim_writer_style: region tree matches EXPECTED.txt (ids repeat: matched by order)" {
	check_corpus_file afsim_writer_style
}

@test "afsim_writer_style: section totals become the metrics of the section stacks" {
	afperf2spaa "$A/afsim_writer_style.afperf" >"$T/out.spaa"
	run spaa-fold --raw --tid --event section -m 'Total time' "$T/out.spaa"
	assert_output - <<'END'
unknown-1/1;WsfComm::Transmit 36236
unknown-1/1;WsfMover::Update, rotary wing 11121
unknown-1/1;WsfScriptProcessor::Execute 16297
unknown-1/1;WsfSensor::Update 14993
unknown-2/2;WsfComm::Transmit 3308
unknown-2/2;WsfMover::Update, rotary wing 14065
unknown-2/2;WsfScriptProcessor::Execute 9915
unknown-2/2;WsfSensor::Update 19443
END
	run spaa-fold --raw --tid --event section -m 'Number of outermost nonnested instances' "$T/out.spaa"
	assert_output - <<'END'
unknown-1/1;WsfComm::Transmit 6
unknown-1/1;WsfMover::Update, rotary wing 7
unknown-1/1;WsfScriptProcessor::Execute 7
unknown-1/1;WsfSensor::Update 2
unknown-2/2;WsfComm::Transmit 3
unknown-2/2;WsfMover::Update, rotary wing 3
unknown-2/2;WsfScriptProcessor::Execute 5
unknown-2/2;WsfSensor::Update 3
END
}

@test "basic_two_runs: run info, measurement types, pauses, data summaries and file counts match EXPECTED.json" {
	check_header basic_two_runs
}

@test "crlf_numeric_types_later_minor: header figures match EXPECTED.json" {
	check_header crlf_numeric_types_later_minor
}

@test "afsim_writer_style: header figures match EXPECTED.json" {
	check_header afsim_writer_style
}

@test "spaa-top and spaa-stat views of the microsecond run (self = exclusive, total = inclusive)" {
	afperf2spaa "$A/basic_two_runs.afperf" | spaa-grep --tid=1 >"$T/run1.spaa"
	# detect: 892 + 1368 us self; ballistic, RK4: 504 + 1692 self, 504 + 3080 total
	run spaa-top --event region -n 3 "$T/run1.spaa"
	assert_success
	assert_output - <<'END'
region/wall_ns, total 15.03ms
      flat  flat%   sum%        cum   cum%  function
    2.40ms 15.98% 15.98%    15.03ms   100%  WsfSimulation::AdvanceTime
    2.26ms 15.04% 31.02%     2.26ms 15.04%  detect
    2.20ms 14.61% 45.63%     3.58ms 23.85%  ballistic, RK4
END
	run spaa-top --event region --sort total -n 2 --json "$T/run1.spaa"
	assert_line --index 2 '{"type":"row","rank":2,"name":"event dispatch","self":1562000,"self_percent":10.39,"total":6000000,"total_percent":39.92}'
	# totals per event and metric: regions 15030 us in 18 calls, raw region
	# aggregates "Bytes sent" (mt 22) and "CPU time" (mt 13422045); sections:
	# sums 13284 + 20000 us, unions 12865 + 12664 us, 5 + 6 intervals, raw
	# section aggregates of mt 19, 34 and 31 (EXPECTED.txt, data records)
	spaa-stat --event region --json "$T/run1.spaa" >"$T/stat.json"
	run jq -c '.weights[] | [.event, .metric, .value]' "$T/stat.json"
	assert_output - <<'END'
["region","wall_ns",15030000]
["region","calls",18]
["region","Bytes sent",5652033013725]
["region","CPU time",263891.7747129373]
["section","wall_ns",33284000]
["section","union_ns",25529000]
["section","intervals",11]
["section","Temperature delta",11]
["section","Messages handled",3176021803176]
["section","Section busy time",2944359315433]
END
}

@test "every output passes spaa-validate, with every option" {
	for f in basic_two_runs crlf_numeric_types_later_minor afsim_writer_style; do
		for o in "" --samples --exclude-pauses "--samples --exclude-pauses"; do
			afperf2spaa $o "$A/$f.afperf" >"$T/out.spaa"
			run spaa-validate --verbose "$T/out.spaa"
			assert_success
			assert_output --regexp ': valid: 1 header, 1 dso, [0-9]+ frame, 2 thread, [0-9]+ stack, [0-9]+ sample, 0 window, 0 other; 0 errors, [0-9]+ warnings$'
		done
	done
}

@test "--samples: one sample per region and per section interval, at its start in wall-clock seconds" {
	afperf2spaa --samples "$A/basic_two_runs.afperf" >"$T/out.spaa"
	run grep -c '"type":"sample"' "$T/out.spaa"
	assert_output 62
	run grep -c '"type":"sample".*"event":"section"' "$T/out.spaa"
	assert_output 19
	# WsfSimulation::AdvanceTime of run 1: RunInfo start 3720445 us at wallclock
	# 1700000000 s, region start 3720906 us, 15030 us long
	run grep -F '"x_region_id":"0x6aaddd0003dd"' "$T/out.spaa"
	assert_output '{"type":"sample","timestamp":1700000000.000461,"pid":1,"tid":1,"x_dur_ns":15030000,"x_weights":[{"metric":"wall_ns","value":2402000},{"metric":"calls","value":1},{"metric":"Bytes sent","value":823123942466},{"metric":"CPU time","value":1654.1772}],"x_region_id":"0x6aaddd0003dd","event":"region","stack_id":"0xe2f82413032cca72"}'
	# a region without counters of a call path that has some gives them as 0
	run grep -F '"x_region_id":"0xa397fe00057d"' "$T/out.spaa"
	assert_output '{"type":"sample","timestamp":1700000000.002434,"pid":1,"tid":1,"x_dur_ns":647000,"x_weights":[{"metric":"wall_ns","value":647000},{"metric":"calls","value":1},{"metric":"Bytes sent","value":0}],"x_region_id":"0xa397fe00057d","x_tags":[["component","mover"]],"event":"region","stack_id":"0xca37d96ec82aaf94"}'
	# a section interval: its length and intervals = 1
	run grep -F '"x_section_id":"0xaae53300059f","x_interval_id":15,' "$T/out.spaa"
	assert_output '{"type":"sample","timestamp":1639527663.7144175,"pid":2,"tid":2,"x_dur_ns":347619,"x_weights":[{"metric":"wall_ns","value":347619},{"metric":"intervals","value":1}],"x_section_id":"0xaae53300059f","x_interval_id":15,"event":"section","stack_id":"0x84908a1146a2efb9"}'
	# without --samples: none
	afperf2spaa "$A/basic_two_runs.afperf" >"$T/plain.spaa"
	run grep -c '"type":"sample"' "$T/plain.spaa"
	assert_output 0
}

# spaa-fold without its note on the stacks that lack the metric
fold_quiet() { spaa-fold "$@" 2>/dev/null; }

@test "--samples and spaa-window: a cut over everything rebuilds region counters, section wall_ns and intervals" {
	for f in basic_two_runs crlf_numeric_types_later_minor afsim_writer_style; do
		for o in "" --exclude-pauses; do
			afperf2spaa --samples $o "$A/$f.afperf" >"$T/a.spaa"
			spaa-window --from +0 --to 1e12 "$T/a.spaa" >"$T/cut.spaa"
			for e in region section; do
				for m in wall_ns calls elapsed_ns intervals "Bytes sent" "CPU time" "Resident memory"; do
					spaa-fold --raw --tid --event $e -m "$m" "$T/a.spaa" >"$T/want" 2>/dev/null || true
					spaa-fold --raw --tid --event $e -m "$m" "$T/cut.spaa" >"$T/got" 2>/dev/null || true
					run diff "$T/want" "$T/got"
					assert_success
				done
			done
		done
	done
	afperf2spaa --samples "$A/basic_two_runs.afperf" >"$T/a.spaa"
	spaa-window --from +0 --to 1e12 "$T/a.spaa" >"$T/cut.spaa"
	run spaa-validate --verbose "$T/cut.spaa"
	assert_output "$T/cut.spaa: valid: 1 header, 1 dso, 22 frame, 2 thread, 42 stack, 62 sample, 0 window, 0 other; 0 errors, 0 warnings"
	run fold_quiet --raw --tid --event region -m "Bytes sent" "$T/cut.spaa"
	assert_output "mission-1/1;WsfSimulation::AdvanceTime 823123942466
mission-1/1;WsfSimulation::AdvanceTime;WsfPlatform::Update 1039533389606
mission-1/1;WsfSimulation::AdvanceTime;event dispatch 1018984092225
mission-1/1;WsfSimulation::AdvanceTime;event dispatch;line-of-sight 799974932952
mission-1/1;WsfSimulation::AdvanceTime;event dispatch;log flush 508809616395
mission-1/1;WsfSimulation::AdvanceTime;processor update 115895741440
mission-1/1;WsfSimulation::AdvanceTime;processor update;ballistic, RK4;detect 509243178212
mission-1/1;WsfSimulation::AdvanceTime;quoted \"radar\" sweep 532812492572
mission-1/1;WsfSimulation::AdvanceTime;Ω-band jammer 303655627857
mission-2/2;WsfSimulation::AdvanceTime;mover update 1080270181695
mission-2/2;WsfSimulation::AdvanceTime;mover update;log flush 151700814398
mission-2/2;WsfSimulation::AdvanceTime;mover update;log flush;log flush 178734110300
mission-2/2;WsfSimulation::AdvanceTime;mover update;log flush;log flush;message decode 116164925634
mission-2/2;WsfSimulation::AdvanceTime;mover update;mover update 1053987776879
mission-2/2;WsfSimulation::AdvanceTime;mover update;mover update;observer callback 160796580259
mission-2/2;WsfSimulation::AdvanceTime;mover update;mover update;observer callback;kinematics 1389816900212
mission-2/2;WsfSimulation::AdvanceTime;mover update;mover update;observer callback;line-of-sight 75661699842401
mission-2/2;WsfSimulation::AdvanceTime;mover update;µ-wave link 497753544523"
	# union_ns and the section counters belong to no interval: dropped
	run grep -c -e '"metric":"union_ns"' -e '"metric":"Messages handled"' "$T/cut.spaa"
	assert_output 0
}

@test "--samples and spaa-window: a partial cut keeps the counters of the regions and the intervals that start in it" {
	afperf2spaa --samples "$A/basic_two_runs.afperf" >"$T/a.spaa"
	spaa-window --from 1700000000.005 "$T/a.spaa" >"$T/cut.spaa"
	run spaa-validate --verbose "$T/cut.spaa"
	assert_output "$T/cut.spaa: valid: 1 header, 1 dso, 22 frame, 2 thread, 12 stack, 20 sample, 0 window, 0 other; 0 errors, 0 warnings"
	run fold_quiet --event region -m "Bytes sent" "$T/cut.spaa"
	assert_output "mission;WsfSimulation::AdvanceTime;WsfPlatform::Update 1039533389606
mission;WsfSimulation::AdvanceTime;event dispatch;line-of-sight 799974932952
mission;WsfSimulation::AdvanceTime;quoted \"radar\" sweep 532812492572
mission;WsfSimulation::AdvanceTime;Ω-band jammer 303655627857"
	run fold_quiet --event region -m "CPU time" "$T/cut.spaa"
	assert_output "mission;WsfSimulation::AdvanceTime;WsfPlatform::Update 461.521
mission;WsfSimulation::AdvanceTime;event dispatch;line-of-sight 608.45
mission;WsfSimulation::AdvanceTime;event dispatch;line-of-sight;line-of-sight 1490.5969906"
	run spaa-fold --event section -m wall_ns "$T/cut.spaa"
	assert_output "mission;guidance loop, fast #1 11108000
mission;événement #0 20000000"
	run spaa-fold --event section -m intervals "$T/cut.spaa"
	assert_output "mission;guidance loop, fast #1 4
mission;événement #0 6"
}

@test "--exclude-pauses: wall_ns leaves paused time out, elapsed_ns keeps it" {
	afperf2spaa --exclude-pauses "$A/basic_two_runs.afperf" >"$T/p.spaa"
	afperf2spaa "$A/basic_two_runs.afperf" >"$T/n.spaa"
	run spaa-fold --raw --tid --event region -m elapsed_ns "$T/p.spaa"
	want=$output
	run spaa-fold --raw --tid --event region -m wall_ns "$T/n.spaa"
	assert_equal "$output" "$want"
	# ["...", "WsfPlatform::Update", "ballistic, RK4"]: 504 us, all paused
	run spaa-fold --raw --tid --event region -m wall_ns "$T/p.spaa"
	refute_line --partial 'WsfPlatform::Update;ballistic, RK4 '
	assert_line 'mission-1/1;WsfSimulation::AdvanceTime;WsfPlatform::Update 795000'
}

@test "the later-minor file from invalid/ is accepted: unknown records ignored" {
	run afperf2spaa "$I/unknown_record_type_later_minor.afperf"
	assert_success
	echo "$output" >"$T/out.spaa"
	run spaa-fold --raw --tid --event region "$T/out.spaa"
	assert_output - <<'END'
mission-1/1;simulation 500
mission-1/1;simulation;sensor update, radar 300
END
	run spaa-fold --raw --tid --event section -m union_ns "$T/out.spaa"
	assert_output 'mission-1/1;comm burst 550'
	run spaa-fold --raw --tid --event section -m wall_ns "$T/out.spaa"
	assert_output 'mission-1/1;comm burst 650'
	run jq -c '.source.file | [.ignored_unknown_type_records, .ignored_extra_fields_records, .runs]' <(head -n 1 "$T/out.spaa")
	assert_output '[2,0,1]'
	run jq -c '.source.runs[0] | [.run_id, .run_id_hex, .unit, .format_version]' <(head -n 1 "$T/out.spaa")
	assert_output '["3134241488","0xbad0bad0","ns","1.1.0"]'
}

@test "a signature-only file is an empty container" {
	run afperf2spaa "$I/header_only.afperf"
	assert_success
	assert_output '{"type":"header","format":"spaa","version":"1.0","source_tool":"afperf","frame_order":"leaf_to_root","events":[{"name":"region","kind":"probe","sampling":{"mode":"event","primary_metric":"wall_ns"}},{"name":"section","kind":"probe","sampling":{"mode":"event","primary_metric":"wall_ns"}}],"source":{"tool":"afperf","runs":[],"file":{"line_ending":"LF","version_header_lines":1,"comment_lines":0,"blank_lines":0,"records":0,"records_by_type":{},"record_types_written_as_numbers":0,"ignored_unknown_type_records":0,"ignored_extra_fields_records":0,"region_stop_matching":"by region id","processed_aggregates_with_blank_record_id":{},"runs":0},"format":"AFPerf v1"},"stack_id_mode":"content_addressable"}
{"type":"dso","id":1,"name":"[unknown]","is_kernel":false}'
}

@test "a signature and one RunInfo: one run, no data" {
	afperf2spaa "$I/header_and_runinfo_only.afperf" >"$T/out.spaa"
	run spaa-validate "$T/out.spaa"
	assert_success
	run jq -c '.source.runs' <(head -n 1 "$T/out.spaa")
	assert_output '[{"run":1,"run_id":"3134241488","run_id_hex":"0xbad0bad0","line":2,"start_timestamp":1000,"units":"nanoseconds","unit":"ns","wallclock":"1795317340.5","format_version":"1.0.0","application":"mission","application_version":"2.9.0","tags":[["platform","F15_ABC"]],"measurement_types":[],"pauses":{"count":0,"union":0,"list":[]},"sections":[],"region_tags":[],"data_records":{},"data":[]}]'
	run grep -c . "$T/out.spaa"
	assert_output 3
}

# ---- invalid files: exact message and status ------------------------------

reject() {
	run afperf2spaa "$I/$1"
	assert_failure 1
	assert_output "afperf2spaa: $I/$1:$2"
}

@test "invalid: bad_magic_no_padding" {
	reject bad_magic_no_padding.afperf "1: bad file signature: the header must be the 16 bytes '# AFPerf v1' + 5 spaces; here it is 11 bytes"
}
@test "invalid: bad_magic_lowercase" {
	reject bad_magic_lowercase.afperf "1: bad file signature: the file must start with the 16 bytes '# AFPerf v1' + 5 spaces (found '# afperf v1     ')"
}
@test "invalid: bad_magic_bom" {
	reject bad_magic_bom.afperf "1: file starts with a UTF-8 byte order mark; the signature must be the first 16 bytes"
}
@test "invalid: wrong_major_version" {
	reject wrong_major_version.afperf "1: unsupported major version 2 (only v1 is known)"
}
@test "invalid: empty_file" {
	reject empty_file.afperf "1: empty file: no signature"
}
@test "invalid: repeated_header_differs" {
	reject repeated_header_differs.afperf "6: a repeated version header must be identical to the first one ('# AFPerf v2' found)"
}
@test "invalid: regionstop_without_start" {
	reject regionstop_without_start.afperf "8: RegionStop for region id 0xaaaa0009, which no RegionStart (anywhere in the file) opens"
}
@test "invalid: non_numeric_timestamp" {
	reject non_numeric_timestamp.afperf "5: timestamp 'noon' is not an integer"
}
@test "invalid: timestamp_trailing_garbage" {
	reject timestamp_trailing_garbage.afperf "6: timestamp '15o0' is not an integer"
}
@test "invalid: unknown_record_type_known_minor" {
	reject unknown_record_type_known_minor.afperf "4: unknown record type 'ThreadInfo', and no run declares a later minor version, so it cannot be skipped"
}
@test "invalid: unknown_numeric_record_type_known_minor" {
	reject unknown_numeric_record_type_known_minor.afperf "4: unknown record type 15 (record types 1..14 are defined in 1.0; 0 is reserved), and no run declares a later minor version, so it cannot be skipped"
}
@test "invalid: regions_cross" {
	reject regions_cross.afperf "6: regions 0xaaaa0001 [1100,1900] and 0xaaaa0002 [1200,2000] overlap without nesting (regions of one run must be disjoint or strictly nested)"
}
@test "invalid: region_negative_duration" {
	reject region_negative_duration.afperf "6: region 0xaaaa0002 stops (1150) before it starts (1200)"
}
@test "invalid: negative_timestamp" {
	reject negative_timestamp.afperf "6: timestamp '-1500' is negative; timestamps must be nonnegative"
}
@test "invalid: unterminated_quote" {
	reject unterminated_quote.afperf "5: unterminated quoted field (RFC 4180)"
}
@test "invalid: float_trailing_garbage" {
	reject float_trailing_garbage.afperf "7: value '2.5e2us' has a non-whitespace tail after the number"
}
@test "invalid: bad_format_version_string" {
	reject bad_format_version_string.afperf "2: RunInfo format version '1.0' is not three dot-separated integers"
}
@test "invalid: runinfo_major_mismatch" {
	reject runinfo_major_mismatch.afperf "2: the run declares format version 2.0.0 inside a v1 container"
}
@test "invalid: section_stop_without_start" {
	reject section_stop_without_start.afperf "14: SectionStop for interval 3 of section 0x51, never started"
}
@test "invalid: run_without_runinfo" {
	reject run_without_runinfo.afperf "4: RegionStart refers to run 0xbad0bad1, for which the file has no RunInfo"
}
@test "every file in invalid/ has a test" {
	for f in "$I"/*.afperf; do
		b=$(basename "$f" .afperf)
		grep -q "invalid: $b\"\|$b.afperf\"" "$BATS_TEST_FILENAME" || fail "no test for $b"
	done
}

# ---- more rules, on small hand-made files ----------------------------------

base() {
	printf '# AFPerf v1     \n'
	printf 'RunInfo,1000,nanoseconds,1795317340.5,1.0.0,0xbad0bad0,mission,2.9.0,platform=F15_ABC\n'
}

@test "--strict: a region that never stops is a warning, or an error" {
	{ base; printf 'RegionStart,1100,0xbad0bad0,1,a,\nRegionStart,1200,0xbad0bad0,2,b,\nRegionStop,1300,2\n'; } >"$T/f.afperf"
	run afperf2spaa -o "$T/out.spaa" "$T/f.afperf"
	assert_success
	assert_output "afperf2spaa: $T/f.afperf:3: region 0x1 (a) never stops; left out"
	run spaa-fold --raw --tid --event region "$T/out.spaa"
	assert_output 'mission-1/1;b 100'
	run afperf2spaa --strict "$T/f.afperf"
	assert_failure 1
	assert_output "afperf2spaa: $T/f.afperf:3: region 0x1 (a) never stops; left out"
}

@test "--strict: values of an undefined measurement type, a section interval that never stops" {
	{ base; printf 'RunPoint,1000,0xbad0bad0,7,42\nSectionInfo,,0xbad0bad0,5,s,\nSectionStart,1100,5,1\n'; } >"$T/f.afperf"
	run afperf2spaa "$T/f.afperf"
	assert_success
	assert_line --index 0 "afperf2spaa: $T/f.afperf:5: interval 1 of section 0x5 never stops; left out"
	assert_line --index 1 "afperf2spaa: $T/f.afperf:3: RunPoint: measurement type 7 is not defined for run 0xbad0bad0; its values are only counted"
	run afperf2spaa --strict "$T/f.afperf"
	assert_failure 1
	assert_output "afperf2spaa: $T/f.afperf:5: interval 1 of section 0x5 never stops; left out"
}

@test "comments, blank lines, CRLF, quoting, hex, numeric record types, records in any order" {
	{
		printf '# AFPerf v1     \r\n'
		printf '# a comment\r\n\r\n \t \r\n'
		printf '6,"0x5DC",0X2\r\n'                                 # stop before start
		printf '5,1200,0xbad0bad0,2,"x, ""y""\r\nz",k=v;a=b\r\n'   # label with comma, quotes, line break
		printf ' # not a comment: blanks first\r\n' >/dev/null
		printf 'RegionStart,1100,3134241488,1,top,\r\n'
		printf 'RegionStop,1900,1\r\n'
		printf '# AFPerf v1     \r\n'
		printf '8,1000,us,1795317340.5,1.0.0,0xbad0bad0,app,1,\r\n'
	} >"$T/f.afperf"
	afperf2spaa "$T/f.afperf" >"$T/out.spaa"
	# the CRLF inside the quoted label is kept: fold shows two spaces
	run spaa-fold --raw --tid --event region "$T/out.spaa"
	assert_output - <<'END'
app-1/1;top 500000
app-1/1;top;x, "y"  z 300000
END
	run jq -c '.source.file' <(head -n 1 "$T/out.spaa")
	assert_output '{"line_ending":"CRLF","version_header_lines":2,"comment_lines":1,"blank_lines":2,"records":5,"records_by_type":{"RegionStart":2,"RegionStop":2,"RunInfo":1},"record_types_written_as_numbers":3,"ignored_unknown_type_records":0,"ignored_extra_fields_records":0,"region_stop_matching":"by region id","processed_aggregates_with_blank_record_id":{},"runs":1}'
}

@test "known records with extra fields: an error in 1.0, ignored with a later minor run" {
	{ base; printf 'RegionStart,1100,0xbad0bad0,1,a,,extra\nRegionStop,1300,1\n'; } >"$T/f.afperf"
	run afperf2spaa "$T/f.afperf"
	assert_failure 1
	assert_output "afperf2spaa: $T/f.afperf:3: RegionStart has 7 fields (6 in format 1.0), and no run declares a later minor version, so they cannot be ignored"
	{ cat "$T/f.afperf"; printf 'RunInfo,0,ns,0,1.3.0,9,other,1,\n'; } >"$T/g.afperf"
	run afperf2spaa "$T/g.afperf"
	assert_success
}

@test "more bad input: quoting, short records, bad values, bad units" {
	f=$T/f.afperf
	{ base; printf 'RegionStart,1100,0xbad0bad0,1,a"b,\n'; } >"$f"
	run afperf2spaa "$f"
	assert_failure 1
	assert_output "afperf2spaa: $f:3: quote inside an unquoted field 5 (RFC 4180)"
	{ base; printf 'RegionStart,1100,0xbad0bad0,1,"a"b,\n'; } >"$f"
	run afperf2spaa "$f"
	assert_output "afperf2spaa: $f:3: character after the closing quote of field 5 (RFC 4180)"
	{ base; printf 'RegionStop,1100\n'; } >"$f"
	run afperf2spaa "$f"
	assert_output "afperf2spaa: $f:3: RegionStop has 2 fields, needs 3"
	{ base; printf 'MeasurementType,1000,0xbad0bad0,1,n,int32,count,,\nRunPoint,1000,0xbad0bad0,1,0x80000000\n'; } >"$f"
	run afperf2spaa "$f"
	assert_output "afperf2spaa: $f:4: value '0x80000000' is out of the int32 range"
	{ base; printf 'MeasurementType,1000,0xbad0bad0,1,n,bool,flag,,\nRunPoint,1000,0xbad0bad0,1,2\n'; } >"$f"
	run afperf2spaa "$f"
	assert_output "afperf2spaa: $f:4: bool value '2' is not 0 or 1"
	{ base; printf 'MeasurementType,1000,0xbad0bad0,1,n,float,s,,\n'; } >"$f"
	run afperf2spaa "$f"
	assert_output "afperf2spaa: $f:3: MeasurementType datatype 'float' is not double, int32, int64, bool, string or enum"
	{ printf '# AFPerf v1     \nRunInfo,1,fortnights,0,1.0.0,1,a,b,\n'; } >"$f"
	run afperf2spaa "$f"
	assert_output "afperf2spaa: $f:2: RunInfo timestamp units 'fortnights' are not seconds, milliseconds, microseconds or nanoseconds"
	{ base; printf 'PauseResume,10,20,0xbad0bad0\n'; } >"$f"
	run afperf2spaa "$f"
	assert_output "afperf2spaa: $f:3: pause ends (10) before it starts (20)"
	{ base; printf 'RunInfo,0,ns,0,1.0.0,0xbad0bad0,a,b,\n'; } >"$f"
	run afperf2spaa "$f"
	assert_output "afperf2spaa: $f:3: a second RunInfo for run 0xbad0bad0 (the first is on line 2)"
}

@test "integers as strtoll reads them: an optional + sign, blanks around; no second sign" {
	{
		base
		printf 'RegionStart,+1100,0xbad0bad0,+0x1,a,\nRegionStop, +0x76C ,1\n'
		printf 'MeasurementType,1000,0xbad0bad0,2,n,int64,count,,\nRunPoint,1000,+0xbad0bad0,2,+7\nRunPoint,1000,0xbad0bad0,2,-0x10\n'
	} >"$T/f.afperf"
	run afperf2spaa "$T/f.afperf"
	assert_success
	run jq -c '.source.runs[0].data' <(echo "$output" | head -n 1)
	assert_output '[{"type":"2","kind":"RunPoint","n":2,"sum":-9,"min":-16,"max":7}]'
	run bash -c "afperf2spaa '$T/f.afperf' | spaa-fold --raw --event region"
	assert_output "mission;a 800"
	for v in '++1100' '+ 1100' '+-1100' '+'; do
		{ base; printf 'RegionStart,%s,0xbad0bad0,1,a,\n' "$v"; } >"$T/g.afperf"
		run afperf2spaa "$T/g.afperf"
		assert_failure 1
		assert_output "afperf2spaa: $T/g.afperf:3: timestamp '$v' is not an integer"
	done
	{ base; printf 'MeasurementType,1000,0xbad0bad0,2,n,int64,count,,\nRunPoint,1000,0xbad0bad0,2,+-7\n'; } >"$T/g.afperf"
	run afperf2spaa "$T/g.afperf"
	assert_failure 1
	assert_output "afperf2spaa: $T/g.afperf:4: value '+-7' is not an integer (int64, measurement type 2)"
}

@test "double values: C99 strtod spellings, inf and nan counted apart" {
	{
		base
		printf 'MeasurementType,1000,0xbad0bad0,1,d,double,s,,\n'
		printf 'RunPoint,1000,0xbad0bad0,1,0x1.8p3\nRunPoint,1000,0xbad0bad0,1, .25 \nRunPoint,1000,0xbad0bad0,1,-Infinity\n'
		printf 'RunPoint,1000,0xbad0bad0,1,NaN\nRunPoint,1000,0xbad0bad0,1,42.\n'
	} >"$T/f.afperf"
	run afperf2spaa "$T/f.afperf"
	assert_success
	run jq -c '.source.runs[0].data' <(echo "$output" | head -n 1)
	assert_output '[{"type":"1","kind":"RunPoint","n":5,"n_pos_inf":0,"n_neg_inf":1,"n_nan":1,"sum":54.25,"min":0.25,"max":42}]'
}

# ---- input and output --------------------------------------------------------

@test "gzip and zstd input, stdin" {
	afperf2spaa "$A/basic_two_runs.afperf" >"$T/want.spaa"
	gzip -c "$A/basic_two_runs.afperf" >"$T/f.afperf.gz"
	zstd -q -c "$A/basic_two_runs.afperf" >"$T/f.afperf.zst"
	run afperf2spaa "$T/f.afperf.gz"
	assert_success
	assert_equal "$output" "$(cat "$T/want.spaa")"
	run afperf2spaa "$T/f.afperf.zst"
	assert_equal "$output" "$(cat "$T/want.spaa")"
	run afperf2spaa - <"$A/basic_two_runs.afperf"
	assert_equal "$output" "$(cat "$T/want.spaa")"
	run afperf2spaa <"$T/f.afperf.gz"
	assert_equal "$output" "$(cat "$T/want.spaa")"
}

@test "errors on stdin are named -" {
	run afperf2spaa <"$I/negative_timestamp.afperf"
	assert_failure 1
	assert_output "afperf2spaa: -:6: timestamp '-1500' is negative; timestamps must be nonnegative"
}

@test "-o FILE, -z, and the same bytes every time" {
	afperf2spaa "$A/crlf_numeric_types_later_minor.afperf" >"$T/a.spaa"
	run afperf2spaa -o "$T/b.spaa" "$A/crlf_numeric_types_later_minor.afperf"
	assert_success
	assert_output ''
	cmp "$T/a.spaa" "$T/b.spaa"
	afperf2spaa -z "$A/crlf_numeric_types_later_minor.afperf" | zstd -dc >"$T/c.spaa"
	cmp "$T/a.spaa" "$T/c.spaa"
	afperf2spaa -o "$T/d.spaa.zst" "$A/crlf_numeric_types_later_minor.afperf"
	zstd -dc "$T/d.spaa.zst" | cmp "$T/a.spaa" -
	# a failed conversion leaves no file
	run afperf2spaa -o "$T/e.spaa" "$I/regions_cross.afperf"
	assert_failure 1
	[ ! -e "$T/e.spaa" ]
}

@test "write error on /dev/full" {
	run afperf2spaa "$A/basic_two_runs.afperf" -o /dev/full
	assert_failure 1
	assert_output --partial 'write error'
	run bash -c 'afperf2spaa "$1" >/dev/full' _ "$A/basic_two_runs.afperf"
	assert_failure 1
	assert_output --partial 'write error'
}

@test "the README example converts" {
	run afperf2spaa "$EX/basic.afperf"
	assert_success
	cmp <(afperf2spaa "$EX/basic.afperf") <(afperf2spaa "$A/basic_two_runs.afperf")
}

@test "invalid UTF-8 is refused with its line (AFPerf files MUST be UTF-8); --max-depth" {
	{ head -n 2 "$A/basic_two_runs.afperf"; printf 'Tag,1,2,3,caf\351\n'; } > "$T/bad.afperf"
	run afperf2spaa -o "$T/out.spaa" "$T/bad.afperf"
	assert_failure 1
	assert_output "afperf2spaa: $T/bad.afperf:3: invalid UTF-8 at byte 14 (0xe9): AFPerf files must be UTF-8"
	[ ! -e "$T/out.spaa" ]
	run afperf2spaa --max-depth=1 "$A/basic_two_runs.afperf"
	assert_failure 1
	assert_output "afperf2spaa: $A/basic_two_runs.afperf:92: spans nested deeper than 1 level (the limit; --max-depth=N raises it)"
	afperf2spaa --max-depth=5 "$A/basic_two_runs.afperf" | spaa-validate -q -
}

@test "a record cut in the middle (the last line without its newline) is an error, the signature's too; a signature with its newline is still an empty container (issue 28)" {
	{ base; printf 'RegionStart,1100,0xbad0bad0,1,a,\nRegionStop,1300,1'; } > "$T/f.afperf"
	run afperf2spaa -o "$T/out.spaa" "$T/f.afperf"
	assert_failure 1
	assert_output "afperf2spaa: $T/f.afperf:4: the last line has no newline: the file is cut short (a whole file ends with one: add it)"
	[ ! -e "$T/out.spaa" ]
	printf '# AFPerf v1     ' > "$T/sig.afperf"
	run afperf2spaa "$T/sig.afperf"
	assert_failure 1
	assert_output "afperf2spaa: $T/sig.afperf:1: the last line has no newline: the file is cut short (a whole file ends with one: add it)"
	printf '# AFPerf v1     \r' > "$T/sig.afperf"
	run afperf2spaa "$T/sig.afperf"
	assert_failure 1
	assert_output "afperf2spaa: $T/sig.afperf:1: the last line has no newline: the file is cut short (a whole file ends with one: add it)"
	printf '# AFPerf v1     \n' | afperf2spaa | spaa-validate -q -
	# not AFPerf at all: named so, not a cut
	printf 'hello' > "$T/x.afperf"
	run afperf2spaa "$T/x.afperf"
	assert_failure 1
	assert_output "afperf2spaa: $T/x.afperf:1: bad file signature: the file must start with the 16 bytes '# AFPerf v1' + 5 spaces (found 'hello')"
}

@test "the example cut at every byte of its first 200 and last 120 bytes and at every line: an error naming the file, or (at a record's end, where an appended container cannot tell) exit 0 (issue 28)" {
	f=$EX/basic.afperf
	n=$(wc -c < "$f")
	# a cut at a record's end: an appended container cannot tell
	declare -A end
	for i in $(line_ends "$f"); do end[$i]=1; done
	cut_may_end() { [ -n "${end[$1]:-}" ]; }
	cut_sweep "$f" "$(seq 0 200) ${!end[*]} $(seq $((n - 120)) "$n")" afperf2spaa
}
