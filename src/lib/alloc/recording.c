/* The allocation recordings (alloc.h): parsed into memory, one process
 * each, and fed to the collapser as samples, one per stack, weighted by
 * the view, with the reader's symbolization (fg_symbolizer). */
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "flamegraph/alloc.h"
#include "flamegraph/error.h"
#include "util/arena.h"
#include "util/input.h"
#include "util/strbuf.h"
#include "util/banned.h"

enum { W_BYTES, W_CALLS, W_LEAKED, W_LEAKED_BLOCKS, W_PEAK, W_PEAK_BLOCKS, NW };
#define MAX_PCS 1024

struct amap {
	uint64_t start, end, off;
	const char *path;
};

struct astack {
	int64_t w[NW];
	size_t first, n; /* into the process' pcs */
};

struct aproc {
	int32_t pid;
	const char *comm;
	struct amap *maps;
	size_t nmaps, amaps;
	struct astack *stacks;
	size_t nstacks, astacks;
	uint64_t *pcs;
	size_t npcs, apcs;
	uint64_t dropped, tracker_bytes, sample;
	uint64_t runtime_bytes, runtime_blocks; /* "runtime-kept" */
	uint64_t unrecorded_calls, unrecorded_bytes;
	bool complete;
	bool running; /* a snapshot: the process died before its last word */
};

struct fg_alloc {
	struct aproc *procs;
	size_t nprocs, aprocs;
	fg_arena arena;
};

static const char *const view_names[] = {"", "bytes", "count", "leaked", "peak"};

int fg_alloc_view_parse(fg_alloc_view *out, const char *name)
{
	for (int v = FG_ALLOC_BYTES; v <= FG_ALLOC_PEAK; v++)
		if (!strcmp(name, view_names[v])) {
			*out = (fg_alloc_view)v;
			return 0;
		}
	return fg_error_set(FG_EINVAL, "unknown allocation view '%s': bytes, count, leaked or peak",
	                    name);
}

const char *fg_alloc_view_name(fg_alloc_view view)
{
	return view >= FG_ALLOC_NONE && view <= FG_ALLOC_PEAK ? view_names[view] : "";
}

const char *fg_alloc_view_unit(fg_alloc_view view)
{
	return view == FG_ALLOC_COUNT ? "allocations" : "bytes";
}

int fg_alloc_new(fg_alloc **out)
{
	fg_arena init = FG_ARENA_INIT;

	if (!(*out = fg_calloc(1, sizeof(**out))))
		return FG_ENOMEM;
	(*out)->arena = init;
	return 0;
}

static void proc_release(struct aproc *p)
{
	free(p->maps);
	free(p->stacks);
	free(p->pcs);
}

void fg_alloc_free(fg_alloc *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nprocs; i++)
		proc_release(&a->procs[i]);
	free(a->procs);
	fg_arena_release(&a->arena);
	free(a);
}

/* The next space-separated word of *rest. */
static fg_view word(fg_view *rest)
{
	const char *p = rest->ptr, *end = rest->ptr + rest->len;
	fg_view w;

	while (p < end && *p == ' ')
		p++;
	w.ptr = p;
	while (p < end && *p != ' ')
		p++;
	w.len = (size_t)(p - w.ptr);
	rest->len -= (size_t)(p - rest->ptr);
	rest->ptr = p;
	return w;
}

static int parse_hex(fg_view v, uint64_t *out)
{
	uint64_t x = 0;

	if (!v.len || v.len > 16)
		return FG_EPARSE;
	for (size_t i = 0; i < v.len; i++) {
		char c = v.ptr[i];
		unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
		             : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
		                                    : 16;
		if (d == 16)
			return FG_EPARSE;
		x = x << 4 | d;
	}
	*out = x;
	return 0;
}

static int parse_signed(fg_view v, int64_t *out)
{
	long long x;
	int err;

	if (v.len && v.ptr[0] == '-') {
		unsigned long long u;
		if ((err = fg_parse_u64(fg_view_of(v.ptr + 1, v.len - 1), &u)) ||
		    u > (unsigned long long)INT64_MAX)
			return FG_EPARSE;
		*out = -(int64_t)u;
		return 0;
	}
	if ((err = fg_parse_i64(v, &x)))
		return FG_EPARSE;
	*out = x;
	return 0;
}

struct parser {
	fg_alloc *a;
	struct aproc *p;
	const char *name;
	size_t line;
};

static int bad(const struct parser *ps, const char *what)
{
	return fg_error_set(
	    FG_EPARSE, "%s:%zu: %s — the allocation recording is damaged; run the program again",
	    ps->name, ps->line, what);
}

