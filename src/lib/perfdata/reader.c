/* perf.data, file form: a fixed header; the event attributes; the data
 * section (the kernel's records and perf's own); after it, one {offset,
 * size} per feature bit set in the header, pointing at the features.
 *
 * The file is mapped for its header and features; its records are read
 * one after the other by fetch.c. Records between two
 * FINISHED_ROUND records may be out of time order (perf writes one CPU's
 * buffer after the other), so they are queued as {time, position} and,
 * at each round's end, those up to the newest time of the rounds before
 * are handled in time order (records of equal time in file order): the
 * order perf itself uses, so a sample sees the names and maps perf shows
 * with it. Queued records point into chunks: of the records read
 * (fetch.c), of compressed records (compressed.c), or of streams
 * (pipe.c, which also reads the pipe form's prologue). */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/perfdata/reader.h"
#include "util/banned.h"

#define HEADER_SIZE 104


bool fg_perfdata_magic(const void *buf, size_t len)
{
	return len >= 8 && !memcmp(buf, "PERFILE2", 8);
}

static int bad(const fg_perfdata *r, uint64_t off, const char *what)
{
	return fg_error_set(FG_EPARSE, "%s: offset %llu: %s", r->name, (unsigned long long)off, what);
}

static int bad_at(const fg_perfdata *r, const struct recpos *at, const char *what)
{
	if (at->chunk && at->chunk->inflated)
		return fg_error_set(FG_EPARSE, "%s: offset %llu: in its decompressed records: %s",
				    r->name, (unsigned long long)at->chunk->off, what);
	return bad(r, at->off, what);
}

/* True when [off, off + len) lies in the file. */
static bool in_file(const fg_perfdata *r, uint64_t off, uint64_t len)
{
	return off <= r->size && len <= r->size - off;
}

/* A perf header string (u32 length, then the bytes, NUL-padded) at
 * *off, bounded by end; NULL when malformed. */
static const char *header_string(fg_perfdata *r, uint64_t *off, uint64_t end)
{
	uint32_t len;
	const char *s;

	if (*off + 4 > end)
		return NULL;
	len = pd_u32(r->base + *off);
	if (len > end - *off - 4)
		return NULL;
	s = fg_arena_strndup(&r->arena, (const char *)r->base + *off + 4,
			     strnlen((const char *)r->base + *off + 4, len));
	*off += 4 + (uint64_t)len;
	return s;
}

/* Dwarf call graphs: user registers and stack copies to unwind, in a
 * sample layout this reader knows. */
static int check_dwarf(fg_perfdata *r)
{
	uint64_t t = r->sample_type, both = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	uint64_t need = (uint64_t)1 << PD_REG_SP | (uint64_t)1 << PD_REG_IP;

	if (!(t & both) || r->unsupported)
		return 0;
	if ((t & both) != both)
		r->unsupported = "dwarf call graphs with user registers or stack copies alone";
	else if ((r->regs_user & need) != need || r->regs_user >> PD_NREGS)
		r->unsupported = "dwarf call graphs without x86_64's stack and instruction pointers";
	else if (t & PERF_SAMPLE_BRANCH_STACK)
		r->unsupported = "dwarf call graphs with branch stacks";
	else
		r->dwarf = true;
	return 0;
}

/* Attribute i (asize bytes at a, its ids at ids), which must share the
 * first one's sample format. */
void pd_set_attr(fg_perfdata *r, size_t i, const unsigned char *a, uint64_t asize,
		     const unsigned char *ids, size_t nids)
{
	struct pd_attr *at = &r->attrs[i];
	uint64_t flags = pd_u64(a + 40);

	at->sample_type = pd_u64(a + 24);
	at->sample_period = (flags & (1u << 10)) ? 1 : pd_u64(a + 16);
	/* sample_regs_user came with the attribute's third size (96) */
	at->regs_user = asize >= 88 ? pd_u64(a + 80) : 0;
	at->ids = ids;
	at->nids = nids;
	if ((flags >> 24) & 1)
		r->comm_exec = true;
	if (i == 0) {
		r->sample_type = at->sample_type;
		r->regs_user = at->regs_user;
		r->id_all = (flags >> 18) & 1;
	} else if (at->sample_type != r->sample_type || r->id_all != ((flags >> 18) & 1) ||
		   at->regs_user != r->regs_user) {
		if (!r->unsupported)
			r->unsupported = "events with different sample formats";
	}
	if ((at->sample_type & PERF_SAMPLE_READ) && !r->unsupported)
		r->unsupported = "samples with counter values (PERF_SAMPLE_READ)";
}

/* Once all attributes are known: the sample format this reader needs. */
int pd_check_attrs(fg_perfdata *r)
{
	if (!(r->sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_IP)) && !r->unsupported)
		r->unsupported = "samples without an address or call chain";
	if (!(r->sample_type & PERF_SAMPLE_TID) && !r->unsupported)
		r->unsupported = "samples without a thread id";
	return check_dwarf(r);
}

