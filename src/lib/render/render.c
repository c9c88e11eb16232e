/* The SVG renderer: merged folded stacks -> frames (name, depth, start and
 * end in samples) -> a self-contained interactive SVG.
 *
 * Frames come from flamegraph.pl's "flow" merge: stacks are visited in
 * order (sorted, or input order for flame charts), and a frame stays open
 * while consecutive stacks share it as a prefix, so its width is the sum of
 * their counts. A frame narrower than --min-width pixels is dropped when it
 * closes; its children are narrower still. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flamegraph/error.h"
#include "flamegraph/folded.h"
#include "flamegraph/render.h"
#include "frames.h"
#include "nameattr.h"
#include "palette.h"
#include "svgout.h"
#include "util/bytes.h"
#include "util/hashmap.h"
#include "util/input.h"
#include "util/strbuf.h"
#include "util/version.h"
#include "util/banned.h"

extern const char fg_template_flamegraph_js[];
extern const size_t fg_template_flamegraph_js_len;
extern const char fg_template_flamegraph_css[];
extern const size_t fg_template_flamegraph_css_len;

#define XPAD 10


struct open_frame {
	const char *name;
	size_t len;
	uint64_t start;
	double delta;
	bool cold;
};

struct render {
	const fg_render_opts *o;
	enum fg_palette pal;
	bool differential;
	fg_rframe *frames;
	size_t nframes, aframes;
	struct open_frame *open;
	size_t aopen;
	unsigned depthmax;
	uint64_t samples;   /* the sum of the stacks' whole-sample counts */
	uint64_t time;
	double timemax, widthpertime, min_time, maxdelta;
	fg_strmap palmap;
	bool palmap_dirty;
	struct fg_nameattr na;
	uint64_t rng;
	fg_svgout out;
};

