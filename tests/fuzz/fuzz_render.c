/* Fuzz target: the folded-stack reader (fed in random pieces) and the SVG
 * renderer, with render options picked from the input's hash.
 *
 * Checks beyond "no crash": stacks come out of fg_folded_foreach sorted
 * and distinct, and the SVG holds exactly the one <script> element of the
 * template, whatever the frame names (no markup injected through them). */
#include "flamegraph/error.h"
#include "flamegraph/render.h"
#include "fuzz_common.h"

static const char *const fz_bases[] = { "main", "b", "[unknown]" };

static fg_render_opts fz_render_opts(fz_rng *r, char *palette, size_t palsize)
{
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	uint64_t v = fz_next(r), w = fz_next(r);
	const char *p = fg_render_palettes, *bar;
	unsigned k = (unsigned)(w % 16);

	o.hash = v & 1;
	o.deterministic = v & 2;
	o.inverted = v & 4;
	o.reverse = v & 8;
	o.flamechart = v & 16;
	o.negate = v & 32;
	if (v & 64) {
		o.base = fz_bases;
		o.nbase = (v >> 7) % 3 + 1;
	}
	switch ((v >> 10) & 3) {
	case 1: o.min_width = 0; break;
	case 2: o.min_width = 3.5; break;
	default: break;
	}
	switch ((v >> 12) & 3) {
	case 1: o.image_width = 30; break;
	case 2: o.image_width = 100000; break;
	default: break;
	}
	if (v & (1u << 14))
		o.factor = (v & (1u << 15)) ? 1e-9 : 1e12;
	if (v & (1u << 16))
		o.total = (double)((v >> 20) % 1000000) + 0.5;
	if (v & (1u << 17))
		o.bgcolors = (v & (1u << 18)) ? "grey" : "#0a0b0c";
	if (v & (1u << 19))
		o.title = "<title> & \"quotes\" ]]>";
	/* the k-th palette name of "hot|mem|...", k wrapping around */
	while (k-- && (bar = strchr(p, '|')))
		p = bar + 1;
	bar = strchr(p, '|');
	snprintf(palette, palsize, "%.*s", bar ? (int)(bar - p) : (int)strlen(p), p);
	o.palette = palette;
	return o;
}

struct fz_walk {
	char *prev;
	size_t prev_len;
	bool have_prev;
};

static int fz_check_sorted(void *ctx, const char *stack, size_t len, fg_count count,
			   fg_count before)
{
	struct fz_walk *w = ctx;
	size_t n = len < w->prev_len ? len : w->prev_len;
	int c;

	if (w->have_prev) {
		c = memcmp(w->prev, stack, n);
		if (c > 0 || (c == 0 && w->prev_len >= len))
			fz_fail("fg_folded_foreach: stacks not sorted or not distinct");
	}
	free(w->prev);
	w->prev = fg_strndup(stack, len);
	w->prev_len = len;
	w->have_prev = w->prev != NULL;
	return 0;
}

static size_t fz_count(const char *hay, size_t len, const char *needle)
{
	size_t n = 0, nl = strlen(needle);
	const char *p = hay, *end = hay + len;

	while ((p = memmem(p, (size_t)(end - p), needle, nl))) {
		n++;
		p += nl;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_rng r = fz_rng_of(data, size);
	char palette[32];
	fg_render_opts opts = fz_render_opts(&r, palette, sizeof(palette));
	struct fz_walk walk = { NULL, 0, false };
	fg_folded *f = NULL;
	char *svg = NULL;
	size_t svg_len = 0, off = 0, n;
	FILE *out = NULL;
	int err;

	if (fg_render_opts_check(&opts))
		fz_fail("the fuzzer picked render options the library rejects");
	if (fg_folded_new_ex(&f, opts.flamechart ? FG_FOLDED_KEEP_ORDER : 0))
		goto done;
	while (off < size) {
		n = fz_piece(&r, size - off);
		if (fg_folded_feed(f, (const char *)data + off, n))
			goto done;
		off += n;
	}
	if (fg_folded_finish(f))
		goto done;
	if (fg_folded_foreach(f, fz_check_sorted, &walk))
		goto done;
	if (!(out = open_memstream(&svg, &svg_len)))
		goto done;
	err = fg_render_svg(f, &opts, out);
	if (fclose(out))
		fz_fail("cannot close the memory stream");
	out = NULL;
	if (err == 0 || err == FG_ENODATA) {
		/* the "no samples" SVG is a bare message, without the script */
		if (err == 0 && (fz_count(svg, svg_len, "<script") != 1 ||
				 fz_count(svg, svg_len, "</script>") != 1))
			fz_fail("the SVG does not hold exactly one <script> element");
		if (svg_len < 7 || memcmp(svg + svg_len - 7, "</svg>\n", 7))
			fz_fail("the SVG does not end with </svg>");
	}
done:
	if (out)
		fclose(out);
	free(svg);
	free(walk.prev);
	fg_folded_free(f);
	fg_error_clear();
	return 0;
}
