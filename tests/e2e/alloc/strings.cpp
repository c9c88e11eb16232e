// Allocations libstdc++ makes for the program's functions: std::string
// and std::vector reach operator new inside libstdc++ (built without
// frame pointers); the stacks should still reach the functions.
#include <string>
#include <vector>

__attribute__((noinline)) static std::string make_string(int i)
{
	return std::string(100, static_cast<char>('a' + i % 26)); // past the small-string buffer
}

__attribute__((noinline)) static std::vector<int> fill_vector(int n)
{
	std::vector<int> v;
	for (int i = 0; i < n; i++)
		v.push_back(i);
	return v;
}

int main()
{
	size_t total = 0;
	for (int i = 0; i < 50; i++)
		total += make_string(i).size();
	total += fill_vector(1000).size();
	return total == 50 * 100 + 1000 ? 0 : 1;
}
