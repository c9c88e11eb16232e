/* A tiny test runner: `unit_tests [FILTER]` runs the cases whose name
 * contains FILTER (all of them without one), like most C test frameworks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stress.h"

static unsigned scale(void)
{
	const char *s = getenv("STRESS_TEST_SCALE");
	return s && *s ? (unsigned)strtoul(s, NULL, 10) : 1;
}

__attribute__((noinline)) static int case_hash(void)
{
	char buf[64];
	uint64_t acc = 0;
	for (unsigned i = 0; i < 12000000u * scale(); i++) {
		int n = snprintf(buf, sizeof(buf), "%u", i);
		acc ^= hash_bytes(buf, (size_t)n);
	}
	return acc == 0;
}

__attribute__((noinline)) static int case_table(void)
{
	struct table *t = table_new(1 << 15);
	char key[32];
	uint64_t sum;
	for (unsigned i = 0; i < 20000; i++)
		table_insert(t, key, (size_t)snprintf(key, sizeof(key), "t%u", i));
	sum = table_lookup_all(t, 2500 * scale());
	table_free(t);
	return sum == 0;
}

__attribute__((noinline)) static int case_sort(void)
{
	size_t n = 3000000u * scale();
	uint32_t *v = malloc(n * sizeof(*v));
	unsigned seed = 7;
	int bad = 0;
	for (size_t i = 0; i < n; i++)
		v[i] = seed = seed * 1664525u + 1013904223u;
	sort_work(v, n);
	for (size_t i = 1; i < n; i++)
		bad |= v[i - 1] > v[i];
	free(v);
	return bad;
}

static const struct {
	const char *name;
	int (*run)(void);
} cases[] = {
	{ "hash", case_hash },
	{ "table", case_table },
	{ "sort", case_sort },
};

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : "";
	int failed = 0, ran = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!strstr(cases[i].name, filter))
			continue;
		int bad = cases[i].run();
		printf("%s %s\n", bad ? "FAIL" : "ok  ", cases[i].name);
		failed += bad;
		ran++;
	}
	if (!ran) {
		fprintf(stderr, "unit_tests: no case matches '%s'\n", filter);
		return 1;
	}
	return failed != 0;
}
