/* The HTML viewer: the frames the SVG would draw (frames.h), written as
 * compact data beside the viewer's script (templates/viewer.js), which
 * draws them on a canvas.
 *
 * The page holds four data elements, read by the script once:
 *   fg-opts   JSON: the options, the totals, the names of cold frames
 *   fg-names  JSON: an array of the frames' names (each once)
 *   fg-colors "rrggbb" per name, in the names' order (empty for a
 *             differential graph, whose colours follow each frame's change)
 *   fg-nodes  the frames in pre-order (parents first, then their children
 *             left to right), each "UP,NAME,WIDTH,GAP;" in base 36, with
 *             ",DELTA" (signed) before the ";" in a differential graph:
 *             UP is how many levels above the previous frame's child it
 *             lies (0: a child of the previous frame), NAME an index into
 *             fg-names, WIDTH its samples, GAP the samples between it and
 *             its left sibling's end (or its parent's start), left by
 *             frames too narrow to keep. When GAP is 0 it is left out
 *             ("UP,NAME,WIDTH;"), and when UP is 0 too, UP as well
 *             ("NAME,WIDTH;"): the count of numbers tells which.
 * JSON and base 36 cannot hold "</script", so no name can end the element
 * it is in. */
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "flamegraph/render.h"
#include "frames.h"
#include "svgout.h"
#include "util/hashmap.h"
#include "util/version.h"
#include "util/banned.h"

extern const char fg_template_viewer_js[];
extern const size_t fg_template_viewer_js_len;
extern const char fg_template_viewer_css[];
extern const size_t fg_template_viewer_css_len;

struct html {
	const fg_render_opts *o;
	fg_rgraph g;
	fg_svgout out;
	fg_strmap names;     /* name (with a trailing '\1' when cold) -> index + 1 */
	const fg_rframe **byname; /* a frame of each name, by index */
	size_t nnames;
	uint32_t *name_of;   /* the name index of each frame */
	size_t *order;       /* frames in pre-order */
};

/* qsort has no context argument in C11: the frames are handed over here
 * for the one sort a render makes. */
static _Thread_local const fg_rframe *sort_frames;

static int cmp_order(const void *a, const void *b)
{
	const fg_rframe *fa = sort_frames + *(const size_t *)a;
	const fg_rframe *fb = sort_frames + *(const size_t *)b;

	if (fa->start != fb->start)
		return fa->start < fb->start ? -1 : 1;
	return fa->depth < fb->depth ? -1 : fa->depth > fb->depth;
}

/* Puts the frames in pre-order (by start, then depth: a parent starts
 * where its first child does, one level up) and names them in that
 * order, the root's name first. */
static int index_frames(struct html *h)
{
	fg_strbuf key = FG_STRBUF_INIT;
	size_t i, cap = 0;
	int err = 0;

	h->name_of = fg_malloc(h->g.n * sizeof(*h->name_of));
	h->order = fg_malloc(h->g.n * sizeof(*h->order));
	if (!h->name_of || !h->order)
		return FG_ENOMEM;
	for (i = 0; i < h->g.n; i++)
		h->order[i] = i;
	sort_frames = h->g.frames;
	qsort(h->order, h->g.n, sizeof(*h->order), cmp_order);
	sort_frames = NULL;
	for (i = 0; i < h->g.n && !err; i++) {
		const fg_rframe *fr = &h->g.frames[h->order[i]];
		fg_strmap_entry *e;

		fg_strbuf_reset(&key);
		fg_strbuf_add(&key, fr->name, fr->len);
		if (fr->cold)
			fg_strbuf_addch(&key, '\1');
		if ((err = fg_strbuf_check(&key)))
			break;
		if (!(e = fg_strmap_put(&h->names, key.buf, key.len))) {
			err = FG_ENOMEM;
			break;
		}
		if (!e->value.u) {
			if (h->nnames == cap) {
				size_t n = cap ? cap * 2 : 1024;
				const fg_rframe **v = fg_realloc_array(h->byname, n, sizeof(*v));
				if (!v) {
					err = FG_ENOMEM;
					break;
				}
				h->byname = v;
				cap = n;
			}
			h->byname[h->nnames++] = fr;
			e->value.u = h->nnames;
		}
		h->name_of[h->order[i]] = (uint32_t)(e->value.u - 1);
	}
	fg_strbuf_release(&key);
	return err;
}

static char *put_b36(char *p, uint64_t v)
{
	char tmp[16], *e = tmp + sizeof(tmp), *q = e;

	do {
		*--q = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
		v /= 36;
	} while (v);
	return fg_put_bytes(p, q, (size_t)(e - q));
}

