// A small C++ program for spaa-symbolize's tests: names in a namespace and
// a class, mangled in the symbol table, one member inlined at -O2.
#include <cstdio>
#include <cstdlib>

namespace shapes {
struct Counter {
	unsigned long v = 0;
	inline __attribute__((always_inline)) void bump(unsigned long x) { v += x * 31 ^ (x >> 3); }
};

__attribute__((noinline)) unsigned long area(unsigned long n)
{
	Counter c;
	for (unsigned long i = 0; i < n; i++)
		c.bump(i);
	return c.v;
}
} // namespace shapes

int main(int argc, char **argv)
{
	std::printf("%lu\n", shapes::area(argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1000));
	return 0;
}
