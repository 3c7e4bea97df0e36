#!/usr/bin/env bats
# perf2spaa's event off-cpu (common/perf/perfconv.c): a thread's time off the
# CPU, from its switch-out (a sched:sched_switch sample, on its stack) to
# the time it runs again, against what is known of a program written to
# block for known times in known functions, and against `perf sched
# timehist` on the same capture.  Real captures made here (as root, with
# perf); skipped where perf cannot record.
load common

# offcpu_prog: $T/w, three threads that block for known times each in a
# function of its own (sleeper: nanosleep 200 ms; reader: a pipe read that
# main answers at 300 ms; locker: a mutex main holds 100 ms), each then
# resting 5 ms (rest) before it exits
offcpu_prog() {
	cat > "$T/w.c" <<'C'
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
static int fds[2];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int ready;
static void spin(long ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}
/* each blocking call one call below the function named for it: libc's
 * functions keep no frame pointer, so their caller's frame is the one a
 * frame-pointer callchain skips */
__attribute__((noinline)) void do_sleep(long ns) { struct timespec t = { 0, ns }; nanosleep(&t, NULL); }
__attribute__((noinline)) void do_read(void) { char c; if (read(fds[0], &c, 1) != 1) perror("read"); }
__attribute__((noinline)) void do_lock(void) { pthread_mutex_lock(&mu); pthread_mutex_unlock(&mu); }
__attribute__((noinline)) void rest(void) { do_sleep(5000000); }
__attribute__((noinline)) void *sleeper(void *a) { __sync_fetch_and_add(&ready, 1); do_sleep(200000000); rest(); return a; }
__attribute__((noinline)) void *reader(void *a) { __sync_fetch_and_add(&ready, 1); do_read(); rest(); return a; }
__attribute__((noinline)) void *locker(void *a) { __sync_fetch_and_add(&ready, 1); do_lock(); rest(); return a; }
int main(void)
{
	pthread_t a, b, c;
	if (pipe(fds)) return 1;
	pthread_mutex_lock(&mu);
	pthread_create(&a, NULL, sleeper, NULL);
	pthread_create(&b, NULL, reader, NULL);
	pthread_create(&c, NULL, locker, NULL);
	while (ready < 3) /* the times counted from the threads' start */
		;
	spin(100); /* the mutex held 100 ms */
	pthread_mutex_unlock(&mu);
	spin(200); /* the pipe written at 300 ms */
	if (write(fds[1], "x", 1) != 1) return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_join(c, NULL);
	return 0;
}
C
	cc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread -o "$T/w" "$T/w.c"
}

# fn_share FOLDED FUNC: of the folded lines of FOLDED (spaa-fold --tid),
# the thread whose stacks have FUNC: "total_ms func_ms" of its off-cpu time
# (func_ms: not under rest)
fn_share() {
	awk -v f="$2" '{ n = $NF; sub(/ [0-9]+$/, ""); split($0, fr, ";"); t = fr[1]
		tot[t] += n; if (index($0, ";" f ";")) { has[t] = 1; if (!index($0, ";rest;")) in_f[t] += n } }
		END { for (t in has) printf "%.3f %.3f\n", tot[t] / 1e6, in_f[t] / 1e6 }' "$1"
}

