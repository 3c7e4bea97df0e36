#!/usr/bin/env bats
load common

# Diagnostics only (stderr; the summary on stdout is dropped), run from the
# fixture directory so that messages name the files as given.
diags() {
	cd "$D/validate" && spaa-validate "$@" 2>&1 >/dev/null
}
# Everything, stdout and stderr, from the fixture directory.
both() {
	cd "$D/validate" && spaa-validate "$@" 2>&1
}

# ---- valid files ------------------------------------------------------------

@test "valid perf-like file: inlined and kernel frames, threads, samples, window" {
	cd "$D/validate"
	run spaa-validate perf-inline-kernel.spaa
	assert_success
	assert_output ''
	run spaa-validate --verbose perf-inline-kernel.spaa
	assert_success
	assert_output 'perf-inline-kernel.spaa: valid: 1 header, 3 dso, 8 frame, 2 thread, 3 stack, 2 sample, 1 window, 0 other; 0 errors, 0 warnings'
}

@test "valid dtrace-like file: related user and kernel stacks, probe context" {
	cd "$D/validate"
	run spaa-validate --verbose dtrace-user-kernel.spaa
	assert_success
	assert_output 'dtrace-user-kernel.spaa: valid: 1 header, 4 dso, 7 frame, 0 thread, 4 stack, 0 sample, 0 window, 0 other; 0 errors, 0 warnings'
}

@test "valid memory profile: allocation events, root_to_leaf, negative live_bytes, forward sample" {
	cd "$D/validate"
	run spaa-validate --verbose memory.spaa
	assert_success
	assert_output 'memory.spaa: valid: 1 header, 2 dso, 4 frame, 1 thread, 3 stack, 2 sample, 0 window, 0 other; 0 errors, 0 warnings'
}

@test "a sample may refer to a stack defined further on" {
	run both --verbose sample-before-stack.spaa
	assert_success
	assert_output 'sample-before-stack.spaa: valid: 1 header, 1 dso, 2 frame, 0 thread, 1 stack, 1 sample, 0 window, 0 other; 0 errors, 0 warnings'
}

@test "the reference implementation's valid files are valid (with a stack_id_mode warning)" {
	cd "$D/validate/ref/valid"
	run spaa-validate -q *.spaa
	assert_success
	assert_output ''
	run spaa-validate --verbose stack-with-weights.spaa
	assert_success
	assert_output - <<'OUT'
spaa-validate: stack-with-weights.spaa:1: warning: header has no "stack_id_mode" (taken as "local")
stack-with-weights.spaa: valid: 1 header, 1 dso, 1 frame, 0 thread, 1 stack, 0 sample, 0 window, 0 other; 0 errors, 1 warning
OUT
}

@test "the reference implementation's invalid files are invalid, except an unknown record type" {
	cd "$D/validate/ref/invalid"
	for f in duplicate-header empty frame-unknown-dso header-not-first missing-primary-metric stack-unknown-frame; do
		run spaa-validate -q $f.spaa
		assert_failure 1
	done
	run spaa-validate -q unknown-record-type.spaa
	assert_success
	run spaa-validate -q --strict unknown-record-type.spaa
	assert_failure 1
}

# ---- options ----------------------------------------------------------------

@test "-q prints nothing, on valid and invalid files" {
	run both -q perf-inline-kernel.spaa
	assert_success
	assert_output ''
	run both -q stack-unknown-frame.spaa nofile.spaa
	assert_failure 1
	assert_output ''
}

@test "--strict makes warnings errors" {
	run both --strict context-unknown-key.spaa
	assert_failure 1
	assert_output - <<'OUT'
spaa-validate: context-unknown-key.spaa:5: unknown context key "vendor_key" (custom keys should start with "x_")
context-unknown-key.spaa: invalid: 1 header, 1 dso, 2 frame, 0 thread, 2 stack, 0 sample, 0 window, 0 other; 1 error, 0 warnings
OUT
	run both --strict perf-inline-kernel.spaa
	assert_success
}

@test "without --strict warnings keep a file valid" {
	run both --verbose context-unknown-key.spaa
	assert_success
	assert_output - <<'OUT'
spaa-validate: context-unknown-key.spaa:5: warning: unknown context key "vendor_key" (custom keys should start with "x_")
context-unknown-key.spaa: valid: 1 header, 1 dso, 2 frame, 0 thread, 2 stack, 0 sample, 0 window, 0 other; 0 errors, 1 warning
OUT
}

@test "--json prints one object per problem and a summary per file" {
	run both --json sample-unknown-stack.spaa context-unknown-key.spaa
	assert_failure 1
	assert_output - <<'OUT'
{"file":"sample-unknown-stack.spaa","line":6,"severity":"error","message":"sample refers to unknown stack 0x9 (and 1 more reference)","rule":"stack-ref"}
{"file":"sample-unknown-stack.spaa","line":9,"severity":"error","message":"sample refers to unknown stack 0x8","rule":"stack-ref"}
{"file":"sample-unknown-stack.spaa","valid":false,"errors":2,"warnings":0,"records":{"header":1,"dso":1,"frame":2,"thread":0,"stack":1,"sample":4,"window":0,"other":0}}
{"file":"context-unknown-key.spaa","line":5,"severity":"warning","message":"unknown context key \"vendor_key\" (custom keys should start with \"x_\")","rule":"context-key"}
{"file":"context-unknown-key.spaa","valid":true,"errors":0,"warnings":1,"records":{"header":1,"dso":1,"frame":2,"thread":0,"stack":2,"sample":0,"window":0,"other":0}}
OUT
}

