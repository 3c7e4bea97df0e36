/* burn.c - a small program with known functions for bpftrace captures:
 * main calls middle (leaf_a, leaf_b: CPU) and do_syscalls (getppid), then
 * write_small/write_big (write(2) of 100 and 4000 bytes to /dev/null), for
 * ARG1 seconds, then sleeps ARG2 seconds (so that bpftrace, exiting first,
 * can still read its /proc/PID/maps and symbols). */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static char buf[4096];

__attribute__((noinline)) void leaf_a(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i * 7; }
__attribute__((noinline)) void leaf_b(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink ^= i * 13; }
__attribute__((noinline)) void middle(unsigned long n) { leaf_a(n); leaf_b(n / 2); }
__attribute__((noinline)) void do_syscalls(int n) { for (int i = 0; i < n; i++) getppid(); }
__attribute__((noinline)) void write_small(int fd) { if (write(fd, buf, 100) < 0) sink++; }
__attribute__((noinline)) void write_big(int fd) { if (write(fd, buf, 4000) < 0) sink++; }

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	unsigned rest = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
	int fd = open("/dev/null", O_WRONLY);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned long round = 0;
	do {
		middle(100000);
		do_syscalls(1000);
		write_small(fd);
		if (round++ % 3 == 0) write_big(fd);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	sleep(rest);
	return 0;
}