static int read_attrs(fg_perfdata *r, uint64_t attr_size, uint64_t off, uint64_t size)
{
	/* each entry: the attribute, then the {offset, size} of its ids */
	uint64_t entry = attr_size, i;

	if (attr_size < 64 + 16 || attr_size > 4096)
		return bad(r, 16, "attribute size out of range");
	attr_size -= 16;
	if (!in_file(r, off, size) || size % entry)
		return bad(r, 24, "attribute section outside the file");
	r->nattrs = size / entry;
	if (!r->nattrs)
		return bad(r, 24, "no event attributes");
	if (!(r->attrs = fg_calloc(r->nattrs, sizeof(*r->attrs))))
		return FG_ENOMEM;
	for (i = 0; i < r->nattrs; i++) {
		const unsigned char *a = r->base + off + i * entry;
		uint64_t ids_off = pd_u64(a + attr_size), ids_size = pd_u64(a + attr_size + 8);
		if (!in_file(r, ids_off, ids_size))
			return bad(r, off + i * entry + attr_size, "event ids outside the file");
		pd_set_attr(r, i, a, attr_size, r->base + ids_off, (size_t)(ids_size / 8));
	}
	return pd_check_attrs(r);
}

static int read_event_desc(fg_perfdata *r, uint64_t off, uint64_t end)
{
	uint32_t nr, attr_size, i;

	if (off + 8 > end)
		return bad(r, off, "event description truncated");
	nr = pd_u32(r->base + off);
	attr_size = pd_u32(r->base + off + 4);
	off += 8;
	for (i = 0; i < nr; i++) {
		uint32_t nids;
		const char *name;
		if (attr_size > end - off || end - off - attr_size < 4)
			return bad(r, off, "event description truncated");
		off += attr_size;
		nids = pd_u32(r->base + off);
		off += 4;
		if (!(name = header_string(r, &off, end)))
			return bad(r, off, "event name truncated");
		if ((uint64_t)nids * 8 > end - off)
			return bad(r, off, "event ids truncated");
		off += (uint64_t)nids * 8;
		if (i < r->nattrs)
			r->attrs[i].name = name;
	}
	return 0;
}

int pd_read_build_ids(fg_perfdata *r, uint64_t off, uint64_t end)
{
	while (off + 8 <= end) {
		uint16_t misc = pd_u16(r->base + off + 4), size = pd_u16(r->base + off + 6);
		const char *name;
		size_t idlen = 20;
		int err;
		if (size < 36 || size > end - off)
			return bad(r, off, "build id record truncated");
		if (misc & (1u << 15)) /* the id's size is given */
			idlen = r->base[off + 12 + 20] > 20 ? 20 : r->base[off + 12 + 20];
		name = (const char *)r->base + off + 36;
		if ((err = pd_symbols_add_buildid(&r->syms, name, strnlen(name, size - 36u),
						  r->base + off + 12, idlen)))
			return err;
		off += size;
	}
	return 0;
}

/* HEADER_COMPRESSED: u32 version, type, level, ratio, mmap_len; the
 * type perf knows is zstd (1). */
static int read_compressed(fg_perfdata *r, uint64_t off, uint64_t end)
{
	if (end - off < 8)
		return bad(r, off, "compression feature truncated");
	r->compressed = true;
	if (pd_u32(r->base + off + 4) != 1 && !r->unsupported)
		r->unsupported = "compressed records of another kind than zstd";
	return 0;
}

/* HEADER_CMDLINE: u32 count, then that many strings. A program started
 * held and recorded by attaching to it (fg_record_run) shows as `-p PID`
 * with `--control=fifo:...`. */
static int read_cmdline(fg_perfdata *r, uint64_t off, uint64_t end)
{
	uint64_t p = off + 4;
	uint32_t n;
	bool attached = false, control = false;
	const char *arg;

	if (end - off < 4)
		return 0;
	n = pd_u32(r->base + off);
	for (uint32_t i = 0; i < n && (arg = header_string(r, &p, end)); i++) {
		attached |= !strcmp(arg, "-p") || !strncmp(arg, "--pid", 5);
		control |= !strncmp(arg, "--control=fifo:", 15);
	}
	r->held_launch = attached && control;
	return 0;
}

/* A feature section this reader uses, at [off, end); others are
 * skipped. */
int pd_read_feature(fg_perfdata *r, uint64_t feat, uint64_t off, uint64_t end)
{
	uint64_t p = off;
	const char *arch;

	switch (feat) {
	case FEAT_BUILD_ID:
		return pd_read_build_ids(r, off, end);
	case FEAT_EVENT_DESC:
		return read_event_desc(r, off, end);
	case FEAT_CMDLINE:
		return read_cmdline(r, off, end);
	case FEAT_ARCH:
		arch = header_string(r, &p, end);
		if (arch && strcmp(arch, "x86_64") && !r->unsupported)
			r->unsupported = "recordings of other architectures than x86_64";
		return 0;
	case FEAT_COMPRESSED:
		return read_compressed(r, off, end);
	case FEAT_AUXTRACE:
		if (!r->unsupported)
			r->unsupported = "AUX area data";
		return 0;
	case FEAT_DIR_FORMAT:
		if (!r->unsupported)
			r->unsupported = "perf.data folders";
		return 0;
	}
	return 0;
}

/* The feature sections: one {offset, size} per bit set, after the data. */
static int read_features(fg_perfdata *r, const unsigned char *bits)
{
	uint64_t table = r->data_end, off, size;
	int feat, err, idx = 0;

	for (feat = 0; feat < 256; feat++) {
		if (!(bits[feat / 8] >> (feat % 8) & 1))
			continue;
		if (!in_file(r, table + (uint64_t)idx * 16, 16))
			return bad(r, table + (uint64_t)idx * 16, "feature table truncated");
		off = pd_u64(r->base + table + (uint64_t)idx * 16);
		size = pd_u64(r->base + table + (uint64_t)idx * 16 + 8);
		idx++;
		if (!in_file(r, off, size))
			return bad(r, table + (uint64_t)(idx - 1) * 16, "feature section outside the file");
		if ((err = pd_read_feature(r, (uint64_t)feat, off, off + size)))
			return err;
	}
	return 0;
}

