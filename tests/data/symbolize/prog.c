/* A small program for spaa-symbolize's tests: known function names, two
 * calls inlined into leaf_work at -O2, a loop long enough to profile, and a
 * mode that saves its own /proc/self/maps with the run-time addresses of
 * its functions (for --maps).
 *   prog N          loop N times
 *   prog maps FILE  copy /proc/self/maps to FILE, print "main outer leaf_work"
 *                   run-time addresses */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
	return x * 2654435761u ^ (x >> 7);
}

static inline __attribute__((always_inline)) unsigned long step(unsigned long x)
{
	return mix(x) + mix(x + 1);
}

__attribute__((noinline)) unsigned long leaf_work(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += step(i);
	return s;
}

__attribute__((noinline)) void outer(unsigned long n)
{
	sink = leaf_work(n);
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "maps") == 0) {
		FILE *in = fopen("/proc/self/maps", "r"), *out = fopen(argv[2], "w");
		int c;
		if (!in || !out) return 1;
		while ((c = getc(in)) != EOF) putc(c, out);
		fclose(in);
		if (fclose(out) != 0) return 1;
		printf("%p %p %p\n", (void *)main, (void *)outer, (void *)leaf_work);
		return 0;
	}
	outer(argc > 1 ? strtoul(argv[1], NULL, 10) : 1000);
	printf("%lu\n", sink);
	return 0;
}
