/* epilogue.c - a function whose frame pointer is popped by `leave` just
 * before its `ret`, called in a loop by a function whose CFA is its frame
 * pointer (built -O2 -g -fno-omit-frame-pointer): samples at the `ret`
 * find the caller's frame pointer in a save slot below the stack pointer. */
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void step(int n)
{
	volatile char buf[n]; /* a variable-length array: a frame pointer */
	buf[0] = (char)n;
	sink += (unsigned long)buf[0];
}
__attribute__((noinline)) void loop(int n)
{
	for (int i = 0; i < n; i++) step(8 + (i & 7));
}
int main(int argc, char **argv)
{
	int r = argc > 1 ? atoi(argv[1]) : 100;
	for (int k = 0; k < r; k++) loop(1000000);
	printf("%lu\n", sink);
	return 0;
}
