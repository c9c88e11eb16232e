/* Known answers for the leaked view (tests/e2e/test_alloc_leaks.sh):
 * leak() keeps 321 bytes for good; libholder.so (holder.c) allocates
 * 5000 bytes in its constructor and frees them in its destructor, which
 * runs after this program's; "stdout" writes through stdio, whose buffer
 * libc keeps for the process's life. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void holder_touch(void);

__attribute__((noinline)) static void *leak(size_t n)
{
	void *p = malloc(n);
	if (p)
		memset(p, 1, n);
	return p;
}

int main(int argc, char **argv)
{
	static void *volatile kept;

	holder_touch();
	kept = leak(321);
	if (argc > 1 && !strcmp(argv[1], "stdout"))
		printf("written through stdio\n");
	return 0;
}
