// A C++ workload for the perf.data reader's equivalence test: template
// instances (whose mangled names carry a return type), a member of a
// class template cloned by the optimizer (.isra), a lambda, an operator
// and the standard library's red-black tree.
//
// Usage: templates [MILLISECONDS]   (default 300)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

namespace work {
template <typename T> struct Acc {
	T v{};
	__attribute__((noinline)) void add(const T &x) { v += x * 3 + 1; }
	__attribute__((noinline)) Acc &operator+=(int x)
	{
		for (int i = 0; i < 200; i++)
			v = v * 0.5 + x + i;
		return *this;
	}
};

template <typename K> __attribute__((noinline)) long churn(std::map<K, long> &m, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++) {
		m[K(i % 1000)] += i;
		s += (long)m.size();
	}
	return s;
}
} // namespace work

int main(int argc, char **argv)
{
	int ms = argc > 1 ? std::atoi(argv[1]) : 300;
	auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
	std::map<long, long> m;
	work::Acc<double> a;
	std::vector<int> v(4096);
	long s = 0;
	auto fill = [&v](int k) __attribute__((noinline)) {
		for (auto &x : v)
			x = (x * 31 + k) & 0xffff;
	};

	while (std::chrono::steady_clock::now() < end) {
		s += work::churn(m, 5000);
		for (int i = 0; i < 1000; i++)
			a.add(i);
		a += (int)s;
		fill((int)s);
	}
	std::printf("%ld %f %d\n", s, a.v, v[7]);
	return 0;
}