@test "--json: file-level problems have a null line; missing files are reported" {
	run both -J empty.spaa nofile.spaa
	assert_failure 1
	assert_output - <<'OUT'
{"file":"empty.spaa","line":null,"severity":"error","message":"no header record","rule":"header-missing"}
{"file":"empty.spaa","valid":false,"errors":1,"warnings":0,"records":{"header":0,"dso":0,"frame":0,"thread":0,"stack":0,"sample":0,"window":0,"other":0}}
{"file":"nofile.spaa","line":null,"severity":"error","message":"No such file or directory","rule":"file"}
{"file":"nofile.spaa","valid":false,"errors":1,"warnings":0,"records":{"header":0,"dso":0,"frame":0,"thread":0,"stack":0,"sample":0,"window":0,"other":0}}
OUT
}

@test "--json with --strict reports warnings as errors" {
	run both --json --strict source-tool-unknown.spaa
	assert_failure 1
	assert_output - <<'OUT'
{"file":"source-tool-unknown.spaa","line":1,"severity":"error","message":"unknown source_tool \"mytool\"","rule":"source-tool"}
{"file":"source-tool-unknown.spaa","valid":false,"errors":1,"warnings":0,"records":{"header":1,"dso":0,"frame":0,"thread":0,"stack":0,"sample":0,"window":0,"other":0}}
OUT
}

@test "--max-errors caps the report, the summary still counts everything" {
	run both --max-errors 2 sample-field-type.spaa
	assert_failure 1
	assert_output - <<'OUT'
spaa-validate: sample-field-type.spaa:6: sample timestamp must be a number
spaa-validate: sample-field-type.spaa:6: sample pid must be an integer
spaa-validate: sample-field-type.spaa: too many problems; only counting the rest (--max-errors 2)
sample-field-type.spaa: invalid: 1 header, 1 dso, 2 frame, 0 thread, 1 stack, 1 sample, 0 window, 0 other; 5 errors, 0 warnings
OUT
	run diags --max-errors=0 sample-field-type.spaa
	assert_failure 1
	assert_equal "$(echo "$output" | wc -l)" 5
}

@test "the default cap is 100 problems per file" {
	{ head -4 "$D/validate/sample-unknown-stack.spaa"
	  for i in $(seq 150); do echo '{"type":"sample","cpu":"x","stack_id":"0x1"}'; done; } > "$T/many.spaa"
	run spaa-validate "$T/many.spaa"
	assert_failure 1
	assert_equal "$(echo "$output" | grep -c 'must be an integer')" 100
	assert_line "spaa-validate: $T/many.spaa: too many problems; only counting the rest (--max-errors 100)"
	assert_line "$T/many.spaa: invalid: 1 header, 1 dso, 2 frame, 0 thread, 0 stack, 150 sample, 0 window, 0 other; 151 errors, 0 warnings"
}

@test "several files are validated separately; exit 1 if any is invalid" {
	run both --verbose perf-inline-kernel.spaa stack-unknown-frame.spaa memory.spaa
	assert_failure 1
	assert_output - <<'OUT'
perf-inline-kernel.spaa: valid: 1 header, 3 dso, 8 frame, 2 thread, 3 stack, 2 sample, 1 window, 0 other; 0 errors, 0 warnings
spaa-validate: stack-unknown-frame.spaa:5: stack 0x1 refers to unknown frame 42
stack-unknown-frame.spaa: invalid: 1 header, 1 dso, 2 frame, 0 thread, 1 stack, 0 sample, 0 window, 0 other; 1 error, 0 warnings
memory.spaa: valid: 1 header, 2 dso, 4 frame, 1 thread, 3 stack, 2 sample, 0 window, 0 other; 0 errors, 0 warnings
OUT
	run both perf-inline-kernel.spaa memory.spaa
	assert_success
}

@test "a missing file: exit 1, the other files are still validated" {
	run both --verbose nofile memory.spaa
	assert_failure 1
	assert_output - <<'OUT'
spaa-validate: nofile: No such file or directory
memory.spaa: valid: 1 header, 2 dso, 4 frame, 1 thread, 3 stack, 2 sample, 0 window, 0 other; 0 errors, 0 warnings
OUT
	run spaa-validate nofile
	assert_failure 1
	assert_output 'spaa-validate: nofile: No such file or directory'
}

@test "standard input, with no file or -" {
	run sh -c 'spaa-validate --verbose < "$1"' _ "$D/validate/memory.spaa"
	assert_success
	assert_output -- '-: valid: 1 header, 2 dso, 4 frame, 1 thread, 3 stack, 2 sample, 0 window, 0 other; 0 errors, 0 warnings'
	run sh -c 'spaa-validate - < "$1"' _ "$D/validate/stack-unknown-frame.spaa"
	assert_failure 1
	assert_line -- '-: invalid: 1 header, 1 dso, 2 frame, 0 thread, 1 stack, 0 sample, 0 window, 0 other; 1 error, 0 warnings'
	assert_line 'spaa-validate: -:5: stack 0x1 refers to unknown frame 42'
}

