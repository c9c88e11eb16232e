/* wordfreq: counts generated words in the table; an "example" target. */
#include <stdio.h>
#include "stress.h"

__attribute__((noinline)) static void count_words(struct table *t, unsigned n)
{
	static const char *words[] = { "alpha", "beta", "gamma", "delta", "epsilon",
				       "zeta", "eta", "theta", "iota", "kappa" };
	char buf[32];
	for (unsigned i = 0; i < n; i++) {
		int len = snprintf(buf, sizeof(buf), "%s%u", words[i % 10], i % 5000);
		table_insert(t, buf, (size_t)len);
	}
}

int main(void)
{
	struct table *t = table_new(1 << 14);
	count_words(t, 9000000);
	printf("wordfreq: %llu\n", (unsigned long long)table_lookup_all(t, 1));
	table_free(t);
	return 0;
}