static int parse_header(fg_perfdata *r)
{
	const unsigned char *h = r->base;
	uint64_t hsize, data_off, data_size;

	if (r->size < 16 || !fg_perfdata_magic(h, r->size)) {
		if (r->size >= 8 && !memcmp(h, "2ELIFREP", 8)) {
			r->unsupported = "perf.data of the other byte order";
			return 0;
		}
		return bad(r, 0, "not a perf.data file (no PERFILE2 magic)");
	}
	hsize = pd_u64(h + 8);
	if (hsize == 16) {
		r->pipe = true;
		r->data_off = 16;
		r->data_end = r->size;
		return pd_read_pipe_prologue(r);
	}
	if (hsize != HEADER_SIZE)
		return bad(r, 8, "unknown header size");
	if (r->size < HEADER_SIZE)
		return bad(r, r->size, "file ends inside its header");
	data_off = pd_u64(h + 40);
	data_size = pd_u64(h + 48);
	if (!in_file(r, data_off, data_size))
		return bad(r, 40, "data section outside the file (truncated recording?)");
	r->data_off = data_off;
	r->data_end = data_off + data_size;
	if (pd_u64(h + 16) > 4096)
		return bad(r, 16, "attribute size out of range");
	{
		int err = read_attrs(r, pd_u64(h + 16), pd_u64(h + 24), pd_u64(h + 32));
		if (err)
			return err;
	}
	return read_features(r, h + 72);
}

int pd_setup(fg_perfdata *r, const char *name, const fg_perfdata_opts *opts)
{
	fg_perfdata_opts defaults = FG_PERFDATA_OPTS_INIT;
	int err;

	r->opts = opts ? *opts : defaults;
	if (!(r->name = fg_strdup(name)))
		return FG_ENOMEM;
	pd_machine_init(&r->machine);
	pd_inflater_init(&r->inflater);
	pd_symbols_init(&r->syms, &r->opts);
	/* perf script lists inlined frames only for the frames it unwinds
	 * itself (dwarf call graphs): never for the kernel's frame-pointer
	 * chains, the only ones read here so far */
	r->syms.opts.inline_frames = false;
	err = parse_header(r);
	/* ... but for the user frames of dwarf call graphs, unwound here */
	if (!err && r->dwarf && !r->unsupported)
		r->syms.opts.inline_frames = r->opts.inline_frames;
	return err;
}

int fg_perfdata_open_mem(fg_perfdata **out, const char *name, const void *buf, size_t len,
			 const fg_perfdata_opts *opts)
{
	fg_perfdata *r;
	int err;

	*out = NULL;
	if (!(r = fg_calloc(1, sizeof(*r))))
		return FG_ENOMEM;
	r->base = buf;
	r->size = len;
	r->fd = -1;
	if ((err = pd_setup(r, name, opts))) {
		fg_perfdata_free(r);
		return err;
	}
	*out = r;
	return 0;
}

int fg_perfdata_open(fg_perfdata **out, const char *path, const fg_perfdata_opts *opts)
{
	struct stat st;
	void *map = NULL;
	int fd, err;

	*out = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return fg_error_set(errno == ENOENT ? FG_ENOTFOUND : FG_EIO, "%s: %s", path,
				    strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return fg_error_set(FG_EIO, "%s: not a regular file", path);
	}
	if (st.st_size > 0 &&
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		err = fg_error_set(FG_EIO, "%s: %s", path, strerror(errno));
		close(fd);
		return err;
	}
	/* the header and features are read through the mapping, the
	 * records with pread (fetch.c): touching a page of a mapping the
	 * first time costs more than reading it */
	if (map)
		madvise(map, (size_t)st.st_size, MADV_RANDOM);
	err = fg_perfdata_open_mem(out, path, map ? map : "", (size_t)st.st_size, opts);
	if (err) {
		if (map)
			munmap(map, (size_t)st.st_size);
		close(fd);
		return err;
	}
	(*out)->mapped = map != NULL;
	(*out)->fd = fd;
	return 0;
}

const char *fg_perfdata_unsupported(const fg_perfdata *r)
{
	return r->unsupported;
}

void fg_perfdata_reader_stats(const fg_perfdata *r, fg_perfdata_stats *out)
{
	*out = r->stats;
	out->modules = r->syms.loaded;
}

void fg_perfdata_stats_get(const fg_perfdata *r, fg_perfdata_stats *out)
{
	fg_perfdata_reader_stats(r, out);
}

void fg_perfdata_free(fg_perfdata *r)
{
	if (!r)
		return;
	if (r->mapped)
		munmap((void *)r->base, r->size);
	if (r->fd >= 0)
		close(r->fd);
	pd_fetch_release(r);
	pd_unwinder_free(r->unwinder);
	pd_inflater_release(&r->inflater);
	pd_chunks_release(&r->stream);
	free(r->prologue);
	pd_machine_release(&r->machine);
	pd_symbols_release(&r->syms);
	fg_arena_release(&r->arena);
	free(r->attrs);
	free(r->q);
	free(r->qtmp);
	free(r->frames);
	free(r->name);
	free(r);
}

