/* perf.data, file form: a fixed header; the event attributes; the data
 * section (the kernel's records and perf's own); after it, one {offset,
 * size} per feature bit set in the header, pointing at the features.
 * Here: the header, the attributes and the features read at open (the
 * file is mapped for them), the reader's open, stats and free, and the
 * messages of malformed input. */
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
#include "lib/perfdata/file_header.h"
#include "lib/perfdata/reader.h"
#include "util/version.h"
#include "util/banned.h"

bool fg_perfdata_magic(const void *buf, size_t len)
{
	return len >= 8 && !memcmp(buf, "PERFILE2", 8);
}

enum pd_file_form pd_file_header_read(struct pd_file_header *h, const void *buf, size_t len)
{
	size_t n = len < sizeof(*h) ? len : sizeof(*h);

	memset(h, 0, sizeof(*h));
	if (n)
		memcpy(h, buf, n);
	if (len < PD_PIPE_HEADER_SIZE || !fg_perfdata_magic(buf, len))
		return len >= 8 && !memcmp(buf, "2ELIFREP", 8) ? PD_FORM_SWAPPED : PD_FORM_NONE;
	if (h->size == PD_PIPE_HEADER_SIZE)
		return PD_FORM_PIPE;
	if (h->size != PD_FILE_HEADER_SIZE)
		return PD_FORM_ODD_SIZE;
	return len < PD_FILE_HEADER_SIZE ? PD_FORM_SHORT : PD_FORM_FILE;
}

int pd_bad(const fg_perfdata *r, uint64_t off, const char *what)
{
	return fg_error_set(FG_EPARSE, "%s: offset %llu: %s", r->name, (unsigned long long)off, what);
}

int pd_bad_at(const fg_perfdata *r, const struct recpos *at, const char *what)
{
	if (at->chunk && at->chunk->inflated)
		return fg_error_set(FG_EPARSE, "%s: offset %llu: in its decompressed records: %s",
				    r->name, (unsigned long long)at->chunk->off, what);
	return pd_bad(r, at->off, what);
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
static void check_dwarf(fg_perfdata *r, struct pd_attr *a)
{
	uint64_t t = a->sample_type, both = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	uint64_t need = (uint64_t)1 << PD_REG_SP | (uint64_t)1 << PD_REG_IP;

	if (!(t & both) || r->unsupported)
		return;
	if ((t & both) != both)
		r->unsupported = "dwarf call graphs with user registers or stack copies alone";
	else if ((a->regs_user & need) != need || a->regs_user >> PD_NREGS)
		r->unsupported = "dwarf call graphs without x86_64's stack and instruction pointers";
	else if (t & PERF_SAMPLE_BRANCH_STACK)
		r->unsupported = "dwarf call graphs with branch stacks";
	else
		a->dwarf = true;
}

/* Where the time of a non-sample record's sample_id trailer (TID, TIME,
 * ID, STREAM_ID, CPU, IDENTIFIER, those of the format) is, counted back
 * from the record's end; 0: none. */
static uint8_t trailer_time_back(const struct pd_attr *a)
{
	uint64_t t = a->sample_type;

	if (!a->id_all || !(t & PERF_SAMPLE_TIME))
		return 0;
	return (uint8_t)(8 + ((t & PERF_SAMPLE_ID) ? 8 : 0) + ((t & PERF_SAMPLE_STREAM_ID) ? 8 : 0) +
			 ((t & PERF_SAMPLE_CPU) ? 8 : 0) + ((t & PERF_SAMPLE_IDENTIFIER) ? 8 : 0));
}

void pd_set_attr(fg_perfdata *r, size_t i, const unsigned char *a, uint64_t asize,
		     const unsigned char *ids, size_t nids)
{
	struct pd_attr *at = &r->attrs[i];
	uint64_t flags = pd_u64(a + 40);

	at->type = pd_u32(a);
	at->config = pd_u64(a + 8);
	at->sample_type = pd_u64(a + 24);
	at->sample_period = (flags & (1u << 10)) ? 1 : pd_u64(a + 16);
	/* sample_regs_user came with the attribute's third size (96) */
	at->regs_user = asize >= 88 ? pd_u64(a + 80) : 0;
	at->ids = ids;
	at->nids = nids;
	at->id_all = (flags >> 18) & 1;
	at->dummy = pd_u32(a) == PERF_TYPE_SOFTWARE && pd_u64(a + 8) == PERF_COUNT_SW_DUMMY;
	at->time_back = trailer_time_back(at);
	if ((flags >> 24) & 1)
		r->comm_exec = true;
	/* the kernel's frame-pointer walk of user stacks beside the stack
	 * copies (not exclude_callchain_user): hybrid samples (hybrid.c) */
	at->user_chain = (at->sample_type & PERF_SAMPLE_CALLCHAIN) && !((flags >> 22) & 1);
	if (at->user_chain && (at->sample_type & PERF_SAMPLE_STACK_USER))
		r->hybrid_chains = true;
}

/* Where a sample's id is (index of the u64 after the header), and a
 * trailer's (u64s back from the end): perf's places; -1: none. */
static int sample_id_pos(uint64_t t)
{
	if (t & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(t & PERF_SAMPLE_ID))
		return -1;
	return !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) +
	       !!(t & PERF_SAMPLE_ADDR);
}

