/* Unit tests of the crunch workloads. `unit --only=NAME` runs one case
 * (parse, sort, hash or matrix); no argument runs them all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "work.h"

static __attribute__((noinline)) int case_parse(void)
{
	long sum = 0;

	for (int i = 0; i < 400000; i++)
		sum += parse_list("1,22,333,4444,55555,666666,7777777");
	return sum == 400000L * 8504798L ? 0 : 1;
}

static __attribute__((noinline)) int case_sort(void)
{
	enum { N = 200000 };
	int *v = malloc(N * sizeof(*v)), bad = 0;
	unsigned seed = 1;

	if (!v)
		return 1;
	for (int r = 0; r < 12; r++) {
		for (int i = 0; i < N; i++)
			v[i] = (int)((seed = seed * 1103515245u + 12345u) >> 8);
		sort_ints(v, N);
		for (int i = 1; i < N; i++)
			bad |= v[i - 1] > v[i];
	}
	free(v);
	return bad;
}

static __attribute__((noinline)) int case_hash(void)
{
	char buf[256];
	uint64_t h = 0;

	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < 1500000; i++) {
		buf[i & 255] = (char)i;
		h ^= hash_text(buf, sizeof(buf));
	}
	return h == 0;
}

static __attribute__((noinline)) int case_matrix(void)
{
	enum { N = 160 };
	static double a[N * N], b[N * N], c[N * N];

	for (int r = 0; r < 4; r++) {
		fill_matrix(a, N, 1);
		fill_matrix(b, N, 2);
		multiply(c, a, b, N);
	}
	return c[0] < 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} cases[] = {
	{ "parse", case_parse }, { "sort", case_sort }, { "hash", case_hash }, { "matrix", case_matrix },
};

int main(int argc, char **argv)
{
	const char *only = NULL;
	int failed = 0, ran = 0;

	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--only=", 7))
			only = argv[i] + 7;
		else {
			fprintf(stderr, "unit: unknown argument %s (use --only=NAME)\n", argv[i]);
			return 2;
		}
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (only && !strstr(cases[i].name, only))
			continue;
		int bad = cases[i].fn();
		printf("%s %s\n", bad ? "FAIL" : "ok  ", cases[i].name);
		failed += bad;
		ran++;
	}
	if (!ran) {
		fprintf(stderr, "unit: no case matches '%s'\n", only);
		return 2;
	}
	return failed ? 1 : 0;
}
