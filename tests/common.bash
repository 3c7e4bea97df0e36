# Shared set-up for the bats files: bats-support/bats-assert, the paths the
# Makefile exports, and a scratch directory per test.
BATS_LIB=${BATS_LIB:-/usr/lib/bats}
load "$BATS_LIB/bats-support/load.bash"
load "$BATS_LIB/bats-assert/load.bash"

# When run by hand (bats tests/x.bats) from a build tree at the top.
: "${SPAA_TESTDATA:=$BATS_TEST_DIRNAME/data}"
: "${SPAA_EXAMPLES:=$BATS_TEST_DIRNAME/../examples}"
: "${SPAA_MANDIR:=$BATS_TEST_DIRNAME/../man}"
# make check exports SPAA_CMDDIR (the build tree's cmd/, which differs from
# the source tree's in a VPATH build such as the sanitizer build).
SPAA_CMDDIR=${SPAA_CMDDIR:-$BATS_TEST_DIRNAME/../cmd}
PATH="$SPAA_CMDDIR:$PATH"
export LC_ALL=C
D=$SPAA_TESTDATA
EX=$SPAA_EXAMPLES

setup() {
	T=$BATS_TEST_TMPDIR
}

# The exact contents of a file, compared with expected text on stdin.
assert_file_eq() {
	local want
	want=$(cat)
	assert_equal "$(cat "$1")" "$want"
}

# True when command $1 is built with the sanitizers (the .ci/run build).
# (ldd's whole output taken first: "ldd | grep -q" let grep end at the
# match while ldd still wrote, and under a test's "set -o pipefail" ldd's
# SIGPIPE made a sanitizer build look plain, now and then: bounded then put
# it under ulimit -v, where the sanitizer cannot map its shadow memory and
# aborts, status 134)
sanitized() {
	case $(ldd "$(command -v "$1")" 2>/dev/null) in
	*libasan* | *libubsan*) return 0 ;;
	esac
	return 1
}
# Runs a command with at most MB megabytes of address space and SECONDS of
# time (ulimit -v, timeout): the bounds of a blow-up's acceptance.  In a
# sanitizer build, whose shadow memory wants terabytes of address space,
# the time bound only, five times looser.
bounded() { # bounded MB SECONDS CMD [ARG]...
	local mb=$1 s=$2
	shift 2
	if sanitized "$1"; then
		timeout $((s * 5)) "$@"
	else
		(ulimit -v $((mb * 1024)) && exec timeout "$s" "$@")
	fi
}

# spaa(7)'s option table, "OPTIONS EVERY COMMAND FOLLOWS", one option a
# line: "SHORT LONG VALUE" (SHORT "-" when long only, LONG without its
# dashes, VALUE 1 when it takes one), from the .It lines of the section.
spaa7_option_table() {
	awk '
		/^\.Sh / { sec = ($0 ~ /^\.Sh OPTIONS EVERY COMMAND FOLLOWS/); depth = 0; next }
		!sec { next }
		/^\.Bl / { depth++; next }
		/^\.El/ { depth--; next }
		depth == 1 && /^\.It Fl / {
			short = "-"; long = ""; val = 0
			for (i = 2; i <= NF; i++) {
				if ($i == "Fl") {
					a = $(i + 1); gsub(/\\-/, "-", a)
					if (a ~ /^-/) long = substr(a, 2)
					else short = a
				}
				if ($i == "Ns" && $(i + 1) == "=") val = 1
			}
			print short, long, val
		}' "$SPAA_MANDIR/spaa.7"
}

