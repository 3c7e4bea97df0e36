/* A program for `perf record --call-graph dwarf` (tests/perf2spaa-dwarf.bats),
 * built -O2 -g -fomit-frame-pointer: its stacks can only be unwound with
 * the CFI.  A recursion 40 calls deep, a callback through libc's qsort, and
 * calls into a shared library of its own (lib.c). */
#include <stdio.h>
#include <stdlib.h>

double lib_work(int n);  /* lib.c */

static volatile double sink;

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	sink += x * 0.5;
	return (x > y) - (x < y);
}

__attribute__((noinline)) static void sorter(int n)
{
	double *v = malloc((size_t)n * sizeof *v);
	if (!v) exit(1);
	for (int i = 0; i < n; i++) v[i] = (double)((i * 7919) % n);
	qsort(v, (size_t)n, sizeof *v, cmp);
	free(v);
}

__attribute__((noinline)) static long recurse(volatile int d)
{
	if (d == 0) {
		sorter(20000);
		sink += lib_work(200000);
		return 1;
	}
	return recurse(d - 1) + d;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 40;
	long s = 0;
	for (int i = 0; i < rounds; i++) s += recurse(i % 41);
	printf("%ld\n", s);
	return 0;
}