@test "gzip and zstd input" {
	gzip -c "$D/validate/perf-inline-kernel.spaa" > "$T/p.spaa.gz"
	zstd -q -c "$D/validate/stack-unknown-frame.spaa" > "$T/s.spaa.zst"
	cd "$T"
	run spaa-validate --verbose p.spaa.gz
	assert_success
	assert_output 'p.spaa.gz: valid: 1 header, 3 dso, 8 frame, 2 thread, 3 stack, 2 sample, 1 window, 0 other; 0 errors, 0 warnings'
	run spaa-validate s.spaa.zst
	assert_failure 1
	assert_line 'spaa-validate: s.spaa.zst:5: stack 0x1 refers to unknown frame 42'
	run sh -c 'spaa-validate < p.spaa.gz'
	assert_success
}

@test "CRLF line ends and blank lines are accepted" {
	sed 's/$/\r/' "$D/validate/memory.spaa" | sed '3i\\' > "$T/crlf.spaa"
	run spaa-validate -q "$T/crlf.spaa"
	assert_success
}

@test "write error on the summary: > /dev/full" {
	run sh -c 'spaa-validate --verbose "$1" > /dev/full' _ "$D/validate/memory.spaa"
	assert_failure 1
	assert_output --partial 'write error'
	run sh -c 'spaa-validate -q "$1" > /dev/full' _ "$D/validate/memory.spaa"
	assert_success
}

@test "--help and --version" {
	run spaa-validate --help
	assert_success
	assert_line --index 0 'Usage: spaa-validate [OPTION]... [FILE]...'
	assert_line '      --strict         treat warnings as errors'
	run spaa-validate -V
	assert_success
	assert_output --regexp '^spaa-validate \(spaa-tools\) [0-9]'
}

@test "usage errors exit 2" {
	run spaa-validate --bogus
	assert_failure 2
	assert_line "spaa-validate: unrecognized option '--bogus'"
	assert_line "Try 'spaa-validate --help' for more information."
	run spaa-validate --max-errors lots x
	assert_failure 2
	assert_line --index 1 "Try 'spaa-validate --help' for more information."
}

@test "a long run of samples after the stacks" {
	{ cat "$D/validate/memory.spaa"
	  yes '{"type":"sample","timestamp":1.5,"tid":4511,"event":"malloc","stack_id":7001}' | head -200000; } > "$T/big.spaa"
	run spaa-validate --verbose "$T/big.spaa"
	assert_success
	assert_output "$T/big.spaa: valid: 1 header, 2 dso, 4 frame, 1 thread, 3 stack, 200002 sample, 0 window, 0 other; 0 errors, 0 warnings"
}

# ---- one fixture per rule ---------------------------------------------------

@test "one JSON object per line: bad JSON (bad-json)" {
	run diags bad-json.spaa
	assert_failure 1
	assert_output 'spaa-validate: bad-json.spaa:2: invalid JSON at byte 44: expected string key'
}

@test "valid UTF-8 (bad-utf8)" {
	run diags bad-utf8.spaa
	assert_failure 1
	assert_output 'spaa-validate: bad-utf8.spaa:2: invalid JSON at byte 39: invalid UTF-8 in string'
}

@test "build_id not lowercase hex is a warning (build-id-format)" {
	run diags build-id-format.spaa
	assert_success
	assert_output 'spaa-validate: build-id-format.spaa:2: warning: dso 1: build_id "ABCD-1234" is not lowercase hex without separators'
}

@test "standard context field types (context-field-type)" {
	run diags context-field-type.spaa
	assert_failure 1
	assert_output - <<'EOF'
spaa-validate: context-field-type.spaa:5: stack 0x1: context.pid must be an integer
spaa-validate: context-field-type.spaa:5: stack 0x1: context.comm must be a string
spaa-validate: context-field-type.spaa:5: stack 0x1: context.probe must be an object
EOF
}

@test "unknown context keys are warned about once (context-unknown-key)" {
	run diags context-unknown-key.spaa
	assert_success
	assert_output 'spaa-validate: context-unknown-key.spaa:5: warning: unknown context key "vendor_key" (custom keys should start with "x_")'
}

@test "dso ids are unique (dso-duplicate)" {
	run diags dso-duplicate.spaa
	assert_failure 1
	assert_output 'spaa-validate: dso-duplicate.spaa:3: duplicate dso id 1'
}

@test "is_kernel must be a boolean (dso-is-kernel-bad)" {
	run diags dso-is-kernel-bad.spaa
	assert_failure 1
	assert_output 'spaa-validate: dso-is-kernel-bad.spaa:2: dso 1: is_kernel must be true or false'
}

@test "kernel-looking dso without is_kernel is a warning (dso-kernel-looking)" {
	run diags dso-kernel-looking.spaa
	assert_success
	assert_output - <<'EOF'
spaa-validate: dso-kernel-looking.spaa:2: warning: dso 1 "[kernel.kallsyms]" looks like a kernel image but is_kernel is not true
spaa-validate: dso-kernel-looking.spaa:3: warning: dso 2 "/boot/vmlinux-6.1.0" looks like a kernel image but is_kernel is not true
EOF
}

@test "dso id is required (dso-no-id)" {
	run diags dso-no-id.spaa
	assert_failure 1
	assert_output 'spaa-validate: dso-no-id.spaa:2: dso record has no id'
}

@test "dso without name is a warning (dso-no-name)" {
	run diags dso-no-name.spaa
	assert_success
	assert_output 'spaa-validate: dso-no-name.spaa:2: warning: dso 1 has no name'
}

@test "an empty file has no header (empty)" {
	run diags empty.spaa
	assert_failure 1
	assert_output 'spaa-validate: empty.spaa: no header record'
}

