/* The variables of a Makefile: its assignments read line by line, and
 * their expansion (see makevars.h). */
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/project/make/vars.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/banned.h"

#define MAX_DEPTH 32
#define MAX_EXPANSION (1u << 20)

struct fg_makevars {
	fg_strmap vars; /* name -> malloc'd value (value.p) */
};

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* ---- expansion ------------------------------------------------------------ */

/* The variables being expanded, innermost first: a variable that
 * refers to itself expands to nothing there (make calls it an error). */
struct active {
	const char *name;
	const struct active *up;
};

static void expand(const fg_makevars *mv, const char *s, size_t n, fg_strbuf *out, int depth,
		   const struct active *act);

/* The end of a reference opened at s[0] ('(' or '{'): the index of its
 * closing bracket, nested brackets counted, or n when there is none. */
static size_t ref_end(const char *s, size_t n)
{
	char open = s[0], close = open == '(' ? ')' : '}';
	size_t level = 0, i;

	for (i = 0; i < n; i++) {
		if (s[i] == open)
			level++;
		else if (s[i] == close && --level == 0)
			return i;
	}
	return n;
}

/* $(VAR:from=to) and $(VAR:%from=%to): each word ending in `from` gets
 * `to` in its place. */
static void substitute(const char *value, const char *from, const char *to, fg_strbuf *out)
{
	size_t fl, tl;

	if (from[0] == '%' && to[0] == '%') {
		from++;
		to++;
	}
	fl = strlen(from);
	tl = strlen(to);
	for (const char *s = value; *s;) {
		size_t w;
		if (blank(*s) || *s == '\n') {
			fg_strbuf_addch(out, *s++);
			continue;
		}
		w = strcspn(s, " \t\n");
		if (w >= fl && !memcmp(s + w - fl, from, fl)) {
			fg_strbuf_add(out, s, w - fl);
			fg_strbuf_add(out, to, tl);
		} else
			fg_strbuf_add(out, s, w);
		s += w;
	}
}

static bool is_active(const struct active *act, const char *name)
{
	for (; act; act = act->up)
		if (!strcmp(act->name, name))
			return true;
	return false;
}

static void reference(const fg_makevars *mv, const char *name, size_t n, fg_strbuf *out, int depth,
		      const struct active *act)
{
	fg_strbuf key = FG_STRBUF_INIT, val = FG_STRBUF_INIT;
	const char *colon, *eq, *raw;

	/* the name may itself hold references: $(am__v_CC_$(V)) */
	expand(mv, name, n, &key, depth + 1, act);
	if (!key.buf || strpbrk(key.buf, " \t,"))
		goto done; /* a function call: not evaluated */
	colon = strchr(key.buf, ':');
	eq = colon ? strchr(colon, '=') : NULL;
	if (colon && eq) {
		key.buf[colon - key.buf] = '\0';
		key.buf[eq - key.buf] = '\0';
	}
	raw = fg_makevars_raw(mv, key.buf);
	if (!raw || is_active(act, key.buf))
		goto done;
	struct active me = { key.buf, act };
	if (!colon || !eq) {
		expand(mv, raw, strlen(raw), out, depth + 1, &me);
		goto done;
	}
	expand(mv, raw, strlen(raw), &val, depth + 1, &me);
	if (val.buf)
		substitute(val.buf, colon + 1, eq + 1, out);
done:
	fg_strbuf_release(&key);
	fg_strbuf_release(&val);
}

static void expand(const fg_makevars *mv, const char *s, size_t n, fg_strbuf *out, int depth,
		   const struct active *act)
{
	size_t i = 0;

	if (depth > MAX_DEPTH)
		return;
	while (i < n && out->len < MAX_EXPANSION) {
		const char *d = memchr(s + i, '$', n - i);
		size_t plain = d ? (size_t)(d - (s + i)) : n - i;
		fg_strbuf_add(out, s + i, plain);
		i += plain;
		if (i >= n)
			break;
		if (i + 1 >= n) {
			i++;
			break;
		}
		char c = s[i + 1];
		if (c == '$') {
			fg_strbuf_addch(out, '$');
			i += 2;
		} else if (c == '(' || c == '{') {
			size_t end = ref_end(s + i + 1, n - i - 1);
			if (end == n - i - 1) {
				/* unterminated: kept as written */
				fg_strbuf_add(out, s + i, n - i);
				break;
			}
			reference(mv, s + i + 2, end - 1, out, depth, act);
			i += end + 2;
		} else {
			reference(mv, s + i + 1, 1, out, depth, act);
			i += 2;
		}
	}
	if (out->len > MAX_EXPANSION)
		fg_strbuf_setlen(out, MAX_EXPANSION);
}

char *fg_makevars_expand(const fg_makevars *mv, const char *text)
{
	fg_strbuf sb = FG_STRBUF_INIT;

	fg_strbuf_addstr(&sb, "");
	expand(mv, text, strlen(text), &sb, 0, NULL);
	return fg_strbuf_detach(&sb, NULL);
}

const char *fg_makevars_raw(const fg_makevars *mv, const char *name)
{
	fg_strmap_entry *e = fg_strmap_get(&mv->vars, name, strlen(name));
	return e ? e->value.p : NULL;
}

int fg_makevars_words(const fg_makevars *mv, const char *name, fg_strvec *out)
{
	const char *raw = fg_makevars_raw(mv, name);
	char *value;
	int err = 0;

	if (!raw)
		return 0;
	if (!(value = fg_makevars_expand(mv, raw)))
		return FG_ENOMEM;
	for (char *s = value; *s && !err;) {
		size_t w;
		s += strspn(s, " \t\n");
		if (!(w = strcspn(s, " \t\n")))
			break;
		char *word = fg_strndup(s, w);
		err = word ? fg_strvec_push(out, word) : FG_ENOMEM;
		free(word);
		s += w;
	}
	free(value);
	return err;
}

