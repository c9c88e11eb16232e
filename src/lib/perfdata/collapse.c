/* perf.data samples into the collapser, printed as `perf script` prints
 * them (with the PID beside the TID, as `perf script -F +pid`):
 *
 *   comm PID/TID PERIOD EVENT:
 *   \tADDR SYMBOL (MODULE)
 *   ...
 *   (empty line)
 *
 * (with opts.lines, each frame whose line is known followed by its
 * "  FILE:LINE[ (inlined)]" line, as `perf script -F +srcline` prints it)
 * so every rule of the collapser (the process frame, --pid/--tid, _[k]
 * marks, [unknown] frames named after their module, --addrs, event
 * filtering, --skip-after, cleaning of names) applies exactly as to perf
 * script's text. Samples are batched into blocks, each fed at once. */
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/perfdata/internal.h"
#include "util/banned.h"

#define BATCH ((size_t)1 << 20)

/* Ends what was written in place after fg_strbuf_grow (which left room
 * for it and its NUL). */
static void set_end(fg_strbuf *b, char *p)
{
	b->len = (size_t)(p - b->buf);
	*p = '\0';
}

struct sink {
	fg_collapser *c;
	fg_strbuf buf;
	int err;
	uint64_t samples;
	fg_perfdata_progress_cb progress;
	void *progress_ctx;
};

static char *put_hex(char *p, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = hex[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_dec(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static bool is_hex_digit(char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* perf script prints "+0xOFFSET" after every symbol; the collapser trims
 * white space off a symbol's end and then drops one "+0xHEX". A name
 * ending in either (a JIT's names can) comes out as perf script's only
 * with an offset after it. */
static bool needs_offset(const char *sym, size_t len)
{
	char c = len ? sym[len - 1] : 'x';

	if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f')
		return true;
	while (len && is_hex_digit(sym[len - 1]))
		len--;
	return len >= 3 && !memcmp(sym + len - 3, "+0x", 3);
}

/* "  FILE:LINE[ (inlined)]" under a frame, as perf script -F +srcline */
static int add_srcline(fg_strbuf *b, const fg_perfdata_frame *f)
{
	size_t flen = strlen(f->file);
	char *p;
	int err;

	if ((err = fg_strbuf_grow(b, 2 + flen + 1 + 10 + 10 + 1)))
		return err;
	p = b->buf + b->len;
	*p++ = ' ';
	*p++ = ' ';
	memcpy(p, f->file, flen);
	p += flen;
	*p++ = ':';
	p = put_dec(p, f->line);
	if (f->inlined) {
		memcpy(p, " (inlined)", 10);
		p += 10;
	}
	*p++ = '\n';
	set_end(b, p);
	return 0;
}

static int add_frame(fg_strbuf *b, const fg_perfdata_frame *f)
{
	const char *sym = f->sym ? f->sym : "[unknown]";
	const char *mod = f->inlined ? "inlined" : f->module ? f->module : "[unknown]";
	size_t slen = strlen(sym), mlen = strlen(mod), need = 1 + 16 + 1 + slen + 4 + 2 + mlen + 2;
	char *p;
	int err;

	if ((err = fg_strbuf_grow(b, need)))
		return err;
	p = b->buf + b->len;
	*p++ = '\t';
	p = put_hex(p, f->addr);
	*p++ = ' ';
	memcpy(p, sym, slen);
	p += slen;
	if (f->sym && needs_offset(sym, slen)) {
		memcpy(p, "+0x0", 4);
		p += 4;
	}
	*p++ = ' ';
	*p++ = '(';
	memcpy(p, mod, mlen);
	p += mlen;
	*p++ = ')';
	*p++ = '\n';
	set_end(b, p);
	return f->file ? add_srcline(b, f) : 0;
}

static int add_header(fg_strbuf *b, const fg_perfdata_sample *s)
{
	size_t clen = strlen(s->comm), elen = strlen(s->event);
	char *p;
	int err;

	if ((err = fg_strbuf_grow(b, clen + elen + 2 * 12 + 20 + 8)))
		return err;
	p = b->buf + b->len;
	memcpy(p, s->comm, clen);
	p += clen;
	*p++ = ' ';
	if (s->pid < 0)
		*p++ = '-', p = put_dec(p, (uint64_t)-(int64_t)s->pid);
	else
		p = put_dec(p, (uint64_t)s->pid);
	*p++ = '/';
	if (s->tid < 0)
		*p++ = '-', p = put_dec(p, (uint64_t)-(int64_t)s->tid);
	else
		p = put_dec(p, (uint64_t)s->tid);
	*p++ = ' ';
	p = put_dec(p, s->period);
	*p++ = ' ';
	memcpy(p, s->event, elen);
	p += elen;
	*p++ = ':';
	*p++ = '\n';
	set_end(b, p);
	return 0;
}

static int on_sample(void *ctx, const fg_perfdata_sample *s)
{
	struct sink *k = ctx;
	size_t i;
	int err;

	if ((err = add_header(&k->buf, s)))
		return err;
	for (i = 0; i < s->nframes; i++)
		if ((err = add_frame(&k->buf, &s->frames[i])))
			return err;
	if ((err = fg_strbuf_addch(&k->buf, '\n')))
		return err;
	k->samples++;
	if (k->buf.len >= BATCH) {
		if ((err = fg_collapser_feed(k->c, k->buf.buf, k->buf.len))) {
			k->err = err;
			return err;
		}
		fg_strbuf_reset(&k->buf);
		/* a batch is some hundreds of samples: often enough for a status
		 * line and for an interrupt to be heard */
		if (k->progress && (err = k->progress(k->progress_ctx, k->samples)))
			return err;
	}
	return 0;
}

int fg_perfdata_collapse(fg_perfdata *r, fg_collapser *c)
{
	return fg_perfdata_collapse_progress(r, c, NULL, NULL);
}

int fg_perfdata_collapse_progress(fg_perfdata *r, fg_collapser *c, fg_perfdata_progress_cb progress,
				  void *ctx)
{
	struct sink k;
	int err;

	k.c = c;
	k.err = 0;
	k.samples = 0;
	k.progress = progress;
	k.progress_ctx = ctx;
	fg_strbuf_init(&k.buf, BATCH + 4096);
	fg_collapser_small_pieces(c);
	err = fg_perfdata_foreach(r, on_sample, &k);
	if (!err && k.buf.len)
		err = fg_collapser_feed(c, k.buf.buf, k.buf.len);
	fg_strbuf_release(&k.buf);
	return err;
}

struct fg_sample_feed {
	struct sink k;
};

int fg_sample_feed_new(fg_sample_feed **out, fg_collapser *c)
{
	fg_sample_feed *f = fg_calloc(1, sizeof(*f));

	*out = NULL;
	if (!f)
		return FG_ENOMEM;
	f->k.c = c;
	fg_strbuf_init(&f->k.buf, BATCH + 4096);
	fg_collapser_small_pieces(c);
	*out = f;
	return 0;
}

int fg_sample_feed_add(fg_sample_feed *f, const fg_perfdata_sample *s)
{
	return on_sample(&f->k, s);
}

int fg_sample_feed_flush(fg_sample_feed *f)
{
	int err = 0;

	if (f->k.buf.len)
		err = fg_collapser_feed(f->k.c, f->k.buf.buf, f->k.buf.len);
	fg_strbuf_reset(&f->k.buf);
	return err;
}

void fg_sample_feed_free(fg_sample_feed *f)
{
	if (!f)
		return;
	fg_strbuf_release(&f->k.buf);
	free(f);
}
