// shapes.cc: the C++ program of examples/shapes.perf.txt
#include <string>
#include <vector>
namespace shapes {
template <typename T> struct Box {
	T v;
	T spin(long n) { T s = v; for (long i = 0; i < n; i++) s = s * 3 + (T)i; return s; }
};
long work(long n) { long s = 0; for (long i = 0; i < n; i++) s += i ^ (s >> 3); return s; }
long area(int n) { return work(n) + 1; }
long area(double d) { return work((long)d) + 2; }
size_t label(const std::string &s, std::vector<int> &v)
{
	Box<double> b{1.5};
	return (size_t)b.spin((long)(s.size() * v.size()) * 1000000);
}
}
namespace {
long helper(unsigned n) { shapes::Box<long> b{1}; return b.spin(n); }
}
int main()
{
	std::vector<int> v{1, 2, 3};
	auto run = [&v](long n) { return shapes::area((int)n) + shapes::area(n * 1.0) + helper((unsigned)n); };
	volatile long x = run(30000000) + (long)shapes::label("abcd", v);
	return x == 42;
}