/* ---- records ---- */

#define MAX_LOST(r) ((r)->lost_in_lost > (r)->lost_in_lost_samples ? (r)->lost_in_lost : \
		     (r)->lost_in_lost_samples)

/* Position of the time in a non-sample record's sample_id trailer,
 * counted back from the record's end; 0: none. */
static size_t trailer_time_back(const fg_perfdata *r)
{
	uint64_t t = r->sample_type;
	size_t back = 8;

	if (!r->id_all || !(t & PERF_SAMPLE_TIME))
		return 0;
	back += (t & PERF_SAMPLE_ID) ? 8 : 0;
	back += (t & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	back += (t & PERF_SAMPLE_CPU) ? 8 : 0;
	back += (t & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	return back;
}

/* The sample fields this reader uses, from a SAMPLE record. */
struct sample {
	uint64_t ip, time, id, period;
	int32_t pid, tid;
	const unsigned char *chain;
	uint64_t nchain;
	bool has_id;
	uint64_t abi;             /* of the user registers: 0 none */
	const unsigned char *regs; /* one u64 per bit of regs_user */
	const unsigned char *stack;
	uint64_t stack_len;       /* the valid part of the stack copy */
	uint64_t stack_full;      /* with the part left in the file (at
				     stack_at): 0, none left */
	uint64_t stack_at;
};

/* PERF_SAMPLE_REGS_USER (abi, then one u64 per register of the mask
 * unless the abi is none) and PERF_SAMPLE_STACK_USER (size, the copy,
 * then the size used when it is not 0), from p on. */
static int parse_user_state(const fg_perfdata *r, const struct recpos *at, const unsigned char *p,
			    const unsigned char *end, struct sample *s)
{
	uint64_t size, dyn;

	if (!r->dwarf)
		return 0;
	if (end - p < 8)
		return bad_at(r, at, "sample record ends before its user registers");
	s->abi = pd_u64(p);
	p += 8;
	if (s->abi) {
		size_t n = (size_t)__builtin_popcountll(r->regs_user);
		if ((size_t)(end - p) / 8 < n)
			return bad_at(r, at, "user registers longer than their record");
		s->regs = p;
		p += 8 * n;
	}
	if (end - p < 8)
		return bad_at(r, at, "sample record ends before its user stack");
	size = pd_u64(p);
	p += 8;
	if (!size)
		return 0;
	if (size > (uint64_t)(end - p) || (uint64_t)(end - p) - size < 8)
		return bad_at(r, at, "user stack longer than its record");
	s->stack = p;
	dyn = pd_u64(p + size);
	s->stack_len = dyn < size ? dyn : size;
	if (at->stack_in_file && dyn > size) {
		s->stack_full = dyn;
		s->stack_at = at->off + (uint64_t)(p - at->p);
	}
	return 0;
}

/* The fields of a sample before its user registers, from at->p up to
 * end; *rest: where the registers start. */
static int parse_front(const fg_perfdata *r, const struct recpos *at, const unsigned char *end,
		       struct sample *s, const unsigned char **rest)
{
	const unsigned char *p = at->p + 8;
	uint64_t t = r->sample_type;

	memset(s, 0, sizeof(*s));
#define NEED(n) do { if ((size_t)(end - p) < (n)) return bad_at(r, at, "sample record shorter than its fields"); } while (0)
	if (t & PERF_SAMPLE_IDENTIFIER) {
		NEED(8);
		s->id = pd_u64(p);
		s->has_id = true;
		p += 8;
	}
	if (t & PERF_SAMPLE_IP) {
		NEED(8);
		s->ip = pd_u64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_TID) {
		NEED(8);
		s->pid = (int32_t)pd_u32(p);
		s->tid = (int32_t)pd_u32(p + 4);
		p += 8;
	}
	if (t & PERF_SAMPLE_TIME) {
		NEED(8);
		s->time = pd_u64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_ADDR) {
		NEED(8);
		p += 8;
	}
	if (t & PERF_SAMPLE_ID) {
		NEED(8);
		s->id = pd_u64(p);
		s->has_id = true;
		p += 8;
	}
	if (t & PERF_SAMPLE_STREAM_ID) {
		NEED(8);
		p += 8;
	}
	if (t & PERF_SAMPLE_CPU) {
		NEED(8);
		p += 8;
	}
	if (t & PERF_SAMPLE_PERIOD) {
		NEED(8);
		s->period = pd_u64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		NEED(8);
		s->nchain = pd_u64(p);
		p += 8;
		if (s->nchain > (uint64_t)(end - p) / 8)
			return bad_at(r, at, "call chain longer than its record");
		s->chain = p;
		p += s->nchain * 8;
	}
	if (t & PERF_SAMPLE_RAW) {
		uint32_t raw;
		NEED(4);
		raw = pd_u32(p);
		p += 4;
		NEED(raw);
		p += raw;
	}
#undef NEED
	*rest = p;
	return 0;
}

static int parse_sample(const fg_perfdata *r, const struct recpos *at, uint16_t size,
			struct sample *s)
{
	const unsigned char *p;
	int err = parse_front(r, at, at->p + size, s, &p);

	return err ? err : parse_user_state(r, at, p, at->p + size, s);
}

size_t pd_stack_size_at(const fg_perfdata *r, const unsigned char *rec, size_t len)
{
	struct recpos at = { rec, 0, NULL, false };
	const unsigned char *p, *end = rec + len;
	struct sample s;
	uint64_t abi;

	if (!r->dwarf || parse_front(r, &at, end, &s, &p))
		return 0;
	if (end - p < 8)
		return 0;
	abi = pd_u64(p);
	p += 8;
	if (abi) {
		size_t n = (size_t)__builtin_popcountll(r->regs_user);
		if ((size_t)(end - p) / 8 < n)
			return 0;
		p += 8 * n;
	}
	return end - p < 8 ? 0 : (size_t)(p - rec);
}

static const struct pd_attr *attr_of(const fg_perfdata *r, const struct sample *s)
{
	size_t i, k;

	if (r->nattrs == 1 || !s->has_id)
		return &r->attrs[0];
	for (i = 0; i < r->nattrs; i++)
		for (k = 0; k < r->attrs[i].nids; k++)
			if (pd_u64(r->attrs[i].ids + 8 * k) == s->id)
				return &r->attrs[i];
	return &r->attrs[0];
}

static int add_frame(fg_perfdata *r, const fg_perfdata_frame *f)
{
	if (FG_ALLOC_GROW(r->frames, r->nframes + 1, r->aframes, 64))
		return FG_ENOMEM;
	r->frames[r->nframes++] = *f;
	return 0;
}

/* Appends the frames of one address, in the context (user or kernel)
 * its call chain marker gave. */
static int add_address(fg_perfdata *r, int32_t pid, uint64_t ip, bool kernel)
{
	const fg_perfdata_frame *fs;
	fg_perfdata_frame unknown = { .addr = ip, .kernel = kernel };
	const struct pd_map *map;
	size_t n, i;
	int err;

	if (kernel) {
		if ((err = pd_symbols_resolve(&r->syms, &r->syms.kernel, ip, &fs, &n)))
			return err;
		for (i = 0; i < n; i++)
			if ((err = add_frame(r, &fs[i])))
				return err;
		return 0;
	}
	map = pd_machine_find_map(&r->machine, pid, ip);
	if (!map || !map->mod)
		return add_frame(r, &unknown);
	if (map->mod->kernel || map->mod->anon) {
		if ((err = pd_symbols_resolve(&r->syms, map->mod, ip, &fs, &n)))
			return err;
	} else {
		if ((err = pd_symbols_resolve(&r->syms, map->mod, ip - map->start + map->pgoff, &fs, &n)))
			return err;
	}
	for (i = 0; i < n; i++)
		if ((err = add_frame(r, &fs[i])))
			return err;
	return 0;
}

/* The frames of a frame-pointer call chain; with dwarf call graphs,
 * only its kernel part (the user part is unwound instead). *depth gets
 * how many addresses were taken. */
static int chain_frames(fg_perfdata *r, const struct sample *s, uint64_t *depth)
{
	bool kernel = false;
	uint64_t i;
	int err;

	*depth = 0;
	for (i = 0; i < s->nchain && *depth < MAX_STACK; i++) {
		uint64_t ip = pd_u64(s->chain + 8 * i);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (r->dwarf && !kernel)
			break;
		/* with lines, a caller's is that of its call, just before the
		 * return address the chain holds (as the unwinder does) */
		if (r->opts.lines && !kernel && *depth)
			ip--;
		++*depth;
		if ((err = add_address(r, s->pid, ip, kernel)))
			return err;
	}
	return 0;
}

static int more_stack(void *ctx, uint64_t off, size_t len, unsigned char *dst)
{
	return pd_fetch_more(ctx, off, len, dst);
}

/* The user frames of a dwarf call graph sample: unwound from its
 * registers and stack copy. */
static int unwound_frames(fg_perfdata *r, const struct sample *s, uint64_t depth)
{
	struct pd_user_state st;
	size_t i, k = 0, n;
	int err;

	/* no user state: a kernel thread, or a 32-bit process; no stack
	 * copy (the kernel could not read it, as in an execve that replaced
	 * the memory): no user frames at all, as perf gives none */
	if (s->abi != PERF_SAMPLE_REGS_ABI_64 || !s->regs || !s->stack_len)
		return 0;
	memset(&st, 0, sizeof(st));
	st.mask = r->regs_user;
	for (i = 0; i < PD_NREGS; i++)
		if (st.mask >> i & 1)
			st.regs[i] = pd_u64(s->regs + 8 * k++);
	st.stack = s->stack;
	st.stack_len = s->stack_len;
	if (s->stack_full) {
		st.stack_full = s->stack_full;
		st.at = s->stack_at;
		st.more = more_stack;
		st.more_ctx = r;
	}
	if (!r->unwinder && (err = pd_unwinder_new(&r->unwinder, &r->syms, &r->machine)))
		return err;
	if ((err = pd_unwind(r->unwinder, s->pid, s->tid, &st, r->pcs, MAX_STACK - depth, &n)))
		return err;
	for (i = 0; i < n; i++)
		if ((err = add_address(r, s->pid, r->pcs[i], false)))
			return err;
	return 0;
}

static int do_sample(fg_perfdata *r, const struct recpos *at, uint16_t size, uint16_t misc,
		     fg_perfdata_sample_cb cb, void *ctx)
{
	struct sample s;
	const struct pd_attr *attr;
	fg_perfdata_sample out;
	pd_thread *t;
	int err;

	if ((err = parse_sample(r, at, size, &s)))
		return err;
	attr = attr_of(r, &s);
	if (!(t = pd_machine_thread(&r->machine, s.pid, s.tid)))
		return FG_ENOMEM;
	if ((r->opts.from_exec || (r->opts.from_exec_if_held && r->held_launch)) && r->comm_exec) {
		const pd_proc *proc = pd_machine_proc(&r->machine, s.pid);
		if (!proc)
			return FG_ENOMEM;
		if (!proc->execd) {
			r->stats.before_exec++;
			return 0;
		}
	}
	r->nframes = 0;
	if (r->dwarf) {
		uint64_t depth = 0;
		if ((s.chain && (err = chain_frames(r, &s, &depth))) ||
		    (err = unwound_frames(r, &s, depth)))
			return err;
	} else if (s.chain) {
		uint64_t depth;
		if ((err = chain_frames(r, &s, &depth)))
			return err;
	} else if ((err = add_address(r, s.pid, s.ip,
				      (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL))) {
		return err;
	}
	memset(&out, 0, sizeof(out));
	if (t->comm) {
		out.comm = t->comm;
	} else {
		snprintf(r->comm_buf, sizeof(r->comm_buf), ":%d", (int)s.tid);
		out.comm = r->comm_buf;
	}
	out.pid = s.pid;
	out.tid = s.tid;
	out.time = s.time;
	out.period = (r->sample_type & PERF_SAMPLE_PERIOD) ? s.period : attr->sample_period;
	out.event = attr->name ? attr->name : "event";
	out.frames = r->frames;
	out.nframes = r->nframes;
	r->stats.samples++;
	return cb(ctx, &out);
}

/* A record's file name field: NUL-terminated within the record. */
static const char *record_name(const struct recpos *at, uint16_t size, size_t field)
{
	const char *s = (const char *)at->p + field;

	if (field >= size || !memchr(s, '\0', size - field))
		return NULL;
	return s;
}

static int do_mmap(fg_perfdata *r, const struct recpos *at, uint16_t size, uint32_t type)
{
	const unsigned char *p = at->p;
	size_t name_at = type == PERF_RECORD_MMAP2 ? 72 : 40;
	const char *name = record_name(at, size, name_at);
	char jit_name[PD_JITMAP_NAME_MAX];
	pd_module *mod;
	int32_t pid;
	int err;

	if (!name)
		return bad_at(r, at, "map record without a file name");
	pid = (int32_t)pd_u32(p + 8);
	/* executable memory with no file: perf names it after the process'
	 * JIT map file, whose symbols it has (MMAP records carry no
	 * protections: all but data maps are code) */
	if (pd_jitmap_wanted(name, type == PERF_RECORD_MMAP2 ? pd_u32(p + 64) :
				   (pd_u16(p + 4) & PERF_RECORD_MISC_MMAP_DATA) ? 0 : PROT_EXEC,
			     type == PERF_RECORD_MMAP2 ? pd_u32(p + 68) : 0)) {
		pd_jitmap_name(jit_name, pid);
		name = jit_name;
	}
	if (type == PERF_RECORD_MMAP2 && (pd_u16(p + 4) & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		uint8_t n = p[40] > 20 ? 20 : p[40];
		if (!fg_strmap_get(&r->syms.buildids, name, strlen(name)) &&
		    pd_symbols_add_buildid(&r->syms, name, strlen(name), p + 44, n))
			return FG_ENOMEM;
	}
	if (!(mod = pd_symbols_module(&r->syms, name)))
		return FG_ENOMEM;
	/* the kernel's and its modules' maps (pid -1) are kallsyms'; the
	 * kernel's is named after the symbol it gives the address of */
	if (mod->kernel) {
		if (!strcmp(name, "[kernel.kallsyms]_text"))
			r->syms.kernel_text = pd_u64(p + 32);
		return 0;
	}
	if ((err = pd_machine_mmap(&r->machine, pid, pd_u64(p + 16), pd_u64(p + 24), pd_u64(p + 32),
				   mod)))
		return err;
	/* new code to unwind through: the unwinder reports the process'
	 * files again (data maps, such as a mapped locale file, change
	 * nothing it needs) */
	if (!(pd_u16(p + 4) & PERF_RECORD_MISC_MMAP_DATA) && !mod->anon) {
		pd_proc *proc = pd_machine_proc(&r->machine, pid);
		if (!proc)
			return FG_ENOMEM;
		proc->gen++;
	}
	return 0;
}

/* A process' exit: the unwinder lets go of its files. */
static void do_exit(fg_perfdata *r, const struct recpos *at, uint16_t size)
{
	const unsigned char *p = at->p;

	if (size >= 24 && r->unwinder && pd_u32(p + 8) == pd_u32(p + 16))
		pd_unwinder_forget(r->unwinder, (int32_t)pd_u32(p + 8));
}

static int handle(fg_perfdata *r, const struct recpos *at, fg_perfdata_sample_cb cb, void *ctx)
{
	const unsigned char *p = at->p;
	uint32_t type = pd_u32(p);
	uint16_t misc = pd_u16(p + 4), size = pd_u16(p + 6);
	const char *comm;

	switch (type) {
	case PERF_RECORD_SAMPLE:
		return do_sample(r, at, size, misc, cb, ctx);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (size < (type == PERF_RECORD_MMAP2 ? 72 : 40))
			return bad_at(r, at, "map record too short");
		return do_mmap(r, at, size, type);
	case PERF_RECORD_COMM:
		if (size < 16 || !(comm = record_name(at, size, 16)))
			return bad_at(r, at, "comm record too short");
		/* an exec: the maps of the old program are gone (their files
		 * would overlap the new program's for the unwinder) */
		if ((misc & PERF_RECORD_MISC_COMM_EXEC) &&
		    pd_machine_exec(&r->machine, (int32_t)pd_u32(p + 8)))
			return FG_ENOMEM;
		return pd_machine_comm(&r->machine, (int32_t)pd_u32(p + 8), (int32_t)pd_u32(p + 12), comm,
				       strlen(comm));
	case PERF_RECORD_FORK:
		if (size < 32)
			return bad_at(r, at, "fork record too short");
		return pd_machine_fork(&r->machine, (int32_t)pd_u32(p + 8), (int32_t)pd_u32(p + 12),
				       (int32_t)pd_u32(p + 16), (int32_t)pd_u32(p + 20));
	case PERF_RECORD_EXIT:
		do_exit(r, at, size);
		return 0;
	/* perf (6.0 on) ends a recording with a LOST_SAMPLES record per
	 * event that totals the drops its LOST records told of: the larger
	 * sum counts, not both */
	case PERF_RECORD_LOST:
		if (size >= 24)
			r->lost_in_lost += pd_u64(p + 16);
		r->stats.lost = MAX_LOST(r);
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		if (size >= 16)
			r->lost_in_lost_samples += pd_u64(p + 8);
		r->stats.lost = MAX_LOST(r);
		return 0;
	default:
		return 0;
	}
}

static int cmp_qent(const void *pa, const void *pb)
{
	const struct qent *a = pa, *b = pb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Merges the sorted runs a[0, mid) and a[mid, n) into out. */
static void merge_runs(const struct qent *a, size_t mid, size_t n, struct qent *out)
{
	size_t i = 0, j = mid, k = 0;

	while (i < mid && j < n)
		out[k++] = cmp_qent(&a[j], &a[i]) < 0 ? a[j++] : a[i++];
	while (i < mid)
		out[k++] = a[i++];
	while (j < n)
		out[k++] = a[j++];
}

/* Sorts the queue by time, then arrival. A round holds one sorted run
 * per CPU buffer perf wrote, so neighbouring runs are merged, pass
 * after pass, between the queue and a scratch array kept for the next
 * round (qsort sorts from scratch, and its scratch memory, fresh pages
 * every round, cost more than the sorting). */
static int sort_queue(fg_perfdata *r)
{
	size_t n = r->nq, i, runs = 1;

	for (i = 1; i < n; i++)
		if (cmp_qent(&r->q[i - 1], &r->q[i]) > 0)
			runs++;
	if (runs == 1)
		return 0;
	if (FG_ALLOC_GROW(r->qtmp, n, r->aqtmp, 1024))
		return FG_ENOMEM;
	while (runs > 1) {
		struct qent *a = r->q, *t;
		size_t start = 0, at;
		runs = 0;
		while (start < n) {
			size_t mid = start + 1, end;
			while (mid < n && cmp_qent(&a[mid - 1], &a[mid]) <= 0)
				mid++;
			end = mid < n ? mid + 1 : mid;
			while (end < n && cmp_qent(&a[end - 1], &a[end]) <= 0)
				end++;
			merge_runs(a + start, mid - start, end - start, r->qtmp + start);
			start = end;
			runs++;
		}
		t = r->q;
		r->q = r->qtmp;
		r->qtmp = t;
		at = r->aq;
		r->aq = r->aqtmp;
		r->aqtmp = at;
	}
	return 0;
}

/* Handles the queued records up to time limit (all: UINT64_MAX). */
static int flush(fg_perfdata *r, uint64_t limit, fg_perfdata_sample_cb cb, void *ctx)
{
	size_t i, n;
	int err;

	if ((err = sort_queue(r)))
		return err;
	for (n = 0; n < r->nq && r->q[n].time <= limit; n++) {
		err = handle(r, &r->q[n].at, cb, ctx);
		/* a chunk goes with the last of its queued records */
		if (r->q[n].at.chunk)
			pd_chunk_unref(r->q[n].at.chunk);
		if (err)
			return err;
	}
	for (i = n; i < r->nq; i++)
		r->q[i - n] = r->q[i];
	r->nq -= n;
	return 0;
}

static bool is_queued_type(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_SAMPLE:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		return true;
	}
	return false;
}

/* The time of a record (0 when it carries none). */
static int record_time(const fg_perfdata *r, const struct recpos *at, uint32_t type, uint16_t size,
		       uint64_t *time)
{
	*time = 0;
	if (!(r->sample_type & PERF_SAMPLE_TIME))
		return 0;
	if (type == PERF_RECORD_SAMPLE) {
		struct sample s;
		int err = parse_sample(r, at, size, &s);
		if (err)
			return err;
		*time = s.time;
	} else {
		size_t back = trailer_time_back(r);
		if (back && back <= (size_t)size - 8)
			*time = pd_u64(at->p + size - back);
	}
	return 0;
}

/* Queues a record for the end of its round; in a recording without
 * times, handles it at once. */
static int queue_record(fg_perfdata *r, const struct recpos *at, uint32_t type, uint16_t size,
			fg_perfdata_sample_cb cb, void *ctx)
{
	uint64_t time;
	int err;

	if ((err = record_time(r, at, type, size, &time)))
		return err;
	if (!(r->sample_type & PERF_SAMPLE_TIME))
		return handle(r, at, cb, ctx);
	if (FG_ALLOC_GROW(r->q, r->nq + 1, r->aq, 1024))
		return FG_ENOMEM;
	r->q[r->nq].time = time;
	r->q[r->nq].seq = r->seq++;
	r->q[r->nq++].at = *at;
	if (at->chunk)
		at->chunk->refs++;
	if (time > r->max_time)
		r->max_time = time;
	return 0;
}

/* One record, from the file or decompressed: a round's end flushes the
 * queue, the kinds handled are queued, unknown kernel kinds counted. */
static int dispatch(fg_perfdata *r, const struct recpos *at, fg_perfdata_sample_cb cb, void *ctx)
{
	uint32_t type = pd_u32(at->p);
	uint16_t size = pd_u16(at->p + 6);
	int err;

	if (type == REC_FINISHED_ROUND) {
		if ((err = flush(r, r->next_flush, cb, ctx)))
			return err;
		r->next_flush = r->max_time;
	} else if (is_queued_type(type)) {
		return queue_record(r, at, type, size, cb, ctx);
	} else if (type >= PERF_RECORD_MAX && type < 64) {
		r->stats.skipped++;
	}
	return 0;
}

bool pd_is_compressed_type(const fg_perfdata *r, uint32_t type)
{
	/* 83 is COMPRESSED2 in the perf releases that write it; only
	 * with the compressed feature is it sure to be that */
	return type == REC_COMPRESSED || (type == REC_COMPRESSED2 && r->compressed);
}

/* The records of a decompressed chunk; one cut at its end is left for
 * the next chunk (r->tail: its bytes so far). */
static int walk_chunk(fg_perfdata *r, pd_chunk *c, fg_perfdata_sample_cb cb, void *ctx)
{
	size_t pos = 0;
	int err;

	while (c->len - pos >= 8) {
		struct recpos at = { c->data + pos, c->off, c, false };
		uint16_t size = pd_u16(at.p + 6);
		if (size < 8)
			return bad_at(r, &at, "record smaller than its header");
		if (size > c->len - pos)
			break;
		if (pd_is_compressed_type(r, pd_u32(at.p)))
			return bad_at(r, &at, "a compressed record inside compressed data");
		if ((err = dispatch(r, &at, cb, ctx)))
			return err;
		pos += size;
	}
	r->tail = c->len - pos;
	return 0;
}

/* A compressed record: its part of the zstd stream decompressed, and
 * the records in it walked as if they stood in the file here. */
static int do_compressed(fg_perfdata *r, const struct recpos *at, uint32_t type, uint16_t size,
			 fg_perfdata_sample_cb cb, void *ctx)
{
	const unsigned char *src = at->p + 8;
	uint64_t len = size - 8u;
	const char *why;
	pd_chunk *c;
	int err;

	if (type == REC_COMPRESSED2) {
		/* its data's size, then the data, padded to 8 bytes */
		if (size < 16 || pd_u64(at->p + 8) > size - 16u)
			return bad_at(r, at, "compressed data larger than its record");
		src = at->p + 16;
		len = pd_u64(at->p + 8);
	}
	err = pd_inflate(&r->inflater, at->off, src, (size_t)len, r->tail, &c, &why);
	if (err == FG_EPARSE)
		return fg_error_set(FG_EPARSE, "%s: offset %llu: corrupt compressed data (zstd: %s)",
				    r->name, (unsigned long long)at->off, why);
	if (err)
		return err;
	return walk_chunk(r, c, cb, ctx);
}

/* One record: a compressed one decompressed and its records walked,
 * others dispatched. *extra gets the size of the data that follows the
 * record itself (AUX data, the pipe form's tracing data), to pass. */
int pd_walk_one(fg_perfdata *r, const struct recpos *at, uint32_t type, uint16_t size,
		    uint64_t *extra, fg_perfdata_sample_cb cb, void *ctx)
{
	*extra = 0;
	if (pd_is_compressed_type(r, type))
		return do_compressed(r, at, type, size, cb, ctx);
	if (type == REC_AUXTRACE && size >= 16)
		*extra = pd_u64(at->p + 8);
	else if (type == REC_HEADER_TRACING_DATA && r->pipe && size >= 12)
		*extra = pd_u32(at->p + 8);
	else
		return dispatch(r, at, cb, ctx);
	return 0;
}

/* After the last record: compressed data must not end inside one, and
 * the records still queued are handled. */
int pd_walk_end(fg_perfdata *r, fg_perfdata_sample_cb cb, void *ctx)
{
	if (r->tail)
		return bad(r, r->inflater.chunks.last->off,
			   "compressed data ends inside a record (the recording was cut short?)");
	return flush(r, UINT64_MAX, cb, ctx);
}

static int walk(fg_perfdata *r, fg_perfdata_sample_cb cb, void *ctx)
{
	int err = pd_walk_records(r, cb, ctx);

	return err ? err : pd_walk_end(r, cb, ctx);
}

int fg_perfdata_foreach(fg_perfdata *r, fg_perfdata_sample_cb cb, void *ctx)
{
	if (r->unsupported)
		return fg_error_set(FG_EINVAL, "%s: %s are not supported", r->name, r->unsupported);
	if (r->used)
		return fg_error_set(FG_EINVAL, "%s: samples already read", r->name);
	r->used = true;
	return r->read ? pd_walk_stream(r, cb, ctx) : walk(r, cb, ctx);
}
