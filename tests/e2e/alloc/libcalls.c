/* Allocations libc makes for the program's functions: each function's
 * memory comes from inside libc (built without frame pointers), and the
 * allocating stack should still reach the function. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static char *dup_it(const char *s)
{
	return strdup(s); /* 12 bytes */
}

__attribute__((noinline)) static char *ndup_it(const char *s)
{
	return strndup(s, 5); /* 6 bytes */
}

__attribute__((noinline)) static char *format_it(int n)
{
	char *s;
	return asprintf(&s, "%d-%s", n, "abc") < 0 ? NULL : s;
}

__attribute__((noinline)) static FILE *open_it(const char *path)
{
	return fopen(path, "r");
}

int main(void)
{
	char *a = dup_it("hello world"), *b = ndup_it("hello world"), *c = format_it(42);
	FILE *f = open_it("/dev/null");

	if (!a || !b || !c || !f)
		return 1;
	fclose(f);
	free(a);
	free(b);
	free(c);
	return 0;
}
