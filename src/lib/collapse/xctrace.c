/* Instruments' Time Profiler data as `xctrace export --xpath
 * '/trace-toc/run/data/table[@schema="time-profile"]'` writes it (any run):
 *
 *   <trace-query-result><node ...><schema .../>
 *   <row>...<backtrace id="15"><frame id="16" name="main" addr="0x1"><binary .../></frame>
 *           <frame ref="13"/></backtrace></row>
 *   <row>...<backtrace ref="15"/></row>
 *   </node></trace-query-result>
 *
 * Every row is one sample of its backtrace (frames leaf first); frames and
 * backtraces are written once with an id and referred to by it after
 * that. The XML is read a tag at a time, a tag possibly spanning lines;
 * the names and frame lists seen are kept for the references. */
#include <stdlib.h>
#include <string.h>

#include "lib/collapse/internal.h"
#include "util/banned.h"

enum kind { K_OTHER, K_RESULT, K_NODE, K_ROW, K_BACKTRACE, K_FRAME };

struct xct_state {
	bool in_tag, done, seen_result;
	char quote;            /* inside an attribute value of the tag */
	fg_strbuf tag;         /* the tag being read, without < > */
	fg_strbuf kinds;       /* open elements, one enum kind each */
	fg_strmap frame_ids, bt_ids; /* id -> slot + 1 */
	fg_strbuf names;       /* frame names, unescaped */
	size_t *name_end, nframes, aframes;
	size_t *pool, npool, apool;   /* backtraces' frame slots */
	size_t *bt_start, *bt_len, nbts, abts;
	size_t bt_open_start;  /* pool index where the open <backtrace> began */
	fg_strbuf bt_open_id;  /* and its id */
	bool row_has_bt;
	size_t row_bt;
};

static bool grow(void **arr, size_t *alloc, size_t need, size_t size)
{
	void *p;
	size_t n;

	if (need <= *alloc)
		return true;
	n = *alloc ? *alloc * 2 : 256;
	while (n < need)
		n *= 2;
	if (!(p = fg_realloc_array(*arr, n, size)))
		return false;
	*arr = p;
	*alloc = n;
	return true;
}

/* The value of attribute `key` in tag text t (after its name). */
static bool attr(fg_view t, const char *key, fg_view *out)
{
	size_t klen = strlen(key);
	const char *p = t.ptr, *end = t.ptr + t.len, *k, *q;

	while (p < end && *p != ' ' && *p != '\t' && *p != '/')
		p++;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '/'))
			p++;
		for (k = p; p < end && *p != '=' && *p != ' ' && *p != '\t'; p++)
			;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end || *p != '=')
			return false;
		for (p++; p < end && (*p == ' ' || *p == '\t'); p++)
			;
		if (p >= end || (*p != '"' && *p != '\''))
			return false;
		if (!(q = memchr(p + 1, *p, (size_t)(end - p - 1))))
			return false;
		if ((size_t)(p - k) >= klen && !memcmp(k, key, klen) &&
		    (k + klen == p || k[klen] == '=' || k[klen] == ' ' || k[klen] == '\t')) {
			*out = fg_view_of(p + 1, (size_t)(q - p - 1));
			return true;
		}
		p = q + 1;
	}
	return false;
}

/* Appends v to sb with the XML entities decoded. */
static int unescape(fg_strbuf *sb, fg_view v)
{
	static const struct { const char *e; char c; } ents[] = {
		{ "&lt;", '<' }, { "&gt;", '>' }, { "&amp;", '&' }, { "&quot;", '"' }, { "&apos;", '\'' },
	};
	size_t i = 0, k;
	int err = 0;

	while (i < v.len && !err) {
		const char *semi;
		if (v.ptr[i] != '&' || !(semi = memchr(v.ptr + i, ';', v.len - i)) || semi - (v.ptr + i) > 10) {
			err = fg_strbuf_add(sb, v.ptr + i++, 1);
			continue;
		}
		for (k = 0; k < sizeof(ents) / sizeof(ents[0]); k++)
			if ((size_t)(semi + 1 - (v.ptr + i)) == strlen(ents[k].e) &&
			    !memcmp(v.ptr + i, ents[k].e, strlen(ents[k].e)))
				break;
		if (k < sizeof(ents) / sizeof(ents[0])) {
			err = fg_strbuf_add(sb, &ents[k].c, 1);
		} else if (v.ptr[i + 1] == '#') {
			unsigned long cp = strtoul(v.ptr + i + 2 + (v.ptr[i + 2] == 'x'), NULL,
						   v.ptr[i + 2] == 'x' ? 16 : 10);
			char u[4];
			size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
			if (!cp || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000))
				cp = 0xFFFD, n = 3;
			if (n == 1) { u[0] = (char)cp; }
			else if (n == 2) { u[0] = (char)(0xC0 | cp >> 6); u[1] = (char)(0x80 | (cp & 0x3F)); }
			else if (n == 3) { u[0] = (char)(0xE0 | cp >> 12); u[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); u[2] = (char)(0x80 | (cp & 0x3F)); }
			else { u[0] = (char)(0xF0 | cp >> 18); u[1] = (char)(0x80 | ((cp >> 12) & 0x3F)); u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); u[3] = (char)(0x80 | (cp & 0x3F)); }
			err = fg_strbuf_add(sb, u, n);
		} else {
			err = fg_strbuf_add(sb, "&", 1);
			i++;
			continue;
		}
		i = (size_t)(semi + 1 - v.ptr);
	}
	return err;
}

