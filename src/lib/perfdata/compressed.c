/* Chunks of records: the bytes of a stream read in blocks, or those
 * decompressed out of compressed records.
 *
 * Compressed records (perf record -z): each one's data continues a single
 * zstd stream that runs through all of them, so one decompression context
 * lives as long as the reader. perf cuts that stream where it likes: the
 * records decompressed out of one compressed record may end inside a
 * record that the next one completes. Each compressed record therefore
 * becomes a chunk that starts with the cut record's bytes (copied from
 * the chunk before) followed by its own decompressed bytes.
 *
 * Chunks are freed as soon as no queued record points into them and the
 * next chunk has taken their tail, so what is held is bounded by the
 * records waiting for their round, not by the recording. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "flamegraph/error.h"
#include "lib/perfdata/internal.h"
#include "util/banned.h"

/* The most one compressed record (at most 64 KiB) may expand to: far
 * above what perf's compression levels reach on records, low enough
 * that hostile input cannot make the reader take all memory. */
#define CHUNK_MAX ((size_t)64 << 20)
/* the first size tried: then doubled as the data needs */
#define CHUNK_FIRST ((size_t)64 << 10)

void pd_inflater_init(pd_inflater *z)
{
	memset(z, 0, sizeof(*z));
}

/* chunks kept for reuse by a list: fresh memory costs a page fault per
 * page, more than the records it will hold take to read */
#define SPARES 8

static void unlink_chunk(pd_chunk *c)
{
	pd_chunk_list *list = c->list;

	if (c->prev)
		c->prev->next = c->next;
	else
		list->first = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		list->last = c->prev;
	if (list->nspares < SPARES) {
		c->next = list->spares;
		list->spares = c;
		list->nspares++;
		return;
	}
	free(c->data);
	free(c);
}

/* A spare chunk with room for want bytes, taken off the list, or NULL. */
static pd_chunk *take_spare(pd_chunk_list *list, size_t want)
{
	pd_chunk **at, *c;

	for (at = &list->spares; (c = *at); at = &c->next)
		if (c->cap >= want) {
			*at = c->next;
			list->nspares--;
			return c;
		}
	return NULL;
}

void pd_chunks_release(pd_chunk_list *list)
{
	pd_chunk *c;

	while (list->first)
		unlink_chunk(list->first);
	while ((c = list->spares)) {
		list->spares = c->next;
		free(c->data);
		free(c);
	}
	list->nspares = 0;
}

void pd_inflater_release(pd_inflater *z)
{
	pd_chunks_release(&z->chunks);
	ZSTD_freeDStream(z->stream);
	z->stream = NULL;
}

void pd_chunk_unref(pd_chunk *c)
{
	if (c->refs)
		c->refs--;
	if (!c->refs && c != c->list->last)
		unlink_chunk(c);
}

int pd_chunk_new(pd_chunk_list *list, uint64_t off, size_t tail_len, size_t want, pd_chunk **out)
{
	pd_chunk *c, *prev = list->last;
	size_t cap = CHUNK_FIRST;

	while (cap < want && cap < CHUNK_MAX)
		cap *= 2;
	if (tail_len > CHUNK_MAX)
		return FG_ENOMEM;
	if ((c = take_spare(list, cap))) {
		unsigned char *data = c->data;
		cap = c->cap;
		memset(c, 0, sizeof(*c));
		c->data = data;
	} else {
		if (!(c = fg_calloc(1, sizeof(*c))))
			return FG_ENOMEM;
		if (!(c->data = fg_malloc(cap))) {
			free(c);
			return FG_ENOMEM;
		}
	}
	c->cap = cap;
	c->off = off;
	c->list = list;
	if (prev && tail_len)
		memcpy(c->data, prev->data + prev->len - tail_len, tail_len);
	c->len = prev ? tail_len : 0;
	c->prev = prev;
	if (prev)
		prev->next = c;
	else
		list->first = c;
	list->last = c;
	/* the chunk before is no longer the newest: free it unless records
	 * of it wait in the queue */
	if (prev && !prev->refs)
		unlink_chunk(prev);
	*out = c;
	return 0;
}

static int grow(pd_chunk *c, const char **why)
{
	unsigned char *p;

	if (c->cap >= CHUNK_MAX) {
		*why = "compressed record expands beyond 64 MiB";
		return FG_EPARSE;
	}
	if (!(p = fg_realloc_array(c->data, c->cap, 2)))
		return FG_ENOMEM;
	c->data = p;
	c->cap *= 2;
	return 0;
}

int pd_inflate(pd_inflater *z, uint64_t off, const unsigned char *src, size_t len, size_t tail_len,
	       pd_chunk **out, const char **why)
{
	ZSTD_inBuffer in = { src, len, 0 };
	pd_chunk *c;
	int err;

	*out = NULL;
	*why = NULL;
	if (!z->stream && (!(z->stream = ZSTD_createDStream()) ||
			   ZSTD_isError(ZSTD_initDStream(z->stream))))
		return fg_error_set(FG_ENOMEM, "out of memory (zstd)");
	/* records compress some 5 to 10 times: room for that at once */
	if ((err = pd_chunk_new(&z->chunks, off, tail_len, tail_len + 8 * len, &c)))
		return err;
	c->inflated = true;
	for (;;) {
		ZSTD_outBuffer o;
		size_t ret;
		if (c->len == c->cap && (err = grow(c, why)))
			return err;
		o.dst = c->data;
		o.size = c->cap;
		o.pos = c->len;
		ret = ZSTD_decompressStream(z->stream, &o, &in);
		c->len = o.pos;
		if (ZSTD_isError(ret)) {
			*why = ZSTD_getErrorName(ret);
			return FG_EPARSE;
		}
		/* all input taken and room left: nothing more is pending */
		if (in.pos == in.size && o.pos < o.size)
			break;
	}
	*out = c;
	return 0;
}
