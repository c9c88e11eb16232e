// A C++ program that frees all it allocates: libstdc++ keeps its
// emergency exception pool for the process's life (tests/e2e/test_alloc_leaks.sh).
#include <cstdio>
#include <string>
#include <vector>

int main()
{
	std::vector<std::string> words(100, std::string(200, 'w'));
	std::printf("%zu\n", words.size());
	return 0;
}
