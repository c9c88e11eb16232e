#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "flamegraph/error.h"
#include "util/strbuf.h"
#include "util/banned.h"

char fg_strbuf_empty[1];

void fg_strbuf_init(fg_strbuf *sb, size_t hint)
{
	sb->buf = fg_strbuf_empty;
	sb->len = sb->alloc = sb->cap = 0;
	sb->failed = false;
	if (hint)
		fg_strbuf_grow(sb, hint);
}

void fg_strbuf_release(fg_strbuf *sb)
{
	size_t cap = sb->cap;

	if (sb->alloc)
		free(sb->buf);
	fg_strbuf_init(sb, 0);
	sb->cap = cap;
}

char *fg_strbuf_detach(fg_strbuf *sb, size_t *len)
{
	char *out;

	if (sb->failed) {
		fg_strbuf_release(sb);
		fg_error_set(FG_ENOMEM, "out of memory");
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = sb->len;
	out = sb->alloc ? sb->buf : fg_strdup("");
	sb->buf = fg_strbuf_empty;
	sb->len = sb->alloc = 0;
	return out;
}

int fg_strbuf_grow(fg_strbuf *sb, size_t extra)
{
	size_t need, n;
	char *p;

	if (sb->failed)
		return fg_error_set(FG_ENOMEM, "out of memory");
	if (!fg_add_size(sb->len, extra, &need) || !fg_add_size(need, 1, &need)) {
		sb->failed = true;
		return fg_error_set(FG_ENOMEM, "buffer size overflow");
	}
	if (sb->cap && need - 1 > sb->cap)
		return fg_error_set(FG_ELIMIT, "buffer limit of %zu bytes reached", sb->cap);
	if (need <= sb->alloc)
		return 0;
	n = sb->alloc ? sb->alloc : 64;
	while (n < need)
		if (!fg_mul_size(n, 2, &n)) {
			sb->failed = true;
			return fg_error_set(FG_ENOMEM, "buffer size overflow");
		}
	p = realloc(sb->alloc ? sb->buf : NULL, n);
	if (!p) {
		sb->failed = true;
		return fg_nomem(n);
	}
	if (!sb->alloc)
		p[0] = '\0';
	sb->buf = p;
	sb->alloc = n;
	return 0;
}

int fg_strbuf_add(fg_strbuf *sb, const void *data, size_t len)
{
	int err = fg_strbuf_grow(sb, len);

	if (err == FG_ELIMIT && sb->cap > sb->len) {
		/* keep what fits, then report the cap */
		fg_strbuf_add(sb, data, sb->cap - sb->len);
		return FG_ELIMIT;
	}
	if (err)
		return err;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return 0;
}

int fg_strbuf_addstr(fg_strbuf *sb, const char *s)
{
	return fg_strbuf_add(sb, s, strlen(s));
}

int fg_strbuf_addch(fg_strbuf *sb, char c)
{
	return fg_strbuf_add(sb, &c, 1);
}

int fg_strbuf_vaddf(fg_strbuf *sb, const char *fmt, va_list ap)
{
	va_list copy;
	int n, err;

	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return fg_error_set(FG_EINVAL, "bad format string");
	if ((err = fg_strbuf_grow(sb, (size_t)n)))
		return err;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
	return 0;
}

int fg_strbuf_addf(fg_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = fg_strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	return err;
}

int fg_strbuf_check(const fg_strbuf *sb)
{
	return sb->failed ? fg_error_set(FG_ENOMEM, "out of memory") : 0;
}

void fg_strbuf_setlen(fg_strbuf *sb, size_t len)
{
	if (!sb->alloc)
		return;
	sb->len = len < sb->len ? len : sb->len;
	sb->buf[sb->len] = '\0';
}

static bool is_trim_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

fg_view fg_view_trim(fg_view v)
{
	while (v.len && is_trim_space(v.ptr[0])) {
		v.ptr++;
		v.len--;
	}
	while (v.len && is_trim_space(v.ptr[v.len - 1]))
		v.len--;
	return v;
}

int fg_parse_u64(fg_view v, unsigned long long *out)
{
	unsigned long long n = 0;
	size_t i;

	if (!v.len)
		return FG_EPARSE;
	for (i = 0; i < v.len; i++) {
		unsigned d = (unsigned char)v.ptr[i] - '0';
		if (d > 9)
			return FG_EPARSE;
		if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, d, &n))
			return FG_ELIMIT;
	}
	*out = n;
	return 0;
}

int fg_parse_i64(fg_view v, long long *out)
{
	unsigned long long u;
	bool neg = v.len && v.ptr[0] == '-';
	int err;

	if (v.len && (v.ptr[0] == '-' || v.ptr[0] == '+')) {
		v.ptr++;
		v.len--;
	}
	if ((err = fg_parse_u64(v, &u)))
		return err;
	if (u > (unsigned long long)9223372036854775807LL + neg)
		return FG_ELIMIT;
	*out = neg ? (long long)(0 - u) : (long long)u;
	return 0;
}

int fg_parse_double(fg_view v, double *out)
{
	char tmp[64], *end;
	double d;

	if (!v.len || v.len >= sizeof(tmp))
		return FG_EPARSE;
	memcpy(tmp, v.ptr, v.len);
	tmp[v.len] = '\0';
	errno = 0;
	d = strtod(tmp, &end);
	if (end != tmp + v.len || isnan(d))
		return FG_EPARSE;
	if (errno == ERANGE && isinf(d))
		return FG_ELIMIT;
	*out = d;
	return 0;
}

static atomic_ulong nomem_count;

unsigned long fg_error_nomem_count(void)
{
	return atomic_load(&nomem_count);
}

int fg_nomem(size_t bytes)
{
	atomic_fetch_add(&nomem_count, 1);
	return fg_error_set(FG_ENOMEM, "out of memory (%zu bytes)", bytes);
}

void *fg_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fg_nomem(n);
	return p;
}

void *fg_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		fg_nomem(n * size);
	return p;
}

void *fg_realloc_array(void *p, size_t n, size_t size)
{
	size_t bytes;
	void *q;

	if (!fg_mul_size(n, size, &bytes)) {
		fg_error_set(FG_ENOMEM, "array size overflow");
		return NULL;
	}
	q = realloc(p, bytes ? bytes : 1);
	if (!q)
		fg_nomem(bytes);
	return q;
}

int fg_alloc_grow(void *arrp, size_t need, size_t *alloc, size_t elem_size, size_t first)
{
	size_t n = *alloc ? *alloc : (first ? first : 1);
	void *old, *grown;

	while (n < need)
		if (!fg_mul_size(n, 2, &n))
			return fg_error_set(FG_ENOMEM, "array size overflow");
	/* arrp points at a pointer of some element type: copy it as bytes */
	memcpy(&old, arrp, sizeof(old));
	if (!(grown = fg_realloc_array(old, n, elem_size)))
		return FG_ENOMEM;
	memcpy(arrp, &grown, sizeof(grown));
	*alloc = n;
	return 0;
}

char *fg_strndup(const char *s, size_t n)
{
	char *p = fg_malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}
