/* fg_strbuf: a growable, always NUL-terminated byte buffer (git's strbuf),
 * with an optional size cap for hostile input; fg_view: a borrowed
 * {ptr, len} slice.
 *
 * Allocation failure is sticky (docs/ARCHITECTURE.md, "Out of memory"):
 * once a growth fails, every later append does nothing and returns
 * FG_ENOMEM, and fg_strbuf_failed() says so until the buffer is released.
 * A build-up of many appends may ignore their results and check
 * fg_strbuf_failed() once, before the text is used. */
#ifndef FG_UTIL_STRBUF_H
#define FG_UTIL_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct fg_strbuf {
	char *buf;     /* never NULL: points at a static "" until first growth */
	size_t len;    /* bytes used, not counting the NUL */
	size_t alloc;  /* bytes allocated (0: buf is the static "") */
	size_t cap;    /* 0: unlimited; else len never exceeds cap */
	bool failed;   /* an allocation failed: the text is incomplete */
} fg_strbuf;

extern char fg_strbuf_empty[];
#define FG_STRBUF_INIT { fg_strbuf_empty, 0, 0, 0, false }

void fg_strbuf_init(fg_strbuf *sb, size_t hint);
void fg_strbuf_release(fg_strbuf *sb);
/* Hands the buffer to the caller (free() it) and resets sb. NULL (with
 * FG_ENOMEM set) when an allocation failed, now or in an earlier append:
 * the buffer is then released. */
char *fg_strbuf_detach(fg_strbuf *sb, size_t *len);

/* Growth and appends return 0, or FG_ENOMEM (sticky: see above) /
 * FG_ELIMIT (cap reached; the buffer then holds what fitted). */
int fg_strbuf_grow(fg_strbuf *sb, size_t extra);
int fg_strbuf_add(fg_strbuf *sb, const void *data, size_t len);
int fg_strbuf_addstr(fg_strbuf *sb, const char *s);
int fg_strbuf_addch(fg_strbuf *sb, char c);
int fg_strbuf_addf(fg_strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int fg_strbuf_vaddf(fg_strbuf *sb, const char *fmt, va_list ap);
void fg_strbuf_setlen(fg_strbuf *sb, size_t len);
/* Empties the buffer; a failure stays (the build-up it belongs to failed). */
static inline void fg_strbuf_reset(fg_strbuf *sb) { fg_strbuf_setlen(sb, 0); }
/* Whether an allocation for sb failed since it was initialised or
 * released: its text is then incomplete and must not be used. */
static inline bool fg_strbuf_failed(const fg_strbuf *sb) { return sb->failed; }
/* 0, or FG_ENOMEM (set as the thread's error) if sb failed: the one check
 * at the end of a build-up. */
int fg_strbuf_check(const fg_strbuf *sb);

/* A borrowed slice of bytes; not NUL-terminated. */
typedef struct fg_view {
	const char *ptr;
	size_t len;
} fg_view;

static inline fg_view fg_view_of(const char *p, size_t n)
{
	fg_view v = { p, n };
	return v;
}
static inline fg_view fg_view_cstr(const char *s)
{
	return fg_view_of(s, strlen(s));
}
/* Whether s is one of the strings of a NULL-terminated list. */
static inline bool fg_str_in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

static inline bool fg_view_eq(fg_view a, const char *s)
{
	size_t n = strlen(s);
	return a.len == n && memcmp(a.ptr, s, n) == 0;
}
static inline bool fg_view_starts_with(fg_view a, const char *s)
{
	size_t n = strlen(s);
	return a.len >= n && memcmp(a.ptr, s, n) == 0;
}
static inline bool fg_view_ends_with(fg_view a, const char *s)
{
	size_t n = strlen(s);
	return a.len >= n && memcmp(a.ptr + a.len - n, s, n) == 0;
}
/* Strips ASCII spaces, tabs, CR and LF from both ends. */
fg_view fg_view_trim(fg_view v);

/* Overflow-checked size arithmetic: return false on overflow. */
static inline bool fg_add_size(size_t a, size_t b, size_t *out)
{
	return !__builtin_add_overflow(a, b, out);
}
static inline bool fg_mul_size(size_t a, size_t b, size_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

/* Number parsing over a whole view (no sign, no spaces unless said).
 * Return 0, or FG_EPARSE (not a number) / FG_ELIMIT (overflow). */
int fg_parse_u64(fg_view v, unsigned long long *out);
int fg_parse_i64(fg_view v, long long *out);
int fg_parse_double(fg_view v, double *out);

/* Growable arrays (git's ALLOC_GROW): makes room for `need` elements in
 * `arr`, whose capacity is `alloc`, doubling from `first`. Evaluates to 0,
 * or FG_ENOMEM (then arr and alloc are unchanged).
 *   if (FG_ALLOC_GROW(v->items, v->n + 1, v->alloc, 16)) return FG_ENOMEM;
 */
#define FG_ALLOC_GROW(arr, need, alloc, first) \
	((need) <= (alloc) ? 0 : fg_alloc_grow(&(arr), (need), &(alloc), sizeof(*(arr)), (first)))
int fg_alloc_grow(void *arrp, size_t need, size_t *alloc, size_t elem_size, size_t first);

/* malloc family that abort()-free report failure: NULL plus FG_ENOMEM set,
 * and the failure counted (fg_error_nomem_count, flamegraph/error.h). */
void *fg_malloc(size_t n);
void *fg_calloc(size_t n, size_t size);
void *fg_realloc_array(void *p, size_t n, size_t size);
char *fg_strndup(const char *s, size_t n);
static inline char *fg_strdup(const char *s) { return fg_strndup(s, strlen(s)); }

/* Sets FG_ENOMEM ("out of memory (N bytes)") as the thread's error and
 * counts the failure; for allocators of our own (arena) that call malloc
 * directly. Returns FG_ENOMEM. */
int fg_nomem(size_t bytes);

#endif
