/* fg_strvec (util/strvec.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "util/strvec.h"
#include "util/banned.h"

int fg_strvec_push(fg_strvec *sv, const char *s)
{
	char *copy;

	if (sv->failed)
		return fg_error_set(FG_ENOMEM, "out of memory");
	if (sv->n + 2 > sv->alloc) {
		size_t n = sv->alloc ? sv->alloc * 2 : 8;
		char **p = fg_realloc_array(sv->v, n, sizeof(*p));
		if (!p) {
			sv->failed = true;
			return FG_ENOMEM;
		}
		sv->v = p;
		sv->alloc = n;
	}
	if (!(copy = fg_strdup(s))) {
		sv->failed = true;
		return FG_ENOMEM;
	}
	sv->v[sv->n++] = copy;
	sv->v[sv->n] = NULL;
	return 0;
}

int fg_strvec_pushf(fg_strvec *sv, const char *fmt, ...)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = fg_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (err == FG_ENOMEM)
		sv->failed = true;
	if (!err)
		err = fg_strvec_push(sv, sb.buf);
	fg_strbuf_release(&sb);
	return err;
}

int fg_strvec_pushv(fg_strvec *sv, const char *const *items, size_t n)
{
	size_t i;
	int err;

	for (i = 0; i < n; i++)
		if ((err = fg_strvec_push(sv, items[i])))
			return err;
	return 0;
}

void fg_strvec_clear(fg_strvec *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->alloc = 0;
	sv->failed = false;
}

static int push_word(fg_strvec *sv, const fg_strbuf *word)
{
	if (fg_strbuf_failed(word)) {
		sv->failed = true;
		return fg_strbuf_check(word);
	}
	return fg_strvec_push(sv, word->buf);
}

int fg_strvec_split(fg_strvec *sv, const char *s)
{
	fg_strbuf word = FG_STRBUF_INIT;
	int in_word = 0, err = 0;
	char quote = 0;

	for (;; s++) {
		char c = *s;
		if (!c) {
			if (quote) {
				err = fg_error_set(FG_EPARSE, "unterminated %c quote", quote);
				break;
			}
			if (in_word)
				err = push_word(sv, &word);
			break;
		}
		if (quote == '\'') {
			if (c == '\'')
				quote = 0;
			else
				fg_strbuf_addch(&word, c);
		} else if (quote == '"') {
			if (c == '"')
				quote = 0;
			else if (c == '\\' && (s[1] == '"' || s[1] == '\\' || s[1] == '$' || s[1] == '`'))
				fg_strbuf_addch(&word, *++s);
			else
				fg_strbuf_addch(&word, c);
		} else if (c == ' ' || c == '\t' || c == '\n') {
			if (in_word && (err = push_word(sv, &word)))
				break;
			fg_strbuf_reset(&word);
			in_word = 0;
		} else {
			in_word = 1;
			if (c == '\'' || c == '"')
				quote = c;
			else if (c == '\\' && s[1])
				fg_strbuf_addch(&word, *++s);
			else
				fg_strbuf_addch(&word, c);
		}
	}
	fg_strbuf_release(&word);
	return err;
}

void fg_strvec_join_quoted(const fg_strvec *sv, fg_strbuf *out)
{
	size_t i;

	for (i = 0; i < sv->n; i++) {
		const char *a = sv->v[i];
		if (i)
			fg_strbuf_addch(out, ' ');
		if (*a && !a[strcspn(a, " \t\n'\"\\$`*?;&|<>()[]{}!#~")]) {
			fg_strbuf_addstr(out, a);
			continue;
		}
		fg_strbuf_addch(out, '\'');
		for (; *a; a++) {
			if (*a == '\'')
				fg_strbuf_addstr(out, "'\\''");
			else
				fg_strbuf_addch(out, *a);
		}
		fg_strbuf_addch(out, '\'');
	}
}