static int trailer_id_pos(uint64_t t)
{
	if (t & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(t & PERF_SAMPLE_ID))
		return -1;
	return 1 + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_STREAM_ID);
}

/* One attribute's sample format: what this reader needs of it. The
 * dummy event never samples: its format only lays out trailers. */
static void check_attr(fg_perfdata *r, struct pd_attr *a)
{
	if ((a->sample_type & PERF_SAMPLE_READ) && !r->unsupported)
		r->unsupported = "samples with counter values (PERF_SAMPLE_READ)";
	if (a->dummy)
		return;
	if (!(a->sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_IP)) && !r->unsupported)
		r->unsupported = "samples without an address or call chain";
	if (!(a->sample_type & PERF_SAMPLE_TID) && !r->unsupported)
		r->unsupported = "samples without a thread id";
	check_dwarf(r, a);
}

/* Several sample formats: each record's is found from its id, which must
 * then be where every format has it (perf records the events' ids so,
 * with PERF_SAMPLE_IDENTIFIER). */
static void check_formats(fg_perfdata *r)
{
	const struct pd_attr *first = &r->attrs[0];
	size_t i;

	for (i = 1; i < r->nattrs; i++) {
		const struct pd_attr *a = &r->attrs[i];
		if (a->sample_type != first->sample_type || a->regs_user != first->regs_user ||
		    a->id_all != first->id_all)
			r->formats = true;
		if (a->id_all != first->id_all || a->time_back != first->time_back)
			r->trailers = true;
		if (sample_id_pos(a->sample_type) != r->id_pos)
			r->id_pos = -1;
		if (trailer_id_pos(a->sample_type) != r->is_pos)
			r->is_pos = -1;
	}
	if (r->unsupported || !r->formats)
		return;
	if (r->id_pos < 0)
		r->unsupported = "events with different sample formats and no common place for "
				 "the id of their samples";
	else if (r->trailers && (r->is_pos < 0 || !first->id_all))
		r->unsupported = "events with different sample formats and no common place for "
				 "the id of their other records";
}

/* The id -> attribute map of a recording of several events. */
static int map_ids(fg_perfdata *r)
{
	size_t i, k;

	for (i = 0; i < r->nattrs; i++)
		for (k = 0; k < r->attrs[i].nids; k++) {
			uint64_t *v;
			if (pd_u64map_put(&r->attr_ids, pd_u64(r->attrs[i].ids + 8 * k), &v))
				return FG_ENOMEM;
			*v = i;
		}
	return 0;
}

int pd_check_attrs(fg_perfdata *r)
{
	size_t i;

	r->id_pos = sample_id_pos(r->attrs[0].sample_type);
	r->is_pos = trailer_id_pos(r->attrs[0].sample_type);
	for (i = 0; i < r->nattrs; i++) {
		check_attr(r, &r->attrs[i]);
		r->dwarf |= r->attrs[i].dwarf;
		r->timed |= (r->attrs[i].sample_type & PERF_SAMPLE_TIME) != 0;
	}
	check_formats(r);
	return r->nattrs > 1 ? map_ids(r) : 0;
}

static int read_attrs(fg_perfdata *r, uint64_t attr_size, uint64_t off, uint64_t size)
{
	/* each entry: the attribute, then the {offset, size} of its ids */
	uint64_t entry = attr_size, i;

	if (attr_size < 64 + 16 || attr_size > 4096)
		return pd_bad(r, 16, "attribute size out of range");
	attr_size -= 16;
	if (!in_file(r, off, size) || size % entry)
		return pd_bad(r, 24, "attribute section outside the file");
	r->nattrs = size / entry;
	if (!r->nattrs)
		return pd_bad(r, 24, "no event attributes");
	if (!(r->attrs = fg_calloc(r->nattrs, sizeof(*r->attrs))))
		return FG_ENOMEM;
	for (i = 0; i < r->nattrs; i++) {
		const unsigned char *a = r->base + off + i * entry;
		uint64_t ids_off = pd_u64(a + attr_size), ids_size = pd_u64(a + attr_size + 8);
		if (!in_file(r, ids_off, ids_size))
			return pd_bad(r, off + i * entry + attr_size, "event ids outside the file");
		pd_set_attr(r, i, a, attr_size, r->base + ids_off, (size_t)(ids_size / 8));
	}
	return pd_check_attrs(r);
}

