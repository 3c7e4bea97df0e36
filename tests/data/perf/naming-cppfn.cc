// naming fixture: C++ names whose template arguments hold parentheses
#include <functional>
#include <map>
#include <cstdio>
namespace {
long __attribute__((noinline)) spin(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * i % 7; return s; }
}
template <class T> struct Ptr {
	T *p;
	T *operator->() const { return p; }
};
struct Node { long n; long __attribute__((noinline)) work() const { return spin(n); } };
int main()
{
	std::function<long (long, long)> f = [](long a, long b) { return spin(a) + b; };
	Node nd{ 3000 };
	Ptr<Node> p{ &nd };
	long t = 0;
	for (int i = 0; i < 20000; i++) t += f(5000, i) + p->work();
	std::printf("%ld\n", t);
	return 0;
}