int fg_render_color_check(const char *c)
{
	size_t n = strlen(c), hex = n > 1 ? strspn(c + 1, "0123456789abcdefABCDEF") : 0;
	unsigned long v[3];
	const char *p;
	int i;

	if (c[0] == '#' && (n == 4 || n == 7) && hex == n - 1)
		return 0;
	if (n && n < 40 && strspn(c, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == n)
		return 0;
	if (!strncmp(c, "rgb(", 4)) {
		for (p = c + 4, i = 0; i < 3; i++) {
			size_t d = strspn(p, "0123456789");
			if (!d || d > 3)
				break;
			v[i] = strtoul(p, NULL, 10);
			p += d;
			if (v[i] > 255 || *p++ != (i < 2 ? ',' : ')'))
				break;
		}
		if (i == 3 && !*p)
			return 0;
	}
	return fg_error_set(FG_EINVAL, "unknown colour '%s' — use #rrggbb, rgb(R,G,B) or a colour name "
			    "such as red", c);
}

FG_OPTS_INIT_FUNCTION(fg_render_opts, FG_RENDER_OPTS_VERSION, FG_RENDER_OPTS_INIT)

int fg_render_opts_check(const fg_render_opts *o)
{
	enum fg_palette pal;
	int err;

	if ((err = fg_opts_version_check("fg_render_opts", o->version, FG_RENDER_OPTS_VERSION)))
		return err;
	if ((err = fg_palette_parse(o->palette, &pal)))
		return err;
	if (o->bgcolors && strcmp(o->bgcolors, "yellow") && strcmp(o->bgcolors, "blue") &&
	    strcmp(o->bgcolors, "green") && strcmp(o->bgcolors, "grey") &&
	    !(o->bgcolors[0] == '#' && strlen(o->bgcolors) == 7 &&
	      strspn(o->bgcolors + 1, "0123456789abcdefABCDEF") == 6))
		return fg_error_set(FG_EINVAL, "unknown background '%s' — use yellow, blue, green, grey or #rrggbb",
				    o->bgcolors);
	if (o->image_width < 2 * XPAD + 10 || o->image_width > 1000000)
		return fg_error_set(FG_EINVAL, "image width %u px is out of range — use 30 to 1000000",
				    o->image_width);
	if (o->frame_height < 2 || o->frame_height > 1000)
		return fg_error_set(FG_EINVAL, "frame height %u px is out of range — use 2 to 1000",
				    o->frame_height);
	if (!(o->font_size > 0 && o->font_size < 1000) || !(o->font_width > 0 && o->font_width < 100))
		return fg_error_set(FG_EINVAL, "font size and width must be positive numbers");
	if ((o->search_color && (err = fg_render_color_check(o->search_color))) ||
	    (o->stroke_color && (err = fg_render_color_check(o->stroke_color))) ||
	    (o->ui_color && (err = fg_render_color_check(o->ui_color))))
		return err;
	if (o->encoding && (!*o->encoding || strlen(o->encoding) > 40 ||
			    strspn(o->encoding, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789-_.:") != strlen(o->encoding)))
		return fg_error_set(FG_EINVAL, "unknown encoding '%s' — give a name such as UTF-8 or "
				    "ISO-8859-1", o->encoding);
	if (o->min_width_percent && o->min_width > 100)
		return fg_error_set(FG_EINVAL, "a minimum width of %g%% leaves no frame — give a "
				    "percentage from 0 to 100", o->min_width);
	if (!(o->min_width >= 0) || !(o->factor > 0) || !(o->total >= 0) ||
	    !isfinite(o->min_width) || !isfinite(o->factor) || !isfinite(o->total))
		return fg_error_set(FG_EINVAL, "`opts.min_width`, `opts.factor` and `opts.total` must be finite numbers, "
				    "not negative (`opts.factor`: > 0)");
	return 0;
}

/* ---- stacks in drawing order ------------------------------------------ */

static bool is_base(const fg_render_opts *o, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < o->nbase; i++)
		if (strlen(o->base[i]) == n && !memcmp(o->base[i], s, n))
			return true;
	return false;
}

/* Applies --base (cut everything before the first base frame; stacks with
 * none are dropped) and --reverse to one stack, into sb. Returns false when
 * the stack is dropped. */
static bool transform(const fg_render_opts *o, const char *s, size_t n, fg_strbuf *sb)
{
	const char *p = s, *e = s + n;

	fg_strbuf_reset(sb);
	if (o->nbase) {
		/* inferno roots the stack at the base frame closest to the
		 * leaf, the leaf itself excluded: a stack whose only base is
		 * its leaf has no calls below the base and is left out */
		const char *q = e, *found = NULL;
		while (q > p && !found) {
			const char *fe;
			while (q > p && q[-1] != ';')
				q--;
			if (q == p)
				break;
			fe = q - 1;
			q = fe;
			while (q > p && q[-1] != ';')
				q--;
			if (is_base(o, q, (size_t)(fe - q)))
				found = q;
		}
		if (!found)
			return false;
		p = found;
	}
	if (!o->reverse)
		return fg_strbuf_add(sb, p, (size_t)(e - p)) == 0;

	for (bool first = true;; first = false) {
		const char *q = e;
		while (q > p && q[-1] != ';')
			q--;
		if ((!first && fg_strbuf_addch(sb, ';')) || fg_strbuf_add(sb, q, (size_t)(e - q)))
			return false;
		if (q == p)
			break;
		e = q - 1;
	}
	/* reversed, the stack is a new line: trimmed like any input line */
	size_t k;

	for (k = 0; k < sb->len && (sb->buf[k] == ' ' || sb->buf[k] == '\t'); k++)
		;
	memmove(sb->buf, sb->buf + k, sb->len - k);
	fg_strbuf_setlen(sb, sb->len - k);
	while (sb->len && (sb->buf[sb->len - 1] == ' ' || sb->buf[sb->len - 1] == '\t'))
		fg_strbuf_setlen(sb, sb->len - 1);
	return true;
}

/* after - before of a differential stack; exact up to the conversion. */
static double delta_of(const fg_folded_stack *it)
{
	return it->count >= it->before ? (double)(it->count - it->before) :
					 -(double)(it->before - it->count);
}

/* The stacks to draw, without copying them: the sorted distinct stacks,
 * or the runs of input lines for a flame chart, walked last to first. */
struct stacks {
	fg_folded_list *list;
	bool backwards;
	bool sorted;      /* what a stack shares with the one before is known */
	size_t n;
};

static const fg_folded_stack *stack_at(const struct stacks *st, size_t i)
{
	return fg_folded_list_at(st->list, st->backwards ? st->n - 1 - i : i);
}

/* min: the samples of the narrowest frame drawn, 0 when not known */
static int stacks_of(const fg_folded *f, bool chart, bool backwards, double min,
		     struct stacks *st)
{
	int err = chart ? fg_folded_list_new(&st->list, f, FG_FOLDED_INPUT_ORDER) :
			  fg_folded_list_new_pruned(&st->list, f, min);

	if (err)
		return err;
	st->backwards = chart && backwards;
	st->sorted = !chart;
	st->n = fg_folded_list_len(st->list);
	return 0;
}

/* The samples a frame needs to be drawn, of a graph of `samples`. */
static double min_time_of(const fg_render_opts *o, double samples)
{
	double timemax = o->total > samples ? o->total : samples;

	return o->min_width_percent ? o->min_width / 100.0 * timemax :
				      o->min_width / ((o->image_width - 2.0 * XPAD) / timemax);
}

/* The stacks to draw, in order: sorted (flow merges equal prefixes), or
 * the input's order reversed for a flame chart, so time runs left to right
 * as in inferno. --base cuts stacks in that order without re-sorting;
 * --reverse re-sorts the reversed stacks. Transformed stacks live in `tmp`. */
static int collect(const fg_folded *f, const fg_render_opts *o, fg_folded **tmp,
		   struct stacks *st)
{
	const bool chart = o->flamechart && fg_folded_keeps_order(f);
	fg_strbuf sb = FG_STRBUF_INIT;
	struct stacks in = { NULL, false, false, 0 };
	size_t i;
	int err;

	*tmp = NULL;
	if (!o->reverse && !o->nbase)
		return stacks_of(f, chart, true, min_time_of(o, (double)fg_folded_total(f).n), st);
	if ((err = stacks_of(f, chart, true, 0, &in)))
		return err;
	if ((err = fg_folded_new_ex(tmp, FG_FOLDED_KEEP_ORDER)))
		goto done;
	for (i = 0; i < in.n && !err; i++) {
		const fg_folded_stack *it = stack_at(&in, i);
		fg_count before = { it->before, 0 }, after = { it->count, 0 };

		if (it->count && transform(o, it->stack, it->len, &sb))
			err = fg_folded_add_diff(*tmp, sb.buf, sb.len, before, after);
	}
	if (!err)
		err = stacks_of(*tmp, o->flamechart, false, 0, st);
done:
	fg_folded_list_free(in.list);
	fg_strbuf_release(&sb);
	return err;
}

/* ---- the flow merge ---------------------------------------------------- */

static int close_frame(struct render *r, unsigned depth, const struct open_frame *of)
{
	fg_rframe *fr;

	if ((double)(r->time - of->start) < r->min_time)
		return 0;
	if (r->nframes == r->aframes) {
		size_t n = r->aframes ? r->aframes * 2 : 4096;
		fg_rframe *v = fg_realloc_array(r->frames, n, sizeof(*v));
		if (!v)
			return FG_ENOMEM;
		r->frames = v;
		r->aframes = n;
	}
	fr = &r->frames[r->nframes++];
	fr->name = of->name;
	fr->len = of->len;
	fr->depth = depth;
	fr->start = of->start;
	fr->end = r->time;
	fr->delta = of->delta;
	fr->cold = of->cold;
	if (depth > r->depthmax)
		r->depthmax = depth;
	if (fabs(of->delta) > r->maxdelta)
		r->maxdelta = fabs(of->delta);
	return 0;
}

static int open_frame(struct render *r, size_t nopen, const char *p, size_t len)
{
	if (nopen == r->aopen) {
		size_t m = r->aopen ? r->aopen * 2 : 64;
		struct open_frame *v = fg_realloc_array(r->open, m, sizeof(*v));
		if (!v)
			return FG_ENOMEM;
		r->open = v;
		r->aopen = m;
	}
	r->open[nopen].name = p;
	r->open[nopen].len = len;
	r->open[nopen].start = r->time;
	r->open[nopen].delta = 0;
	r->open[nopen].cold = (nopen && r->open[nopen - 1].cold) ||
			      (r->o->cold_root && strlen(r->o->cold_root) == len &&
			       !memcmp(r->o->cold_root, p, len));
	return 0;
}

/* How many stacks ahead flow asks for the bytes of the next ones. */
#define PREFETCH_AHEAD 4

/* How many leading frames stack s (n bytes) shares with prev, whose
 * frames are open[0..nopen) (their names point into prev: flow keeps
 * them there), given k, the bytes the two share (SIZE_MAX: unknown, then
 * compared here); *rest is where s's first unshared frame starts, *done
 * set when s has none. One byte comparison of the two stacks, or none,
 * instead of a frame-by-frame walk. */
static size_t shared_frames(const struct open_frame *open, size_t nopen, const char *prev,
			    size_t prev_len, const char *s, size_t n, size_t k,
			    const char **rest, bool *done)
{
	size_t lo = 0, hi = nopen;

	if (k == SIZE_MAX)
		k = fg_common_prefix(prev, s, prev_len < n ? prev_len : n);

	/* a frame is shared when it ends at or before k on a boundary of both */
	if (!((k == n || s[k] == ';') && (k == prev_len || prev[k] == ';'))) {
		while (k > 0 && s[k - 1] != ';')
			k--;
		if (k == 0) {
			*rest = s;
			return 0;
		}
		k--; /* on the ';' that ends the last shared frame */
	}
	/* the open frames ending at or before k: a binary search on offsets */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((size_t)(open[mid].name - prev) + open[mid].len <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (k >= n)
		*done = true;
	*rest = k >= n ? s + n : s + k + 1;
	return lo;
}

static int flow(struct render *r, const struct stacks *st)
{
	/* what the stack shares with prev: the least the sorted listing
	 * says of the stacks since prev (the ones between were not drawn) */
	size_t nopen = 0, i, prev_len = 0, shared = SIZE_MAX;
	const char *prev = NULL;
	int err;

	for (i = 0; i < st->n; i++) {
		const fg_folded_stack *it = stack_at(st, i);
		const char *p, *e, *semi;
		size_t depth = 0;
		bool done = false;

		if (st->sorted && i) {
			size_t k = fg_folded_list_shared(st->list, i);
			shared = k < shared ? k : shared;
		}

		/* sorted stacks lie all over memory: ask for a later one's
		 * first bytes while this one is compared */
		if (i + PREFETCH_AHEAD < st->n) {
			const fg_folded_stack *ahead = stack_at(st, i + PREFETCH_AHEAD);
			/* sorted: only the bytes from where it parts from its
			 * neighbour are read */
			size_t from = !st->sorted ? 0 :
				fg_folded_list_shared(st->list, i + PREFETCH_AHEAD) & ~(size_t)63;
			for (size_t k = from; k < ahead->len && k < from + 512; k += 64)
				__builtin_prefetch(ahead->stack + k);
		}

		if (!it->count)
			continue;
		p = it->stack;
		e = p + it->len;
		/* skip the frames this stack shares with the open ones, which
		 * are the frames of the stack drawn before it, prev */
		if (nopen)
			depth = shared_frames(r->open, nopen, prev, prev_len, p, it->len,
					      st->sorted ? shared : SIZE_MAX, &p, &done);
		shared = SIZE_MAX;
		/* the open frames' names now point into this stack, the next prev */
		for (size_t d = 0; d < depth; d++)
			r->open[d].name = it->stack + (r->open[d].name - prev);
		prev = it->stack;
		prev_len = it->len;
		while (nopen > depth) {
			nopen--;
			if ((err = close_frame(r, (unsigned)nopen + 1, &r->open[nopen])))
				return err;
		}
		while (!done) {
			semi = memchr(p, ';', (size_t)(e - p));
			if ((err = open_frame(r, nopen, p, (size_t)((semi ? semi : e) - p))))
				return err;
			nopen++;
			if (semi)
				p = semi + 1;
			else
				done = true;
		}
		/* differential: the change belongs to the leaf, as flamegraph.pl */
		if (nopen)
			r->open[nopen - 1].delta += delta_of(it);
		r->time += it->count;
	}
	while (nopen > 0) {
		nopen--;
		if ((err = close_frame(r, (unsigned)nopen + 1, &r->open[nopen])))
			return err;
	}
	return 0;
}

/* ---- colours ----------------------------------------------------------- */

static double unit(uint64_t h)
{
	return (double)(h & 0xFFFF) / 65535.0;
}

static uint64_t next_rand(struct render *r)
{
	r->rng ^= r->rng << 13;
	r->rng ^= r->rng >> 7;
	r->rng ^= r->rng << 17;
	return r->rng;
}

static uint32_t color_of(struct render *r, const fg_rframe *fr, int *err)
{
	size_t dn = fg_rframe_shown_len(fr->name, fr->len);
	enum fg_palette pal = fr->cold ? FG_PAL_BLUE : r->pal;
	uint64_t h;
	uint32_t c;

	if (r->differential) {
		double d = r->o->negate ? -fr->delta : fr->delta;
		return fg_palette_diff_color(d, r->maxdelta);
	}
	if (r->o->color_diffusion && !fr->cold) {
		/* one red, deeper as the frame is wider (its share, square
		 * root: the narrow frames stay apart from the background) */
		double k = 155.0 * sqrt((double)(fr->end - fr->start) / r->timemax);
		return 255u << 16 | (uint32_t)(255.0 - k) << 8 | (uint32_t)(255.0 - k);
	}
	if (r->o->palette_map && !fr->cold) {
		fg_strmap_entry *e = fg_strmap_get(&r->palmap, fr->name, dn);
		if (e && (e->value.u & FG_PALETTE_SET))
			return (uint32_t)e->value.u;
	}
	if (r->o->hash || r->o->deterministic) {
		h = fg_hash_bytes(fr->name, dn);
		c = fg_palette_color(pal, fr->name, fr->len, unit(h), unit(h >> 16),
				     unit(h >> 32));
	} else {
		h = next_rand(r);
		c = fg_palette_color(pal, fr->name, fr->len, unit(h), unit(h >> 16),
				     unit(h >> 32));
	}
	if (r->o->palette_map && !fr->cold) {
		fg_strmap_entry *e = fg_strmap_put(&r->palmap, fr->name, dn);
		if (!e) {
			*err = FG_ENOMEM;
			return c;
		}
		e->value.u = FG_PALETTE_SET | c;
		r->palmap_dirty = true;
	}
	return c;
}

/* ---- writing ----------------------------------------------------------- */

/* Font names go into CSS: keep only what a font family name needs. */
static void put_font(fg_svgout *o, const char *font)
{
	const char *p;

	for (p = font; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr(" ,-_", *p))
			fg_svgout_add(o, p, 1);
}

static void write_header(struct render *r, double height, const char *bg1, const char *bg2)
{
	const fg_render_opts *o = r->o;
	fg_svgout *out = &r->out;
	unsigned w = o->image_width;

	fg_svgout_str(out, "<?xml version=\"1.0\"");
	if (o->encoding) {
		/* checked: letters, digits and -_.: only */
		fg_svgout_str(out, " encoding=\"");
		fg_svgout_str(out, o->encoding);
		fg_svgout_str(out, "\"");
	}
	fg_svgout_str(out, " standalone=\"no\"?>\n<svg version=\"1.1\" width=\"");
	fg_svgout_u64(out, w);
	fg_svgout_str(out, "\" height=\"");
	fg_svgout_fixed(out, height, 0);
	fg_svgout_str(out, o->no_javascript ? "\" viewBox=\"0 0 " : "\" onload=\"init(evt)\" viewBox=\"0 0 ");
	fg_svgout_u64(out, w);
	fg_svgout_str(out, " ");
	fg_svgout_fixed(out, height, 0);
	fg_svgout_str(out, "\" xmlns=\"http://www.w3.org/2000/svg\" "
		      "xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
		      "xmlns:fg=\"http://github.com/jonhoo/inferno\">\n");
	if (o->notes) {
		fg_svgout_str(out, "<desc id=\"notes\">");
		fg_svgout_xml(out, o->notes, strlen(o->notes));
		fg_svgout_str(out, "</desc>\n");
	}
	fg_svgout_str(out, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		      "<stop stop-color=\"");
	fg_svgout_str(out, bg1);
	fg_svgout_str(out, "\" offset=\"5%\"/><stop stop-color=\"");
	fg_svgout_str(out, bg2);
	fg_svgout_str(out, "\" offset=\"95%\"/></linearGradient></defs>\n<style type=\"text/css\"><![CDATA[\n");
	fg_svgout_add(out, fg_template_flamegraph_css, fg_template_flamegraph_css_len);
	fg_svgout_str(out, "text { font-family: ");
	put_font(out, o->font_type ? o->font_type : "Verdana");
	fg_svgout_str(out, ", sans-serif; font-size: ");
	fg_svgout_fixed(out, o->font_size, 2);
	fg_svgout_str(out, "px; }\n#title { font-size: ");
	fg_svgout_fixed(out, o->font_size + 5, 2);
	fg_svgout_str(out, "px; }\n");
	/* the colours are checked (fg_render_color_check): no quote, brace
	 * or semicolon can reach the style sheet or the script */
	if (o->ui_color) {
		fg_svgout_str(out, "text { fill: ");
		fg_svgout_str(out, o->ui_color);
		fg_svgout_str(out, "; }\n#frames text { fill: rgb(0,0,0); }\n");
	}
	if (o->stroke_color) {
		fg_svgout_str(out, "#frames > g > rect, #frames > a > rect { stroke: ");
		fg_svgout_str(out, o->stroke_color);
		fg_svgout_str(out, "; stroke-width: 1; }\n");
	}
	fg_svgout_str(out, "]]></style>\n");
	if (o->no_javascript)
		goto background;
	fg_svgout_str(out, "<script type=\"text/ecmascript\"><![CDATA[\nvar fg_nametype = \"");
	fg_svgout_js(out, o->name_type ? o->name_type : "Function:");
	fg_svgout_str(out, "\";\nvar fg_fontsize = ");
	fg_svgout_fixed(out, o->font_size, 2);
	fg_svgout_str(out, ";\nvar fg_fontwidth = ");
	fg_svgout_fixed(out, o->font_width, 4);
	fg_svgout_str(out, ";\nvar fg_inverted = ");
	fg_svgout_str(out, o->inverted ? "true" : "false");
	fg_svgout_str(out, ";\nvar fg_searchcolor = \"");
	fg_svgout_js(out, o->search_color ? o->search_color : "rgb(230,0,230)");
	fg_svgout_str(out, "\";\n");
	fg_svgout_add(out, fg_template_flamegraph_js, fg_template_flamegraph_js_len);
	fg_svgout_str(out, "]]></script>\n");
background:
	fg_svgout_str(out, "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"");
	fg_svgout_fixed(out, height, 0);
	fg_svgout_str(out, "\" fill=\"url(#background)\"/>\n");
}

static void put_text(fg_svgout *out, const char *id, const char *cls, const char *x,
		     double y, const char *s)
{
	fg_svgout_str(out, "<text id=\"");
	fg_svgout_str(out, id);
	fg_svgout_str(out, "\"");
	if (cls) {
		fg_svgout_str(out, " class=\"");
		fg_svgout_str(out, cls);
		fg_svgout_str(out, "\"");
	}
	fg_svgout_str(out, " x=\"");
	fg_svgout_str(out, x);
	fg_svgout_str(out, "\" y=\"");
	fg_svgout_fixed(out, y, 2);
	fg_svgout_str(out, "\">");
	fg_svgout_xml(out, s, strlen(s));
	fg_svgout_str(out, "</text>\n");
}

/* The label that fits in w_px, flamegraph.pl style: whole, cut with "..",
 * or nothing under 3 characters; written at p, at most
 * FG_PUT_XML_MAX(n) + 2 bytes. */
static char *put_label(char *p, const char *s, size_t n, double w_px, double charw)
{
	double fit = w_px / charw;
	size_t chars, k, i;

	if (fit < 3)
		return p;
	chars = fit > 1e6 ? 1000000 : (size_t)fit;
	if (fg_utf8_chars(s, n) <= chars)
		return fg_put_xml(p, s, n);
	/* the byte offset of character chars - 2 */
	for (i = 0, k = 0; i < n; i++) {
		if (((unsigned char)s[i] & 0xC0) != 0x80 && k++ == chars - 2)
			break;
	}
	p = fg_put_xml(p, s, i);
	return FG_PUT_LIT(p, "..");
}

static char *put_rgb(char *p, uint32_t c)
{
	p = FG_PUT_LIT(p, "rgb(");
	p = fg_put_u64(p, c >> 16 & 255);
	*p++ = ',';
	p = fg_put_u64(p, c >> 8 & 255);
	*p++ = ',';
	p = fg_put_u64(p, c & 255);
	*p++ = ')';
	return p;
}

/* The numbers of a frame that depend on its depth only: the rectangle's
 * y, its height, the label's y, as written (quotes included). */
struct row {
	char rect[2 * FG_PUT_NUMBER_MAX + 16];
	char text_y[FG_PUT_NUMBER_MAX + 8];
	size_t rect_len, text_y_len;
};

/* The rows of depths 0..depthmax, written once instead of per frame;
 * NULL on FG_ENOMEM. */
static struct row *rows_of(const struct render *r, double height, double ypad2)
{
	const fg_render_opts *o = r->o;
	double fh = o->frame_height;
	double ypad1 = o->font_size * 3 + (o->subtitle ? o->font_size * 2 : 0);
	struct row *rows = fg_malloc(((size_t)r->depthmax + 1) * sizeof(*rows));

	for (size_t d = 0; rows && d <= r->depthmax; d++) {
		double y = o->inverted ? ypad1 + (double)d * fh :
					 height - ypad2 - ((double)d + 1) * fh + 1;
		char *p = rows[d].rect;

		p = FG_PUT_LIT(p, "%\" y=\"");
		p = fg_put_fixed(p, y, 0);
		p = FG_PUT_LIT(p, "\" width=\"");
		rows[d].rect_len = (size_t)(p - rows[d].rect);
		p = rows[d].text_y;
		p = FG_PUT_LIT(p, "%\" y=\"");
		p = fg_put_fixed(p, y + (fh - 1) / 2 + o->font_size / 4, 2);
		p = FG_PUT_LIT(p, "\">");
		rows[d].text_y_len = (size_t)(p - rows[d].text_y);
	}
	return rows;
}

static int write_frames(struct render *r, double height, double ypad2)
{
	const fg_render_opts *o = r->o;
	fg_svgout *out = &r->out;
	double fh = o->frame_height, frames_w = o->image_width - 2.0 * XPAD;
	double charw = o->font_size * o->font_width;
	double pct_per_time = 100.0 / r->timemax;
	double text_dx = 3.0 / frames_w * 100.0;
	const size_t count_name_len = o->count_name ? strlen(o->count_name) : 0;
	struct row *rows = rows_of(r, height, ypad2);
	char fh_text[FG_PUT_NUMBER_MAX];
	size_t i, fh_len = (size_t)(fg_put_fixed(fh_text, fh - 1, 0) - fh_text);
	int err = 0;

	if (!rows)
		return FG_ENOMEM;
	for (i = 0; i < r->nframes && !err && !out->err; i++) {
		const fg_rframe *fr = &r->frames[i];
		size_t dn = fg_rframe_shown_len(fr->name, fr->len), room;
		uint64_t w = fr->end - fr->start;
		double x_pct = (double)fr->start * pct_per_time;
		uint32_t c = color_of(r, fr, &err);
		const struct fg_nameattr_set *as = NULL;
		const struct row *row = &rows[fr->depth];
		char *p;

		/* the names lie all over the input: ask for a later one's */
		if (i + 8 < r->nframes)
			__builtin_prefetch(r->frames[i + 8].name);
		if (r->na.nsets) {
			fg_strmap_entry *e = fg_strmap_get(&r->na.names, fr->name, dn);
			if (e)
				as = &r->na.sets[e->value.u - 1];
		}
		/* one room for the whole frame: the name twice and a title,
		 * ten numbers, the markup around them */
		room = 512 + 2 * FG_PUT_XML_MAX(dn) + FG_PUT_XML_MAX(count_name_len) +
		       10 * FG_PUT_NUMBER_MAX;
		if (as)
			room += as->attrs.len + FG_PUT_XML_MAX(dn) +
				(as->title ? FG_PUT_XML_MAX(strlen(as->title)) : 0);
		if (!(p = fg_svgout_room(out, room)))
			break;
		p = as && as->link ? FG_PUT_LIT(p, "<a") : FG_PUT_LIT(p, "<g");
		if (as) {
			p = fg_put_bytes(p, as->attrs.buf, as->attrs.len);
			if (as->title) {
				p = FG_PUT_LIT(p, " data-name=\"");
				p = fg_put_xml(p, fr->name, dn);
				*p++ = '"';
			}
		}
		p = FG_PUT_LIT(p, "><title>");
		if (as && as->title) {
			p = fg_put_xml(p, as->title, strlen(as->title));
		} else {
			p = fg_put_xml(p, fr->name, dn);
			p = FG_PUT_LIT(p, " (");
			p = fg_put_scaled(p, w, o->factor);
			*p++ = ' ';
			if (o->count_name)
				p = fg_put_xml(p, o->count_name, count_name_len);
			else
				p = FG_PUT_LIT(p, "samples");
			p = FG_PUT_LIT(p, ", ");
			p = fg_put_fixed(p, (double)w * 100.0 / (double)r->time, 2);
			*p++ = '%';
			if (r->differential) {
				double d = fr->delta * 100.0 / (double)r->time;
				if (o->negate)
					d = -d;
				p = d > 0 ? FG_PUT_LIT(p, "; +") : FG_PUT_LIT(p, "; ");
				p = fg_put_fixed(p, d, 2);
				*p++ = '%';
			}
			*p++ = ')';
		}
		p = FG_PUT_LIT(p, "</title><rect x=\"");
		p = fg_put_fixed(p, x_pct, 4);
		p = fg_put_bytes(p, row->rect, row->rect_len);
		p = fg_put_fixed(p, (double)w * pct_per_time, 4);
		p = FG_PUT_LIT(p, "%\" height=\"");
		p = fg_put_bytes(p, fh_text, fh_len);
		p = FG_PUT_LIT(p, "\" fill=\"");
		p = put_rgb(p, c);
		p = FG_PUT_LIT(p, "\" fg:x=\"");
		p = fg_put_u64(p, fr->start);
		p = FG_PUT_LIT(p, "\" fg:w=\"");
		p = fg_put_u64(p, w);
		p = FG_PUT_LIT(p, "\"/><text x=\"");
		p = fg_put_fixed(p, x_pct + text_dx, 4);
		p = fg_put_bytes(p, row->text_y, row->text_y_len);
		p = put_label(p, fr->name, dn, (double)w * r->widthpertime, charw);
		p = as && as->link ? FG_PUT_LIT(p, "</text></a>\n") : FG_PUT_LIT(p, "</text></g>\n");
		fg_svgout_wrote(out, p);
	}
	free(rows);
	return err ? err : out->err;
}

static void bg_colors(const fg_render_opts *o, enum fg_palette pal, const char **a,
		      const char **b)
{
	const char *bg = o->bgcolors;

	if (!bg)
		bg = pal == FG_PAL_MEM ? "green" :
		     (pal == FG_PAL_IO || pal == FG_PAL_WAKEUP) ? "blue" :
		     (pal >= FG_PAL_RED && pal <= FG_PAL_ORANGE) ? "grey" : "yellow";
	if (!strcmp(bg, "blue")) {
		*a = "#eeeeee";
		*b = "#e0e0ff";
	} else if (!strcmp(bg, "green")) {
		*a = "#eef2ee";
		*b = "#e0ffe0";
	} else if (!strcmp(bg, "grey")) {
		*a = "#f8f8f8";
		*b = "#e8e8e8";
	} else if (bg[0] == '#') {
		*a = *b = bg;
	} else {
		*a = "#eeeeee";
		*b = "#eeeeb0";
	}
}

static int write_empty(struct render *r)
{
	fg_svgout *out = &r->out;
	unsigned w = r->o->image_width;

	fg_svgout_str(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n<svg version=\"1.1\" width=\"");
	fg_svgout_u64(out, w);
	fg_svgout_str(out, "\" height=\"60\" viewBox=\"0 0 ");
	fg_svgout_u64(out, w);
	fg_svgout_str(out, " 60\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		      "<text x=\"50%\" y=\"24\" text-anchor=\"middle\" font-family=\"Verdana\" "
		      "font-size=\"17\">ERROR: No valid input provided to flamegraph: no samples</text>\n"
		      "</svg>\n");
	fg_svgout_flush(out);
	if (out->err)
		return out->err;
	return fg_error_set(FG_ENODATA, "no stack samples in the input — check that it holds "
			    "folded stacks ('frame;frame COUNT' lines)");
}

static int write_svg(struct render *r)
{
	const fg_render_opts *o = r->o;
	double ypad1 = o->font_size * 3 + (o->subtitle ? o->font_size * 2 : 0);
	double ypad2 = o->font_size * 2 + 10;
	double height = (r->depthmax + 1) * (double)o->frame_height + ypad1 + ypad2;
	const char *bg1, *bg2, *title = o->title;
	char right[32];
	int err;

	if (!title)
		title = o->flamechart ? "Flame Chart" : o->inverted ? "Icicle Graph" : "Flame Graph";
	bg_colors(o, r->pal, &bg1, &bg2);
	write_header(r, height, bg1, bg2);
	put_text(&r->out, "title", NULL, "50%", o->font_size * 2, title);
	if (o->subtitle)
		put_text(&r->out, "subtitle", NULL, "50%", o->font_size * 4, o->subtitle);
	put_text(&r->out, "details", NULL, "10", height - ypad2 / 2, " ");
	put_text(&r->out, "unzoom", "hide", "10", o->font_size * 2, "Reset Zoom");
	snprintf(right, sizeof(right), "%u", o->image_width - XPAD);
	put_text(&r->out, "search", NULL, right, o->font_size * 2, "Search");
	put_text(&r->out, "matched", "hide", right, height - ypad2 / 2, " ");
	fg_svgout_str(&r->out, "<svg id=\"frames\" x=\"10\" width=\"");
	fg_svgout_u64(&r->out, o->image_width - 2 * XPAD);
	fg_svgout_str(&r->out, "\" total_samples=\"");
	if (r->o->total > (double)r->samples)
		fg_svgout_fixed(&r->out, r->o->total, 0);
	else
		fg_svgout_u64(&r->out, r->samples);
	fg_svgout_str(&r->out, "\">\n");
	if ((err = write_frames(r, height, ypad2)))
		return err;
	fg_svgout_str(&r->out, "</svg>\n</svg>\n");
	fg_svgout_flush(&r->out);
	return r->out.err;
}

/* The samples of the stacks to draw, r->samples; FG_ELIMIT past 2^64. */
static int count_samples(struct render *r, const struct stacks *st)
{
	for (size_t i = 0; i < st->n; i++) {
		/* fg_folded keeps its total below 2^64; this only guards the
		 * sum against a future change there */
		if (__builtin_add_overflow(r->samples, stack_at(st, i)->count, &r->samples))
			return fg_error_set(FG_ELIMIT, "the sample counts add up to 2^64 or more — "
					    "scale them down (e.g. divide by the sampling period)");
	}
	return 0;
}

/* The frames of a graph of r->samples > 0, "all" last. */
static int merge(struct render *r, const struct stacks *st)
{
	struct open_frame all = { .name = "all", .len = 3 };
	int err;

	r->timemax = r->o->total > (double)r->samples ? r->o->total : (double)r->samples;
	r->widthpertime = (r->o->image_width - 2.0 * XPAD) / r->timemax;
	r->min_time = min_time_of(r->o, (double)r->samples);
	if ((err = flow(r, st)))
		return err;
	return close_frame(r, 0, &all);
}

int fg_render_svg(const fg_folded *f, const fg_render_opts *opts, FILE *out)
{
	return fg_render_svg_ex(f, opts, out, NULL);
}

int fg_render_svg_ex(const fg_folded *f, const fg_render_opts *opts, FILE *out, size_t *nframes)
{
	fg_render_opts defaults = FG_RENDER_OPTS_INIT;
	struct render r;
	struct stacks st = { NULL, false, false, 0 };
	fg_folded *tmp = NULL;
	int err;

	if (nframes)
		*nframes = 0;
	if (opts &&
	    (err = fg_opts_version_check("fg_render_opts", opts->version, FG_RENDER_OPTS_VERSION)))
		return err;
	memset(&r, 0, sizeof(r));
	r.o = opts ? opts : &defaults;
	r.out.out = out;
	r.rng = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uintptr_t)&r;
	if (!r.rng)
		r.rng = 1;
	if ((err = fg_render_opts_check(r.o)) || (err = fg_palette_parse(r.o->palette, &r.pal)))
		goto done;
	if (r.o->palette_map && (err = fg_palette_map_load(&r.palmap, r.o->palette_map)))
		goto done;
	if (r.o->nameattr && (err = fg_nameattr_load(&r.na, r.o->nameattr)))
		goto done;
	if ((err = collect(f, r.o, &tmp, &st)))
		goto done;
	r.differential = fg_folded_is_differential(f);
	if ((err = count_samples(&r, &st)))
		goto done;
	if (r.samples == 0) {
		err = write_empty(&r);
		goto done;
	}
	if ((err = merge(&r, &st)))
		goto done;
	if (nframes)
		*nframes = r.nframes;
	if ((err = write_svg(&r)))
		goto done;
	if (r.palmap_dirty)
		err = fg_palette_map_save(&r.palmap, r.o->palette_map);
done:
	fg_folded_list_free(st.list);
	fg_folded_free(tmp);
	free(r.frames);
	free(r.open);
	fg_strmap_release(&r.palmap);
	fg_nameattr_release(&r.na);
	fg_strbuf_release(&r.out.buf);
	return err;
}

/* ---- the frames, for another writer (frames.h) -------------------------- */

uint32_t fg_rgraph_color(fg_rgraph *g, const fg_rframe *fr, int *err)
{
	struct render *r = g->priv;

	return color_of(r, fr, err);
}

int fg_rgraph_build(fg_rgraph *g, const fg_folded *f, const fg_render_opts *o)
{
	struct render *r;
	struct stacks *st;
	int err;

	memset(g, 0, sizeof(*g));
	if (!(r = fg_calloc(1, sizeof(*r))) || !(st = fg_calloc(1, sizeof(*st)))) {
		free(r);
		return FG_ENOMEM;
	}
	g->priv = r;
	g->stacks = st;
	r->o = o;
	r->rng = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uintptr_t)r;
	if (!r->rng)
		r->rng = 1;
	if ((err = fg_render_opts_check(o)) || (err = fg_palette_parse(o->palette, &r->pal)))
		return err;
	if (o->palette_map && (err = fg_palette_map_load(&r->palmap, o->palette_map)))
		return err;
	if ((err = collect(f, o, &g->tmp, st)))
		return err;
	r->differential = fg_folded_is_differential(f);
	if ((err = count_samples(r, st)))
		return err;
	if (r->samples == 0)
		return fg_error_set(FG_ENODATA, "no stack samples in the input — check that it holds "
				    "folded stacks ('frame;frame COUNT' lines)");
	if ((err = merge(r, st)))
		return err;
	g->frames = r->frames;
	g->n = r->nframes;
	g->depthmax = r->depthmax;
	g->samples = r->samples;
	g->timemax = r->timemax;
	g->maxdelta = r->maxdelta;
	g->differential = r->differential;
	return 0;
}

void fg_rgraph_bg(const fg_rgraph *g, const char **top, const char **bottom)
{
	const struct render *r = g->priv;

	bg_colors(r->o, r->pal, top, bottom);
}

int fg_rgraph_finish(fg_rgraph *g)
{
	struct render *r = g->priv;

	if (r && r->palmap_dirty)
		return fg_palette_map_save(&r->palmap, r->o->palette_map);
	return 0;
}

void fg_rgraph_release(fg_rgraph *g)
{
	struct render *r = g->priv;
	struct stacks *st = g->stacks;

	if (st)
		fg_folded_list_free(st->list);
	fg_folded_free(g->tmp);
	if (r) {
		free(r->frames);
		free(r->open);
		fg_strmap_release(&r->palmap);
	}
	free(r);
	free(st);
	memset(g, 0, sizeof(*g));
}