@test "event names are unique (event-duplicate)" {
	run diags event-duplicate.spaa
	assert_failure 1
	assert_output 'spaa-validate: event-duplicate.spaa:1: header events[1]: duplicate event name "cycles"'
}

@test "event kind enum (event-kind-bad)" {
	run diags event-kind-bad.spaa
	assert_failure 1
	assert_output 'spaa-validate: event-kind-bad.spaa:1: event cycles: kind "cpu" is not hardware, software, allocation, deallocation, timer or probe'
}

@test "event kind is required (event-kind-missing)" {
	run diags event-kind-missing.spaa
	assert_failure 1
	assert_output 'spaa-validate: event-kind-missing.spaa:1: event cycles has no "kind"'
}

@test "event name is required (event-no-name)" {
	run diags event-no-name.spaa
	assert_failure 1
	assert_output 'spaa-validate: event-no-name.spaa:1: header: events[0] is not an object with a "name" string'
}

@test "no events is a warning (events-empty)" {
	run diags events-empty.spaa
	assert_success
	assert_output 'spaa-validate: events-empty.spaa:1: warning: header declares no events'
}

@test "events array is required (events-missing)" {
	run diags events-missing.spaa
	assert_failure 1
	assert_output 'spaa-validate: events-missing.spaa:1: header has no "events" array'
}

@test "exclusive weights: missing metrics and values above inclusive are warnings (exclusive-metrics)" {
	run diags exclusive-metrics.spaa
	assert_success
	assert_output - <<'EOF'
spaa-validate: exclusive-metrics.spaa:5: warning: stack 0x1: exclusive period exceeds the stack's period
spaa-validate: exclusive-metrics.spaa:5: warning: stack 0x1: exclusive.weights lack metrics of weights: samples, cache_misses
EOF
}

@test "exclusive needs a frame (exclusive-no-frame)" {
	run diags exclusive-no-frame.spaa
	assert_failure 1
	assert_output 'spaa-validate: exclusive-no-frame.spaa:5: stack 0x1: exclusive has no frame'
}

@test "exclusive without weights is a warning (exclusive-no-weights)" {
	run diags exclusive-no-weights.spaa
	assert_success
	assert_output 'spaa-validate: exclusive-no-weights.spaa:5: warning: stack 0x1: exclusive has no weights'
}

@test "exclusive.frame is the leaf (exclusive-not-leaf)" {
	run diags exclusive-not-leaf.spaa
	assert_failure 1
	assert_output 'spaa-validate: exclusive-not-leaf.spaa:6: stack 0x1: exclusive.frame 2 is not the leaf frame 3 (frame_order leaf_to_root)'
}

@test "exclusive is an object (exclusive-not-object)" {
	run diags exclusive-not-object.spaa
	assert_failure 1
	assert_output 'spaa-validate: exclusive-not-object.spaa:5: stack 0x1: exclusive must be an object'
}

@test "exclusive.frame at the root hints at a wrong frame_order (exclusive-root)" {
	run diags exclusive-root.spaa
	assert_failure 1
	assert_output 'spaa-validate: exclusive-root.spaa:5: stack 0x1: exclusive.frame 1 is the root frame, not the leaf frame 2 (frame_order leaf_to_root)'
}

@test "exclusive.frame is an existing frame (exclusive-unknown-frame)" {
	run diags exclusive-unknown-frame.spaa
	assert_failure 1
	assert_output 'spaa-validate: exclusive-unknown-frame.spaa:5: stack 0x1: exclusive.frame refers to unknown frame 9'
}

@test "header format is required (format-missing)" {
	run diags format-missing.spaa
	assert_failure 1
	assert_output 'spaa-validate: format-missing.spaa:1: header has no "format" (must be "spaa")'
}

@test "header format must be spaa (format-wrong)" {
	run diags format-wrong.spaa
	assert_failure 1
	assert_output 'spaa-validate: format-wrong.spaa:1: header format is "spab", not "spaa"'
}

@test "dictionaries come before their use (frame-before-dso)" {
	run diags frame-before-dso.spaa
	assert_failure 1
	assert_output 'spaa-validate: frame-before-dso.spaa:2: frame 1 refers to unknown dso 1'
}

@test "frame ids are unique (frame-duplicate)" {
	run diags frame-duplicate.spaa
	assert_failure 1
	assert_output 'spaa-validate: frame-duplicate.spaa:4: duplicate frame id 1'
}

@test "frame field types (frame-field-type)" {
	run diags frame-field-type.spaa
	assert_failure 1
	assert_output - <<'EOF'
spaa-validate: frame-field-type.spaa:3: frame 1: inlined must be true or false
spaa-validate: frame-field-type.spaa:3: frame 1: srcline must be a string
EOF
}

@test "ip and symoff should be hex strings (frame-ip-not-hex)" {
	run diags frame-ip-not-hex.spaa
	assert_success
	assert_output - <<'EOF'
spaa-validate: frame-ip-not-hex.spaa:3: warning: frame 1: ip "401234" is not a hex string (0x...)
spaa-validate: frame-ip-not-hex.spaa:3: warning: frame 1: symoff "0x1g" is not a hex string (0x...)
EOF
}

@test "kernel frame in a user dso is a warning (frame-kernel-user-dso)" {
	run diags frame-kernel-user-dso.spaa
	assert_success
	assert_output 'spaa-validate: frame-kernel-user-dso.spaa:3: warning: frame 1 is a kernel frame but dso 1 is not is_kernel'
}

