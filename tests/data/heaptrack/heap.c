/* heap.c - allocations for heaptrack: blocks kept to the end (leaked),
 * blocks freed at once (temporary), a phase that grows to the peak and is
 * freed, and an inlined allocator. */
#include <stdlib.h>
#include <string.h>

static void *keep[1000], *phase[500];

__attribute__((noinline)) static void alloc_live(int n)
{
	for (int i = 0; i < n; i++) {
		keep[i] = malloc(4096);
		memset(keep[i], 1, 64);
	}
}

__attribute__((noinline)) static void alloc_temp(int n)
{
	for (int i = 0; i < n; i++) {
		char *volatile p = malloc(8192);
		p[0] = 1;
		free(p);
	}
}

static inline void *grab(size_t n) /* inlined into grow() */
{
	void *p = malloc(n);
	memset(p, 2, 16);
	return p;
}

__attribute__((noinline)) static void grow(int n)
{
	for (int i = 0; i < n; i++) phase[i] = grab(16384);
}

__attribute__((noinline)) static void shrink(int n)
{
	for (int i = 0; i < n; i++) free(phase[i]);
}

int main(void)
{
	alloc_live(300);
	alloc_temp(200);
	grow(400);
	shrink(400);
	alloc_live(100);
	return keep[5] == 0;
}
