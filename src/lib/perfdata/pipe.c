/* The pipe form of perf.data (perf record -o -): a 16-byte header, then
 * records only. Those perf writes first stand for the file form's header
 * sections (attributes, features, event names) and are read at open; the
 * data follows. Read from a file (mapped, as the file form) or from a
 * stream: its prologue into memory, the rest in blocks (chunks) that
 * live while records of them wait for their round. */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/perfdata/reader.h"
#include "util/version.h"
#include "util/banned.h"

static int bad(const fg_perfdata *r, uint64_t off, const char *what)
{
	return fg_error_set(FG_EPARSE, "%s: offset %llu: %s", r->name, (unsigned long long)off, what);
}

/* ---- the pipe form ---- */

/* A HEADER_ATTR record: an attribute (its size in its own size field),
 * then its ids up to the record's end. */
static int pipe_attr(fg_perfdata *r, uint64_t off, uint16_t size)
{
	const unsigned char *a = r->base + off + 8;
	uint64_t asize;

	if (size < 8 + 64)
		return bad(r, off, "attribute record too short");
	/* perf's first attribute size (64) may be given as 0 */
	asize = pd_u32(a + 4) ? pd_u32(a + 4) : 64;
	if (asize < 64 || asize > size - 8u)
		return bad(r, off, "attribute record shorter than its attribute");
	if (FG_ALLOC_GROW(r->attrs, r->nattrs + 1, r->aattrs, 4))
		return FG_ENOMEM;
	memset(&r->attrs[r->nattrs], 0, sizeof(*r->attrs));
	pd_set_attr(r, r->nattrs, a, asize, a + asize, (size_t)((size - 8 - asize) / 8));
	r->nattrs++;
	return 0;
}

/* An EVENT_UPDATE record: {u64 kind, u64 id, data}; the kind that names
 * the event of that id (2) gives its name, as perf script shows it. */
static int pipe_event_update(fg_perfdata *r, uint64_t off, uint16_t size)
{
	const unsigned char *p = r->base + off;
	size_t i, k;

	if (size < 24 || pd_u64(p + 8) != 2)
		return 0;
	for (i = 0; i < r->nattrs; i++)
		for (k = 0; k < r->attrs[i].nids; k++)
			if (pd_u64(r->attrs[i].ids + 8 * k) == pd_u64(p + 16)) {
				const char *name = (const char *)p + 24;
				if (!(r->attrs[i].name = fg_arena_strndup(&r->arena, name,
									  strnlen(name, size - 24u))))
					return FG_ENOMEM;
				return 0;
			}
	return 0;
}

/* One record of the pipe form's prologue: those that stand for the
 * file form's header sections are read, others left for the walk. */
static int pipe_prologue_record(fg_perfdata *r, uint64_t off, uint32_t type, uint16_t size)
{
	switch (type) {
	case REC_HEADER_ATTR:
		return pipe_attr(r, off, size);
	case REC_HEADER_FEATURE:
		/* {u64 feature, then its section as the file form has it} */
		if (size < 16)
			return bad(r, off, "feature record too short");
		return pd_read_feature(r, pd_u64(r->base + off + 8), off + 16, off + size);
	case REC_EVENT_UPDATE:
		return pipe_event_update(r, off, size);
	case REC_HEADER_BUILD_ID:
		return pd_read_build_ids(r, off, off + size);
	}
	return 0;
}

/* The pipe form has no header sections: records perf writes first stand
 * for them (attributes, features, event names). They are read here, up
 * to the end of that prologue (FINISHED_INIT, else the first sample,
 * round or compressed record), so that all is known before a sample;
 * the walk then skips them. */
int pd_read_pipe_prologue(fg_perfdata *r)
{
	uint64_t off = r->data_off;
	int err;

	while (r->data_end - off >= 8) {
		uint32_t type = pd_u32(r->base + off);
		uint16_t size = pd_u16(r->base + off + 6);
		/* a malformed record: the walk says what is wrong with it */
		if (size < 8 || size > r->data_end - off || type == PERF_RECORD_SAMPLE ||
		    type == REC_FINISHED_ROUND || pd_is_compressed_type(r, type))
			break;
		if ((err = pipe_prologue_record(r, off, type, size)))
			return err;
		off += size;
		if (type == REC_HEADER_TRACING_DATA && size >= 12) {
			if (pd_u32(r->base + off - size + 8) > r->data_end - off)
				break;
			off += pd_u32(r->base + off - size + 8);
		}
		if (type == REC_FINISHED_INIT)
			break;
	}
	if (!r->nattrs)
		return bad(r, 16, "no event attributes (HEADER_ATTR records) before the first sample");
	return pd_check_attrs(r);
}

/* ---- streams ---- */

/* The records before the first sample of a stream are kept in memory:
 * this much at most */
#define PROLOGUE_MAX ((size_t)256 << 20)
/* a stream is read in blocks of this size */
#define STREAM_BLOCK ((size_t)1 << 20)

/* Appends up to n more bytes of the stream to b; *got: how many (fewer
 * only at the stream's end). */
static int read_into(fg_perfdata *r, const char *name, fg_strbuf *b, uint64_t n, size_t *got)
{
	*got = 0;
	if (n > PROLOGUE_MAX - b->len)
		return fg_error_set(FG_ELIMIT, "%s: the records before the first sample pass %zu MiB",
				    name, PROLOGUE_MAX >> 20);
	if (fg_strbuf_grow(b, (size_t)n))
		return FG_ENOMEM;
	while (*got < n) {
		ssize_t k = r->read(r->read_ctx, b->buf + b->len, (size_t)n - *got);
		if (k < 0)
			return (int)k;
		if (k == 0)
			break;
		b->len += (size_t)k; /* within the room grown above */
		*got += (size_t)k;
	}
	return 0;
}