@test "frame kind enum (frame-kind-bad)" {
	run diags frame-kind-bad.spaa
	assert_failure 1
	assert_output 'spaa-validate: frame-kind-bad.spaa:3: frame 1: kind "userspace" is not user, kernel or unknown'
}

@test "frame dso is required (frame-no-dso)" {
	run diags frame-no-dso.spaa
	assert_failure 1
	assert_output 'spaa-validate: frame-no-dso.spaa:3: frame 1 has no dso'
}

@test "frame without func is a warning (frame-no-func)" {
	run diags frame-no-func.spaa
	assert_success
	assert_output 'spaa-validate: frame-no-func.spaa:3: warning: frame 1 has no func'
}

@test "frame_order enum (frame-order-bad)" {
	run diags frame-order-bad.spaa
	assert_failure 1
	assert_output 'spaa-validate: frame-order-bad.spaa:1: header frame_order "bottom_up" is not leaf_to_root or root_to_leaf'
}

@test "frame_order is required (frame-order-missing)" {
	run diags frame-order-missing.spaa
	assert_failure 1
	assert_output 'spaa-validate: frame-order-missing.spaa:1: header has no "frame_order" (leaf_to_root or root_to_leaf)'
}

@test "frames refer to existing dsos (frame-unknown-dso)" {
	run diags frame-unknown-dso.spaa
	assert_failure 1
	assert_output 'spaa-validate: frame-unknown-dso.spaa:3: frame 1 refers to unknown dso 9'
}

@test "unresolved func should be an address (frame-unresolved-func)" {
	run diags frame-unresolved-func.spaa
	assert_success
	assert_output 'spaa-validate: frame-unresolved-func.spaa:3: warning: frame 1: func_resolved is false but func "main" is not a hex address'
}

@test "the header comes first (header-not-first)" {
	run diags header-not-first.spaa
	assert_failure 1
	assert_output 'spaa-validate: header-not-first.spaa:1: the first record is a dso, not the header'
}

@test "exactly one header (header-twice)" {
	run diags header-twice.spaa
	assert_failure 1
	assert_output 'spaa-validate: header-twice.spaa:3: second header record (the first is at line 1)'
}

@test "inline_depth is a non-negative integer (inline-depth-bad)" {
	run diags inline-depth-bad.spaa
	assert_failure 1
	assert_output 'spaa-validate: inline-depth-bad.spaa:3: frame 1: inline_depth must be a non-negative integer'
}

@test "inlined and inline_depth disagree (inline-depth-inconsistent)" {
	run diags inline-depth-inconsistent.spaa
	assert_success
	assert_output 'spaa-validate: inline-depth-inconsistent.spaa:3: warning: frame 1: inlined is true but inline_depth is 0'
}

@test "inlined frames are ordered by inline depth (inline-order)" {
	run diags inline-order.spaa
	assert_failure 1
	assert_output 'spaa-validate: inline-order.spaa:6: stack 0x1: inlined frame 201 (inline_depth 2) does not precede its caller at inline_depth 1 (frames must be ordered by inline depth, deepest first for leaf_to_root)'
}

@test "inlined frames should share dso, ip and symoff (once per pair) (inline-share)" {
	run diags inline-share.spaa
	assert_success
	assert_output 'spaa-validate: inline-share.spaa:5: warning: stack 0x1: inlined frame 202 and its caller frame 203 do not share dso, ip and symoff'
}

@test "a record needs a type string (no-type)" {
	run diags no-type.spaa
	assert_failure 1
	assert_output 'spaa-validate: no-type.spaa:2: record has no "type" string'
}

@test "a record must be a JSON object (not-object)" {
	run diags not-object.spaa
	assert_failure 1
	assert_output 'spaa-validate: not-object.spaa:2: record is not a JSON object'
}

@test "the primary metric is in the weights (primary-metric-absent)" {
	run diags primary-metric-absent.spaa
	assert_failure 1
	assert_output 'spaa-validate: primary-metric-absent.spaa:5: stack 0x1: weights lack the primary metric "period" of event "cycles"'
}

@test "sampling primary_metric is required (primary-metric-missing)" {
	run diags primary-metric-missing.spaa
	assert_failure 1
	assert_output 'spaa-validate: primary-metric-missing.spaa:1: event cycles has no sampling.primary_metric string'
}

@test "related_stacks: ids, and unknown stacks as warnings (related-unknown)" {
	run diags related-unknown.spaa
	assert_failure 1
	assert_output - <<'EOF'
spaa-validate: related-unknown.spaa:6: stack 0x2: related_stacks[0] is not a stack id
spaa-validate: related-unknown.spaa:5: warning: related_stacks refers to unknown stack 0xk1
EOF
}

@test "sample event is declared in the header (sample-event-undeclared)" {
	run diags sample-event-undeclared.spaa
	assert_failure 1
	assert_output 'spaa-validate: sample-event-undeclared.spaa:6: sample event "instructions" is not declared in the header'
}

@test "sample field types (sample-field-type)" {
	run diags sample-field-type.spaa
	assert_failure 1
	assert_output - <<'EOF'
spaa-validate: sample-field-type.spaa:6: sample timestamp must be a number
spaa-validate: sample-field-type.spaa:6: sample pid must be an integer
spaa-validate: sample-field-type.spaa:6: sample cpu must be an integer
spaa-validate: sample-field-type.spaa:6: sample period must be a number
spaa-validate: sample-field-type.spaa:6: sample context must be an object
EOF
}