# A system-wide capture (perf record -a) holds whatever else ran on the
# machine: a test compares its own workload only.  The workload's root
# shell writes its pid to a file (sh -c 'echo $$ > FILE; ...').
# workload_tids DATA PIDFILE: the threads of that process and of every
# process and thread forked from it or from those, one a line, after the
# capture's fork records (perf script --show-task-events); fails when the
# capture has no sample of them.
workload_tids() {
	local root
	root=$(cat "$2") || return 1
	perf script --show-task-events -F tid -i "$1" 2>/dev/null |
		awk -v root="$root" '
			BEGIN { pid[root] = 1; tid[root] = 1 }
			/ PERF_RECORD_FORK\(/ {
				# FORK(child pid:child tid):(parent pid:parent tid)
				s = $0; sub(/.*PERF_RECORD_FORK\(/, "", s); gsub(/[():]/, " ", s)
				split(s, a, " ")
				if (a[3] in pid) { pid[a[1]] = 1; tid[a[2]] = 1 }
			}
			!/PERF_RECORD_/ { seen[$1 + 0] = 1 }
			END { for (t in tid) if (t in seen) { print t | "sort -n"; n++ }
			      close("sort -n"); exit !n }'
}

# workload_only TIDS: standard input's SPAA profile with the stacks (and
# their samples) of the threads listed in file TIDS (workload_tids) only.
workload_only() {
	# shellcheck disable=SC2046
	spaa-grep $(sed 's/^/--tid=/' "$1")
}

# plt_as_one: folded stacks (standard input) with a user frame in the PLT
# counted as one frame, [plt], and the lines summed again, sorted.  perf
# stretches the size-less _init over the PLT's first entries, so a sample
# in PLT0 or a lazy binding is _init in perf script and NAME@plt in
# perf2spaa (see perf2spaa(1)); the frame is the leaf, or the last user
# frame below the kernel frames of an interrupt taken there.
plt_as_one() {
	sed -E 's/;(_init|[^; ]*@plt)(;| [0-9]+$)/;[plt]\2/' |
		awk '{ w = $NF; sub(/ [0-9]+$/, ""); s[$0] += w } END { for (k in s) printf "%s %.0f\n", k, s[k] }' |
		LC_ALL=C sort
}

# The perf tests' own (perf2spaa-*.bats):
# can_record: perf records a task clock sample of true, or the test is skipped
can_record() {
	command -v perf >/dev/null || skip "perf is not installed"
	command -v cc >/dev/null || skip "no C compiler"
	perf record -q -N -e cpu-clock -o "$T/probe.data" true >/dev/null 2>&1 ||
		skip "perf cannot record here (perf_event_paranoid, or no perf events in this container)"
}

# prog_c FILE: the C source of the program the perf tests record: a few
# functions (leaf under mid, an inlined loop), as many rounds as its
# argument says
prog_c() {
	cat > "$1" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void leaf(int n) { for (int i = 0; i < n; i++) sink += (unsigned long)i * i; }
__attribute__((noinline)) void mid(int n) { leaf(n); leaf(n / 2); }
static inline void inl(int n) { for (int i = 0; i < n; i++) sink ^= (unsigned long)i; }
int main(int argc, char **argv)
{
	int r = argc > 1 ? atoi(argv[1]) : 300;
	for (int k = 0; k < r; k++) { mid(100000); inl(50000); }
	printf("%lu\n", sink);
	return 0;
}
EOF
}

# c_prog: $T/prog, that program built -O2 -g with frame pointers
c_prog() {
	prog_c "$T/prog.c" && cc -O2 -g -fno-omit-frame-pointer -o "$T/prog" "$T/prog.c"
}

# cut_sweep FILE CUTS CMD [ARG]...: FILE cut after each byte count of the
# list CUTS, read by CMD ARG... $T/cut: exit 1, nothing on standard output
# and a message naming $T/cut; or the whole file's profile; or, where the
# test's cut_may_end says the format cannot tell (called with the byte
# count, the cut in $T/cut), another profile (hostile-inputs.md: a cut
# file is an error, never a shorter profile)
cut_sweep() {
	local f=$1 cuts=$2 i rc prog
	shift 2
	prog=$(basename "$1")
	"$@" "$f" > "$T/full"
	for i in $cuts; do
		head -c "$i" "$f" > "$T/cut"
		rc=0
		"$@" "$T/cut" > "$T/out" 2> "$T/err" || rc=$?
		if [ "$rc" = 0 ]; then
			cmp -s "$T/full" "$T/out" || { declare -F cut_may_end > /dev/null && cut_may_end "$i"; } ||
				fail "$f cut after $i bytes: exit 0, another profile"
		else
			[ "$rc" = 1 ] && [ ! -s "$T/out" ] || fail "$f cut after $i bytes: exit $rc"
			grep -q "^$prog: $T/cut" "$T/err" || fail "$f cut after $i bytes: $(cat "$T/err")"
		fi
	done
}

# every_byte FILE: 0 to FILE's size - 1, the cuts of cut_sweep at every byte
every_byte() {
	seq 0 $(($(wc -c < "$1") - 1))
}

# line_ends FILE: the byte counts at its lines' ends
line_ends() {
	awk '{ n += length($0) + 1; print n }' "$1"
}

# at_line_end: $T/cut ends with a newline (a cut between whole lines)
at_line_end() {
	[ "$(tail -c 1 "$T/cut" | od -An -c | tr -d ' ')" = '\n' ]
}

# The tests of a large SPAA file read in parts on threads (spaapar.h): in
# $T, r.spaa (a real capture of 13,707 lines, stacks from line 8708) and
# its variants, each with a line that ends a part early or a sum that
# needs one thread: bad (a stack naming no frame, line 13207), over (a sum
# past 64 bits at line 13208), frame (a new frame record among the stacks),
# dup (a duplicate one, line 13000), blank (blank lines and CRs), nonl (no
# newline at the end), cut (the last line cut), long (line 13300 of 2,000
# more bytes), sample (a sample record at the end), neg (negative weights),
# big (2^53 + 1 + 1 on one stack), missing (weights of another metric),
# deep (a stack of 50,000 frames).
spaapar_variants() {
	zstd -dc "$D/fold/perf-build-5000.spaa.zst" > "$T/r.spaa"
	sed '13207s/"frames":\[6277,669\]/"frames":[6277,99999999]/' "$T/r.spaa" > "$T/bad.spaa"
	sed -e '13207s/"period","value":1001001}\],"exclusive"/"period","value":18446744073709551615}],"exclusive"/' \
	    -e '13207p' "$T/r.spaa" > "$T/over.spaa"
	local fr
	fr=$(grep '"type":"frame"' "$T/r.spaa" | tail -n 1)
	sed "13000i $(sed 's/"id":[0-9]*/"id":99999991/' <<< "$fr" | sed 's/[\/&]/\\&/g')" "$T/r.spaa" > "$T/frame.spaa"
	sed "13000i $(sed 's/[\/&]/\\&/g' <<< "$fr")" "$T/r.spaa" > "$T/dup.spaa"
	awk 'NR % 97 == 0 { print "" } { print $0 (NR % 5 ? "" : "\r") }' "$T/r.spaa" > "$T/blank.spaa"
	head -c -1 "$T/r.spaa" > "$T/nonl.spaa"
	head -c -300 "$T/r.spaa" > "$T/cut.spaa"
	awk 'NR == 13300 { printf "%s%2000s\n", $0, ""; next } { print }' "$T/r.spaa" > "$T/long.spaa"
	{ cat "$T/r.spaa"; echo '{"type":"sample","stack_id":"nope","timestamp":1}'; } > "$T/sample.spaa"
	awk 'NR > 12000 && NR % 3 == 0 { gsub(/"value":/, "\"value\":-") } { print }' "$T/r.spaa" > "$T/neg.spaa"
	awk 'NR == 13207 { for (i = 0; i < 3; i++) { l = $0; sub(/"period","value":1001001}\],"exclusive"/, "\"period\",\"value\":" (i ? "1" : "9007199254740992") "}],\"exclusive\"", l); print l } next } { print }' "$T/r.spaa" > "$T/big.spaa"
	[ "$(grep -c '"value":9007199254740992}' "$T/big.spaa")" -eq 1 ]
	awk 'NR > 12000 && NR % 7 == 0 { sub(/"metric":"period"/, "\"metric\":\"other\"") } { print }' "$T/r.spaa" > "$T/missing.spaa"
	# a stack of 50,000 frames among the others
	awk 'NR == 13207 { d = "6277"; for (i = 0; i < 49999; i++) d = d ",669"; sub(/"frames":\[6277,669\]/, "\"frames\":[" d "]") } { print }' "$T/r.spaa" > "$T/deep.spaa"
}

# spaapar_same CMD "VARIANTS" "OPTION SETS"...: CMD -j 1 and CMD -j 2 and 7
# in parts of any size (SPAA_PAR_MIN=0) give the same output,
# messages and exit status on each variant with each set of options.
spaapar_same() {
	local cmd=$1 variants=$2 f o j
	shift 2
	for f in $variants; do
		for o in "$@"; do
			SPAA_MAX_LINE=1500 $cmd -j 1 $o "$T/$f.spaa" > "$T/one" 2>&1 && echo 0 >> "$T/one" || echo $? >> "$T/one"
			for j in 2 7; do
				SPAA_MAX_LINE=1500 SPAA_PAR_MIN=0 $cmd -j $j $o "$T/$f.spaa" > "$T/par" 2>&1 &&
					echo 0 >> "$T/par" || echo $? >> "$T/par"
				cmp "$T/one" "$T/par" || fail "$cmd $o $f.spaa -j $j: differs from -j 1"
			done
		done
	done
}