static int push_pool(struct xct_state *st, size_t slot)
{
	if (!grow((void **)&st->pool, &st->apool, st->npool + 1, sizeof(size_t)))
		return FG_ENOMEM;
	st->pool[st->npool++] = slot;
	return 0;
}

/* <frame id= name=> or <frame ref=/> into the open backtrace. */
static int frame_tag(fg_lctx *x, struct xct_state *st, fg_view t)
{
	fg_view id, name;
	fg_strmap_entry *e;

	if (attr(t, "ref", &id)) {
		if (!(e = fg_strmap_get(&st->frame_ids, id.ptr, id.len)))
			return fg_lctx_fail(x, "<frame ref=\"%.*s\"/> refers to no frame before it",
					    (int)(id.len > 20 ? 20 : id.len), id.ptr);
		return push_pool(st, (size_t)e->value.u - 1);
	}
	if (!attr(t, "id", &id) || !attr(t, "name", &name))
		return fg_lctx_fail(x, "a <frame> without id and name (or ref) — is this an xctrace "
				    "time-profile export?");
	if (!(e = fg_strmap_put(&st->frame_ids, id.ptr, id.len)) ||
	    !grow((void **)&st->name_end, &st->aframes, st->nframes + 1, sizeof(size_t)) ||
	    unescape(&st->names, name))
		return FG_ENOMEM;
	st->name_end[st->nframes] = st->names.len;
	e->value.u = ++st->nframes;
	return push_pool(st, st->nframes - 1);
}

static int add_backtrace(struct xct_state *st, fg_view id, size_t start)
{
	fg_strmap_entry *e;

	if (!grow((void **)&st->bt_start, &st->abts, st->nbts + 1, sizeof(size_t)) ||
	    !(st->bt_len = fg_realloc_array(st->bt_len, st->abts, sizeof(size_t))) ||
	    !(e = fg_strmap_put(&st->bt_ids, id.ptr, id.len)))
		return FG_ENOMEM;
	st->bt_start[st->nbts] = start;
	st->bt_len[st->nbts] = st->npool - start;
	e->value.u = ++st->nbts;
	st->row_has_bt = true;
	st->row_bt = st->nbts - 1;
	return 0;
}

static void emit_row(fg_lctx *x, struct xct_state *st)
{
	size_t b = st->row_bt, i;

	for (i = 0; i < st->bt_len[b]; i++) {
		size_t f = st->pool[st->bt_start[b] + i], s = f ? st->name_end[f - 1] : 0;
		fg_view name = fg_cworker_fix_rust(x->w, fg_view_of(st->names.buf + s, st->name_end[f] - s));
		if (!fg_cworker_push(x->w, name.ptr, name.len,
				     memchr(name.ptr, ';', name.len) ? FG_FRAME_SEMI : FG_SUFFIX_NONE))
			return;
	}
	fg_cworker_emit(x->w, "", 0, 1);
	x->w->samples++;
	x->w->nframes = 0;
}

static enum kind kind_of(enum kind parent, fg_view name, bool top)
{
	if (top && fg_view_eq(name, "trace-query-result"))
		return K_RESULT;
	if (parent == K_RESULT && fg_view_eq(name, "node"))
		return K_NODE;
	if (parent == K_NODE && fg_view_eq(name, "row"))
		return K_ROW;
	if (parent == K_ROW && fg_view_eq(name, "backtrace"))
		return K_BACKTRACE;
	if (parent == K_BACKTRACE && fg_view_eq(name, "frame"))
		return K_FRAME;
	return K_OTHER;
}

static int end_tag(fg_lctx *x, struct xct_state *st, enum kind k)
{
	enum kind parent = st->kinds.len ? (enum kind)st->kinds.buf[st->kinds.len - 1] : K_OTHER;

	if (k == K_RESULT && !st->kinds.len)
		st->done = true;
	else if (k == K_ROW && st->row_has_bt)
		emit_row(x, st);
	else if (k == K_BACKTRACE && parent == K_ROW)
		return add_backtrace(st, fg_view_of(st->bt_open_id.buf, st->bt_open_id.len),
				     st->bt_open_start);
	return 0;
}

