/* Kernel symbols of the perf.data reader: kallsyms ("ADDRESS TYPE
 * NAME[\t[MODULE]]" lines) from the copy perf's build-id cache took for
 * the recording's kernel (the addresses of that boot), else from
 * /proc/kallsyms.
 *
 * Some 120 000 lines are read for a handful of addresses, so the work per
 * line is kept to its address and type: the cache's copy is mapped, not
 * read, and the names stay where they are in the text (not cut out, not
 * copied) until an address resolves to one. Symbols have no sizes: each
 * ends where the next begins, and of several at one address the last
 * listed is kept (perf sets the ends before it chooses, so only the last
 * one has a size and wins).
 *
 * Reading those lines still costs some 10 ms, in every run. For a copy
 * of perf's build-id cache, which never changes, the two arrays are kept
 * in the cache folder (CACHE/<kernel build id>.ksyms) and mapped by the
 * runs after the first. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/perfdata/internal.h"
#include "util/banned.h"

/* hex digit values; -1 for anything else */
static const signed char hexval[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7,
	['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14,
	['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15,
	['F'] = 16,
}; /* value + 1: 0 is "not a digit" */

static bool type_kept(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* Reads a whole file (files of /proc have no size to ask for: the
 * buffer grows as it fills). 1: cannot be opened. */
static int read_all(const char *path, char **out, size_t *len)
{
	size_t alloc = (size_t)8 << 20, n = 0;
	char *buf = NULL;
	ssize_t got;
	int fd, err = 0;

	*out = NULL;
	*len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 1;
	for (;;) {
		if (!buf || n == alloc) {
			char *nb = fg_realloc_array(buf, buf ? alloc *= 2 : alloc, 1);
			if (!nb) {
				err = FG_ENOMEM;
				break;
			}
			buf = nb;
		}
		if ((got = read(fd, buf + n, alloc - n)) <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	*len = n;
	return 0;
}

/* Maps a regular file (the build-id cache's copy): no copy is made,
 * and no page is touched before it is needed (with the index of the
 * cache folder, only the names of the symbols met are read; without,
 * pd_kallsyms_load asks for all pages at once before reading them).
 * 1: cannot be mapped (the caller reads it). */
static int map_file(const char *path, pd_module *m, struct stat *out)
{
	struct stat st;
	void *p;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return 1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return 1;
	/* a copy perf is still writing ends inside a line */
	if (((const char *)p)[st.st_size - 1] != '\n') {
		munmap(p, (size_t)st.st_size);
		return 1;
	}
	m->text = p;
	m->text_len = (size_t)st.st_size;
	m->text_mapped = true;
	*out = st;
	return 0;
}

/* The text into m->text: the build-id cache's copy for the recording's
 * kernel when there is one (id: its build id, hex; st: the file's
 * status), else /proc/kallsyms (or opts.kallsyms; id ""). */
static int open_text(pd_symbols *s, pd_module *m, char id[41], struct stat *st)
{
	fg_strbuf path = FG_STRBUF_INIT;
	fg_strmap_entry *e;
	int rc = 1;

	id[0] = '\0';
	if (s->opts.kallsyms)
		return read_all(s->opts.kallsyms, &m->text, &m->text_len);
	if (s->opts.buildid_dir &&
	    (e = fg_strmap_get(&s->buildids, "[kernel.kallsyms]", 17)) && ((const uint8_t *)e->value.p)[0]) {
		pd_module tmp;
		tmp.build_id_len = ((const uint8_t *)e->value.p)[0];
		memcpy(tmp.build_id, (const uint8_t *)e->value.p + 1, tmp.build_id_len);
		pd_hex_id(&tmp, id);
		if (!fg_strbuf_addf(&path, "%s/[kernel.kallsyms]/%s/kallsyms", s->opts.buildid_dir, id))
			rc = map_file(path.buf, m, st);
	}
	fg_strbuf_release(&path);
	if (rc > 0) {
		id[0] = '\0';
		rc = read_all("/proc/kallsyms", &m->text, &m->text_len);
	}
	return rc;
}

/* The index of a text in the cache: this header, then the n addresses
 * and the n name offsets. */
struct kindex_header {
	char magic[8];
	/* the text's file (perf may write it again for another boot) */
	uint64_t text_len, text_dev, text_ino, text_mtime_sec, text_mtime_nsec;
	uint64_t n, text_at;
};

static void describe_text(struct kindex_header *h, const struct stat *st)
{
	h->text_len = (uint64_t)st->st_size;
	h->text_dev = (uint64_t)st->st_dev;
	h->text_ino = (uint64_t)st->st_ino;
	h->text_mtime_sec = (uint64_t)st->st_mtim.tv_sec;
	h->text_mtime_nsec = (uint64_t)st->st_mtim.tv_nsec;
}

static const char kindex_magic[8] = "FGKSYM1";

/* The cache's index of the text of kernel id into m; false: none. */
static bool load_index(pd_symbols *s, pd_module *m, const char *id, const struct stat *text,
		       uint64_t *text_at)
{
	fg_strbuf path = FG_STRBUF_INIT;
	struct kindex_header h, want;
	struct stat st;
	void *p = MAP_FAILED;
	int fd = -1;

	if (!s->opts.cache_dir || fg_strbuf_addf(&path, "%s/%s.ksyms", s->opts.cache_dir, id) ||
	    (fd = open(path.buf, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) ||
	    (size_t)st.st_size < sizeof(h) ||
	    (p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) ==
		    MAP_FAILED)
		goto fail;
	memcpy(&h, p, sizeof(h));
	describe_text(&want, text);
	/* the index of this very text, whole */
	if (memcmp(h.magic, kindex_magic, 8) || h.text_len != want.text_len ||
	    h.text_dev != want.text_dev || h.text_ino != want.text_ino ||
	    h.text_mtime_sec != want.text_mtime_sec || h.text_mtime_nsec != want.text_mtime_nsec ||
	    h.n > ((uint64_t)st.st_size - sizeof(h)) / 12 || sizeof(h) + 12 * h.n != (uint64_t)st.st_size)
		goto fail;
	m->kindex = p;
	m->kindex_len = (size_t)st.st_size;
	m->nsyms = (size_t)h.n;
	m->kstart = (uint64_t *)((char *)p + sizeof(h));
	m->kname = (uint32_t *)(m->kstart + h.n);
	*text_at = h.text_at;
	close(fd);
	fg_strbuf_release(&path);
	return true;
fail:
	if (p != MAP_FAILED)
		munmap(p, (size_t)st.st_size);
	if (fd >= 0)
		close(fd);
	fg_strbuf_release(&path);
	return false;
}

static void save_index(pd_symbols *s, const pd_module *m, const char *id, const struct stat *text,
		       uint64_t text_at)
{
	struct kindex_header h;
	struct iovec parts[3];
	char name[64];

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, kindex_magic, 8);
	describe_text(&h, text);
	h.n = m->nsyms;
	h.text_at = text_at;
	parts[0].iov_base = &h;
	parts[0].iov_len = sizeof(h);
	parts[1].iov_base = m->kstart;
	parts[1].iov_len = m->nsyms * sizeof(*m->kstart);
	parts[2].iov_base = m->kname;
	parts[2].iov_len = m->nsyms * sizeof(*m->kname);
	snprintf(name, sizeof(name), "%s.ksyms", id);
	/* a folder that cannot be written only costs the time saved */
	(void)pd_cache_write(s->opts.cache_dir, name, parts, 3);
}

/* A symbol while sorting: its address and where its name is. */
struct ksym {
	uint64_t start;
	uint32_t name;
};

static int cmp_ksym(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	/* equal starts: file order */
	return a->name < b->name ? -1 : a->name > b->name;
}

/* Lines out of address order (module symbols may be): sorted, of equal
 * addresses the last listed kept. Returns the count left, or 0 on
 * FG_ENOMEM (*err). */
static size_t sort_symbols(pd_module *m, size_t n, int *err)
{
	struct ksym *v = fg_malloc(n * sizeof(*v));
	size_t i, k;

	if (!v) {
		*err = FG_ENOMEM;
		return 0;
	}
	for (i = 0; i < n; i++) {
		v[i].start = m->kstart[i];
		v[i].name = m->kname[i];
	}
	qsort(v, n, sizeof(*v), cmp_ksym);
	for (i = 0, k = 0; i < n; i++) {
		if (k && m->kstart[k - 1] == v[i].start)
			k--;
		m->kstart[k] = v[i].start;
		m->kname[k++] = v[i].name;
	}
	free(v);
	return k;
}

static bool is_core_text(const char *name, const char *end)
{
	return end - name >= 6 && !memcmp(name, "_text", 5) &&
	       (name[5] == '\n' || (name[5] == '\t' && name[6] != '['));
}

/* The symbols as two arrays, addresses and name offsets (a third of
 * the memory of pd_elfsym entries: fresh pages are what this costs). */
int pd_kallsyms_load(pd_symbols *s, pd_module *m)
{
	size_t n = 0, alloc;
	const char *p, *end;
	uint64_t text_at = 0;
	bool sorted = true;
	char id[41];
	struct stat st;
	int rc, err = 0;

	m->loaded = true;
	memset(&st, 0, sizeof(st));
	if ((rc = open_text(s, m, id, &st)) != 0)
		return rc < 0 ? rc : 0;
	if (m->text_len >= UINT32_MAX)
		return 0; /* not a kallsyms */
	if (id[0] && load_index(s, m, id, &st, &text_at))
		goto placed;
#ifdef MADV_POPULATE_READ
	/* every line is read: its pages are mapped in one go, not one
	 * fault each */
	if (m->text_mapped)
		(void)madvise(m->text, m->text_len, MADV_POPULATE_READ);
#endif
	/* one symbol in some 40 bytes of text: room for all at once */
	alloc = m->text_len / 40 + 1024;
	if (!(m->kstart = fg_malloc(alloc * sizeof(*m->kstart))) ||
	    !(m->kname = fg_malloc(alloc * sizeof(*m->kname))))
		return FG_ENOMEM;
	for (p = m->text, end = m->text + m->text_len; p < end;) {
		const char *nl, *q;
		uint64_t addr = 0;
		int d;
		for (q = p; q < end && (d = hexval[(unsigned char)*q]); q++)
			addr = addr << 4 | (uint64_t)(d - 1);
		if (end - q > 3 && q[0] == ' ' && q[2] == ' ' && type_kept(q[1]) && addr) {
			q += 3;
			if (!text_at && is_core_text(q, end))
				text_at = addr;
			if (n && sorted && m->kstart[n - 1] == addr) {
				n--; /* of several at one address, the last listed */
			} else if (n == alloc) {
				uint64_t *ns = fg_realloc_array(m->kstart, 2 * alloc, sizeof(*ns));
				uint32_t *nn = ns ? fg_realloc_array(m->kname, 2 * alloc, sizeof(*nn)) : NULL;
				if (ns)
					m->kstart = ns;
				if (!nn)
					return FG_ENOMEM;
				m->kname = nn;
				alloc *= 2;
			}
			if (n && m->kstart[n - 1] > addr)
				sorted = false;
			m->kstart[n] = addr;
			m->kname[n++] = (uint32_t)(q - m->text);
		}
		if (!(nl = memchr(q, '\n', (size_t)(end - q))))
			break;
		p = nl + 1;
	}
	if (!sorted && !(n = sort_symbols(m, n, &err)))
		return err;
	m->nsyms = n;
	if (id[0] && s->opts.cache_dir)
		save_index(s, m, id, &st, text_at);
placed:
	/* the recording's kernel may sit elsewhere than these symbols say
	 * (another boot, with its own randomized base) */
	if (s->kernel_text && text_at)
		m->kdelta = (int64_t)(s->kernel_text - text_at);
	return 0;
}

bool pd_kallsyms_find(const pd_module *m, uint64_t addr, struct pd_elfsym *out)
{
	uint64_t a = addr - (uint64_t)m->kdelta, end;
	size_t lo = 0, hi = m->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->kstart[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	/* each ends where the next begins; the last a page or two on */
	end = lo < m->nsyms ? m->kstart[lo] : (m->kstart[lo - 1] & ~(uint64_t)4095) + 8192;
	if (a >= end)
		return false;
	out->start = m->kstart[lo - 1] + (uint64_t)m->kdelta;
	out->end = end + (uint64_t)m->kdelta;
	out->name = m->text + m->kname[lo - 1];
	out->mod = NULL;
	return true;
}

/* The length of the field at p: up to a tab, a newline or end. */
static size_t field_len(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && *q != '\t' && *q != '\n')
		q++;
	return (size_t)(q - p);
}

int pd_kallsyms_names(pd_module *m, const struct pd_elfsym *sym, const char **name,
		      const char **module)
{
	const char *end = m->text + m->text_len;

	size_t len = field_len(sym->name, end);
	const char *mod = sym->name + len + 1;

	*module = NULL;
	if (!(*name = fg_arena_strndup(&m->arena, sym->name, len)))
		return FG_ENOMEM;
	/* "NAME\t[MODULE]" */
	if (mod < end && mod[-1] == '\t' && *mod == '[') {
		const char *close = memchr(mod, ']', (size_t)(end - mod));
		len = close ? (size_t)(close - mod) + 1 : field_len(mod, end);
		if (!(*module = fg_arena_strndup(&m->arena, mod, len)))
			return FG_ENOMEM;
	}
	return 0;
}

void pd_kallsyms_release(pd_module *m)
{
	if (m->kindex) {
		munmap(m->kindex, m->kindex_len);
	} else {
		free(m->kstart);
		free(m->kname);
	}
	m->kindex = NULL;
	m->kstart = NULL;
	m->kname = NULL;
	if (m->text_mapped)
		munmap(m->text, m->text_len);
	else
		free(m->text);
	m->text = NULL;
}
