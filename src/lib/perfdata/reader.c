/* The records of a perf.data recording, walked: each one handed to the
 * ordering queue (queue.c) or, at a round's end, the queue flushed; the
 * records it hands back handled here (samples decoded by sample.c; maps,
 * commands, forks and exits noted in the machine; lost samples counted);
 * compressed records decompressed (compressed.c) and their records
 * walked the same way. The file form's header and features are read at
 * open (header.c); its records are read one after the other by fetch.c,
 * a stream's by pipe.c (which also reads the pipe form's prologue).
 * Queued records point into chunks: of the records read (fetch.c), of
 * compressed records (compressed.c), or of streams (pipe.c). */
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

/* build ids in MMAP2 records came with Linux 5.12: older headers lack the
 * flag */
#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif

#define MAX_LOST(r) ((r)->lost_in_lost > (r)->lost_in_lost_samples ? (r)->lost_in_lost : \
		     (r)->lost_in_lost_samples)

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
		return pd_bad_at(r, at, "map record without a file name");
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

/* The outermost frames learnt for a process' stacks (hybrid.c) are
 * those of its program: they go when it exits or execs. */
static void forget_outer(fg_perfdata *r, int32_t pid)
{
	size_t i;

	pd_hybrid_forget(&r->hybrid, pid);
	for (i = 0; r->check && i < r->check->nsizes; i++)
		pd_hybrid_forget(&r->check->sizes[i].h, pid);
}

/* A process' exit: the unwinder lets go of its files. */
static void do_exit(fg_perfdata *r, const struct recpos *at, uint16_t size)
{
	const unsigned char *p = at->p;

	if (size < 24 || pd_u32(p + 8) != pd_u32(p + 16))
		return;
	if (r->unwinder)
		pd_unwinder_forget(r->unwinder, (int32_t)pd_u32(p + 8));
	forget_outer(r, (int32_t)pd_u32(p + 8));
}

int pd_handle(fg_perfdata *r, const struct recpos *at, fg_perfdata_sample_cb cb, void *ctx)
{
	const unsigned char *p = at->p;
	uint32_t type = pd_u32(p);
	uint16_t misc = pd_u16(p + 4), size = pd_u16(p + 6);
	const char *comm;

	switch (type) {
	case PERF_RECORD_SAMPLE:
		return pd_do_sample(r, at, size, misc, cb, ctx);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (size < (type == PERF_RECORD_MMAP2 ? 72 : 40))
			return pd_bad_at(r, at, "map record too short");
		return do_mmap(r, at, size, type);
	case PERF_RECORD_COMM:
		if (size < 16 || !(comm = record_name(at, size, 16)))
			return pd_bad_at(r, at, "comm record too short");
		/* an exec: the maps of the old program are gone (their files
		 * would overlap the new program's for the unwinder) */
		if ((misc & PERF_RECORD_MISC_COMM_EXEC) &&
		    pd_machine_exec(&r->machine, (int32_t)pd_u32(p + 8)))
			return FG_ENOMEM;
		if (misc & PERF_RECORD_MISC_COMM_EXEC)
			forget_outer(r, (int32_t)pd_u32(p + 8));
		return pd_machine_comm(&r->machine, (int32_t)pd_u32(p + 8), (int32_t)pd_u32(p + 12), comm,
				       strlen(comm));
	case PERF_RECORD_FORK:
		if (size < 32)
			return pd_bad_at(r, at, "fork record too short");
		return pd_machine_fork(&r->machine, (int32_t)pd_u32(p + 8), (int32_t)pd_u32(p + 12),
				       (int32_t)pd_u32(p + 16), (int32_t)pd_u32(p + 20));
	case PERF_RECORD_EXIT:
		do_exit(r, at, size);
		return 0;
	case PERF_RECORD_SWITCH:
		return pd_offcpu_switch(r, at, size, misc);
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

/* One record, from the file or decompressed: a round's end flushes the
 * queue, the kinds handled are queued, unknown kernel kinds counted. */
static int dispatch(fg_perfdata *r, const struct recpos *at, fg_perfdata_sample_cb cb, void *ctx)
{
	uint32_t type = pd_u32(at->p);
	uint16_t size = pd_u16(at->p + 6);
	int err;

	if (type == REC_FINISHED_ROUND) {
		if ((err = pd_queue_flush(r, r->next_flush, cb, ctx)))
			return err;
		r->next_flush = r->max_time;
	} else if (pd_is_queued_type(type)) {
		return pd_queue_record(r, at, type, size, cb, ctx);
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
			return pd_bad_at(r, &at, "record smaller than its header");
		if (size > c->len - pos)
			break;
		if (pd_is_compressed_type(r, pd_u32(at.p)))
			return pd_bad_at(r, &at, "a compressed record inside compressed data");
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
			return pd_bad_at(r, at, "compressed data larger than its record");
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
		return pd_bad(r, r->inflater.chunks.last->off,
			   "compressed data ends inside a record (the recording was cut short?)");
	return pd_queue_flush(r, UINT64_MAX, cb, ctx);
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