static int tag(fg_lctx *x, struct xct_state *st, fg_view t)
{
	enum kind parent = st->kinds.len ? (enum kind)st->kinds.buf[st->kinds.len - 1] : K_OTHER, k;
	bool closing = t.len && t.ptr[0] == '/', empty = t.len && t.ptr[t.len - 1] == '/';
	fg_view name = t, id;
	size_t n = 0;
	char c;

	if (!t.len || t.ptr[0] == '?' || t.ptr[0] == '!')
		return 0;
	if (closing)
		name = fg_view_of(t.ptr + 1, t.len - 1);
	while (n < name.len && !memchr(" \t/", name.ptr[n], 3))
		n++;
	name.len = n;
	if (closing) {
		if (!st->kinds.len)
			return fg_lctx_fail(x, "</%.*s> closes no open element", (int)(n > 40 ? 40 : n), name.ptr);
		k = (enum kind)st->kinds.buf[--st->kinds.len];
		return end_tag(x, st, k);
	}
	k = kind_of(parent, name, !st->kinds.len);
	if (k == K_RESULT)
		st->seen_result = true;
	if (empty) {
		if (parent == K_ROW && fg_view_eq(name, "backtrace")) {
			fg_strmap_entry *e;
			if (attr(t, "ref", &id)) {
				if (!(e = fg_strmap_get(&st->bt_ids, id.ptr, id.len)))
					return fg_lctx_fail(x, "<backtrace ref=\"%.*s\"/> refers to no "
							    "backtrace before it",
							    (int)(id.len > 20 ? 20 : id.len), id.ptr);
				st->row_has_bt = true;
				st->row_bt = (size_t)e->value.u - 1;
				return 0;
			}
			if (!attr(t, "id", &id))
				return fg_lctx_fail(x, "a <backtrace/> without id or ref");
			return add_backtrace(st, id, st->npool);
		}
		if (parent == K_BACKTRACE && fg_view_eq(name, "frame"))
			return frame_tag(x, st, t);
		return 0;
	}
	if (k == K_ROW)
		st->row_has_bt = false;
	if (k == K_BACKTRACE) {
		if (!attr(t, "id", &id))
			return fg_lctx_fail(x, "a <backtrace> without id");
		/* registered at its end, under this id */
		st->bt_open_start = st->npool;
		fg_strbuf_reset(&st->bt_open_id);
		if (fg_strbuf_add(&st->bt_open_id, id.ptr, id.len))
			return FG_ENOMEM;
	}
	if (k == K_FRAME) {
		int err = frame_tag(x, st, t);
		if (err)
			return err;
	}
	c = (char)k;
	return fg_strbuf_add(&st->kinds, &c, 1);
}

static int xct_line(fg_lctx *x, void *state, fg_view line)
{
	struct xct_state *st = state;
	const char *p = line.ptr, *end = line.ptr + line.len;
	int err = 0;

	while (p < end && !err && !st->done) {
		if (!st->in_tag) {
			const char *lt = memchr(p, '<', (size_t)(end - p));
			if (!lt)
				break;
			st->in_tag = true;
			st->quote = 0;
			fg_strbuf_reset(&st->tag);
			p = lt + 1;
			continue;
		}
		/* inside a tag: up to its '>' outside quotes */
		const char *s = p;
		while (p < end && (st->quote || *p != '>')) {
			if (st->quote ? *p == st->quote : (*p == '"' || *p == '\''))
				st->quote = st->quote ? 0 : *p;
			p++;
		}
		if ((err = fg_strbuf_add(&st->tag, s, (size_t)(p - s))))
			break;
		if (st->tag.len > FG_CMAX_LINE)
			return fg_lctx_fail(x, "an XML tag longer than 16 MiB");
		if (p == end)
			return fg_strbuf_add(&st->tag, " ", 1); /* the tag goes on */
		p++;
		if (st->tag.len >= 3 && !memcmp(st->tag.buf, "!--", 3) &&
		    (st->tag.len < 5 || memcmp(st->tag.buf + st->tag.len - 2, "--", 2))) {
			if ((err = fg_strbuf_add(&st->tag, ">", 1)))
				break;
			continue; /* a '>' inside a comment */
		}
		st->in_tag = false;
		err = tag(x, st, fg_view_of(st->tag.buf, st->tag.len));
	}
	return err;
}

static int xct_end(fg_lctx *x, void *state)
{
	struct xct_state *st = state;

	if (!st->seen_result) {
		fg_cworker_warn(x->w, FG_CWARN_NOSTART, x->seq, x->line);
		return 0;
	}
	if (!st->done)
		return fg_lctx_fail(x, "the XML ends before </trace-query-result> — a cut-off export?");
	return 0;
}

static void xct_release(void *state)
{
	struct xct_state *st = state;

	fg_strbuf_release(&st->tag);
	fg_strbuf_release(&st->kinds);
	fg_strbuf_release(&st->names);
	fg_strbuf_release(&st->bt_open_id);
	fg_strmap_release(&st->frame_ids);
	fg_strmap_release(&st->bt_ids);
	free(st->name_end);
	free(st->pool);
	free(st->bt_start);
	free(st->bt_len);
}

const fg_lformat fg_lformat_xctrace = {
	sizeof(struct xct_state), xct_line, xct_end, xct_release,
};
