/* A CPU-bound program for spaa-annotate's tests: a hot loop, a helper
 * shared by two callers, recursion and an inlined call (gcc -g -O2). */
#include <stdio.h>
#include <stdlib.h>

static unsigned long sink;

static inline unsigned long square(unsigned long x)
{
	for (int k = 0; k < 100; k++)
		x = x * x + 7;
	return x;
}

__attribute__((noinline)) unsigned long mix(unsigned long x)
{
	for (int i = 0; i < 200; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

__attribute__((noinline)) unsigned long walk(int n)
{
	if (n < 2)
		return mix((unsigned long)n);
	return walk(n - 1) + walk(n - 2);
}

__attribute__((noinline)) unsigned long sum(int n)
{
	unsigned long s = 0;
	for (int i = 0; i < n; i++) {
		s += square((unsigned long)i);
		s += mix(s);
	}
	return s;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 40;
	for (int r = 0; r < rounds; r++) {
		sink += walk(20);
		sink += sum(20000);
	}
	printf("%lu\n", sink != 0);
	return 0;
}
