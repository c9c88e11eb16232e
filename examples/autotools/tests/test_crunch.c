/* test_crunch: run by `make check` in the build's tests/ folder, it reads
 * its round count from $srcdir/rounds.txt, as automake's tests find
 * their data. */
#include <stdio.h>
#include <stdlib.h>

#include "crunch.h"

static unsigned char data[1 << 18];

int main(void)
{
	const char *srcdir = getenv("srcdir");
	char path[4096];
	unsigned rounds = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/rounds.txt", srcdir ? srcdir : ".");
	if (!(f = fopen(path, "r")) || fscanf(f, "%u", &rounds) != 1) {
		fprintf(stderr, "test_crunch: cannot read %s (is srcdir set?)\n", path);
		return 1;
	}
	fclose(f);
	crunch_fill(data, sizeof(data), 7);
	if (crunch_digest(data, sizeof(data), 1) == crunch_digest(data, sizeof(data), 2)) {
		fprintf(stderr, "test_crunch: digests of 1 and 2 rounds agree\n");
		return 1;
	}
	for (unsigned r = 0; r < rounds; r++)
		crunch_digest(data, sizeof(data), 4);
	printf("test_crunch: %u rounds: ok\n", rounds);
	return 0;
}