static int write_nodes(struct html *h)
{
	fg_svgout *out = &h->out;
	/* the next frame's expected start at each depth */
	uint64_t *next = fg_calloc((size_t)h->g.depthmax + 2, sizeof(*next));
	long prev_depth = -1;
	size_t i;

	if (!next)
		return FG_ENOMEM;
	for (i = 0; i < h->g.n && !out->err; i++) {
		const fg_rframe *fr = &h->g.frames[h->order[i]];
		char *p = fg_svgout_room(out, 5 * 16);
		uint64_t up = (uint64_t)(prev_depth + 1 - (long)fr->depth);
		uint64_t gap = fr->start - next[fr->depth];
		double d = fr->delta;

		if (!p)
			break;
		/* most frames are the child of the one before, with no gap:
		 * their UP and GAP are left out */
		if (up || gap) {
			p = put_b36(p, up);
			*p++ = ',';
		}
		p = put_b36(p, h->name_of[h->order[i]]);
		*p++ = ',';
		p = put_b36(p, fr->end - fr->start);
		if (gap) {
			*p++ = ',';
			p = put_b36(p, gap);
		}
		if (h->g.differential) {
			*p++ = ',';
			if (d < 0) {
				*p++ = '-';
				d = -d;
			}
			p = put_b36(p, d < 1.8e19 ? (uint64_t)d : UINT64_MAX);
		}
		*p++ = ';';
		fg_svgout_wrote(out, p);
		next[fr->depth] = fr->end;
		next[fr->depth + 1] = fr->start;
		prev_depth = fr->depth;
	}
	free(next);
	return out->err;
}

static void key_str(fg_svgout *out, const char *key, const char *v)
{
	fg_svgout_str(out, ",\"");
	fg_svgout_str(out, key);
	fg_svgout_str(out, "\":");
	if (v)
		fg_svgout_json(out, v, strlen(v));
	else
		fg_svgout_str(out, "null");
}

static void key_num(fg_svgout *out, const char *key, double v, int decimals)
{
	fg_svgout_str(out, ",\"");
	fg_svgout_str(out, key);
	fg_svgout_str(out, "\":");
	if (v < 0) {
		fg_svgout_str(out, "-");
		v = -v;
	}
	fg_svgout_fixed(out, v, decimals);
}

static void key_bool(fg_svgout *out, const char *key, bool v)
{
	fg_svgout_str(out, ",\"");
	fg_svgout_str(out, key);
	fg_svgout_str(out, v ? "\":true" : "\":false");
}

static void write_opts(struct html *h)
{
	const fg_render_opts *o = h->o;
	fg_svgout *out = &h->out;
	const char *title = o->title, *bg1, *bg2;
	size_t i;
	bool first = true;

	if (!title)
		title = o->flamechart ? "Flame Chart" : o->inverted ? "Icicle Graph" : "Flame Graph";
	fg_rgraph_bg(&h->g, &bg1, &bg2);
	fg_svgout_str(out, "{\"format\":1");
	key_str(out, "title", title);
	key_str(out, "subtitle", o->subtitle);
	key_str(out, "notes", o->notes);
	key_str(out, "countName", o->count_name ? o->count_name : "samples");
	key_str(out, "nameType", o->name_type ? o->name_type : "Function:");
	key_str(out, "fontType", o->font_type ? o->font_type : "Verdana");
	key_str(out, "bg1", bg1);
	key_str(out, "bg2", bg2);
	key_str(out, "searchColor", o->search_color ? o->search_color : "rgb(230,0,230)");
	key_str(out, "strokeColor", o->stroke_color);
	key_str(out, "uiColor", o->ui_color);
	key_num(out, "factor", o->factor, 6);
	key_num(out, "fontSize", o->font_size, 2);
	key_num(out, "fontWidth", o->font_width, 4);
	key_num(out, "frameHeight", o->frame_height, 0);
	key_num(out, "imageWidth", o->image_width, 0);
	key_num(out, "minWidth", o->min_width, 4);
	key_bool(out, "minWidthPercent", o->min_width_percent);
	key_bool(out, "inverted", o->inverted);
	key_bool(out, "flamechart", o->flamechart);
	key_bool(out, "differential", h->g.differential);
	key_bool(out, "negate", o->negate);
	key_bool(out, "colorDiffusion", o->color_diffusion);
	key_num(out, "samples", (double)h->g.samples, 0);
	key_num(out, "timemax", h->g.timemax, 0);
	key_num(out, "maxdelta", h->g.maxdelta, 0);
	fg_svgout_str(out, ",\"cold\":[");
	for (i = 0; i < h->nnames; i++) {
		if (!h->byname[i]->cold)
			continue;
		if (!first)
			fg_svgout_str(out, ",");
		fg_svgout_u64(out, i);
		first = false;
	}
	fg_svgout_str(out, "]}");
}

