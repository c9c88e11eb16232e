#include <stdlib.h>
#include <string.h>

#include "wordstat.h"

static const char *const vocabulary[] = {
	"flame", "graph", "stack", "frame", "sample", "perf", "meson", "ninja",
	"compile", "target", "test", "bench", "folded", "render", "profile",
	"option", "feature", "build", "folder", "program",
};

char *ws_make_text(size_t words, unsigned seed, size_t *len)
{
	size_t nv = sizeof(vocabulary) / sizeof(vocabulary[0]), n = 0;
	char *text = malloc(words * 12 + 1);
	unsigned x = seed ? seed : 1;

	if (!text)
		return NULL;
	for (size_t i = 0; i < words; i++) {
		x = x * 1103515245u + 12345u;
		const char *w = vocabulary[(x >> 16) % nv];
		size_t wl = strlen(w);
		memcpy(text + n, w, wl);
		n += wl;
		/* a numbered variant now and then: more distinct words */
		if ((x >> 8) % 4 == 0)
			text[n++] = (char)('a' + (x >> 20) % 26);
		text[n++] = ' ';
	}
	text[n] = '\0';
	*len = n;
	return text;
}