/* ---- parsing ------------------------------------------------------------- */

static int set_var(fg_makevars *mv, const char *name, size_t nlen, char *value)
{
	fg_strmap_entry *e = fg_strmap_put(&mv->vars, name, nlen);

	if (!e) {
		free(value);
		return FG_ENOMEM;
	}
	free(e->value.p);
	e->value.p = value;
	return 0;
}

/* One logical line: an assignment is kept, anything else ignored. */
static int assignment(fg_makevars *mv, char *line)
{
	char *eq = strchr(line, '='), *name = line, *end, *value;
	fg_strmap_entry *e;
	char op = '=';
	size_t nlen;

	if (!eq || eq == line)
		return 0;
	end = eq;
	if (end > line && strchr(":+?!", end[-1])) {
		op = end[-1];
		end--;
		if (op == ':' && end > line && end[-1] == ':')
			end--;
	}
	while (blank(*name))
		name++;
	while (end > name && blank(end[-1]))
		end--;
	for (int k = 0; k < 2; k++) {
		static const char *const words[] = { "override ", "export " };
		size_t wl = strlen(words[k]);
		if ((size_t)(end - name) > wl && !strncmp(name, words[k], wl)) {
			name += wl;
			while (blank(*name))
				name++;
		}
	}
	nlen = (size_t)(end - name);
	/* a rule ("a: b = c" is a target's variable) or not a name */
	if (!nlen || memchr(name, ':', nlen) || memchr(name, ' ', nlen) || memchr(name, '\t', nlen))
		return 0;
	value = eq + 1;
	while (blank(*value))
		value++;
	e = fg_strmap_get(&mv->vars, name, nlen);
	if (op == '?' && e)
		return 0;
	if (op == '+' && e) {
		fg_strbuf sb = FG_STRBUF_INIT;
		char *joined;
		fg_strbuf_addf(&sb, "%s%s%s", (char *)e->value.p, *(char *)e->value.p ? " " : "", value);
		joined = fg_strbuf_detach(&sb, NULL);
		return joined ? set_var(mv, name, nlen, joined) : FG_ENOMEM;
	}
	if (op == ':') {
		char *now = fg_makevars_expand(mv, value);
		return now ? set_var(mv, name, nlen, now) : FG_ENOMEM;
	}
	if (op == '!')
		value = ""; /* a shell command's output: not run */
	char *copy = fg_strdup(value);
	return copy ? set_var(mv, name, nlen, copy) : FG_ENOMEM;
}

/* A comment starts at a '#' that no backslash escapes. */
static void strip_comment(fg_strbuf *line)
{
	for (size_t i = 0; i < line->len; i++) {
		if (line->buf[i] == '#' && (i == 0 || line->buf[i - 1] != '\\')) {
			fg_strbuf_setlen(line, i);
			return;
		}
	}
}

/* The next logical line from text[*pos]: continuations joined by one
 * space. *recipe: its first physical line starts with a tab. */
static bool next_line(const char *text, size_t len, size_t *pos, fg_strbuf *line, bool *recipe)
{
	size_t i = *pos;

	if (i >= len)
		return false;
	fg_strbuf_reset(line);
	*recipe = text[i] == '\t';
	for (;;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len, k = end, slashes = 0;
		if (k > i && text[k - 1] == '\r')
			k--;
		while (k > i + slashes && text[k - 1 - slashes] == '\\')
			slashes++;
		if (slashes % 2 == 0 || !nl) {
			fg_strbuf_add(line, text + i, k - i);
			i = nl ? end + 1 : len;
			break;
		}
		k--;
		while (k > i && blank(text[k - 1]))
			k--;
		fg_strbuf_add(line, text + i, k - i);
		fg_strbuf_addch(line, ' ');
		i = end + 1;
		while (i < len && blank(text[i]))
			i++;
	}
	*pos = i;
	fg_strbuf_addstr(line, "");
	return true;
}

int fg_makevars_parse(fg_makevars **out, const char *text, size_t len)
{
	fg_makevars *mv = fg_calloc(1, sizeof(*mv));
	fg_strbuf line = FG_STRBUF_INIT;
	size_t pos = 0;
	bool recipe, in_define = false;
	int err = 0;

	*out = NULL;
	if (!mv)
		return FG_ENOMEM;
	while (!err && next_line(text, len, &pos, &line, &recipe)) {
		fg_view v;
		if (!line.buf) {
			err = FG_ENOMEM;
			break;
		}
		v = fg_view_trim(fg_view_cstr(line.buf));
		if (in_define) {
			in_define = !fg_view_eq(v, "endef");
			continue;
		}
		if (recipe)
			continue;
		if (fg_view_starts_with(v, "define ") || fg_view_starts_with(v, "define\t")) {
			in_define = true;
			continue;
		}
		strip_comment(&line);
		err = assignment(mv, line.buf);
	}
	fg_strbuf_release(&line);
	if (err) {
		fg_makevars_free(mv);
		return err;
	}
	*out = mv;
	return 0;
}

void fg_makevars_free(fg_makevars *mv)
{
	fg_strmap_entry *e;
	size_t it = 0;

	if (!mv)
		return;
	while ((e = fg_strmap_next(&mv->vars, &it)))
		free(e->value.p);
	fg_strmap_release(&mv->vars);
	free(mv);
}
