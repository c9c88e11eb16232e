/* wordstat [ROUNDS]: counts the words of a generated text ROUNDS times. */
#include <stdio.h>
#include <stdlib.h>

#include "wordstat.h"

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 30;
	size_t len = 0, distinct = 0;
	uint64_t sum = 0;
	char *text = ws_make_text(400000, 7, &len);

	if (!text || rounds < 1)
		return 2;
	for (long r = 0; r < rounds; r++) {
		ws_table *t = ws_table_new(4096);
		if (!t)
			return 2;
		ws_count_text(t, text, len);
		distinct = ws_distinct(t);
		sum += ws_checksum(t);
		ws_table_free(t);
	}
	printf("%zu distinct words, checksum %llx\n", distinct, (unsigned long long)sum);
	free(text);
	return 0;
}
