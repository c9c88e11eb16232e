/* --nameattr FILE: extra SVG attributes for the frames of a function,
 * one line per name: "NAME<TAB>attr=value<TAB>...". title replaces the
 * tooltip, href (with target, a_extra) makes the frame a link, g_extra
 * adds raw name="value" pairs to its group; every value is escaped. */
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "nameattr.h"
#include "svgout.h"
#include "util/input.h"
#include "util/banned.h"

static bool attr_name_ok(fg_view k)
{
	size_t i;

	if (!k.len)
		return false;
	for (i = 0; i < k.len; i++) {
		char c = k.ptr[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
		      (i && ((c >= '0' && c <= '9') || c == '-' || c == '.'))))
			return false;
	}
	return true;
}

static void add_attr(fg_strbuf *sb, fg_view k, fg_view v)
{
	fg_svgout tmp = { *sb, NULL, 0 };

	fg_strbuf_addch(&tmp.buf, ' ');
	fg_strbuf_add(&tmp.buf, k.ptr, k.len);
	fg_strbuf_add(&tmp.buf, "=\"", 2);
	fg_svgout_xml(&tmp, v.ptr, v.len);
	fg_strbuf_addch(&tmp.buf, '"');
	*sb = tmp.buf;
}

/* g_extra / a_extra hold raw `k="v" k2="v2"` text: re-emitted pair by pair,
 * escaped, so a bad file cannot break the document. */
static int add_extra(fg_strbuf *sb, fg_view raw, const char *file, size_t lineno)
{
	const char *p = raw.ptr, *e = raw.ptr + raw.len;

	while (p < e) {
		const char *eq, *q1, *q2;
		while (p < e && *p == ' ')
			p++;
		if (p == e)
			break;
		eq = memchr(p, '=', (size_t)(e - p));
		if (!eq || eq + 1 >= e || eq[1] != '"' ||
		    !(q2 = memchr(eq + 2, '"', (size_t)(e - eq - 2))) ||
		    !attr_name_ok(fg_view_of(p, (size_t)(eq - p))))
			return fg_error_set(FG_EPARSE, "%s:%zu: extra attributes must be name=\"value\" pairs",
					    file, lineno);
		q1 = eq + 2;
		add_attr(sb, fg_view_of(p, (size_t)(eq - p)), fg_view_of(q1, (size_t)(q2 - q1)));
		p = q2 + 1;
	}
	return 0;
}

static int nameattr_line(struct fg_nameattr *na, fg_view line, const char *file, size_t lineno)
{
	const char *tab = memchr(line.ptr, '\t', line.len);
	const char *p, *e = line.ptr + line.len;
	fg_strbuf g = FG_STRBUF_INIT, a = FG_STRBUF_INIT;
	fg_view href = { NULL, 0 }, target = { "_top", 4 };
	struct fg_nameattr_set *set, *v;
	fg_strmap_entry *ent;
	int err = 0;

	if (!tab)
		return fg_error_set(FG_EPARSE, "%s:%zu: expected 'name<TAB>attr=value...'", file, lineno);
	if (!(v = fg_realloc_array(na->sets, na->nsets + 1, sizeof(*v))))
		return FG_ENOMEM;
	na->sets = v;
	set = &na->sets[na->nsets];
	memset(set, 0, sizeof(*set));
	fg_strbuf_init(&set->attrs, 0);
	for (p = tab + 1; p < e && !err;) {
		const char *t = memchr(p, '\t', (size_t)(e - p)), *fe = t ? t : e, *eq;
		fg_view k, val;

		eq = memchr(p, '=', (size_t)(fe - p));
		if (!eq || !attr_name_ok(k = fg_view_of(p, (size_t)(eq - p)))) {
			err = fg_error_set(FG_EPARSE, "%s:%zu: expected attr=value", file, lineno);
			break;
		}
		val = fg_view_of(eq + 1, (size_t)(fe - eq - 1));
		if (fg_view_eq(k, "title")) {
			free(set->title);
			set->title = fg_strndup(val.ptr, val.len);
		} else if (fg_view_eq(k, "href")) {
			href = val;
		} else if (fg_view_eq(k, "target")) {
			target = val;
		} else if (fg_view_eq(k, "g_extra")) {
			err = add_extra(&g, val, file, lineno);
		} else if (fg_view_eq(k, "a_extra")) {
			err = add_extra(&a, val, file, lineno);
		} else {
			add_attr(&set->attrs, k, val);
		}
		p = t ? t + 1 : e;
	}
	if (!err) {
		fg_strbuf_add(&set->attrs, g.buf, g.len);
		if (href.ptr) {
			set->link = true;
			add_attr(&set->attrs, fg_view_cstr("xlink:href"), href);
			add_attr(&set->attrs, fg_view_cstr("target"), target);
			fg_strbuf_add(&set->attrs, a.buf, a.len);
		}
		if (!(ent = fg_strmap_put(&na->names, line.ptr, (size_t)(tab - line.ptr))))
			err = FG_ENOMEM;
		else
			ent->value.u = ++na->nsets;
	}
	if (err) {
		free(set->title);
		fg_strbuf_release(&set->attrs);
	}
	fg_strbuf_release(&g);
	fg_strbuf_release(&a);
	return err;
}

int fg_nameattr_load(struct fg_nameattr *na, const char *path)
{
	char *data = NULL, *p, *e, *nl;
	size_t len, lineno = 0;
	int err;

	if ((err = fg_read_file(path, &data, &len)))
		return err;
	for (p = data, e = data + len; p < e && !err; p = nl + 1) {
		fg_view line;
		if (!(nl = memchr(p, '\n', (size_t)(e - p))))
			nl = e;
		lineno++;
		line = fg_view_of(p, (size_t)(nl - p));
		while (line.len && (line.ptr[line.len - 1] == '\r' || line.ptr[line.len - 1] == ' '))
			line.len--;
		if (line.len)
			err = nameattr_line(na, line, path, lineno);
	}
	free(data);
	return err;
}

void fg_nameattr_release(struct fg_nameattr *na)
{
	size_t i;

	for (i = 0; i < na->nsets; i++) {
		free(na->sets[i].title);
		fg_strbuf_release(&na->sets[i].attrs);
	}
	free(na->sets);
	fg_strmap_release(&na->names);
}