static int parse_map(struct parser *ps, fg_view rest)
{
	struct aproc *p = ps->p;
	struct amap m;
	fg_view path;

	if (parse_hex(word(&rest), &m.start) || parse_hex(word(&rest), &m.end) ||
	    parse_hex(word(&rest), &m.off))
		return bad(ps, "a map line needs START END OFFSET PATH in hex");
	path = rest;
	while (path.len && path.ptr[0] == ' ')
		path.ptr++, path.len--;
	if (!path.len || m.end <= m.start)
		return bad(ps, "a map line needs a path and END above START");
	if (!(m.path = fg_arena_strndup(&ps->a->arena, path.ptr, path.len)) ||
	    FG_ALLOC_GROW(p->maps, p->nmaps + 1, p->amaps, 16))
		return FG_ENOMEM;
	p->maps[p->nmaps++] = m;
	return 0;
}

static int parse_stack(struct parser *ps, fg_view rest)
{
	struct aproc *p = ps->p;
	struct astack s;
	fg_view w;

	for (int i = 0; i < NW; i++)
		if (parse_signed(word(&rest), &s.w[i]))
			return bad(ps, "a stack line needs six counts (BYTES CALLS LEAKED_BYTES "
			               "LEAKED_BLOCKS PEAK_BYTES PEAK_BLOCKS)");
	if (s.w[W_BYTES] < 0 || s.w[W_CALLS] < 0)
		return bad(ps, "negative bytes or calls");
	s.first = p->npcs;
	while ((w = word(&rest)).len) {
		uint64_t pc;
		if (parse_hex(w, &pc))
			return bad(ps, "a stack's addresses are hex numbers");
		if (p->npcs - s.first >= MAX_PCS)
			return bad(ps, "a stack of more than 1024 frames");
		if (FG_ALLOC_GROW(p->pcs, p->npcs + 1, p->apcs, 256))
			return FG_ENOMEM;
		p->pcs[p->npcs++] = pc;
	}
	s.n = p->npcs - s.first;
	if (FG_ALLOC_GROW(p->stacks, p->nstacks + 1, p->astacks, 64))
		return FG_ENOMEM;
	p->stacks[p->nstacks++] = s;
	return 0;
}

static int parse_u64_field(struct parser *ps, fg_view rest, uint64_t *out)
{
	unsigned long long v;

	if (fg_parse_u64(fg_view_trim(rest), &v))
		return bad(ps, "expected a number");
	*out = v;
	return 0;
}

/* Two numbers: "runtime-kept BYTES BLOCKS", "unrecorded CALLS BYTES" */
static int parse_u64_pair(struct parser *ps, fg_view rest, uint64_t *a, uint64_t *b)
{
	fg_view first = word(&rest);
	int err;

	if ((err = parse_u64_field(ps, first, a)))
		return err;
	return parse_u64_field(ps, rest, b);
}

static int parse_line(struct parser *ps, fg_view line)
{
	fg_view rest = line, key = word(&rest);
	struct aproc *p = ps->p;
	uint64_t v = 0;
	int err;

	if (p->complete)
		return bad(ps, "text after the \"end\" line");
	if (fg_view_eq(key, "s"))
		return parse_stack(ps, rest);
	if (fg_view_eq(key, "map"))
		return parse_map(ps, rest);
	if (fg_view_eq(key, "end")) {
		p->complete = true;
		return 0;
	}
	if (fg_view_eq(key, "comm")) {
		if (rest.len && rest.ptr[0] == ' ')
			rest.ptr++, rest.len--;
		/* the root frame: no separator of the folded format in it */
		char *c = fg_arena_strndup(&ps->a->arena, rest.ptr, rest.len);
		if (!c)
			return FG_ENOMEM;
		for (char *q = c; *q; q++)
			if (*q == ';' || *q == '\n')
				*q = '_';
		p->comm = c;
		return 0;
	}
	if (fg_view_eq(key, "pid")) {
		if ((err = parse_u64_field(ps, rest, &v)))
			return err;
		if (v > INT32_MAX)
			return bad(ps, "a PID out of range");
		p->pid = (int32_t)v;
		return 0;
	}
	if (fg_view_eq(key, "dropped"))
		return parse_u64_field(ps, rest, &p->dropped);
	if (fg_view_eq(key, "tracker-bytes"))
		return parse_u64_field(ps, rest, &p->tracker_bytes);
	if (fg_view_eq(key, "sample"))
		return parse_u64_field(ps, rest, &p->sample);
	if (fg_view_eq(key, "runtime-kept"))
		return parse_u64_pair(ps, rest, &p->runtime_bytes, &p->runtime_blocks);
	if (fg_view_eq(key, "unrecorded"))
		return parse_u64_pair(ps, rest, &p->unrecorded_calls, &p->unrecorded_bytes);
	if (fg_view_eq(key, "end-reason")) {
		p->running = fg_view_eq(fg_view_trim(rest), "running");
		return 0;
	}
	return 0; /* ppid, threads, and lines of later versions */
}