@test "sample stack_id is required (sample-no-stack-id)" {
	run diags sample-no-stack-id.spaa
	assert_failure 1
	assert_output - <<'EOF'
spaa-validate: sample-no-stack-id.spaa:6: sample has no stack_id
spaa-validate: sample-no-stack-id.spaa:7: sample stack_id must be an integer or a string
EOF
}

@test "sample period 0 is a warning, once (sample-period-zero)" {
	run diags sample-period-zero.spaa
	assert_success
	assert_output 'spaa-validate: sample-period-zero.spaa:6: warning: sample period is 0 (reported once per file)'
}

@test "sample outside time_range is a warning, once (sample-time-range)" {
	run diags sample-time-range.spaa
	assert_success
	assert_output 'spaa-validate: sample-time-range.spaa:7: warning: sample timestamp 25.5 is outside the header time_range (reported once per file)'
}

@test "samples refer to existing stacks, reported at the end (sample-unknown-stack)" {
	run diags sample-unknown-stack.spaa
	assert_failure 1
	assert_output - <<'EOF'
spaa-validate: sample-unknown-stack.spaa:6: sample refers to unknown stack 0x9 (and 1 more reference)
spaa-validate: sample-unknown-stack.spaa:9: sample refers to unknown stack 0x8
EOF
}

@test "event sampling is required (sampling-missing)" {
	run diags sampling-missing.spaa
	assert_failure 1
	assert_output 'spaa-validate: sampling-missing.spaa:1: event cycles has no "sampling" object'
}

@test "sampling mode enum (sampling-mode-bad)" {
	run diags sampling-mode-bad.spaa
	assert_failure 1
	assert_output 'spaa-validate: sampling-mode-bad.spaa:1: event cycles: sampling.mode "periodic" is not period, frequency or event'
}

@test "missing source_tool is a warning (source-tool-missing)" {
	run diags source-tool-missing.spaa
	assert_success
	assert_output 'spaa-validate: source-tool-missing.spaa:1: warning: header has no "source_tool"'
}

@test "unknown source_tool is a warning (source-tool-unknown)" {
	run diags source-tool-unknown.spaa
	assert_success
	assert_output 'spaa-validate: source-tool-unknown.spaa:1: warning: unknown source_tool "mytool"'
}

@test "stack ids are unique (stack-duplicate)" {
	run diags stack-duplicate.spaa
	assert_failure 1
	assert_output 'spaa-validate: stack-duplicate.spaa:6: duplicate stack id 0x1 (first at line 5)'
}

@test "a stack without frames is a warning (stack-empty-frames)" {
	run diags stack-empty-frames.spaa
	assert_success
	assert_output 'spaa-validate: stack-empty-frames.spaa:5: warning: stack 0x1 has no frames'
}

@test "context.event is declared in the header (stack-event-undeclared)" {
	run diags stack-event-undeclared.spaa
	assert_failure 1
	assert_output 'spaa-validate: stack-event-undeclared.spaa:5: stack 0x1: context.event "instructions" is not declared in the header'
}

@test "frames are defined before the stacks that use them (stack-frame-before-def)" {
	run diags stack-frame-before-def.spaa
	assert_failure 1
	assert_output 'spaa-validate: stack-frame-before-def.spaa:4: stack 0x1 refers to unknown frame 2'
}

@test "stack_id_mode enum (stack-id-mode-bad)" {
	run diags stack-id-mode-bad.spaa
	assert_failure 1
	assert_output 'spaa-validate: stack-id-mode-bad.spaa:1: header stack_id_mode "hash" is not content_addressable or local'
}

@test "missing stack_id_mode is a warning (stack-id-mode-missing)" {
	run diags stack-id-mode-missing.spaa
	assert_success
	assert_output 'spaa-validate: stack-id-mode-missing.spaa:1: warning: header has no "stack_id_mode" (taken as "local")'
}

@test "stack context is required (stack-no-context)" {
	run diags stack-no-context.spaa
	assert_failure 1
	assert_output 'spaa-validate: stack-no-context.spaa:5: stack 0x1 has no "context" object'
}

@test "context.event is required (stack-no-event)" {
	run diags stack-no-event.spaa
	assert_failure 1
	assert_output 'spaa-validate: stack-no-event.spaa:5: stack 0x1 has no context.event'
}

@test "stack frames are required (stack-no-frames)" {
	run diags stack-no-frames.spaa
	assert_failure 1
	assert_output 'spaa-validate: stack-no-frames.spaa:5: stack 0x1 has no "frames" array'
}

@test "stack id is required (stack-no-id)" {
	run diags stack-no-id.spaa
	assert_failure 1
	assert_output 'spaa-validate: stack-no-id.spaa:5: stack record has no valid "id" (an integer or a string)'
}

@test "stack weights are required (stack-no-weights)" {
	run diags stack-no-weights.spaa
	assert_failure 1
	assert_output 'spaa-validate: stack-no-weights.spaa:5: stack 0x1 has no "weights"'
}

@test "stack_type enum (stack-type-bad)" {
	run diags stack-type-bad.spaa
	assert_failure 1
	assert_output 'spaa-validate: stack-type-bad.spaa:5: stack 0x1: stack_type "mixed" is not unified, user or kernel'
}

@test "a user stack with kernel frames is a warning (stack-type-mismatch)" {
	run diags stack-type-mismatch.spaa
	assert_success
	assert_output 'spaa-validate: stack-type-mismatch.spaa:6: warning: stack 0x1: a user stack has kernel frame 3'
}