/* The header and prologue of a pipe-form stream, into b: up to and with
 * the record that ends the prologue for read_pipe_prologue. What is
 * malformed is left for parse_header and the walk to name. */
static int read_stream_prologue(fg_perfdata *r, const char *name, fg_strbuf *b)
{
	size_t got;
	int err;

	if ((err = read_into(r, name, b, 16, &got)) || got < 16)
		return err;
	if (!fg_perfdata_magic(b->buf, 16) || pd_u64((const unsigned char *)b->buf + 8) != 16)
		return 0;
	for (;;) {
		size_t at = b->len;
		const unsigned char *p;
		uint32_t type, extra;
		uint16_t size;
		if ((err = read_into(r, name, b, 8, &got)) || got < 8)
			return err;
		p = (const unsigned char *)b->buf + at;
		type = pd_u32(p);
		size = pd_u16(p + 6);
		if (size < 8 || (err = read_into(r, name, b, size - 8u, &got)) || got < size - 8u)
			return err;
		p = (const unsigned char *)b->buf + at;
		/* the tracing data's size is taken before reading it moves b */
		extra = type == REC_HEADER_TRACING_DATA && size >= 12 ? pd_u32(p + 8) : 0;
		if (extra && ((err = read_into(r, name, b, extra, &got)) || got < extra))
			return err;
		if (type == PERF_RECORD_SAMPLE || type == REC_FINISHED_ROUND || type == REC_FINISHED_INIT ||
		    type == REC_COMPRESSED || type == REC_COMPRESSED2)
			return 0;
	}
}

int fg_perfdata_open_stream(fg_perfdata **out, const char *name, fg_perfdata_read_cb read,
			    void *ctx, const fg_perfdata_opts *opts)
{
	fg_strbuf b = FG_STRBUF_INIT;
	fg_perfdata *r;
	int err;

	*out = NULL;
	if (opts &&
	    fg_opts_version_check("fg_perfdata_opts", opts->version, FG_PERFDATA_OPTS_VERSION))
		return FG_EINVAL;
	if (!(r = fg_calloc(1, sizeof(*r))))
		return FG_ENOMEM;
	r->read = read;
	r->read_ctx = ctx;
	r->fd = -1;
	err = read_stream_prologue(r, name, &b);
	r->prologue = (unsigned char *)fg_strbuf_detach(&b, &r->size);
	r->base = r->prologue;
	if (!err && !r->prologue)
		err = FG_ENOMEM;
	if (!err && r->size >= 16 && fg_perfdata_magic(r->base, r->size) && pd_u64(r->base + 8) != 16)
		err = fg_error_set(FG_EINVAL, "%s: the file form of perf.data cannot be read from a "
				   "stream (only perf record -o -): pass it as a file", name);
	if (!err)
		err = pd_setup(r, name, opts);
	if (err) {
		fg_perfdata_free(r);
		return err;
	}
	*out = r;
	return 0;
}

/* The records of a block of the stream; one cut at its end is left for
 * the next block (*tail: its bytes so far), data that follows a record
 * passed (*skip: what is left of it). */
static int walk_stream_chunk(fg_perfdata *r, pd_chunk *c, uint64_t *skip, size_t *tail,
			     fg_perfdata_sample_cb cb, void *ctx)
{
	size_t pos = 0;
	int err;

	for (;;) {
		size_t pass = *skip < c->len - pos ? (size_t)*skip : c->len - pos;
		struct recpos at;
		uint16_t size;
		pos += pass;
		*skip -= pass;
		if (c->len - pos < 8)
			break;
		at.p = c->data + pos;
		at.off = c->off + pos;
		at.chunk = c;
		at.stack_in_file = false;
		size = pd_u16(at.p + 6);
		if (size < 8)
			return bad(r, at.off, "record smaller than its header");
		if (size > c->len - pos)
			break;
		if ((err = pd_walk_one(r, &at, pd_u32(at.p), size, skip, cb, ctx)))
			return err;
		pos += size;
	}
	*tail = c->len - pos;
	return 0;
}

/* Fills c from the stream as far as it goes; *end: the stream ended. */
static int fill_chunk(fg_perfdata *r, pd_chunk *c, bool *end)
{
	*end = false;
	while (c->len < c->cap) {
		ssize_t n = r->read(r->read_ctx, c->data + c->len, c->cap - c->len);
		if (n < 0)
			return (int)n;
		if (n == 0) {
			*end = true;
			break;
		}
		c->len += (size_t)n;
	}
	return 0;
}

/* A stream: the records of its prologue, then block after block as it
 * is read, each block a chunk kept alive by the records of it that wait
 * for their round. */
int pd_walk_stream(fg_perfdata *r, fg_perfdata_sample_cb cb, void *ctx)
{
	uint64_t pos = r->size, skip = 0;
	size_t tail = 0;
	bool end = false;
	int err;

	if ((err = pd_walk_records(r, cb, ctx)))
		return err;
	while (!end) {
		pd_chunk *c;
		if ((err = pd_chunk_new(&r->stream, pos - tail, tail, STREAM_BLOCK, &c)) ||
		    (err = fill_chunk(r, c, &end)))
			return err;
		pos = c->off + c->len;
		if ((err = walk_stream_chunk(r, c, &skip, &tail, cb, ctx)))
			return err;
	}
	if (tail || skip)
		return bad(r, pos - tail, "record truncated (the recording was cut short?)");
	return pd_walk_end(r, cb, ctx);
}
