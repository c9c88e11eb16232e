/* Fuzz target: the perf.data reader (flamegraph/perfdata.h) on any bytes:
 * header, attributes, features and records, then the collapser fed with
 * what it reads; the pipe form also as a stream, read in pieces of a
 * size taken from the input's hash. Symbol files are those the input names (no kallsyms, no
 * debug folder), opened read-only; nothing blocks on a FIFO or device. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/collapse.h"
#include "flamegraph/error.h"
#include "flamegraph/perfdata.h"

static int check_sample(void *ctx, const fg_perfdata_sample *s)
{
	size_t i;

	(void)ctx;
	if (!s->comm || !s->event || (s->nframes && !s->frames))
		abort();
	for (i = 0; i < s->nframes; i++)
		if (s->frames[i].inlined && !s->frames[i].sym)
			abort();
	return 0;
}

/* errors of malformed input say where: "NAME: offset N: ..." */
static void check_error(int err)
{
	if (err == FG_EPARSE && !strstr(fg_error_last(), "fuzz.data: offset "))
		abort();
}

struct stream {
	const uint8_t *data;
	size_t size, pos, piece;
};

static ssize_t stream_read(void *ctx, void *buf, size_t cap)
{
	struct stream *st = ctx;
	size_t n = st->piece;

	if (n > cap)
		n = cap;
	if (n > st->size - st->pos)
		n = st->size - st->pos;
	memcpy(buf, st->data + st->pos, n);
	st->pos += n;
	return (ssize_t)n;
}

/* The pipe form as a stream (fg_perfdata_open_stream): the same checks. */
static void as_stream(const uint8_t *data, size_t size, const fg_perfdata_opts *o)
{
	struct stream st = { data, size, 0, 1 };
	fg_perfdata *r = NULL;
	size_t i;
	int err;

	for (i = 0; i < size; i++)
		st.piece = st.piece * 31 + data[i];
	st.piece = 1 + st.piece % 4096;
	err = fg_perfdata_open_stream(&r, "fuzz.data", stream_read, &st, o);
	check_error(err);
	if (!err && !fg_perfdata_unsupported(r))
		check_error(fg_perfdata_foreach(r, check_sample, NULL));
	fg_perfdata_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fg_perfdata_opts o = FG_PERFDATA_OPTS_INIT;
	fg_collapse_opts co = FG_COLLAPSE_OPTS_INIT;
	fg_perfdata *r = NULL;
	fg_collapser *c = NULL;
	int err;

	o.kallsyms = "/nonexistent/kallsyms";
	o.debug_dir = "/nonexistent/debug";
	/* source lines, and the collapser that reads them, on half the inputs */
	o.lines = co.lines = size && (data[size - 1] & 1);
	co.nthreads = 1;
	err = fg_perfdata_open_mem(&r, "fuzz.data", data, size, &o);
	check_error(err);
	if (!err && !fg_perfdata_unsupported(r)) {
		check_error(fg_perfdata_foreach(r, check_sample, NULL));
		fg_perfdata_free(r);
		r = NULL;
		/* again, into the collapser */
		if (!fg_perfdata_open_mem(&r, "fuzz.data", data, size, &o) &&
		    !fg_collapser_new(&c, FG_FORMAT_PERF, &co)) {
			check_error(fg_perfdata_collapse(r, c));
			fg_collapser_finish(c);
		}
	}
	fg_collapser_free(c);
	fg_perfdata_free(r);
	if (size >= 16 && data[8] == 16 && !memcmp(data + 9, "\0\0\0\0\0\0\0", 7))
		as_stream(data, size, &o);
	return 0;
}