@test "stacks refer to existing frames (stack-unknown-frame)" {
	run diags stack-unknown-frame.spaa
	assert_failure 1
	assert_output 'spaa-validate: stack-unknown-frame.spaa:5: stack 0x1 refers to unknown frame 42'
}

@test "thread tids are unique (thread-duplicate)" {
	run diags thread-duplicate.spaa
	assert_failure 1
	assert_output 'spaa-validate: thread-duplicate.spaa:3: duplicate thread tid 2'
}

@test "thread pid is required (thread-no-pid)" {
	run diags thread-no-pid.spaa
	assert_failure 1
	assert_output 'spaa-validate: thread-no-pid.spaa:2: thread 2 has no pid'
}

@test "thread tid is required (thread-no-tid)" {
	run diags thread-no-tid.spaa
	assert_failure 1
	assert_output 'spaa-validate: thread-no-tid.spaa:2: thread record has no tid'
}

@test "thread tid is an integer, comm a string (thread-tid-string)" {
	run diags thread-tid-string.spaa
	assert_failure 1
	assert_output - <<'EOF'
spaa-validate: thread-tid-string.spaa:2: thread tid must be an integer
spaa-validate: thread-tid-string.spaa:2: thread 2: comm must be a string
EOF
}

@test "time_range needs numeric start and end (time-range-bad)" {
	run diags time-range-bad.spaa
	assert_failure 1
	assert_output 'spaa-validate: time-range-bad.spaa:1: header time_range must be an object with numeric "start" and "end"'
}

@test "time_range ending before its start is a warning (time-range-reversed)" {
	run diags time-range-reversed.spaa
	assert_success
	assert_output 'spaa-validate: time-range-reversed.spaa:1: warning: header time_range ends (3) before it starts (10.5)'
}

@test "unknown record types are warned about once (unknown-record-type)" {
	run diags unknown-record-type.spaa
	assert_success
	assert_output 'spaa-validate: unknown-record-type.spaa:2: warning: unknown record type "comment"'
}

@test "a newer 1.x version is a warning (version-1-1)" {
	run diags version-1-1.spaa
	assert_success
	assert_output 'spaa-validate: version-1-1.spaa:1: warning: header version "1.1" is not 1.0: checked as 1.0'
}

@test "another major version is an error (version-2)" {
	run diags version-2.spaa
	assert_failure 1
	assert_output 'spaa-validate: version-2.spaa:1: header: unsupported SPAA version "2.0" (this program reads 1.x)'
}

@test "header version is required (version-missing)" {
	run diags version-missing.spaa
	assert_failure 1
	assert_output 'spaa-validate: version-missing.spaa:1: header has no "version" (must be "1.0")'
}

@test "a metric twice in weights is a warning (weight-duplicate)" {
	run diags weight-duplicate.spaa
	assert_success
	assert_output 'spaa-validate: weight-duplicate.spaa:5: warning: stack 0x1: metric "period" appears twice in weights'
}

@test "zero and negative weights are warnings (weight-zero)" {
	run diags weight-zero.spaa
	assert_success
	assert_output - <<'EOF'
spaa-validate: weight-zero.spaa:5: warning: stack 0x1: period weight is 0
spaa-validate: weight-zero.spaa:5: warning: stack 0x1: samples weight is negative
EOF
}

@test "weights are metric/value objects (weights-bad)" {
	run diags weights-bad.spaa
	assert_failure 1
	assert_output 'spaa-validate: weights-bad.spaa:5: stack 0x1: weights[0] needs a "metric" string and a numeric "value"'
}

@test "window entries and times (window-bad)" {
	run diags window-bad.spaa
	assert_failure 1
	assert_output - <<'EOF'
spaa-validate: window-bad.spaa:6: warning: window ends (1) before it starts (2)
spaa-validate: window-bad.spaa:6: window entry has no valid "stack_id"
spaa-validate: window-bad.spaa:6: window entry for stack 0x1: weights[0] needs a "metric" string and a numeric "value"
EOF
}

@test "window by_stack is required (window-no-by-stack)" {
	run diags window-no-by-stack.spaa
	assert_failure 1
	assert_output 'spaa-validate: window-no-by-stack.spaa:6: window w1 has no "by_stack" array'
}

@test "windows refer to existing stacks (window-unknown-stack)" {
	run diags window-unknown-stack.spaa
	assert_failure 1
	assert_output 'spaa-validate: window-unknown-stack.spaa:6: window refers to unknown stack 0x7'
}

