/* A reference flow for tests: the frames a flame graph drawn from a
 * listing shows, worked out the plain way. Consecutive stacks share
 * their leading frames (names between ';', an empty one included), a
 * frame of fewer than min samples is left out, and each frame drawn is
 * one "depth name start end" line, in the order frames close. Two
 * listings that give the same lines draw the same graph. */
#ifndef FG_TESTS_LIB_DRAWN_FRAMES_H
#define FG_TESTS_LIB_DRAWN_FRAMES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/folded.h"
#include "util/strbuf.h"

/* 0, or -1 when out of memory. */
static inline int fg_test_drawn_frames(const fg_folded_list *l, double min, fg_strbuf *out)
{
	struct open { const char *name; size_t len; uint64_t start; } *open = NULL;
	size_t nopen = 0, aopen = 0, i, n = fg_folded_list_len(l);
	uint64_t time = 0;

	for (i = 0; i <= n; i++) {
		const fg_folded_stack *s = i < n ? fg_folded_list_at(l, i) : NULL;
		const char *p = s ? s->stack : NULL, *e = s ? s->stack + s->len : NULL;
		size_t depth = 0;
		int more = s != NULL; /* a stack has at least one name */

		/* the names s shares with the open frames */
		while (more && depth < nopen) {
			const char *semi = memchr(p, ';', (size_t)(e - p));
			size_t len = (size_t)((semi ? semi : e) - p);

			if (len != open[depth].len || memcmp(p, open[depth].name, len))
				break;
			depth++;
			more = semi != NULL;
			p = semi ? semi + 1 : e;
		}
		while (nopen > depth) {
			nopen--;
			if (!((double)(time - open[nopen].start) < min))
				fg_strbuf_addf(out, "%zu %.*s %llu %llu\n", nopen,
					       (int)open[nopen].len, open[nopen].name,
					       (unsigned long long)open[nopen].start,
					       (unsigned long long)time);
		}
		while (more) {
			const char *semi = memchr(p, ';', (size_t)(e - p));

			if (nopen == aopen) {
				struct open *v = realloc(open, (aopen = aopen ? 2 * aopen : 64) *
								 sizeof(*v));
				if (!v) {
					free(open);
					return -1;
				}
				open = v;
			}
			open[nopen].name = p;
			open[nopen].len = (size_t)((semi ? semi : e) - p);
			open[nopen++].start = time;
			more = semi != NULL;
			p = semi ? semi + 1 : e;
		}
		if (s)
			time += s->count;
	}
	free(open);
	return 0;
}

#endif
