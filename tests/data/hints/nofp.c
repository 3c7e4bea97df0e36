#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
__attribute__((noinline)) static long work(int n) {
	int *v = malloc(n * sizeof *v); long s = 0;
	for (int k = 0; k < 200; k++) {
		for (int i = 0; i < n; i++) v[i] = (i * 7919 + k) % 10007;
		qsort(v, n, sizeof *v, cmp);
		s += v[n / 2];
	}
	free(v); return s;
}
int main(void) { return (int)(work(100000) & 1); }
