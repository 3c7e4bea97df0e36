/* An aarch64 program for perf2spaa's unwinding test (tests/data/perf/
 * aarch64/README): no C library, built -O2 -g -fomit-frame-pointer, so
 * that its CFI (.eh_frame) unwinds it: leaf() keeps its return address in
 * x30, middle() on the stack, framed() has a frame of run-time size (its
 * CFA from x29). */
volatile long sink;

__attribute__((noinline, noipa)) long leaf(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++) {
		s += i * i;
		sink = s;
	}
	return s;
}

__attribute__((noinline, noipa)) long middle(int depth, long n)
{
	if (depth == 0) return leaf(n) + 1;
	long r = middle(depth - 1, n);
	sink = r; /* after the call: no loop made of the recursion */
	return r + depth;
}

__attribute__((noinline, noipa)) long framed(long n, int k)
{
	volatile long buf[k];
	for (int i = 0; i < k; i++) buf[i] = i;
	return middle(3, n) + buf[k - 1];
}

__attribute__((noinline, noipa)) long outer(long n)
{
	long r = framed(n, 7);
	sink = r;
	return r - 1;
}

void _start(void)
{
	sink = outer(1000);
	__asm__ volatile("mov x8, #93\n\tmov x0, #0\n\tsvc #0");
	__builtin_unreachable();
}