@test "hardening: numbers out of range, duplicate keys, nameless events are refused by every reader with file:line" {
	H='{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","stack_id_mode":"local","events":[{"name":"c","kind":"timer","sampling":{"mode":"event","primary_metric":"samples"}}]}'
	D='{"type":"dso","id":1,"name":"d"}
{"type":"frame","id":1,"func":"a","dso":1}'
	for v in 1e400 18446744073709551616 -9223372036854775809; do
		printf '%s\n%s\n{"type":"stack","id":1,"frames":[1],"context":{"event":"c"},"weights":[{"metric":"samples","value":%s}]}\n' "$H" "$D" "$v" > "$T/w.spaa"
		for c in spaa-fold spaa-top spaa-stat "spaa-cat --merge" "spaa-grep -e a"; do
			run $c "$T/w.spaa"
			assert_failure 1
			assert_output "${c%% *}: $T/w.spaa:4: stack 1: weights[0]: value $v is out of range (integers from -2^63 to 2^64-1, finite numbers)"
		done
		run spaa-validate "$T/w.spaa"
		assert_failure 1
		assert_line --index 0 "spaa-validate: $T/w.spaa:4: stack 1: weights[0]: value $v is out of range (integers from -2^63 to 2^64-1, finite numbers)"
	done
	printf '%s\n%s\n{"type":"stack","id":1,"frames":[1],"context":{"event":"c"},"weights":[{"metric":"samples","value":1}]}\n{"type":"sample","stack_id":1,"timestamp":1e400}\n' "$H" "$D" > "$T/t.spaa"
	run spaa-window --every 1 "$T/t.spaa"
	assert_failure 1
	assert_output "spaa-window: $T/t.spaa:5: timestamp 1e400 is out of range (integers from -2^63 to 2^64-1, finite numbers)"
	printf '%s\n{"type":"dso","id":1,"name":"d","name":"e"}\n' "$H" > "$T/k.spaa"
	run spaa-fold "$T/k.spaa"
	assert_failure 1
	assert_output "spaa-fold: $T/k.spaa:2: key \"name\" appears twice in the record"
	run spaa-validate -q "$T/k.spaa"
	assert_failure 1
	echo '{"type":"header","format":"spaa","version":"1.0","events":[{"name":5}]}' > "$T/e.spaa"
	for c in spaa-fold spaa-diff spaa-top spaa-stat; do
		if [ $c = spaa-diff ]; then run $c "$T/e.spaa" "$T/e.spaa"; else run $c "$T/e.spaa"; fi
		assert_failure 1
		assert_output "$c: $T/e.spaa:1: header: events[0] is not an object with a \"name\" string"
	done
}

@test "hardening: usage messages name the program, not its path; stdin read once; tiny and huge option numbers" {
	run "$SPAA_CMDDIR/spaa-validate" --bogus
	assert_failure 2
	assert_line --index 0 "spaa-validate: unrecognized option '--bogus'"
	for c in spaa-validate spaa-fold spaa-cat; do
		run $c - - < /dev/null
		assert_failure 2
		assert_line --index 0 "$c: standard input (-) can be read only once"
	done
	run spaa-window --every 1e999 "$EX/parser.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-window: --every: '1e999' is out of range"
	run spaa-window --every 4.9e-324 "$EX/parser.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-window: --every 4.9e-324 makes inf windows of the 0.005005 seconds range (at most 100000)"
	run sh -c 'exec <&-; spaa-fold'
	assert_failure 1
	assert_output "spaa-fold: -: read error: Bad file descriptor"
}

@test "a string with \\u0000 is read as U+FFFD, with a warning once per file (string-nul, issue 20)" {
	H='{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"e","kind":"software","sampling":{"mode":"event","primary_metric":"n"}}],"stack_id_mode":"local"}'
	printf '%s\n' "$H" '{"type":"dso","id":1,"name":"a\u0000"}' '{"type":"frame","id":1,"func":"le\u0000af","dso":1}' \
		'{"type":"stack","id":"s1","frames":[1],"context":{"event":"e"},"weights":[{"metric":"n","value":2}]}' > "$T/nul.spaa"
	run spaa-validate --verbose "$T/nul.spaa"
	assert_success
	assert_output "spaa-validate: $T/nul.spaa:2: warning: a string holds \\u0000, read as U+FFFD: SPAA strings hold no NUL (reported once per file)
$T/nul.spaa: valid: 1 header, 1 dso, 1 frame, 0 thread, 1 stack, 0 sample, 0 window, 0 other; 0 errors, 1 warning"
	run spaa-fold "$T/nul.spaa"
	assert_output "$(printf 'le\357\277\275af 2')"
}

@test "silent on success: nothing for a valid file, the summary of an invalid one, --verbose for every file (issue 30)" {
	cd "$D/validate"
	run spaa-validate perf-inline-kernel.spaa memory.spaa
	assert_success
	assert_output ''
	run sh -c 'spaa-validate < memory.spaa'
	assert_success
	assert_output ''
	# a warning is still said (standard error), with no summary
	run both context-unknown-key.spaa
	assert_success
	assert_output 'spaa-validate: context-unknown-key.spaa:5: warning: unknown context key "vendor_key" (custom keys should start with "x_")'
	run both perf-inline-kernel.spaa stack-unknown-frame.spaa memory.spaa
	assert_failure 1
	assert_output - <<'OUT'
spaa-validate: stack-unknown-frame.spaa:5: stack 0x1 refers to unknown frame 42
stack-unknown-frame.spaa: invalid: 1 header, 1 dso, 2 frame, 0 thread, 1 stack, 0 sample, 0 window, 0 other; 1 error, 0 warnings
OUT
	run sh -c 'spaa-validate memory.spaa > /dev/full'
	assert_success
	# -J asks for the summaries
	run spaa-validate -J memory.spaa
	assert_output '{"file":"memory.spaa","valid":true,"errors":0,"warnings":0,"records":{"header":1,"dso":2,"frame":4,"thread":1,"stack":3,"sample":2,"window":0,"other":0}}'
	# a real capture, as perf2spaa writes it
	perf2spaa -o "$T/p.spaa" "$BATS_TEST_DIRNAME/data/window/gzip.perf.data"
	run spaa-validate "$T/p.spaa"
	assert_success
	assert_output ''
	run spaa-validate --verbose "$T/p.spaa"
	assert_output --regexp "^$T/p.spaa: valid: 1 header, [0-9]+ dso, [0-9]+ frame, 1 thread, [0-9]+ stack, 0 sample, 0 window, 0 other; 0 errors, 0 warnings\$"
}
