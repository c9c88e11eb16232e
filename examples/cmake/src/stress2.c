/* stress2: a CPU-bound workload with a few distinct phases, so its flame
 * graph has recognisable towers: fill_table, lookup_phase, sort_phase. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stress.h"

static unsigned long long parse_count(const char *s, const char *what)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (!*s || *end) {
		fprintf(stderr, "stress2: %s wants a number, not '%s'\n", what, s);
		exit(2);
	}
	return v;
}

__attribute__((noinline)) static void fill_table(struct table *t, unsigned keys)
{
	char key[32];
	for (unsigned i = 0; i < keys; i++) {
		int n = snprintf(key, sizeof(key), "key-%u-%u", i * 2654435761u, i);
		table_insert(t, key, (size_t)n);
	}
}

__attribute__((noinline)) static uint64_t lookup_phase(struct table *t, unsigned rounds)
{
	return table_lookup_all(t, rounds);
}

__attribute__((noinline)) static uint64_t sort_phase(unsigned n, unsigned seed)
{
	uint32_t *v = malloc(n * sizeof(*v));
	uint64_t sum = 0;
	if (!v)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = seed;
	}
	sort_work(v, n);
	for (unsigned i = 0; i < n; i += 97)
		sum += v[i];
	free(v);
	return sum;
}

int main(int argc, char **argv)
{
	unsigned long long rounds = 50;
	uint64_t total = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = parse_count(argv[++i], "--rounds");
		else if (!strcmp(argv[i], "--help")) {
			puts("usage: stress2 [--rounds N]");
			return 0;
		} else {
			fprintf(stderr, "stress2: unknown argument '%s'\n", argv[i]);
			return 2;
		}
	}
	struct table *t = table_new(1 << 16);
	if (!t)
		return 1;
	for (unsigned long long r = 0; r < rounds; r++) {
		fill_table(t, 20000);
		total += lookup_phase(t, 2);
		total += sort_phase(60000, (unsigned)r);
#ifdef STRESS_CHECKSUM
		total += checksum_block(t);
#endif
	}
	table_free(t);
	printf("stress2: %llu rounds, result %llu\n", rounds, (unsigned long long)total);
	return 0;
}
