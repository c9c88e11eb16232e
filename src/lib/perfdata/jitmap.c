/* A JIT's map file, /tmp/perf-PID.map: one "START SIZE NAME" line per
 * piece of generated code, START and SIZE in hex, NAME the rest of the
 * line (spaces included). perf script reads it for the executable
 * anonymous maps of process PID; this reads it the way perf 6.1 does, so
 * that its names come out the same:
 * - every line loses its last byte (the '\n', or the last character of
 *   an unterminated last line);
 * - START and SIZE are read as strtoull(3) reads base 16: leading
 *   white space, a sign, a "0x" prefix are taken; no digits reads 0,
 *   too many saturate; after each, one byte (the separator, whatever it
 *   is) is skipped;
 * - a line whose name would be shorter than 3 bytes is dropped, and a
 *   name ends at its first NUL;
 * - a symbol spans [START, START + SIZE) (the sum wraps), or only START
 *   when SIZE is 0;
 * - entries are kept as perf keeps them, in a red-black tree ordered by
 *   START (an equal START goes right) and searched from the root for the
 *   first entry holding the address. Where entries overlap (code a JIT
 *   put again where it had freed some) the one found thus depends on the
 *   tree's shape, which the textbook insertion below gives exactly as
 *   perf's does.
 * Nothing is sorted or merged beyond that. The text is kept and names
 * are cut out of it in place: memory is the file plus one node a line. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/perfdata/internal.h"
#include "util/banned.h"
#include "util/strbuf.h"

#define NIL UINT32_MAX

struct jnode {
	struct pd_elfsym sym;
	uint32_t left, right, parent;
	bool red;
};

struct pd_jitmap {
	char *text;
	struct jnode *v;
	size_t n;
	uint32_t root;
	size_t skipped;
};

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool is_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* A number as strtoull(p, &end, 16) reads it from [p, lim), which
 * holds no NUL perf would stop at earlier: *v gets it, the return is
 * how many bytes it took (0: none, and *v is 0). */
static size_t read_hex(const char *p, const char *lim, uint64_t *v)
{
	const char *q = p, *digits;
	bool neg = false, over = false;
	uint64_t x = 0;

	*v = 0;
	while (q < lim && is_space((unsigned char)*q))
		q++;
	if (q < lim && (*q == '+' || *q == '-'))
		neg = *q++ == '-';
	if (lim - q >= 3 && q[0] == '0' && (q[1] | 0x20) == 'x' && hexval((unsigned char)q[2]) >= 0)
		q += 2;
	for (digits = q; q < lim && hexval((unsigned char)*q) >= 0; q++) {
		if (x >> 60)
			over = true;
		x = x << 4 | (uint64_t)hexval((unsigned char)*q);
	}
	if (q == digits)
		return 0;
	*v = over ? UINT64_MAX : neg ? (uint64_t)0 - x : x;
	return (size_t)(q - p);
}

void pd_jitmap_name(char *buf, int32_t pid)
{
	snprintf(buf, PD_JITMAP_NAME_MAX, "/tmp/perf-%d.map", (int)pid);
}

/* Which maps: those perf 6.1 was seen to give the map file's name to
 * (memory with no file behind it, or only /dev/zero or a System V
 * segment), when executable. Names are the kernel's ("[heap]", "[stack]",
 * "//anon", "/dev/zero (deleted)"...); a "[anon:NAME]" map (a name set
 * with prctl) is not one of them. */
bool pd_jitmap_wanted(const char *name, uint32_t prot, uint32_t flags)
{
	if (!(prot & PROT_EXEC))
		return false;
	return (flags & MAP_HUGETLB) || !strcmp(name, "//anon") || !strcmp(name, "[heap]") ||
	       !strncmp(name, "[stack", 6) || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14) || !strncmp(name, "/SYSV", 5);
}

/* ---- the tree: perf's, node for node ---- */

static uint32_t *link_of(pd_jitmap *m, uint32_t x)
{
	uint32_t p = m->v[x].parent;

	if (p == NIL)
		return &m->root;
	return m->v[p].left == x ? &m->v[p].left : &m->v[p].right;
}

/* Turns x's right child y into x's parent (left: 1), or its left child
 * (left: 0), keeping the order. */
static void rotate(pd_jitmap *m, uint32_t x, bool left)
{
	struct jnode *v = m->v;
	uint32_t y = left ? v[x].right : v[x].left;
	uint32_t inner = left ? v[y].left : v[y].right;

	*link_of(m, x) = y;
	v[y].parent = v[x].parent;
	if (left) {
		v[x].right = inner;
		v[y].left = x;
	} else {
		v[x].left = inner;
		v[y].right = x;
	}
	if (inner != NIL)
		v[inner].parent = x;
	v[x].parent = y;
}