int fg_alloc_add_mem(fg_alloc *a, const char *name, const char *buf, size_t len)
{
	static const char magic[] = "flamegraph-alloc 1\n";
	struct parser ps = {a, NULL, name, 1};
	const char *p = buf, *end = buf + len;
	struct aproc *proc;
	int err = 0;

	if (len < sizeof(magic) - 1 || memcmp(buf, magic, sizeof(magic) - 1))
		return fg_error_set(FG_EPARSE,
		                    "%s: not an allocation recording of this version "
		                    "(it starts with \"flamegraph-alloc 1\")",
		                    name);
	if (FG_ALLOC_GROW(a->procs, a->nprocs + 1, a->aprocs, 4))
		return FG_ENOMEM;
	proc = &a->procs[a->nprocs];
	memset(proc, 0, sizeof(*proc));
	proc->comm = "[unknown]";
	ps.p = proc;
	p += sizeof(magic) - 1;
	while (p < end && !err) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		/* a last line without its newline was cut short: left out */
		if (!nl)
			break;
		ps.line++;
		err = parse_line(&ps, fg_view_of(p, (size_t)(nl - p)));
		p = nl + 1;
	}
	if (err) {
		proc_release(proc);
		return err;
	}
	a->nprocs++;
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

int fg_alloc_add_dir(fg_alloc *a, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, alloc = 0;
	fg_strbuf path = FG_STRBUF_INIT;
	int err = 0;

	if (!d)
		return fg_error_set(FG_EIO, "cannot read the allocation recordings in %s: %s", dir,
		                    strerror(errno));
	while ((e = readdir(d)))
		/* PATH.tmp: a snapshot being written when the process died */
		if (!strncmp(e->d_name, "alloc.", 6) && !ends_with(e->d_name, ".tmp")) {
			if (FG_ALLOC_GROW(names, n + 1, alloc, 8) ||
			    !(names[n] = fg_strndup(e->d_name, strlen(e->d_name)))) {
				err = FG_ENOMEM;
				break;
			}
			n++;
		}
	closedir(d);
	if (!err && n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n && !err; i++) {
		char *data = NULL;
		size_t len = 0;
		fg_strbuf_reset(&path);
		if (fg_strbuf_addf(&path, "%s/%s", dir, names[i]))
			err = FG_ENOMEM;
		/* empty: the process died before its first snapshot */
		else if (!(err = fg_read_file(path.buf, &data, &len)) && len)
			err = fg_alloc_add_mem(a, path.buf, data, len);
		free(data);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	fg_strbuf_release(&path);
	return err;
}

static uint64_t clamp(int64_t v)
{
	return v > 0 ? (uint64_t)v : 0;
}

/* Sums two counters of every process, at byte offsets first and second
 * of struct aproc, into *x and *y (either may be NULL). */
static void sum_pair(const fg_alloc *a, size_t first, size_t second, uint64_t *x, uint64_t *y)
{
	uint64_t sx = 0, sy = 0;

	for (size_t i = 0; i < a->nprocs; i++) {
		const char *p = (const char *)&a->procs[i];
		sx += *(const uint64_t *)(p + first);
		sy += *(const uint64_t *)(p + second);
	}
	if (x)
		*x = sx;
	if (y)
		*y = sy;
}

void fg_alloc_runtime_kept(const fg_alloc *a, uint64_t *bytes, uint64_t *blocks)
{
	sum_pair(a, offsetof(struct aproc, runtime_bytes), offsetof(struct aproc, runtime_blocks),
		 bytes, blocks);
}

void fg_alloc_unrecorded(const fg_alloc *a, uint64_t *calls, uint64_t *bytes)
{
	sum_pair(a, offsetof(struct aproc, unrecorded_calls), offsetof(struct aproc, unrecorded_bytes),
		 calls, bytes);
}

void fg_alloc_totals_get(const fg_alloc *a, fg_alloc_totals *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < a->nprocs; i++) {
		const struct aproc *p = &a->procs[i];
		out->processes++;
		out->incomplete += !p->complete;
		out->stacks += p->nstacks;
		out->dropped += p->dropped;
		out->tracker_bytes += p->tracker_bytes;
		out->snapshots += p->running;
		if (p->sample > out->sample_bytes)
			out->sample_bytes = p->sample;
		for (size_t k = 0; k < p->nstacks; k++) {
			const int64_t *w = p->stacks[k].w;
			out->allocations += clamp(w[W_CALLS]);
			out->bytes += clamp(w[W_BYTES]);
			out->leaked_bytes += clamp(w[W_LEAKED]);
			out->leaked_blocks += clamp(w[W_LEAKED_BLOCKS]);
			out->peak_bytes += clamp(w[W_PEAK]);
		}
	}
}

