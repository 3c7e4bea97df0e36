/* The shared library of prog.c: two levels of calls, no frame pointers. */
__attribute__((noinline)) static double lib_inner(int n)
{
	double s = 0;
	for (int i = 1; i < n; i++) s += 1.0 / i;
	return s;
}

__attribute__((noinline)) static double lib_middle(int n)
{
	return lib_inner(n) * 2 + lib_inner(n / 2);
}

double lib_work(int n)
{
	return lib_middle(n) + 1;
}