static void insert(pd_jitmap *m, uint32_t x)
{
	struct jnode *v = m->v;
	uint32_t p = NIL, cur = m->root;

	while (cur != NIL) {
		p = cur;
		cur = v[x].sym.start < v[cur].sym.start ? v[cur].left : v[cur].right;
	}
	v[x].parent = p;
	v[x].left = v[x].right = NIL;
	v[x].red = true;
	if (p == NIL)
		m->root = x;
	else if (v[x].sym.start < v[p].sym.start)
		v[p].left = x;
	else
		v[p].right = x;
	while ((p = v[x].parent) != NIL && v[p].red) {
		uint32_t g = v[p].parent; /* p is red: not the root */
		bool p_left = v[g].left == p;
		uint32_t u = p_left ? v[g].right : v[g].left;
		if (u != NIL && v[u].red) {
			v[p].red = v[u].red = false;
			v[g].red = true;
			x = g;
			continue;
		}
		if (x == (p_left ? v[p].right : v[p].left)) {
			rotate(m, p, p_left);
			x = p;
			p = v[x].parent;
		}
		v[p].red = false;
		v[g].red = true;
		rotate(m, g, !p_left);
	}
	v[m->root].red = false;
}

/* ---- lines ---- */

/* One line of len bytes (its '\n' included, if any); the name is cut
 * in place. */
static void parse_line(pd_jitmap *m, char *line, size_t len)
{
	struct jnode *e;
	uint64_t start, size;
	size_t pos, L;

	if (!len) {
		m->skipped++;
		return;
	}
	L = len - 1;
	pos = read_hex(line, line + L, &start) + 1;
	if (pos + 2 >= L) {
		m->skipped++;
		return;
	}
	pos += read_hex(line + pos, line + L, &size) + 1;
	if (pos + 2 >= L) {
		m->skipped++;
		return;
	}
	line[L] = '\0';
	e = &m->v[m->n];
	e->sym.start = start;
	e->sym.end = start + size;
	e->sym.name = line + pos;
	e->sym.mod = NULL;
	insert(m, (uint32_t)m->n++);
}

int pd_jitmap_parse(pd_jitmap **out, char *text, size_t len)
{
	pd_jitmap *m;
	size_t lines = 1, i;
	char *p, *end = text + len, *nl;

	*out = NULL;
	if (!(m = fg_calloc(1, sizeof(*m))))
		return FG_ENOMEM;
	m->text = text;
	m->root = NIL;
	for (p = text; (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1)
		lines++;
	/* node indices are 32-bit; a map file of 4G lines is not one */
	if (lines >= NIL)
		lines = NIL - 1;
	if (!(m->v = fg_realloc_array(NULL, lines, sizeof(*m->v)))) {
		free(m);
		return FG_ENOMEM;
	}
	for (p = text, i = 0; p < end && i < lines; p = nl, i++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl + 1 : end;
		parse_line(m, p, (size_t)(nl - p));
	}
	*out = m;
	return 0;
}

int pd_jitmap_parse_mem(pd_jitmap **out, const char *buf, size_t len)
{
	char *text;
	int err;

	*out = NULL;
	if (!(text = fg_malloc(len + 1)))
		return FG_ENOMEM;
	if (len)
		memcpy(text, buf, len);
	text[len] = '\0';
	if ((err = pd_jitmap_parse(out, text, len)))
		free(text);
	return err;
}

/* The file's bytes; 1: not a regular file that can be read (a recording
 * names any PID: never block on a FIFO someone put there). */
static int read_map_file(const char *path, fg_strbuf *out)
{
	struct stat st;
	ssize_t got;
	int fd, err = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return 1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return 1;
	}
	for (;;) {
		if ((err = fg_strbuf_grow(out, (size_t)1 << 16)))
			break;
		got = read(fd, out->buf + out->len, out->alloc - out->len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		out->len += (size_t)got;
		out->buf[out->len] = '\0';
	}
	close(fd);
	return err;
}

int pd_jitmap_load(pd_jitmap **out, const char *path)
{
	fg_strbuf text = FG_STRBUF_INIT;
	size_t len;
	char *buf;
	int rc;

	*out = NULL;
	if ((rc = read_map_file(path, &text)) > 0) {
		fg_strbuf_release(&text);
		return 0;
	}
	if (rc)
		return rc;
	buf = fg_strbuf_detach(&text, &len);
	if (!buf)
		return FG_ENOMEM;
	if ((rc = pd_jitmap_parse(out, buf, len)))
		free(buf);
	return rc;
}

const struct pd_elfsym *pd_jitmap_find(const pd_jitmap *m, uint64_t addr)
{
	uint32_t cur = m ? m->root : NIL;

	while (cur != NIL) {
		const struct pd_elfsym *s = &m->v[cur].sym;
		if (addr < s->start)
			cur = m->v[cur].left;
		else if (addr > s->end || (addr == s->end && addr != s->start))
			cur = m->v[cur].right;
		else
			return s;
	}
	return NULL;
}

void pd_jitmap_counts(const pd_jitmap *m, size_t *entries, size_t *skipped)
{
	*entries = m ? m->n : 0;
	*skipped = m ? m->skipped : 0;
}

void pd_jitmap_free(pd_jitmap *m)
{
	if (!m)
		return;
	free(m->v);
	free(m->text);
	free(m);
}