/* The column of a stack line that weighs a view, and the one that goes
 * with it in a heap profile (objects with bytes, bytes with objects). */
static int view_column(fg_alloc_view view, bool companion)
{
	switch (view) {
	case FG_ALLOC_BYTES:
		return companion ? W_CALLS : W_BYTES;
	case FG_ALLOC_COUNT:
		return companion ? W_BYTES : W_CALLS;
	case FG_ALLOC_LEAKED:
		return companion ? W_LEAKED_BLOCKS : W_LEAKED;
	case FG_ALLOC_PEAK:
		return companion ? W_PEAK_BLOCKS : W_PEAK;
	default:
		return -1;
	}
}

struct frames {
	fg_perfdata_frame *v;
	size_t n, alloc;
};

/* One stack's frames: each return address minus one (the call, where
 * the caller's line and inlined frames are), resolved. */
static int stack_frames(fg_symbolizer *sy, int32_t space, const struct aproc *p,
                        const struct astack *s, struct frames *fr)
{
	static const fg_perfdata_frame lost = {.sym = "[allocation stacks beyond the tracker's table]"};
	const fg_perfdata_frame *fs;
	size_t n;
	int err;

	fr->n = 0;
	if (!s->n) {
		if (FG_ALLOC_GROW(fr->v, 1, fr->alloc, 64))
			return FG_ENOMEM;
		fr->v[fr->n++] = lost;
		return 0;
	}
	for (size_t i = 0; i < s->n; i++) {
		uint64_t pc = p->pcs[s->first + i];
		if ((err = fg_symbolizer_resolve(sy, space, pc ? pc - 1 : pc, &fs, &n)))
			return err;
		if (FG_ALLOC_GROW(fr->v, fr->n + n, fr->alloc, 64))
			return FG_ENOMEM;
		memcpy(fr->v + fr->n, fs, n * sizeof(*fs));
		fr->n += n;
	}
	return 0;
}

static int collapse_proc(const struct aproc *p, int32_t space, int column, fg_symbolizer *sy,
                         fg_collapser *c, struct frames *fr)
{
	fg_perfdata_sample smp;
	int err;

	for (size_t i = 0; i < p->nmaps; i++)
		if ((err = fg_symbolizer_add_map(sy, space, p->maps[i].start, p->maps[i].end,
		                                 p->maps[i].off, p->maps[i].path)))
			return err;
	for (size_t k = 0; k < p->nstacks; k++) {
		int64_t w = p->stacks[k].w[column];
		if (w <= 0)
			continue;
		if ((err = stack_frames(sy, space, p, &p->stacks[k], fr)))
			return err;
		memset(&smp, 0, sizeof(smp));
		smp.comm = p->comm;
		smp.pid = smp.tid = p->pid;
		smp.period = (uint64_t)w;
		smp.event = column == W_BYTES || column == W_LEAKED || column == W_PEAK ? "bytes" :
		                                                                        "allocations";
		smp.frames = fr->v;
		smp.nframes = fr->n;
		if ((err = fg_collapser_add_sample(c, &smp)))
			return err;
	}
	return 0;
}

static int collapse_column(const fg_alloc *a, int column, const fg_perfdata_opts *opts,
                           fg_collapser *c)
{
	fg_symbolizer *sy = NULL;
	struct frames fr = {NULL, 0, 0};
	int err;

	if (column < 0)
		return fg_error_set(FG_EINVAL, "no allocation view chosen");
	if ((err = fg_symbolizer_new(&sy, opts)))
		goto done;
	/* each recording is a process of its own: an exec'd program keeps
	 * its PID but not its maps */
	for (size_t i = 0; i < a->nprocs && !err; i++)
		err = collapse_proc(&a->procs[i], (int32_t)i, column, sy, c, &fr);
done:
	free(fr.v);
	fg_symbolizer_free(sy);
	return err;
}

int fg_alloc_collapse(const fg_alloc *a, fg_alloc_view view, const fg_perfdata_opts *opts,
                      fg_collapser *c)
{
	return collapse_column(a, view_column(view, false), opts, c);
}

int fg_alloc_collapse_companion(const fg_alloc *a, fg_alloc_view view,
                                const fg_perfdata_opts *opts, fg_collapser *c)
{
	return collapse_column(a, view_column(view, true), opts, c);
}

bool fg_alloc_is_static(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	bool interp = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
		close(fd);
		return false;
	}
	for (unsigned i = 0; i < eh.e_phnum && !interp; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			break;
		interp = ph.p_type == PT_INTERP;
	}
	close(fd);
	/* ET_EXEC or a static PIE (ET_DYN) without a program interpreter:
	 * nothing loads a library into it */
	return !interp;
}
