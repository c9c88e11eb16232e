/* Helpers of the collapse fuzz targets: run a collapser over an input fed
 * in pieces, and capture its folded output so that two runs (whole input
 * vs. random pieces, one thread vs. several) can be compared byte for
 * byte. The library promises both are identical (collapse.h). */
#ifndef FG_TESTS_FUZZ_FUZZ_COLLAPSE_H
#define FG_TESTS_FUZZ_FUZZ_COLLAPSE_H

#include "flamegraph/collapse.h"
#include "flamegraph/error.h"
#include "fuzz_common.h"

static const char *const fz_skip_names[] = { "main", "func_c", "[unknown]" };

/* Collapse options picked by r: every flag the CLI can set. */
static inline fg_collapse_opts fz_collapse_opts(fz_rng *r)
{
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	uint64_t v = fz_next(r);

	o.include_pid = v & 1;
	o.include_tid = v & 2;
	o.annotate_kernel = v & 4;
	o.annotate_jit = v & 8;
	o.include_addrs = v & 16;
	o.include_offset = v & 32;
	o.inline_frames = !(v & 64);
	o.keep_order = (v & 0x38000) == 0x8000; /* 1 in 8: flame-chart order */
	o.no_modules = v & (1u << 18);
	o.ghc_source = (fg_ghc_source)((v >> 19) % 3);
	o.lines = v & (1u << 21);
	if (v & 128) {
		o.skip_after = fz_skip_names;
		o.nskip_after = (v >> 8) % 3 + 1;
	}
	switch ((v >> 12) & 7) {
	case 1: o.event_filter = "cycles"; break;
	case 2: o.event_filter = "cpu-clock:"; break;
	case 3: o.event_filter = "instructions:u"; break;
	default: break;
	}
	return o;
}

static int fz_collect(void *ctx, const char *stack, size_t len, uint64_t count)
{
	fg_strbuf *sb = ctx;

	if (!len || memchr(stack, '\n', len))
		fz_fail("collapser produced an empty stack or one holding a newline");
	fg_strbuf_add(sb, stack, len);
	fg_strbuf_addf(sb, " %llu\n", (unsigned long long)count);
	return 0;
}

/* Collapses data[0..size) with `nthreads` threads, fed in pieces chosen by
 * r (r NULL: in one piece). The folded output is appended to out; returns
 * the first error (the collapser's contract: errors are sticky). */
static inline int fz_collapse(fg_strbuf *out, fg_format fmt, fg_collapse_opts opts,
			      unsigned nthreads, const uint8_t *data, size_t size, fz_rng *r)
{
	fg_collapser *c = NULL;
	fg_collapse_stats st;
	size_t off = 0, n;
	int err;

	opts.nthreads = nthreads;
	if ((err = fg_collapser_new(&c, fmt, &opts)))
		return err;
	while (off < size) {
		n = r ? fz_piece(r, size - off) : size - off;
		if ((err = fg_collapser_feed(c, (const char *)data + off, n)))
			goto done;
		off += n;
	}
	if ((err = fg_collapser_finish(c)))
		goto done;
	fg_collapser_stats(c, &st);
	if (st.bytes != size || st.nwarnings > FG_COLLAPSE_MAX_WARNINGS)
		fz_fail("collapse statistics do not match the input");
	err = fg_collapser_foreach(c, fz_collect, out);
done:
	fg_collapser_free(c);
	return err;
}

/* The check every collapse target makes: the whole input in one thread,
 * and the same input in random pieces with `threads` threads, give the
 * same result. */
static inline void fz_collapse_both(fg_format fmt, unsigned threads,
				    const uint8_t *data, size_t size)
{
	fz_rng r = fz_rng_of(data, size);
	fg_collapse_opts opts = fz_collapse_opts(&r);
	fg_strbuf a = FG_STRBUF_INIT, b = FG_STRBUF_INIT;
	int ea, eb;

	ea = fz_collapse(&a, fmt, opts, 1, data, size, NULL);
	eb = fz_collapse(&b, fmt, opts, threads, data, size, &r);
	if (ea == FG_ENOMEM || eb == FG_ENOMEM)
		goto done;
	if (ea != eb)
		fz_fail("feeding in pieces or with threads changed the error");
	if (a.len != b.len || memcmp(a.buf, b.buf, a.len))
		fz_fail("feeding in pieces or with threads changed the folded output");
done:
	fg_strbuf_release(&a);
	fg_strbuf_release(&b);
	fg_error_clear();
}

#endif
