#!/usr/bin/env bats
# spaa-flamegraph: the geometry of the frames against an independent
# computation of flamegraph.pl's layout (sorted lines, merged by flow), the
# views, colours, text, errors, and the SVG's script in headless Chromium.
load common

# frames SVG: "NAME DEPTH X WIDTH" per frame, in the file's order; the depth
# from the y of the root frame ("all")
frames() {
	awk -v fh="${FH:-16}" '
		/^<g><title>/ {
			t = $0; sub(/^<g><title>/, "", t); sub(/ \([^(]*<\/title>.*/, "", t)
			match($0, / y="[^"]*"/); y = substr($0, RSTART + 4, RLENGTH - 5)
			match($0, / x="[^"]*"/); x = substr($0, RSTART + 4, RLENGTH - 5)
			match($0, / width="[^"]*"/); w = substr($0, RSTART + 8, RLENGTH - 9)
			if (t == "all" && root == "") root = y
			d = (root - y) / fh; if (d < 0) d = -d
			print t, d, x, w
		}' "$1"
}

# reference W FOLDED: flamegraph.pl's layout of FOLDED at width W, computed
# here its own way: the lines sorted bytewise, each merged with the one
# before (frames shared stay open), frames narrower than 0.1 px left out
reference() {
	LC_ALL=C sort "$2" | awk -v W="$1" '
		BEGIN { nf = 0 }
		function close_to(n,   i) {
			for (i = lastn; i >= n; i--) { nm[nf] = last[i]; dp[nf] = i; st[nf] = start[i]; en[nf] = time; nf++ }
		}
		{
			c = $NF; s = substr($0, 1, length($0) - length(c) - 1)
			k = split(s, f, ";")
			this[0] = "all"; for (i = 1; i <= k; i++) this[i] = f[i]
			same = 0
			while (same <= lastn && same <= k && last[same] == this[same]) same++
			if (NR == 1) same = 0; else close_to(same)
			for (i = same; i <= k; i++) start[i] = time
			for (i = 0; i <= k; i++) last[i] = this[i]
			lastn = k; time += c
		}
		END {
			close_to(0)
			per = (W - 20) / time
			for (i = 0; i < nf; i++) {
				if ((en[i] - st[i]) * per < 0.1 && dp[i] > 0) continue
				x1 = sprintf("%.1f", 10 + st[i] * per); x2 = sprintf("%.1f", 10 + en[i] * per)
				printf "%s %d %s %.1f\n", nm[i], dp[i], x1, x2 - x1
			}
		}' | LC_ALL=C sort
}

# A folded profile with shared prefixes, parents with weight of their own,
# names that are prefixes of others, and frames too narrow to draw at 1200 px.
mkfolded() {
	cat > "$T/p.folded" <<-'EOF'
	main;parse;lex 300
	main;parse;lex;next_char 120
	main;parse 40
	main;parse_file;read 200
	main;parse_args 10
	main;eval;apply;eval;apply 90
	main;eval;apply 60
	main;eval;lookup 1
	main;eval;lookup;hash 1
	main 5
	worker;run;compute 400
	worker;run;sleep 2
	worker;idle 0.05
	[kernel];irq 3
	EOF
}

@test "spaa-flamegraph: the frames' geometry is flamegraph.pl's (independent computation), at two widths" {
	mkfolded
	spaa-flamegraph "$T/p.folded" > "$T/p.svg"
	frames "$T/p.svg" | LC_ALL=C sort > "$T/got"
	reference 1200 "$T/p.folded" > "$T/want"
	run diff "$T/want" "$T/got"
	assert_success
	# the frame too narrow at 1200 px (0.05 of 1231.05: 0.05 px) is left out
	run grep -c '^idle ' "$T/got"
	assert_output 0
	spaa-flamegraph --width=800 "$T/p.folded" > "$T/p8.svg"
	frames "$T/p8.svg" | LC_ALL=C sort > "$T/got8"
	reference 800 "$T/p.folded" > "$T/want8"
	run diff "$T/want8" "$T/got8"
	assert_success
	[ "$(wc -l < "$T/got8")" -eq 20 ]
}

@test "spaa-flamegraph: a function is one frame even where flamegraph.pl's line sort splits it" {
	# flamegraph.pl sorts whole lines: "main;parse 40" < "main;parse-args 10"
	# < "main;parse;lex 30" (' ' < '-' < ';'), and draws parse twice, around
	# parse-args; here parse is one frame, its children after it
	printf 'main;parse 40\nmain;parse-args 10\nmain;parse;lex 30\n' > "$T/s.folded"
	spaa-flamegraph "$T/s.folded" > "$T/s.svg"
	run frames "$T/s.svg"
	assert_output 'all 0 10.0 1180.0
parse-args 2 10.0 147.5
lex 3 747.5 442.5
parse 2 157.5 1032.5
main 1 10.0 1180.0'
}

@test "spaa-flamegraph: the SVG of a small profile, exactly" {
	printf 'a;b;c 5\na;b 3\na;d 2\ne 1\n' > "$T/s.folded"
	spaa-flamegraph "$T/s.folded" > "$T/s.svg"
	run sed -n '/^<g id="frames">/,$p' "$T/s.svg"
	assert_output '<g id="frames">
<g><title>all (11 samples, 100%)</title><rect x="10.0" y="85" width="1180.0" height="15.0" fill="rgb(211,39,49)" rx="2" ry="2"/><text x="13.00" y="95.5">all</text></g>
<g><title>c (5 samples, 45.45%)</title><rect x="331.8" y="37" width="536.4" height="15.0" fill="rgb(217,91,33)" rx="2" ry="2"/><text x="334.82" y="47.5">c</text></g>
<g><title>b (8 samples, 72.73%)</title><rect x="10.0" y="53" width="858.2" height="15.0" fill="rgb(235,179,15)" rx="2" ry="2"/><text x="13.00" y="63.5">b</text></g>
<g><title>d (2 samples, 18.18%)</title><rect x="868.2" y="53" width="214.5" height="15.0" fill="rgb(230,124,21)" rx="2" ry="2"/><text x="871.18" y="63.5">d</text></g>
<g><title>a (10 samples, 90.91%)</title><rect x="10.0" y="69" width="1072.7" height="15.0" fill="rgb(250,154,3)" rx="2" ry="2"/><text x="13.00" y="79.5">a</text></g>
<g><title>e (1 samples, 9.09%)</title><rect x="1082.7" y="69" width="107.3" height="15.0" fill="rgb(251,61,21)" rx="2" ry="2"/><text x="1085.73" y="79.5">e</text></g>
</g>
</svg>'
	# the image: 4 levels of 16 px, 36 px of title, 34 px of details
	run grep -c '^<svg version="1.1" width="1200" height="134" viewBox="0 0 1200 134" ' "$T/s.svg"
	assert_output 1
	run grep -o '<text id="[a-z]*" [^>]*>[^<]*</text>' "$T/s.svg"
	assert_output '<text id="title" x="600" y="24">Flame Graph</text>
<text id="details" x="10" y="117"> </text>
<text id="unzoom" class="hide" x="10" y="24">Reset Zoom</text>
<text id="search" x="1015" y="24">Search</text>
<text id="ignorecase" x="1115" y="24">ignore case</text>
<text id="matched" x="1090" y="117"> </text>'
	# the same input, the same bytes
	spaa-flamegraph "$T/s.folded" | cmp - "$T/s.svg"
}

@test "spaa-flamegraph: names too long are cut with '..', as flamegraph.pl cuts them" {
	printf 'a_rather_long_function_name;leaf 1\nother 99\n' > "$T/l.folded"
	spaa-flamegraph --width=400 "$T/l.folded" > "$T/l.svg"
	# 380 px * 1/100 = 3.8 px: no text
	run grep -o '<text x="[^"]*" y="[^"]*">[^<]*</text></g>' "$T/l.svg"
	assert_output '<text x="13.00" y="79.5">all</text></g>
<text x="13.00" y="47.5"></text></g>
<text x="13.00" y="63.5"></text></g>
<text x="16.80" y="63.5">other</text></g>'
	printf 'a_rather_long_function_name 1\n' > "$T/l2.folded"
	spaa-flamegraph --width=120 "$T/l2.folded" > "$T/l2.svg"
	# 100 px / 7.08 px a character: 14 characters, 12 of the name and ".."
	run grep -o '>a_rather[^<]*</text>' "$T/l2.svg"
	assert_output '>a_rather_lon..</text>'
}

@test "spaa-flamegraph: SPAA input is drawn with spaa-fold's names: the same SVG as spaa-fold's output" {
	spaa-flamegraph --colors=hot --countname=samples "$EX/parser.spaa" > "$T/a.svg"
	spaa-fold "$EX/parser.spaa" | spaa-flamegraph > "$T/b.svg"
	cmp "$T/a.svg" "$T/b.svg"
	# the naming options too
	spaa-flamegraph --colors=hot --countname=samples --kernel --no-comm "$EX/parser.spaa" > "$T/c.svg"
	spaa-fold --kernel --no-comm "$EX/parser.spaa" | spaa-flamegraph > "$T/d.svg"
	cmp "$T/c.svg" "$T/d.svg"
	# demangled names (one naming module: --demangle of spaa-fold)
	perf2spaa "$EX/shapes.perf.txt" -o "$T/shapes.spaa"
	spaa-flamegraph --colors=hot --countname=samples --demangle "$T/shapes.spaa" > "$T/e.svg"
	spaa-fold --demangle "$T/shapes.spaa" | spaa-flamegraph > "$T/f.svg"
	cmp "$T/e.svg" "$T/f.svg"
	grep -q '<title>shapes::Box&lt;long&gt;::spin (' "$T/e.svg"
	# the count name: the metric (perf's period)
	run grep -o '<title>all ([^<]*</title>' "$T/c.svg"
	assert_output '<title>all (7,007,007 samples, 100%)</title>'
	# a time (perf's cpu-clock counts nanoseconds) also as pprof prints it
	run grep -o '<title>all ([^<]*</title>' <(spaa-flamegraph "$EX/parser.spaa")
	assert_output '<title>all (7,007,007 period, 100%) 7.01ms</title>'
	# kernel marks are not shown, as flamegraph.pl
	run grep -c '_\[k\]' "$T/c.svg"
	assert_output 0
}

@test "spaa-flamegraph: --metric, --event and the count name from the unit" {
	run spaa-flamegraph --metric=samples "$EX/parser.spaa"
	assert_success
	run grep -o '<title>all ([^<]*</title>' <<< "$output"
	assert_output '<title>all (7 samples, 100%)</title>'
	run spaa-flamegraph --event=nosuch "$EX/parser.spaa"
	assert_failure 1
	assert_output --partial "nosuch"
	spaa-flamegraph "$EX/memory.spaa" > "$T/m.svg"
	run grep -o '<title>all ([^<]*</title>' "$T/m.svg"
	assert_output '<title>all (136,577,024 bytes, 100%) 130.25MB</title>'
}

@test "spaa-flamegraph: --inverted draws the root at the top" {
	printf 'a;b;c 5\na;b 3\na;d 2\ne 1\n' > "$T/s.folded"
	spaa-flamegraph --inverted "$T/s.folded" > "$T/i.svg"
	run grep -o '<title>[a-z]* [^<]*</title><rect x="[^"]*" y="[^"]*"' "$T/i.svg"
	assert_output '<title>all (11 samples, 100%)</title><rect x="10.0" y="36"
<title>c (5 samples, 45.45%)</title><rect x="331.8" y="84"
<title>b (8 samples, 72.73%)</title><rect x="10.0" y="68"
<title>d (2 samples, 18.18%)</title><rect x="868.2" y="68"
<title>a (10 samples, 90.91%)</title><rect x="10.0" y="52"
<title>e (1 samples, 9.09%)</title><rect x="1082.7" y="52"'
	run grep -o '<text id="title"[^<]*</text>' "$T/i.svg"
	assert_output '<text id="title" x="600" y="24">Icicle Graph</text>'
}

@test "spaa-flamegraph: --reverse, --callers and --callees" {
	printf 'a;b;c 5\na;b 3\na;d 2\ne 1\nx;b;c 4\n' > "$T/s.folded"
	run sh -c "spaa-flamegraph --reverse '$T/s.folded' > '$T/r.svg'"
	assert_success
	# the reversed stacks, each line reversed, drawn as a flame graph
	awk '{ c = $NF; n = split($1, f, ";"); s = f[n]; for (i = n - 1; i >= 1; i--) s = s ";" f[i]; print s, c }' \
		"$T/s.folded" > "$T/rev.folded"
	frames "$T/r.svg" | LC_ALL=C sort > "$T/got"
	reference 1200 "$T/rev.folded" > "$T/want"
	run diff "$T/want" "$T/got"
	assert_success
	# callers of b: b at the root, its callers above
	spaa-flamegraph --callers=b "$T/s.folded" > "$T/cr.svg"
	run frames "$T/cr.svg"
	assert_output 'all 0 10.0 1180.0
a 2 10.0 786.7
x 2 796.7 393.3
b 1 10.0 1180.0'
	# callees of b: b at the root, merged over its callers
	spaa-flamegraph --callees=b "$T/s.folded" > "$T/ce.svg"
	run frames "$T/ce.svg"
	assert_output 'all 0 10.0 1180.0
c 2 305.0 885.0
b 1 10.0 1180.0'
	run grep -o '<text id="title"[^<]*</text>' "$T/ce.svg"
	assert_output '<text id="title" x="600" y="24">Callees of b</text>'
	# -E: a regular expression; every function it matches is a root
	spaa-flamegraph -E --callees='^[de]$' "$T/s.folded" > "$T/re.svg"
	run frames "$T/re.svg"
	assert_output 'all 0 10.0 1180.0
d 1 10.0 786.7
e 1 796.7 393.3'
	run spaa-flamegraph --callers=nosuch "$T/s.folded"
	assert_failure 1
	assert_output "spaa-flamegraph: $T/s.folded: no stack passes through nosuch; no name contains it (ignoring case); -E matches a regular expression"
}

@test "spaa-flamegraph: differential graphs: three columns, --diff BEFORE AFTER, --negate" {
	printf 'a;b 5 3\na;c 2 6\nd 1 1\n' > "$T/d.folded"
	spaa-flamegraph "$T/d.folded" > "$T/d.svg"
	run grep -o '<title>[^<]*</title><rect x="[^"]*" y="[^"]*" width="[^"]*" height="15.0" fill="[^"]*"' "$T/d.svg"
	assert_output '<title>all (10 samples, 100%)</title><rect x="10.0" y="111" width="1180.0" height="15.0" fill="rgb(255,255,255)"
<title>b (3 samples, 30.00%; -20.00%)</title><rect x="10.0" y="79" width="354.0" height="15.0" fill="rgb(105,105,255)"
<title>c (6 samples, 60.00%; +40.00%)</title><rect x="364.0" y="79" width="708.0" height="15.0" fill="rgb(255,0,0)"
<title>a (9 samples, 90.00%; 0.00%)</title><rect x="10.0" y="95" width="1062.0" height="15.0" fill="rgb(255,255,255)"
<title>d (1 samples, 10.00%; 0.00%)</title><rect x="1072.0" y="95" width="118.0" height="15.0" fill="rgb(255,255,255)"'
	# the legend: the colours, the widths drawn, and the totals
	run grep -o '<text id="totals"[^<]*</text>' "$T/d.svg"
	assert_output '<text id="totals" x="10" y="66">before 8 samples, after 10, delta +2 (+25.00%)</text>'
	run grep -c 'fill="rgb(255,60,60)"/><text x="[0-9.]*" y="48">grew</text>' "$T/d.svg"
	assert_output 1
	run grep -o 'shrank[^<]*</text>' "$T/d.svg"
	assert_output "shrank (the deeper, the more; white: unchanged).  Widths: AFTER (--negate draws BEFORE's, to show what disappeared).</text>"
	# --negate: the widths of BEFORE (red still growth)
	spaa-flamegraph --negate "$T/d.folded" > "$T/n.svg"
	run grep -o '<title>[a-z]* ([^<]*</title><rect x="[^"]*" y="[^"]*" width="[^"]*" height="15.0" fill="[^"]*"' "$T/n.svg"
	assert_output '<title>all (8 samples, 100%)</title><rect x="10.0" y="111" width="1180.0" height="15.0" fill="rgb(255,255,255)"
<title>b (5 samples, 62.50%; -25.00%)</title><rect x="10.0" y="79" width="737.5" height="15.0" fill="rgb(105,105,255)"
<title>c (2 samples, 25.00%; +50.00%)</title><rect x="747.5" y="79" width="295.0" height="15.0" fill="rgb(255,0,0)"
<title>a (7 samples, 87.50%; 0.00%)</title><rect x="10.0" y="95" width="1032.5" height="15.0" fill="rgb(255,255,255)"
<title>d (1 samples, 12.50%; 0.00%)</title><rect x="1042.5" y="95" width="147.5" height="15.0" fill="rgb(255,255,255)"'
	run grep -o 'shrank[^<]*</text>' "$T/n.svg"
	assert_output "shrank (the deeper, the more; white: unchanged).  Widths: BEFORE (--negate), so that what disappeared shows.</text>"
	# two SPAA profiles: the same graph as spaa-diff's three columns
	spaa-flamegraph --countname=samples --diff "$EX/parser.spaa" "$EX/perf-cpu.spaa" > "$T/x.svg"
	spaa-diff "$EX/parser.spaa" "$EX/perf-cpu.spaa" | spaa-flamegraph > "$T/y.svg"
	cmp "$T/x.svg" "$T/y.svg"
	run spaa-flamegraph --diff "$EX/parser.spaa"
	assert_failure 2
	assert_line 'spaa-flamegraph: --diff takes two files, BEFORE and AFTER'
}

@test "spaa-flamegraph: --flamechart: x is time, from the sample records" {
	spaa-flamegraph --flamechart --no-comm "$EX/parser.spaa" > "$T/c.svg"
	# the samples in their order, consecutive ones of one stack merged
	run frames "$T/c.svg"
	assert_line --index 0 'all 0 10.0 1180.0'
	assert_line 'parse_file 5 10.0 337.1'
	assert_line 'read_input 5 347.1 168.6'
	run grep -o '<text id="title"[^<]*</text>' "$T/c.svg"
	assert_output '<text id="title" x="600" y="24">Flame Chart</text>'
	# a time axis under the frames: the time of the sample at each tick
	run sh -c "sed -n '/<g class=\"axis\">/,/<\/g>/p' '$T/c.svg' | grep -o '<text[^>]*>[^<]*</text>' | sed 's/<text[^>]*>//; s/<.*//'"
	assert_output '0
0
1.001 ms
2.002 ms
2.002 ms
3.003 ms
4.004 ms
4.004 ms
4.39 ms
5.005 ms
5.005 ms
time since the first sample'
	# folded lines are samples in their order
	printf 'a;b 1\nc 1\na;b 1\n' > "$T/t.folded"
	spaa-flamegraph --flamechart "$T/t.folded" > "$T/t.svg"
	run frames "$T/t.svg"
	assert_output 'all 0 10.0 1180.0
b 2 10.0 393.3
a 1 10.0 393.3
c 1 403.3 393.4
b 2 796.7 393.3
a 1 796.7 393.3'
	run grep -o 'the samples in their order[^<]*' "$T/t.svg"
	assert_output 'the samples in their order (samples; no timestamps)'
	run spaa-flamegraph --flamechart "$EX/memory.spaa"
	assert_failure 1
	assert_output "spaa-flamegraph: $EX/memory.spaa: no sample records: a flame chart needs them; heaptrack2spaa cannot write them (heaptrack profiles have no time order) (or draw a flame graph without --flamechart)"
}

@test "spaa-flamegraph: without --colors, the palette suits the source: kind for perf, dso for V8, hot for folded" {
	spaa-flamegraph "$EX/parser.spaa" | cmp - <(spaa-flamegraph --colors=kind "$EX/parser.spaa")
	chrome2spaa "$EX/chrome-trace.json.gz" > "$T/v8.spaa"
	spaa-flamegraph "$T/v8.spaa" | cmp - <(spaa-flamegraph --colors=dso "$T/v8.spaa")
	# not js's red: the V8 frames of one script share a hue
	run sh -c "spaa-flamegraph '$T/v8.spaa' | grep -c 'fill=\"rgb(2[0-5][0-9],[0-9],[0-9])\"'"
	assert_output 0
	pprof2spaa "$EX/go-cpu.pprof" > "$T/go.spaa" # one kind of frame: hot
	spaa-flamegraph "$T/go.spaa" | cmp - <(spaa-flamegraph --colors=hot "$T/go.spaa")
	spaa-fold "$EX/parser.spaa" > "$T/p.folded"
	spaa-flamegraph "$T/p.folded" | cmp - <(spaa-flamegraph --colors=hot "$T/p.folded")
}

@test "spaa-flamegraph: palettes are deterministic; kind and dso colour by what SPAA knows" {
	for p in hot mem io java js perl red green blue aqua yellow purple orange kind dso; do
		spaa-flamegraph --colors=$p "$EX/parser.spaa" > "$T/$p.svg"
		spaa-flamegraph --colors=$p "$EX/parser.spaa" | cmp - "$T/$p.svg"
	done
	# kind: kernel frames orange, inlined purple, native yellow
	run grep -o '<title>vfs_read [^<]*</title><rect [^>]*fill="[^"]*"' "$T/kind.svg"
	assert_output --regexp 'fill="rgb\((19[0-9]|2[0-5][0-9]),(9[0-9]|1[0-5][0-9]),0\)"$'
	run grep -o '<title>check_bounds [^<]*</title><rect [^>]*fill="[^"]*"' "$T/kind.svg"
	assert_output --regexp 'fill="rgb\(([0-9]+),(8[0-9]|1[0-4][0-9]),\1\)"$'
	# dso: one colour per library for functions of the same library... up to
	# a lightness per function; kernel functions share a hue
	h() { grep -o "<title>$1 [^<]*</title><rect [^>]*fill=\"[^\"]*\"" "$T/dso.svg" | sed 's/.*fill=//'; }
	[ "$(h vfs_read)" != "$(h main)" ]
	# red: a flat palette
	run grep -c 'fill="rgb(2[0-5][0-9],\([0-9]*\),\1)"' "$T/red.svg"
	[ "$output" -ge 20 ]
	run spaa-flamegraph --colors=rainbow "$EX/parser.spaa"
	assert_failure 2
	assert_line "spaa-flamegraph: --colors: unknown palette 'rainbow' (hot, mem, io, java, js, perl, red, green, blue, aqua, yellow, purple, orange, kind or dso)"
}

@test "spaa-flamegraph: --title, --subtitle, --width, --height, --fontsize, --fonttype, --countname, --nametype, --factor, --notes, --minwidth" {
	printf 'a;b 3\nc 1\n' > "$T/s.folded"
	spaa-flamegraph --title='T <1>' --subtitle='S & s' --width=600 --height=20 --fontsize=10 \
		--fonttype=Courier --countname=bytes --nametype=Fn: --factor=1000 --notes='n "q"' "$T/s.folded" > "$T/o.svg"
	run grep -o '<text id="[a-z]*title"[^<]*</text>' "$T/o.svg"
	assert_output '<text id="title" x="300" y="20">T &lt;1&gt;</text>
<text id="subtitle" x="300" y="40">S &amp; s</text>'
	# 3 levels of 20 px, 30 px of title, 20 of subtitle, 30 of details
	run grep -c '^<svg version="1.1" width="600" height="140" ' "$T/o.svg"
	assert_output 1
	run grep -o '<title>b [^<]*</title><rect [^>]*>' "$T/o.svg"
	assert_output '<title>b (3,000 bytes, 75.00%)</title><rect x="10.0" y="51" width="435.0" height="19.0" fill="rgb(235,179,15)" rx="2" ry="2"/>'
	grep -q 'font-family:Courier; font-size:10px;' "$T/o.svg"
	grep -q 'nametype: "Fn:", countname: "bytes"' "$T/o.svg"
	grep -q '<desc id="notes">n &quot;q&quot;</desc>' "$T/o.svg"
	# --minwidth in percent: c (25%) is left out at 30%
	spaa-flamegraph --minwidth=30% "$T/s.folded" > "$T/m.svg"
	run frames "$T/m.svg"
	assert_output 'all 0 10.0 1180.0
b 2 10.0 885.0
a 1 10.0 885.0'
	run spaa-flamegraph --minwidth=x "$T/s.folded"
	assert_failure 2
	run spaa-flamegraph --width=-5 "$T/s.folded"
	assert_failure 2
	assert_line "spaa-flamegraph: --width: '-5' is not a positive number"
}

@test "spaa-flamegraph: names are escaped for XML, and bytes that are not UTF-8 replaced" {
	printf 'a<b>&"c";d\377e 1\nd\303\251j\303\240 1\n' > "$T/x.folded"
	spaa-flamegraph "$T/x.folded" > "$T/x.svg"
	grep -q '<title>a&lt;b&gt;&amp;&quot;c&quot; (1 samples, 50.00%)</title>' "$T/x.svg"
	grep -q "<title>d$(printf '\357\277\275')e (1 samples" "$T/x.svg"
	grep -q "<title>d$(printf '\303\251j\303\240') (1 samples" "$T/x.svg"
	python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$T/x.svg"
	spaa-flamegraph "$EX/parser.spaa" > "$T/p.svg"
	python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$T/p.svg"
}

@test "spaa-flamegraph: a large profile stays small: narrow frames are left out" {
	awk 'BEGIN { srand(7); for (i = 0; i < 20000; i++) { s = "root"; for (d = 0; d < 12; d++) s = s ";f" int(rand() * 40); print s, 1 + int(rand() * 5) } }' > "$T/big.folded"
	spaa-flamegraph "$T/big.folded" > "$T/big.svg"
	[ "$(grep -c '^<g><title>' "$T/big.svg")" -lt 12000 ]
	[ "$(wc -c < "$T/big.svg")" -lt 3000000 ]
	# the geometry is still flamegraph.pl's
	frames "$T/big.svg" | LC_ALL=C sort > "$T/got"
	reference 1200 "$T/big.folded" > "$T/want"
	run diff "$T/want" "$T/got"
	assert_success
}

@test "spaa-flamegraph: errors" {
	printf 'a;b 3\nc -1\n' > "$T/n.folded"
	run spaa-flamegraph "$T/n.folded"
	assert_failure 1
	assert_output "spaa-flamegraph: $T/n.folded:2: negative count: a flame graph draws weights of 0 or more"
	printf 'a;b 3 4\nc 1\n' > "$T/t.folded"
	run spaa-flamegraph "$T/t.folded"
	assert_failure 1
	assert_output "spaa-flamegraph: $T/t.folded:2: one count, but the first line had two (\"stack BEFORE AFTER\"): a differential file has two counts on every line"
	printf 'a;b 0\n' > "$T/z.folded"
	run spaa-flamegraph "$T/z.folded"
	assert_failure 1
	assert_output "spaa-flamegraph: $T/z.folded: nothing to draw: no stack has a weight above 0"
	# perf's text is read in process (perf2spaa's output)
	[ "$(spaa-flamegraph "$EX/parser.perf.txt")" = "$(perf2spaa "$EX/parser.perf.txt" | spaa-flamegraph)" ]
	run spaa-flamegraph <<< 'hello world'
	assert_failure 1
	assert_output 'spaa-flamegraph: -:1: no count at the end of the line (expected "frame;frame;... COUNT")'
	printf '# only a comment\n' > "$T/c.folded"
	run spaa-flamegraph "$T/c.folded"
	assert_failure 1
	assert_output "spaa-flamegraph: $T/c.folded: nothing to draw: no stack has a weight above 0"
	: > "$T/empty"
	run spaa-flamegraph "$T/empty"
	assert_failure 1
	assert_output "spaa-flamegraph: $T/empty: no header record (empty input)"
	run spaa-flamegraph --callers=a --callees=b "$T/z.folded"
	assert_failure 2
	run spaa-flamegraph -E "$T/z.folded"
	assert_failure 2
	assert_line 'spaa-flamegraph: -E and -i go with --callers or --callees'
	run spaa-flamegraph --flamechart --diff a b
	assert_failure 2
	# nothing written on failure
	run spaa-flamegraph -o "$T/out.svg" "$T/z.folded"
	assert_failure 1
	[ ! -e "$T/out.svg" ]
}

@test "spaa-flamegraph: -o writes the file, -z and .gz compress" {
	printf 'a;b 3\n' > "$T/s.folded"
	spaa-flamegraph -o "$T/s.svg" "$T/s.folded"
	spaa-flamegraph "$T/s.folded" | cmp - "$T/s.svg"
	spaa-flamegraph -o "$T/s.svgz.gz" "$T/s.folded"
	gzip -dc "$T/s.svgz.gz" | cmp - "$T/s.svg"
	spaa-flamegraph -z "$T/s.folded" | zstd -dc | cmp - "$T/s.svg"
	# compressed input
	gzip -c "$T/s.folded" > "$T/s.folded.gz"
	spaa-flamegraph "$T/s.folded.gz" | cmp - "$T/s.svg"
}

# ---- in a browser --------------------------------------------------------------

# browse HTML: the DOM headless Chromium has after running HTML's scripts
# (stdout), its console messages in $T/console
browse() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
		--enable-logging=stderr --v=0 --virtual-time-budget=5000 --user-data-dir="$T/chromium" \
		--dump-dom "file://$1" 2> "$T/chromium.log"
	grep 'CONSOLE' "$T/chromium.log" > "$T/console" || true
}

# harness SVG SCRIPT: a page that loads SVG in an <object> (as a browser
# opens the file itself) and, once loaded, runs SCRIPT with `fg` (the SVG's
# script) and `doc` (its document); what SCRIPT pushes on `out` goes into the
# page's <pre id="result">
harness() {
	cat > "$T/h.html" <<-EOF
	<!DOCTYPE html><html><body>
	<object id="o" data="file://$1" type="image/svg+xml" width="1200" height="600"></object>
	<pre id="result">not loaded</pre>
	<script>
	document.getElementById("o").addEventListener("load", function () {
		var out = [], w = document.getElementById("o").contentWindow;
		var fg = w.fg, doc = document.getElementById("o").contentDocument;
		try { $2 } catch (e) { out.push("exception " + e); }
		document.getElementById("result").textContent = out.join("\n");
	});
	</script></body></html>
	EOF
	browse "$T/h.html" | sed -n '/<pre id="result">/,/<\/pre>/p' | sed 's/<pre id="result">//; s/<\/pre>.*//'
}

need_chromium() {
	command -v chromium > /dev/null || skip "chromium is not installed (Debian package chromium)"
}

@test "spaa-flamegraph: in Chromium, the controls are in plain sight, not faded until hovered" {
	need_chromium
	mkfolded
	spaa-flamegraph "$T/p.folded" > "$T/p.svg"
	run harness "$T/p.svg" '
		var ids = ["search", "ignorecase"];
		for (var i = 0; i < ids.length; i++) {
			var e = doc.getElementById(ids[i]), st = w.getComputedStyle(e);
			out.push(ids[i] + " " + e.textContent + " opacity " + st.opacity + " fill " + st.fill +
				 " drawn " + (e.getBBox().width > 0));
		}'
	assert_success
	assert_output "search Search opacity 1 fill rgb(0, 0, 190) drawn true
ignorecase ignore case opacity 1 fill rgb(0, 0, 190) drawn true"
}

@test "spaa-flamegraph: in Chromium, search paints the matches and shows their share" {
	need_chromium
	mkfolded
	spaa-flamegraph "$T/p.folded" > "$T/p.svg"
	run harness "$T/p.svg" '
		out.push("share " + fg.search("^(lex|eval)$").toFixed(6));
		out.push(doc.getElementById("matched").textContent);
		var n = 0, els = doc.querySelectorAll("#frames rect");
		for (var i = 0; i < els.length; i++) if (els[i].getAttribute("fill") == "rgb(230,0,230)") n++;
		out.push("painted " + n);
		out.push(doc.getElementById("search").textContent);
		fg.reset_search();
		out.push("after reset " + doc.querySelectorAll("#frames rect[fill=\"rgb(230,0,230)\"]").length);
		fg.toggle_ignorecase();
		out.push("ic " + fg.search("^MAIN$").toFixed(6));
		out.push(doc.getElementById("matched").textContent);'
	assert_success
	# lex 420 + eval 152 (the inner eval counts once) of 1232 (the counts
	# shown: 1232.05 rounded)
	assert_output "share $(awk 'BEGIN { printf "%.6f", 572 / 1232 }')
Matched: 46.4%
painted 3
Reset Search
after reset 0
ic $(awk 'BEGIN { printf "%.6f", 827 / 1232 }')
Matched: 67.1%"
	[ ! -s "$T/console" ] || { cat "$T/console"; false; }
}

@test "spaa-flamegraph: in Chromium, a click zooms into a frame and Reset Zoom goes back" {
	need_chromium
	mkfolded
	spaa-flamegraph "$T/p.folded" > "$T/p.svg"
	run harness "$T/p.svg" '
		function geo(name) { var f = fg.find(name); return name + " " + f.r.getAttribute("x") + " " + f.r.getAttribute("width") + " " + (f.g.getAttribute("class") || "") + " [" + f.t.textContent + "]"; }
		var f = fg.find("parse");
		f.r.dispatchEvent(new w.MouseEvent("click", { bubbles: true }));
		out.push(geo("parse"), geo("lex"), geo("next_char"), geo("main"), geo("worker"), geo("eval"));
		out.push("unzoom " + doc.getElementById("unzoom").getAttribute("class"));
		doc.getElementById("unzoom").dispatchEvent(new w.MouseEvent("click", { bubbles: true }));
		out.push(geo("parse"), geo("worker"));
		out.push("unzoom " + doc.getElementById("unzoom").getAttribute("class"));
		f.r.dispatchEvent(new w.MouseEvent("mouseover", { bubbles: true }));
		out.push(doc.getElementById("details").textContent);'
	assert_success
	# parse: 460 of 1232.05 (0.957754 px each) from 160 ([kernel] 3, main's
	# own 5, eval 152): 163.2, 440.6 px; zoomed, 1180 / 440.6 times wider:
	# lex (from 200: 201.6, 402.2 px) at 10 + 38.4 * 2.678, 1077.2 px
	assert_output 'parse 10.0 1180.0  [parse]
lex 112.8 1077.2  [lex]
next_char 882.3 307.7  [next_char]
main 10.0 1180.0 parent [main]
worker 804.9 385.1 hide [worker]
eval 75.1 86.2 hide [eval]
unzoom 
parse 163.2 440.6  [parse]
worker 804.9 385.1  [worker]
unzoom hide
Function: parse (460 samples, 37.34%, 55.62% of main)'
	[ ! -s "$T/console" ] || { cat "$T/console"; false; }
}

@test "spaa-flamegraph: in Chromium, an icicle graph zooms the same way" {
	need_chromium
	mkfolded
	spaa-flamegraph --inverted "$T/p.folded" > "$T/i.svg"
	run harness "$T/i.svg" '
		function geo(name) { var f = fg.find(name); return name + " " + f.depth + " " + f.r.getAttribute("x") + " " + f.r.getAttribute("width") + " " + (f.g.getAttribute("class") || "-"); }
		fg.zoom(fg.find("lex"));
		out.push(geo("all"), geo("main"), geo("parse"), geo("lex"), geo("next_char"), geo("eval"));
		out.push("matched " + fg.search("^next_char$").toFixed(6));'
	assert_success
	# lex: 420 of 1232.05 from 200 (201.6, 402.2 px): 1180 / 402.2 times wider;
	# next_char (from 500: 488.9, 114.9 px) at 10 + 287.3 * 2.934; the first
	# eval met is the inner one (frames come children first)
	assert_output 'all 0 10.0 1180.0 parent
main 1 10.0 1180.0 parent
parse 2 10.0 1180.0 parent
lex 3 10.0 1180.0 -
next_char 4 852.9 337.1 -
eval 4 75.1 86.2 hide
matched 0.097403'
	[ ! -s "$T/console" ] || { cat "$T/console"; false; }
}

@test "spaa-flamegraph: in Chromium, the SVG of a SPAA profile opens with no console message" {
	need_chromium
	spaa-flamegraph --colors=kind "$EX/perf-cpu.spaa" > "$T/k.svg"
	run harness "$T/k.svg" 'out.push("frames " + fg.frames().length); out.push("root " + fg.frames()[0].name);'
	assert_success
	assert_output --regexp '^frames [0-9]+
root all$'
	[ ! -s "$T/console" ] || { cat "$T/console"; false; }
	browse "$T/k.svg" > /dev/null
	[ ! -s "$T/console" ] || { cat "$T/console"; false; }
}

# ---- flamegraph.pl, when it is there -----------------------------------------

@test "spaa-flamegraph: the geometry of flamegraph.pl's SVG for the same folded input" {
	command -v flamegraph.pl > /dev/null ||
		skip "flamegraph.pl is not on PATH (not packaged in Debian): the comparison with it is skipped"
	mkfolded
	grep -v idle "$T/p.folded" > "$T/q.folded"
	flamegraph.pl --width=1200 "$T/q.folded" > "$T/fg.svg"
	spaa-flamegraph "$T/q.folded" > "$T/mine.svg"
	# flamegraph.pl writes <g><title> and <rect> on separate lines
	awk '/<title>/ { t = $0 } /<rect/ && t != "" { print t $0; t = "" }' "$T/fg.svg" |
		sed 's/^.*<title>/<g><title>/' > "$T/fg.lines"
	frames "$T/fg.lines" | LC_ALL=C sort > "$T/want"
	frames "$T/mine.svg" | LC_ALL=C sort > "$T/got"
	run diff "$T/want" "$T/got"
	assert_success
}

@test "spaa-flamegraph: every character XML 1.0 forbids is replaced, in names (folded and SPAA) and --title: xmllint reads the SVG (issue 20)" {
	command -v xmllint >/dev/null || fail "xmllint (libxml2-utils) is not installed"
	# U+FFFE, U+FFFF, C0 controls, DEL, a UTF-8 surrogate, a lone byte
	printf 'a\357\277\276b;c\357\277\277d 1\ne\001f\tg\rh 1\ni\355\240\200j;k\200 1\n' > "$T/x.folded"
	spaa-flamegraph --title="$(printf 't\357\277\276\001')" --subtitle="$(printf '\357\277\277')" "$T/x.folded" > "$T/x.svg"
	xmllint --noout "$T/x.svg"
	R=$(printf '\357\277\275')
	grep -q "<title>a${R}b (1 samples" "$T/x.svg"
	grep -q "<title>c${R}d (1 samples" "$T/x.svg"
	grep -q "<title>e${R}f${R}g${R}h (1 samples" "$T/x.svg"
	grep -q "<title>i${R}${R}${R}j (1 samples" "$T/x.svg" # one U+FFFD a byte, the Unicode practice
	grep -q "<text id=\"title\" x=\"600\" y=\"24\">t${R}${R}</text>" "$T/x.svg"
	# the same from JSON escapes in SPAA
	H='{"type":"header","format":"spaa","version":"1.0","source_tool":"perf","frame_order":"leaf_to_root","events":[{"name":"e","kind":"software","sampling":{"mode":"event","primary_metric":"n"}}],"stack_id_mode":"local"}'
	printf '%s\n' "$H" '{"type":"dso","id":1,"name":"a"}' \
		'{"type":"frame","id":1,"func":"x\ufffey\uffff\u0001\u007f\u0009z","dso":1}' \
		'{"type":"stack","id":"s1","frames":[1],"context":{"event":"e"},"weights":[{"metric":"n","value":2}]}' > "$T/x.spaa"
	spaa-flamegraph "$T/x.spaa" > "$T/s.svg"
	xmllint --noout "$T/s.svg"
	grep -q "<title>x${R}y${R}${R}${R}${R}z (2 n" "$T/s.svg"
	spaa-flamegraph --flamechart "$T/x.spaa" > "$T/c.svg" || true
	[ ! -s "$T/c.svg" ] || xmllint --noout "$T/c.svg"
	# the count name (a unit in the input) and --nametype go into the script
	sed 's/"metric":"n","value":2}/"metric":"n","value":2,"unit":"b\\ufffe\\u0001"}/' "$T/x.spaa" > "$T/u.spaa"
	spaa-flamegraph --nametype="$(printf 'f\357\277\277\377:')" "$T/u.spaa" > "$T/u.svg"
	xmllint --noout "$T/u.svg"
	grep -qF 'nametype: "f\ufffd\ufffd:", countname: "b\ufffd\u0001" };' "$T/u.svg"
}

@test "spaa-flamegraph: --factor that is not positive, or takes the total beyond 2^63, is a usage error (issue 20)" {
	run spaa-flamegraph --factor=-1 "$EX/parser.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-flamegraph: --factor: '-1' is not a positive number"
	run spaa-flamegraph --factor=0 "$EX/parser.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-flamegraph: --factor: '0' is not a positive number"
	run spaa-flamegraph -o "$T/f.svg" --factor=1e300 "$EX/parser.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-flamegraph: --factor: '1e300' takes the total of 7007007 beyond 2^63"
	[ ! -e "$T/f.svg" ]
	run spaa-flamegraph --factor=1e400 "$EX/parser.spaa"
	assert_failure 2
	assert_line --index 0 "spaa-flamegraph: --factor: '1e400' is out of range"
}

@test "spaa-flamegraph --colors=kind: kernel and JIT dsos by name as spaa-fold --kernel/--jit finds them (a .ko module, a jitdump object)" {
	printf 'node 42/42 [001] 1.5: 1 cpu-clock: \n\t7f0000001000 Function:^run /app/x.js:3+0x10 (/tmp/jitted-42-17.so)\n\tffffffffc0a01234 nf_hook_slow+0x44 (/lib/modules/6.1.0/kernel/net/nf_conntrack.ko)\n\t55555555a000 main+0x1a (/usr/bin/node)\n\n' |
		perf2spaa | sed 's/"is_kernel":true/"is_kernel":false/; s/"kind":"kernel"/"kind":"user"/' > "$T/k.spaa"
	run grep -c '"kind":"user"' "$T/k.spaa"
	assert_output 3
	spaa-flamegraph --colors=kind "$T/k.spaa" > "$T/k.svg"
	# kernel orange, JIT green, native yellow
	run grep -o '<title>nf_hook_slow [^<]*</title><rect [^>]*fill="[^"]*"' "$T/k.svg"
	assert_output --regexp 'fill="rgb\((19[0-9]|2[0-5][0-9]),(9[0-9]|1[0-5][0-9]),0\)"$'
	run grep -o '<title>Function:^run [^<]*</title><rect [^>]*fill="[^"]*"' "$T/k.svg"
	assert_output --regexp 'fill="rgb\(([0-9]+),2[0-9][0-9],\1\)"$'
	run grep -o '<title>main [^<]*</title><rect [^>]*fill="[^"]*"' "$T/k.svg"
	assert_output --regexp 'fill="rgb\(([0-9]+),\1,[0-9]+\)"$'
}

@test "spaa-flamegraph: stack records in any JSON form draw the same graph, and bad ones give the reader's errors (the reader's fast path for plain records)" {
	spaa-flamegraph "$EX/parser.spaa" > "$T/plain.svg"
	# spaces, the type not first, numbers with a fraction, escapes: the
	# reader's path
	sed '/"type":"stack"/s/,"/, "/g' "$EX/parser.spaa" > "$T/spaces.spaa"
	sed 's/^{"type":"stack","id":\("[^"]*"\),/{"id":\1,"type":"stack",/' "$EX/parser.spaa" > "$T/order.spaa"
	sed '/"type":"stack"/s/"value":\([0-9]*\)}/"value":\1.0}/g' "$EX/parser.spaa" > "$T/fraction.spaa"
	sed '/"type":"stack"/s/"comm":"parser"/"comm":"pars\\u0065r"/' "$EX/parser.spaa" > "$T/escape.spaa"
	# weights in another order (the reader's path too)
	sed '/"type":"stack"/s/{"metric":\("[a-z]*"\),"value":\([0-9]*\)}/{"value":\2,"metric":\1}/g' "$EX/parser.spaa" > "$T/swapped.spaa"
	for v in spaces order fraction escape swapped; do
		! cmp -s "$EX/parser.spaa" "$T/$v.spaa"
		spaa-flamegraph "$T/$v.spaa" > "$T/$v.svg"
		cmp "$T/plain.svg" "$T/$v.svg"
	done
	f=$T/bad.spaa
	sed '33s/"frames":\[8,/"frames":[99,/' "$EX/parser.spaa" > "$f"
	run spaa-flamegraph "$f"
	assert_failure 1
	assert_output "spaa-flamegraph: $f:33: stack 0x746610b76e980474 refers to unknown frame 99"
	sed '34s/}$/,"weights":[]}/' "$EX/parser.spaa" > "$f"
	run spaa-flamegraph "$f"
	assert_failure 1
	assert_output "spaa-flamegraph: $f:34: key \"weights\" appears twice in the record"
	sed '32s/}$//' "$EX/parser.spaa" > "$f"
	run spaa-flamegraph "$f"
	assert_failure 1
	assert_output "spaa-flamegraph: $f:32: invalid JSON at byte 359: unexpected end of line"
	sed '33s/"event":"cpu-clock:pppH",//' "$EX/parser.spaa" > "$f"
	run spaa-flamegraph "$f"
	assert_failure 1
	assert_output "spaa-flamegraph: $f:33: stack 0x746610b76e980474 has no context.event"
	sed '33s/"exclusive":{"frame":8,/"exclusive":{"frame":98,/' "$EX/parser.spaa" > "$f"
	run spaa-flamegraph "$f"
	assert_failure 1
	assert_output "spaa-flamegraph: $f:33: stack 0x746610b76e980474: exclusive.frame refers to unknown frame 98"
	sed '33s/"value":1}/"value":"1"}/' "$EX/parser.spaa" > "$f"
	run spaa-flamegraph "$f"
	assert_failure 1
	assert_output "spaa-flamegraph: $f:33: stack 0x746610b76e980474: weights[0] needs a \"metric\" string and a numeric \"value\""
	sed '33s/"comm":"parser"/"comm":"pa\x01rser"/' "$EX/parser.spaa" > "$f"
	run spaa-flamegraph "$f"
	assert_failure 1
	assert_output "spaa-flamegraph: $f:33: invalid JSON at byte 154: control character in string"
	# a stack record before the header
	{ sed -n 32p "$EX/parser.spaa"; sed -n 1p "$EX/parser.spaa"; } > "$f"
	run spaa-flamegraph "$f"
	assert_failure 1
	assert_output "spaa-flamegraph: $f:1: the first record is a stack, not the header"
}

@test "spaa-flamegraph -j: the same graph with one thread or several, frames met between the stacks included" {
	# a frame record after stacks: the folder is done before the reader
	# takes it
	{ sed -n '1,28p;30,35p' "$EX/parser.spaa"; sed -n 29p "$EX/parser.spaa"; sed -n '36,$p' "$EX/parser.spaa"; } > "$T/late.spaa"
	spaa-flamegraph -j1 "$EX/parser.spaa" > "$T/one.svg"
	for j in 1 2 3; do
		spaa-flamegraph -j$j "$T/late.spaa" > "$T/late$j.svg"
		cmp "$T/one.svg" "$T/late$j.svg"
	done
	# many batches: 20000 stack records
	{ sed -n '1,31p' "$EX/parser.spaa"
	  sed -n '32,36p' "$EX/parser.spaa" | awk '{ for (i = 0; i < 4000; i++) { l = $0; sub(/"id":"0x/, "\"id\":\"0x" i "_", l); sub(/"value":1}/, "\"value\":" (i % 7 + 1) "}", l); print l } }'
	} > "$T/many.spaa"
	spaa-flamegraph -j1 "$T/many.spaa" > "$T/many1.svg"
	spaa-flamegraph --jobs=2 "$T/many.spaa" > "$T/many2.svg"
	cmp "$T/many1.svg" "$T/many2.svg"
	grep -q '<title>all (' "$T/many1.svg"
	run spaa-flamegraph -j0 "$T/many.spaa"
	assert_failure 2
	assert_output --partial "spaa-flamegraph: --jobs: '0' is not a number of threads from 1 to 256"
}

@test "spaa-flamegraph -j on a plain file: the stack records read in chunks on the threads give the graph and messages of -j 1" {
	spaapar_variants
	spaapar_same spaa-flamegraph "r bad frame blank nonl cut sample big deep" "" "--all-events --tid --inverted"
	SPAA_PAR_MIN=0 spaa-flamegraph -j 2 --diff "$T/r.spaa" "$T/blank.spaa" | cmp - <(spaa-flamegraph -j 1 --diff "$T/r.spaa" "$T/blank.spaa")
	run env SPAA_PAR_MIN=0 spaa-flamegraph -j 7 "$T/bad.spaa"
	assert_failure 1
	assert_output "spaa-flamegraph: $T/bad.spaa:13207: stack 0x33e726231ae2fa3f refers to unknown frame 99999999"
}

@test "spaa-flamegraph: weights under 1 (milliseconds of 1e-6 and 5e-7) are written in their digits in the titles, not rounded to 0" {
	run spaa-flamegraph "$D/diff/ms-before.spaa"
	assert_success
	run grep -o '<title>[^<]*</title>' <<< "$output"
	assert_output - <<'OUT'
<title>all (0.0000015 milliseconds, 100%) 1.50ns</title>
<title>work (0.000001 milliseconds, 66.67%) 1ns</title>
<title>main (0.0000015 milliseconds, 100.00%) 1.50ns</title>
OUT
}

@test "the frame filters (--focus, --hide, --show-from ...): the graph of the stacks as they leave them, the same as spaa-fold's; folded input with a filter is an error" {
	run spaa-flamegraph --event cycles --show-from=fib "$D/top/small.spaa" 2>/dev/null
	assert_success
	printf '%s\n' "$output" | grep -o '<title>[^<]*</title>' > "$T/titles"
	assert_equal "$(cat "$T/titles")" "<title>all (900 period, 100%)</title>
<title>memcpy (200 period, 22.22%)</title>
<title>fib (500 period, 55.56%)</title>
<title>fib (900 period, 100.00%)</title>"
	pprof2spaa "$D/filters/cpu.pprof" -o "$T/cpu.spaa"
	spaa-flamegraph -j 1 --focus=fib --hide=mix "$T/cpu.spaa" > "$T/a.svg"
	spaa-fold --focus=fib --hide=mix "$T/cpu.spaa" | spaa-flamegraph -j 1 --countname=nanoseconds > "$T/b.svg"
	diff <(frames "$T/a.svg") <(frames "$T/b.svg")
	spaa-fold "$D/top/small.spaa" 2>/dev/null > "$T/f.folded"
	run spaa-flamegraph --hide=fib "$T/f.folded"
	assert_failure 1
	assert_output "spaa-flamegraph: $T/f.folded: folded stacks: the frame filters (--focus, --hide ...) read SPAA (convert with folded2spaa first)"
}
