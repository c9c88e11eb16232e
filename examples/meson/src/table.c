#include <stdlib.h>

#include "wordstat.h"

struct slot {
	uint64_t hash;
	uint64_t count;
};

struct ws_table {
	struct slot *slots;
	size_t mask, used;
};

ws_table *ws_table_new(size_t slots)
{
	ws_table *t = calloc(1, sizeof(*t));
	size_t n = 16;

	while (n < slots * 2)
		n *= 2;
	if (!t || !(t->slots = calloc(n, sizeof(*t->slots)))) {
		free(t);
		return NULL;
	}
	t->mask = n - 1;
	return t;
}

void ws_table_free(ws_table *t)
{
	if (t)
		free(t->slots);
	free(t);
}

__attribute__((noinline)) static void add_word(ws_table *t, uint64_t h)
{
	size_t i = h & t->mask;

	h |= 1;
	while (t->slots[i].hash && t->slots[i].hash != h)
		i = (i + 1) & t->mask;
	if (!t->slots[i].hash) {
		t->slots[i].hash = h;
		t->used++;
	}
	t->slots[i].count++;
}

static int is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

void ws_count_text(ws_table *t, const char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		while (i < len && !is_letter(text[i]))
			i++;
		size_t start = i;
		while (i < len && is_letter(text[i]))
			i++;
		if (i > start && t->used * 2 < t->mask)
			add_word(t, ws_hash(text + start, i - start));
	}
}

size_t ws_distinct(const ws_table *t)
{
	return t->used;
}

uint64_t ws_checksum(const ws_table *t)
{
	uint64_t sum = 0;
#ifdef WS_CHECKSUM
	for (size_t i = 0; i <= t->mask; i++)
		sum = sum * 31 + t->slots[i].hash * t->slots[i].count;
#else
	(void)t;
#endif
	return sum;
}
