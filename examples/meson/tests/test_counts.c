/* test_counts --rounds N: counts the words of corpus.txt (read from the
 * working folder) N * $WORDSTAT_SCALE times and checks the number of
 * distinct words against the file's first line. Fails without its
 * arguments, its environment or its working folder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wordstat.h"

int main(int argc, char **argv)
{
	const char *scale_env = getenv("WORDSTAT_SCALE");
	static char text[1 << 16];
	long rounds = 0, scale, expect = -1;
	size_t len;
	FILE *f;

	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--rounds"))
			rounds = strtol(argv[i + 1], NULL, 10);
	if (rounds < 1 || !scale_env || (scale = strtol(scale_env, NULL, 10)) < 1) {
		fprintf(stderr, "test_counts: needs --rounds N and WORDSTAT_SCALE\n");
		return 1;
	}
	if (!(f = fopen("corpus.txt", "r"))) {
		fprintf(stderr, "test_counts: no corpus.txt in the working folder\n");
		return 1;
	}
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	if (sscanf(text, "expect %ld", &expect) != 1) {
		fprintf(stderr, "test_counts: corpus.txt does not start with 'expect N'\n");
		return 1;
	}
	const char *body = strchr(text, '\n') ? strchr(text, '\n') + 1 : text;
	size_t blen = len - (size_t)(body - text);
	for (long r = 0; r < rounds * scale * 15000; r++) {
		ws_table *t = ws_table_new(256);
		ws_count_text(t, body, blen);
		if ((long)ws_distinct(t) != expect) {
			fprintf(stderr, "test_counts: %zu distinct words, expected %ld\n", ws_distinct(t), expect);
			return 1;
		}
		ws_table_free(t);
	}
	printf("test_counts: %ld rounds x %ld: ok\n", rounds, scale);
	return 0;
}
