/* Fuzz target: the JIT map file reader (src/lib/perfdata/jitmap.c) on
 * any bytes, then lookups of the addresses the input's own lines start
 * at and a few around them. Every name found is a NUL-terminated string
 * inside the text, and the lines counted are those of the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/perfdata/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pd_jitmap *m = NULL;
	size_t entries, skipped, lines = 0, i;
	uint64_t probe = 0;

	if (pd_jitmap_parse_mem(&m, (const char *)data, size))
		return 0;
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	lines += size && data[size - 1] != '\n';
	pd_jitmap_counts(m, &entries, &skipped);
	if (entries + skipped != lines)
		abort();
	for (i = 0; i + 8 <= size && i < 4096; i += 8) {
		const struct pd_elfsym *s;
		memcpy(&probe, data + i, 8);
		if ((s = pd_jitmap_find(m, probe)) && strlen(s->name) > size)
			abort();
		if ((s = pd_jitmap_find(m, probe & 0xffff)) && strlen(s->name) > size)
			abort();
	}
	pd_jitmap_free(m);
	return 0;
}
