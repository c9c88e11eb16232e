/* Fuzz target: the folded-stack reader (fed in random pieces) and the SVG
 * renderer, with render options picked from the input's hash.
 *
 * Checks beyond "no crash": stacks come out of fg_folded_foreach sorted
 * and distinct, the same bytes read as a file give the same stacks (and a
 * pruned listing of them draws what the full one draws), and
 * the SVG holds exactly the one <script> element of the template,
 * whatever the frame names (no markup injected through them). The HTML
 * viewer's page of the same stacks holds its five <script> elements,
 * its node list only base-36 numbers, its data no '<'. */
#include <sys/mman.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "flamegraph/render.h"
#include "fuzz_common.h"
#include "../lib/drawn_frames.h"

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

static int fz_dump_cb(void *ctx, const char *stack, size_t len, fg_count count,
		      fg_count before)
{
	fg_strbuf_addf(ctx, "%zu:", len);
	fg_strbuf_add(ctx, stack, len);
	fg_strbuf_addf(ctx, " %llu.%llu %llu.%llu\n", (unsigned long long)count.n,
		       (unsigned long long)count.frac, (unsigned long long)before.n,
		       (unsigned long long)before.frac);
	return 0;
}

/* The input read the other way, as a file (mapped: its lines gathered and
 * merged by sorting, or through the map once they repeat), must give the
 * same stacks and counts as fed in pieces, and its sorted listing must say
 * what each stack shares with the one before as a byte comparison does. */
static void fz_check_mapped(const fg_folded *fed, const uint8_t *data, size_t size,
			    unsigned flags)
{
	fg_strbuf a = FG_STRBUF_INIT, b = FG_STRBUF_INIT, pa = FG_STRBUF_INIT, pb = FG_STRBUF_INIT;
	fg_folded *f = NULL;
	double min;
	fg_folded_list *l = NULL;
	char path[64];
	int fd = memfd_create("fuzz-folded", 0);
	size_t i;

	/* a gzip file is decompressed when read as a file */
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
		goto done;
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		goto done;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (fg_folded_new_ex(&f, flags) || fg_folded_read_file(f, path))
		goto done;
	/* before anything merges the file's lines: a listing pruned at some
	 * share of the samples draws what the full listing draws */
	min = (double)fg_folded_total(f).n * (double)(size % 7) / 40.0;
	if (fg_folded_list_new_pruned(&l, f, min) || fg_test_drawn_frames(l, min, &pa))
		goto done;
	fg_folded_list_free(l);
	l = NULL;
	if (fg_folded_foreach(fed, fz_dump_cb, &a) || fg_folded_foreach(f, fz_dump_cb, &b))
		goto done;
	if (a.len != b.len || (a.len && memcmp(a.buf, b.buf, a.len)))
		fz_fail("a mapped file's stacks differ from the same bytes fed");
	if (fg_folded_list_new(&l, f, FG_FOLDED_SORTED) || fg_test_drawn_frames(l, min, &pb))
		goto done;
	if (pa.len != pb.len || (pa.len && memcmp(pa.buf, pb.buf, pa.len)))
		fz_fail("a pruned listing draws other frames than the full one");
	for (i = 1; i < fg_folded_list_len(l); i++) {
		const fg_folded_stack *x = fg_folded_list_at(l, i - 1), *y = fg_folded_list_at(l, i);
		size_t k = 0;

		while (k < x->len && k < y->len && x->stack[k] == y->stack[k])
			k++;
		if (fg_folded_list_shared(l, i) != k)
			fz_fail("fg_folded_list_shared differs from a byte comparison");
	}
done:
	fg_folded_list_free(l);
	fg_folded_free(f);
	fg_strbuf_release(&a);
	fg_strbuf_release(&b);
	fg_strbuf_release(&pa);
	fg_strbuf_release(&pb);
	if (fd >= 0)
		close(fd);
	fg_error_clear();
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

/* The HTML page of f: it fails as the SVG did (svg_err), and when written
 * it has the shape the viewer reads, whatever the names. */
static void fz_check_html(const fg_folded *f, const fg_render_opts *opts, int svg_err)
{
	char *html = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&html, &len);
	const char *nodes, *end, *data;
	int err;

	if (!out)
		return;
	err = fg_render_html(f, opts, out);
	if (fclose(out))
		fz_fail("cannot close the memory stream");
	if (err != svg_err && err != FG_ENOMEM && svg_err != FG_ENOMEM)
		fz_fail("the HTML page and the SVG fail differently");
	if (err == 0) {
		if (fz_count(html, len, "<script") != 5 || fz_count(html, len, "</script>") != 5)
			fz_fail("the HTML page does not hold exactly five <script> elements");
		data = memmem(html, len, "id=\"fg-opts\">", 13);
		nodes = memmem(html, len, "id=\"fg-nodes\">", 14);
		if (!data || !nodes)
			fz_fail("the HTML page lacks its data");
		nodes += 14;
		end = memmem(nodes, len - (size_t)(nodes - html), "</script>", 9);
		if (!end || strspn(nodes, "0123456789abcdefghijklmnopqrstuvwxyz,;-") != (size_t)(end - nodes))
			fz_fail("the HTML page's node list holds other than base-36 records");
		/* from the options to the nodes: three elements' end and start tags */
		if (fz_count(data, (size_t)(end - data), "<") != 6)
			fz_fail("a '<' in the HTML page's data besides its element tags");
	}
	free(html);
	fg_error_clear();
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
	fz_check_mapped(f, data, size, opts.flamechart ? FG_FOLDED_KEEP_ORDER : 0);
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
	fz_check_html(f, &opts, err);
done:
	if (out)
		fclose(out);
	free(svg);
	free(walk.prev);
	fg_folded_free(f);
	fg_error_clear();
	return 0;
}
