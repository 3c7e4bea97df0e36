/* A program whose samples are mostly in the [vdso] (clock_gettime), for
 * tests/perf2spaa-dwarf.bats: unwinding goes through the copy of the vdso
 * perf record keeps in its build-id cache. */
#include <stdio.h>
#include <time.h>

__attribute__((noinline)) static long tick(int n)
{
	struct timespec ts;
	long s = 0;
	for (int i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s += ts.tv_nsec & 1;
	}
	return s;
}

__attribute__((noinline)) static long outer(int n)
{
	return tick(n) + 1;
}

int main(void)
{
	printf("%ld\n", outer(3000000));
	return 0;
}