static int read_event_desc(fg_perfdata *r, uint64_t off, uint64_t end)
{
	uint32_t nr, attr_size, i;

	if (off + 8 > end)
		return pd_bad(r, off, "event description truncated");
	nr = pd_u32(r->base + off);
	attr_size = pd_u32(r->base + off + 4);
	off += 8;
	for (i = 0; i < nr; i++) {
		uint32_t nids;
		const char *name;
		if (attr_size > end - off || end - off - attr_size < 4)
			return pd_bad(r, off, "event description truncated");
		off += attr_size;
		nids = pd_u32(r->base + off);
		off += 4;
		if (!(name = header_string(r, &off, end)))
			return pd_bad(r, off, "event name truncated");
		if ((uint64_t)nids * 8 > end - off)
			return pd_bad(r, off, "event ids truncated");
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
			return pd_bad(r, off, "build id record truncated");
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
		return pd_bad(r, off, "compression feature truncated");
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
			return pd_bad(r, table + (uint64_t)idx * 16, "feature table truncated");
		off = pd_u64(r->base + table + (uint64_t)idx * 16);
		size = pd_u64(r->base + table + (uint64_t)idx * 16 + 8);
		idx++;
		if (!in_file(r, off, size))
			return pd_bad(r, table + (uint64_t)(idx - 1) * 16, "feature section outside the file");
		if ((err = pd_read_feature(r, (uint64_t)feat, off, off + size)))
			return err;
	}
	return 0;
}

static int parse_header(fg_perfdata *r)
{
	struct pd_file_header h;
	int err;

	switch (pd_file_header_read(&h, r->base, r->size)) {
	case PD_FORM_NONE:
		return pd_bad(r, 0, "not a perf.data file (no PERFILE2 magic)");
	case PD_FORM_SWAPPED:
		r->unsupported = "perf.data of the other byte order";
		return 0;
	case PD_FORM_PIPE:
		r->pipe = true;
		r->data_off = PD_PIPE_HEADER_SIZE;
		r->data_end = r->size;
		return pd_read_pipe_prologue(r);
	case PD_FORM_ODD_SIZE:
		return pd_bad(r, offsetof(struct pd_file_header, size), "unknown header size");
	case PD_FORM_SHORT:
		return pd_bad(r, r->size, "file ends inside its header");
	case PD_FORM_FILE:
		break;
	}
	if (!in_file(r, h.data.offset, h.data.size))
		return pd_bad(r, offsetof(struct pd_file_header, data),
			      "data section outside the file (truncated recording?)");
	r->data_off = h.data.offset;
	r->data_end = h.data.offset + h.data.size;
	if (h.attr_size > 4096)
		return pd_bad(r, offsetof(struct pd_file_header, attr_size),
			      "attribute size out of range");
	if ((err = read_attrs(r, h.attr_size, h.attrs.offset, h.attrs.size)))
		return err;
	return read_features(r, h.features);
}

int pd_setup(fg_perfdata *r, const char *name, const fg_perfdata_opts *opts)
{
	fg_perfdata_opts defaults = FG_PERFDATA_OPTS_INIT;
	int err;

	r->opts = opts ? *opts : defaults;
	if (!(r->name = fg_strdup(name)))
		return FG_ENOMEM;
	pd_machine_init(&r->machine);
	r->hybrid.machine = &r->machine;
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
	if (opts &&
	    fg_opts_version_check("fg_perfdata_opts", opts->version, FG_PERFDATA_OPTS_VERSION))
		return FG_EINVAL;
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
	if (opts &&
	    fg_opts_version_check("fg_perfdata_opts", opts->version, FG_PERFDATA_OPTS_VERSION))
		return FG_EINVAL;
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

bool fg_perfdata_missing_debug(const fg_perfdata *r, size_t *iter, const char **path,
			       uint64_t *addresses)
{
	return pd_symbols_missing_debug(&r->syms, iter, path, addresses);
}

void fg_perfdata_reader_stats(const fg_perfdata *r, fg_perfdata_stats *out)
{
	*out = r->stats;
	out->modules = r->syms.loaded;
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
	pd_hybrid_release(&r->hybrid);
	pd_inflater_release(&r->inflater);
	pd_chunks_release(&r->stream);
	free(r->prologue);
	pd_machine_release(&r->machine);
	pd_symbols_release(&r->syms);
	fg_arena_release(&r->arena);
	free(r->attrs);
	pd_u64map_release(&r->attr_ids);
	free(r->q);
	free(r->qtmp);
	free(r->frames);
	free(r->addrs);
	free(r->name);
	free(r);
}