static int write_names(struct html *h)
{
	fg_svgout *out = &h->out;
	size_t i;

	fg_svgout_str(out, "[");
	for (i = 0; i < h->nnames; i++) {
		const fg_rframe *fr = h->byname[i];

		if (i)
			fg_svgout_str(out, ",");
		fg_svgout_json(out, fr->name, fg_rframe_shown_len(fr->name, fr->len));
	}
	fg_svgout_str(out, "]");
	return out->err;
}

static int write_colors(struct html *h)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;
	int err = 0;

	if (h->g.differential)
		return 0;
	for (i = 0; i < h->nnames && !err && !h->out.err; i++) {
		uint32_t c = fg_rgraph_color(&h->g, h->byname[i], &err);
		char *p = fg_svgout_room(&h->out, 8);

		if (!p)
			break;
		for (int k = 20; k >= 0; k -= 4)
			*p++ = hex[c >> k & 15];
		fg_svgout_wrote(&h->out, p);
	}
	return err ? err : h->out.err;
}

static void put_title(struct html *h)
{
	const char *t = h->o->title;

	if (!t)
		t = h->o->flamechart ? "Flame Chart" : h->o->inverted ? "Icicle Graph" : "Flame Graph";
	fg_svgout_xml(&h->out, t, strlen(t));
}

static int write_page(struct html *h)
{
	fg_svgout *out = &h->out;
	int err;

	fg_svgout_str(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<link rel=\"icon\" href=\"data:,\">\n<title>");
	put_title(h);
	fg_svgout_str(out, "</title>\n<style>\n");
	fg_svgout_add(out, fg_template_viewer_css, fg_template_viewer_css_len);
	fg_svgout_str(out, "</style>\n</head>\n<body>\n<noscript><p>This flame graph is drawn by "
		      "JavaScript: allow scripts for this page.</p></noscript>\n"
		      "<script type=\"application/json\" id=\"fg-opts\">");
	write_opts(h);
	fg_svgout_str(out, "</script>\n<script type=\"application/json\" id=\"fg-names\">");
	if ((err = write_names(h)))
		return err;
	fg_svgout_str(out, "</script>\n<script type=\"text/plain\" id=\"fg-colors\">");
	if ((err = write_colors(h)))
		return err;
	fg_svgout_str(out, "</script>\n<script type=\"text/plain\" id=\"fg-nodes\">");
	if ((err = write_nodes(h)))
		return err;
	fg_svgout_str(out, "</script>\n<script>\n");
	fg_svgout_add(out, fg_template_viewer_js, fg_template_viewer_js_len);
	fg_svgout_str(out, "</script>\n</body></html>\n");
	fg_svgout_flush(out);
	return out->err;
}

/* With no samples: a page that says so, as the SVG does. */
static int write_empty(struct html *h)
{
	fg_svgout *out = &h->out;

	fg_svgout_str(out, "<!DOCTYPE html>\n<html lang=\"en\" data-ready=\"1\"><head>"
		      "<meta charset=\"utf-8\"><title>");
	put_title(h);
	fg_svgout_str(out, "</title></head>\n<body><p>ERROR: No valid input provided to "
		      "flamegraph: no samples</p></body></html>\n");
	fg_svgout_flush(out);
	return out->err;
}

int fg_render_html(const fg_folded *f, const fg_render_opts *opts, FILE *out)
{
	fg_render_opts defaults = FG_RENDER_OPTS_INIT;
	struct html h;
	int err;

	if (opts &&
	    (err = fg_opts_version_check("fg_render_opts", opts->version, FG_RENDER_OPTS_VERSION)))
		return err;
	memset(&h, 0, sizeof(h));
	h.o = opts ? opts : &defaults;
	h.out.out = out;
	err = fg_rgraph_build(&h.g, f, h.o);
	if (err == FG_ENODATA) {
		/* the empty page, then the error fg_rgraph_build set */
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", fg_error_last());
		if (!(err = write_empty(&h)))
			err = fg_error_set(FG_ENODATA, "%s", msg);
		goto done;
	}
	if (err || (err = index_frames(&h)) || (err = write_page(&h)))
		goto done;
	err = fg_rgraph_finish(&h.g);
done:
	fg_rgraph_release(&h.g);
	fg_strmap_release(&h.names);
	free(h.byname);
	free(h.name_of);
	free(h.order);
	fg_strbuf_release(&h.out.buf);
	return err;
}