@test "perf2spaa off-cpu: each thread's wait on the function it blocks in, per process (sched_switch alone)" {
	can_record
	offcpu_prog
	perf record -q -e sched:sched_switch -g -o "$T/p.data" "$T/w" > /dev/null 2>&1 ||
		skip "perf cannot record sched:sched_switch here"
	run spaa-fold --event=off-cpu -m offcpu_ns --tid "$T/p.data"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$T/f"
	# the known waits: sleeper 200 ms, reader 300 ms, locker 100 ms,
	# within -5 ms (main starts its clock when the threads are about to
	# block; one may yet be preempted before it does) and +60 ms (main, which ends
	# the last two waits, may be late on a shared machine, never early);
	# of each thread's off-cpu time, 90% at least in the function it blocks
	# in (the rest: rest's 5 ms, and its start-up)
	local f want lo hi tot inf
	for f in sleeper:200 reader:300 locker:100; do
		want=${f#*:}
		read -r tot inf < <(fn_share "$T/f" "${f%:*}")
		echo "${f%:*}: thread $tot ms off cpu, $inf ms in it (known $want ms)"
		awk -v t="$tot" -v i="$inf" -v w="$want" 'BEGIN { exit !(i >= w - 5 && i <= w + 60 && i >= 0.9 * t) }'
	done
}

@test "perf2spaa off-cpu: per-thread totals equal perf sched timehist's on a capture of all CPUs" {
	can_record
	offcpu_prog
	perf record -q -a -e sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new -g -o "$T/a.data" "$T/w" \
		> /dev/null 2>&1 || skip "perf cannot record all CPUs here"
	run spaa-fold --event=off-cpu -m offcpu_ns --tid "$T/a.data"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$T/f"
	perf sched timehist -i "$T/a.data" > "$T/th" 2> /dev/null
	# timehist: a row at each switch-out of a thread, its wait time the
	# time from its previous switch-out to its switch-in (its scheduling
	# delay, from its wakeup to its switch-in, is part of it), in ms to 3
	# decimals.  The exiting thread's last switch-out is
	# recorded with tid -1, so timehist has no row for rest's wait, unless
	# the thread was switched out once more before it exited (preempted,
	# on a loaded machine): ours is taken with rest's wait and without.
	# Both are the same timestamps' differences: equal within timehist's
	# rounding, 0.5 us a row, 0.01 ms in all
	local f tid ours all theirs
	for f in sleeper reader locker; do
		tid=$(grep ";$f;" "$T/f" | head -1 | sed 's/;.*//; s/.*\///')
		[ -n "$tid" ]
		ours=$(grep -v ';rest;' "$T/f" | awk -v t="/$tid;" 'index($0, t) { s += $NF } END { printf "%.3f", s / 1e6 }')
		all=$(awk -v t="/$tid;" 'index($0, t) { s += $NF } END { printf "%.3f", s / 1e6 }' "$T/f")
		theirs=$(awk -v t="[$tid/" 'index($3, t) { s += $4 } END { printf "%.3f", s }' "$T/th")
		echo "$f (tid $tid): off-cpu $ours ms ($all with rest's), timehist $theirs ms"
		awk -v a="$ours" -v c="$all" -v b="$theirs" 'function abs(x) { return x < 0 ? -x : x }
			BEGIN { exit !(a > 50 && (abs(a - b) <= 0.01 || abs(c - b) <= 0.01)) }'
	done
}

@test "perf2spaa off-cpu: the event beside sched_switch's counts, folded in one step, and in spaa-top" {
	can_record
	offcpu_prog
	perf record -q -e sched:sched_switch -e cpu-clock -g -o "$T/p.data" "$T/w" > /dev/null 2>&1 ||
		skip "perf cannot record sched:sched_switch here"
	run perf2spaa "$T/p.data"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | head -1 | jq -c '[.events[] | [.name, .kind, .sampling.mode, .sampling.primary_metric]]' > "$T/ev"
	[ "$(cat "$T/ev")" = '[["sched:sched_switch","probe","event","period"],["cpu-clock","software","period","period"],["off-cpu","software","event","offcpu_ns"]]' ]
	# sched_switch's stacks still count switches: as many as perf script's samples
	n=$(perf script -i "$T/p.data" -F event 2> /dev/null | grep -c sched_switch)
	run spaa-fold --event=sched:sched_switch "$T/p.data"
	[ "$(printf '%s\n' "$output" | awk '{ s += $NF } END { print s }')" = "$n" ]
	# one step: the perf.data folded by itself, as its SPAA is
	perf2spaa "$T/p.data" > "$T/p.spaa"
	spaa-fold --event=off-cpu -m offcpu_ns "$T/p.data" > "$T/a"
	spaa-fold --event=off-cpu -m offcpu_ns "$T/p.spaa" > "$T/b"
	[ -s "$T/a" ]
	cmp "$T/a" "$T/b"
	# two inputs: one event off-cpu, the sums of both
	perf2spaa "$T/p.data" "$T/p.data" > "$T/pp.spaa"
	[ "$(head -1 "$T/pp.spaa" | jq -c '[.events[].name]')" = '["sched:sched_switch","cpu-clock","off-cpu"]' ]
	one=$(awk '{ s += $NF } END { print s }' "$T/a")
	two=$(spaa-fold --event=off-cpu -m offcpu_ns "$T/pp.spaa" | awk '{ s += $NF } END { print s }')
	[ "$two" -eq $((2 * one)) ]
	run spaa-top --event=off-cpu "$T/p.data"
	[ "$status" -eq 0 ]
	[[ "$output" == "off-cpu/offcpu_ns, total "* ]]
	[[ "$output" == *__x64_sys_clock_nanosleep* ]]
}

@test "perf2spaa off-cpu: a dwarf capture gives the same off-cpu time with -j 1 and -j 2 (its stacks unwound on threads)" {
	can_record
	offcpu_prog
	perf record -q -e sched:sched_switch -e cpu-clock --call-graph dwarf -o "$T/d.data" "$T/w" > /dev/null 2>&1 ||
		skip "perf cannot record sched:sched_switch here"
	perf2spaa -j 1 "$T/d.data" > "$T/1.spaa"
	perf2spaa -j 2 "$T/d.data" > "$T/2.spaa"
	cmp "$T/1.spaa" "$T/2.spaa"
	run spaa-fold --event=off-cpu -m offcpu_ns "$T/2.spaa"
	[ "$status" -eq 0 ]
	[[ "$output" == *";sleeper;"* ]]
}

@test "perf2spaa off-cpu: a thread still blocked when the capture ends has its wait closed at the capture's last time" {
	can_record
	cat > "$T/hang.c" <<'C'
#include <time.h>
#include <unistd.h>
__attribute__((noinline)) void do_hang(void) { struct timespec t = { 10, 0 }; nanosleep(&t, NULL); }
__attribute__((noinline)) void hang(void) { do_hang(); }
int main(void) { usleep(1000000); hang(); return 0; }
C
	cc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -o "$T/hang" "$T/hang.c"
	"$T/hang" > /dev/null 2>&1 3>&- &
	local hp=$! rc=0
	perf record -q -a -e sched:sched_switch -g -o "$T/e.data" -- sleep 2 > /dev/null 2>&1 || rc=$?
	kill "$hp"
	wait "$hp" || true
	[ "$rc" -eq 0 ] || skip "perf cannot record all CPUs here"
	# its switch-out in hang, 1 s into the capture (the last of its
	# records), to the capture's last record, a sample or not (an exit, a
	# comm, an mmap: on a loaded machine they can come 5 ms after the last
	# sample): perf script's times, in us
	local out last ours
	out=$(perf script -i "$T/e.data" -F tid,time 2> /dev/null | awk -v p="$hp" '$1 == p { t = $2 } END { print t }')
	last=$(perf script -i "$T/e.data" -F time --show-task-events --show-mmap-events --show-switch-events \
		--show-lost-events 2> /dev/null | grep -o '[0-9][0-9]*\.[0-9]\{6\}:' | sort -n | tail -1)
	[ -n "$out" ]
	run spaa-fold --event=off-cpu -m offcpu_ns --tid "$T/e.data"
	[ "$status" -eq 0 ]
	ours=$(printf '%s\n' "$output" | awk -v p="hang-$hp/$hp;" 'index($0, p) == 1 && /;hang;/ { s += $NF } END { print s }')
	echo "off-cpu $ours ns; perf script: switch-out $out, last sample $last"
	# ours: to the last record of any kind: not before the last perf
	# script shows, 5 ms at most after (a record perf script does not show)
	awk -v o="${out%:}" -v l="${last%:}" -v n="$ours" 'BEGIN { d = n / 1e9 - (l - o); exit !(d > -2e-6 && d < 0.005) }'
}

@test "perf2spaa off-cpu: per process with --switch-events, each wait ends at the thread's switch-in record, as perf script shows them" {
	can_record
	offcpu_prog
	perf record -q -e sched:sched_switch --switch-events -g -o "$T/s.data" "$T/w" > /dev/null 2>&1 ||
		skip "perf cannot record sched:sched_switch here"
	run spaa-fold --event=off-cpu -m offcpu_ns --tid "$T/s.data"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | awk '{ t = $0; sub(/;.*/, "", t); sub(/.*\//, "", t); s[t] += $NF }
		END { for (t in s) printf "%s %.3f\n", t, s[t] / 1e3 }' | sort > "$T/ours"
	# each thread's sched_switch samples to the first of: its next
	# switch-in record, a sched_switch to it (of another thread of the
	# process: the tracepoint, before the switch itself), its next sample;
	# in us, perf script's times
	perf script -i "$T/s.data" --show-switch-events -F tid,time,event,trace 2> /dev/null |
		awk 'function close_(k) { if (k in open) { s[k] += (t - open[k]) * 1e6; c[k]++; delete open[k] } }
		     { t = $2; sub(/:$/, "", t) }
		     $3 == "sched:sched_switch:" { close_($1); n = $0; sub(/.*next_pid=/, "", n); sub(/ .*/, "", n)
			close_(n); open[$1] = t; next }
		     $3 == "PERF_RECORD_SWITCH" && $4 == "IN" { close_($1) }
		     END { for (k in s) printf "%s %.3f %d\n", k, s[k], c[k] }' | sort > "$T/theirs"
	paste "$T/ours" "$T/theirs"
	# the same threads; each total within perf script's rounding to the
	# microsecond (1 us an interval, of the intervals counted)
	[ "$(cut -d' ' -f1 "$T/ours")" = "$(cut -d' ' -f1 "$T/theirs")" ]
	[ "$(wc -l < "$T/ours")" -eq 4 ]
	join "$T/ours" "$T/theirs" | awk '{ d = $2 - $3; if (d < 0) d = -d; if (d > $4 + 1) bad = 1 } END { exit bad }'
}
