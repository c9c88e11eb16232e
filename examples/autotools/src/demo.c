/* crunch-demo: the digest of a short text, the library's smallest use. */
#include <stdio.h>
#include <string.h>

#include "crunch.h"

int main(void)
{
	const char *text = "the quick brown fox";
	unsigned long long h = crunch_digest((const unsigned char *)text, strlen(text), 200000);

	printf("%s: %016llx\n", crunch_version(), h);
	return 0;
}
