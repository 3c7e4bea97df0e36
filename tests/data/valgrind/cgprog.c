/* A program for callgrind: recursion (fib, and even/odd calling each
 * other), a function called from two callers, and a light branch. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__attribute__((noinline)) static int is_odd(unsigned n);
__attribute__((noinline)) static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
__attribute__((noinline)) static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
__attribute__((noinline)) static void leaf(unsigned k) { for (unsigned i = 0; i < k; i++) sink += i; }
__attribute__((noinline)) static void shared(unsigned k) { leaf(k); sink += k; }
__attribute__((noinline)) static void heavy(void) { for (int i = 0; i < 200; i++) shared(5000); sink += fib(20); }
__attribute__((noinline)) static void light(void) { shared(3); sink += (unsigned long)is_even(301); }

int main(int argc, char **argv)
{
	(void)argv;
	heavy();
	light();
	if (argc > 5) printf("%lu\n", sink);
	return 0;
}
