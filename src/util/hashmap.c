#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/banned.h"

static inline uint64_t mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t read64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* Multiply-fold over 16-byte blocks: fast on long stack keys, and the
 * 128-bit products mix every input bit into the result. */
uint64_t fg_hash_bytes(const void *data, size_t n)
{
	const uint64_t k0 = 0xa0761d6478bd642fULL, k1 = 0xe7037ed1a0b428dbULL;
	const unsigned char *p = data;
	uint64_t h = k0 ^ n, a, b;

	while (n >= 16) {
		h = mix(read64(p) ^ k1, read64(p + 8) ^ h);
		p += 16;
		n -= 16;
	}
	if (n >= 8) {
		a = read64(p);
		b = read64(p + n - 8);
	} else if (n >= 4) {
		uint32_t x, y;
		memcpy(&x, p, 4);
		memcpy(&y, p + n - 4, 4);
		a = x;
		b = y;
	} else {
		a = n ? ((uint64_t)p[0] << 16 | (uint64_t)p[n / 2] << 8 | p[n - 1]) : 0;
		b = 0;
	}
	return mix(a ^ k1, b ^ h ^ k0);
}

uint64_t fg_hash_long(const void *data, size_t n)
{
	const uint64_t k0 = 0xa0761d6478bd642fULL, k1 = 0xe7037ed1a0b428dbULL,
		       k2 = 0x8ebc6af09c88c6e3ULL, k3 = 0x589965cc75374cc3ULL;
	const unsigned char *p = data;
	uint64_t a = k0 ^ n, b = k1, c = k2, d = k3;

	if (n < 64)
		return fg_hash_bytes(data, n);
	/* four lanes that do not wait on each other: the multiplications of
	 * one block overlap those of the next */
	for (; n >= 64; p += 64, n -= 64) {
		a = mix(read64(p) ^ k1, read64(p + 8) ^ a);
		b = mix(read64(p + 16) ^ k2, read64(p + 24) ^ b);
		c = mix(read64(p + 32) ^ k3, read64(p + 40) ^ c);
		d = mix(read64(p + 48) ^ k0, read64(p + 56) ^ d);
	}
	/* the last 64 bytes, overlapping those hashed already when n > 0 */
	if (n) {
		p -= 64 - n;
		a = mix(read64(p) ^ k2, read64(p + 8) ^ a);
		b = mix(read64(p + 16) ^ k3, read64(p + 24) ^ b);
		c = mix(read64(p + 32) ^ k0, read64(p + 40) ^ c);
		d = mix(read64(p + 48) ^ k1, read64(p + 56) ^ d);
	}
	return mix(a ^ c, b ^ d ^ k0) ^ mix(c ^ k1, d);
}

static fg_strmap_entry *find_slot(const fg_strmap *m, const char *key, size_t len,
				  uint64_t hash)
{
	size_t mask = m->cap - 1, i = hash & mask;

	for (;; i = (i + 1) & mask) {
		fg_strmap_entry *e = &m->slots[i];
		if (!e->key || (e->hash == hash && e->len == len &&
				memcmp(e->key, key, len) == 0))
			return e;
	}
}


fg_strmap_entry *fg_strmap_get(const fg_strmap *m, const char *key, size_t len)
{
	fg_strmap_entry *e;

	if (!m->cap)
		return NULL;
	e = find_slot(m, key, len, fg_hash_bytes(key, len));
	return e->key ? e : NULL;
}

fg_strmap_entry *fg_strmap_find_stored(const fg_strmap *m, const char *key, uint64_t hash)
{
	size_t mask = m->cap - 1, i;

	if (!m->cap)
		return NULL;
	for (i = hash & mask; m->slots[i].key; i = (i + 1) & mask)
		if (m->slots[i].key == key)
			return &m->slots[i];
	return NULL;
}

static int grow_to(fg_strmap *m, size_t newcap)
{
	fg_strmap old = *m;
	size_t i;

	m->slots = fg_calloc(newcap, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old.slots;
		return FG_ENOMEM;
	}
	m->cap = newcap;
	for (i = 0; i < old.cap; i++)
		if (old.slots[i].key)
			*find_slot(m, old.slots[i].key, old.slots[i].len,
				   old.slots[i].hash) = old.slots[i];
	free(old.slots);
	return 0;
}

static int grow(fg_strmap *m)
{
	return grow_to(m, m->cap ? m->cap * 2 : 256);
}

int fg_strmap_reserve(fg_strmap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 256;

	/* the load stays under 3/4, as put keeps it */
	while (cap / 4 * 3 <= n) {
		if (cap > SIZE_MAX / 2 / sizeof(*m->slots))
			return fg_error_set(FG_ENOMEM, "hash map of %zu entries is too large", n);
		cap *= 2;
	}
	return cap > m->cap ? grow_to(m, cap) : 0;
}

static fg_strmap_entry *put(fg_strmap *m, const char *key, size_t len, uint64_t hash,
			    bool borrow)
{
	fg_strmap_entry *e;

	if ((m->count + 1) * 4 > m->cap * 3 && grow(m))
		return NULL;
	e = find_slot(m, key, len, hash);
	if (e->key)
		return e;
	if (borrow)
		e->key = key;
	else if (!(e->key = fg_arena_strndup(&m->keys, key, len)))
		return NULL;
	e->len = len;
	e->hash = hash;
	e->value.u = 0;
	m->count++;
	return e;
}

fg_strmap_entry *fg_strmap_put_hashed(fg_strmap *m, const char *key, size_t len,
				      uint64_t hash)
{
	return put(m, key, len, hash, false);
}

fg_strmap_entry *fg_strmap_put_borrowed(fg_strmap *m, const char *key, size_t len,
					uint64_t hash)
{
	return put(m, key, len, hash, true);
}

fg_strmap_entry *fg_strmap_put(fg_strmap *m, const char *key, size_t len)
{
	return fg_strmap_put_hashed(m, key, len, fg_hash_bytes(key, len));
}

const char *fg_strmap_intern(fg_strmap *m, const char *key, size_t len)
{
	fg_strmap_entry *e = fg_strmap_put(m, key, len);
	return e ? e->key : NULL;
}

fg_strmap_entry *fg_strmap_next(const fg_strmap *m, size_t *iter)
{
	while (*iter < m->cap) {
		fg_strmap_entry *e = &m->slots[(*iter)++];
		if (e->key)
			return e;
	}
	return NULL;
}

static int cmp_entries(const void *a, const void *b)
{
	const fg_strmap_entry *x = *(fg_strmap_entry *const *)a;
	const fg_strmap_entry *y = *(fg_strmap_entry *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

fg_strmap_entry **fg_strmap_sorted(const fg_strmap *m)
{
	fg_strmap_entry **out = fg_calloc(m->count, sizeof(*out)), *e;
	size_t it = 0, n = 0;

	if (!out)
		return NULL;
	while ((e = fg_strmap_next(m, &it)))
		out[n++] = e;
	qsort(out, n, sizeof(*out), cmp_entries);
	return out;
}

void fg_strmap_release(fg_strmap *m)
{
	free(m->slots);
	fg_arena_release(&m->keys);
	m->slots = NULL;
	m->cap = m->count = 0;
}

void fg_strmap_clear_keep_keys(fg_strmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
}
