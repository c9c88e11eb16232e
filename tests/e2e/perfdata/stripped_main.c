/* Calls the stripped library's work() (tests/e2e/perfdata/stripped_lib.c)
 * for argv[1] milliseconds. */
#include <stdlib.h>

void work(long ms);

int main(int argc, char **argv)
{
	work(argc > 1 ? atol(argv[1]) : 300);
	return 0;
}
