/* The records of the data section, read one after the other into
 * chunks, where they wait for their round (reader.c).
 *
 * A file is read with pread through a small staging buffer rather than
 * through its mapping: on the virtual machines profiles are often read
 * on, the first touch of each page of a mapping costs several
 * microseconds, more than copying it. And most of a dwarf recording is
 * never needed: each sample carries a fixed-size copy of the user stack
 * (perf's default 8 KB, up to 64 KB) of which only the part the kernel
 * filled (its "dynamic size", stored after the copy) is valid. Such a
 * sample is kept without the rest: its stack's size field and its
 * record's size are rewritten to match, which is what it would have
 * been had perf asked for that size. Only the records' beginnings, the
 * valid stack bytes and the fields after the copy are read. A large
 * sample's tail is read straight into its chunk, after the stack bytes
 * kept, together with the next sample's fields and first stack bytes:
 * so one read a sample brings in each, and the records are not copied
 * again out of the staging buffer.
 *
 * Memory (fg_perfdata_open_mem, a stream's prologue) is read the same
 * way, with memcpy for pread. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/perfdata/reader.h"
#include "util/banned.h"

/* the staging buffer: room for any record (its size is 16 bits) */
#define STAGE_CAP ((size_t)128 << 10)
/* bytes read at once where records are read whole */
#define STAGE_READ ((size_t)128 << 10)
/* dwarf samples up to this size are read whole, with the records after
 * them: skipping their unused stack would cost a read more than
 * copying it (a read costs some microseconds, as much as copying some
 * 30 KB); larger ones are read in parts */
#define READ_THROUGH_MAX ((size_t)24 << 10)
/* of a larger sample's valid stack, the first r->eager bytes are kept
 * with the record; the rest, which unwinding seldom reaches (the copy of
 * a thread's stack runs on past its first frame, into the thread's own
 * data), is read from the file when the unwinder asks for it
 * (pd_fetch_more). How much to keep follows what the samples unwound so
 * far needed (pd_fetch_note_stack): the size, in steps of EAGER_STEP,
 * that costs least, a read more counting as copying READ_COST bytes.
 * It starts at EAGER_START and is chosen again every EAGER_EVERY
 * samples; the counts are halved every EAGER_DECAY samples, so the size
 * follows a program into a new phase. */
#define EAGER_START ((size_t)4 << 10)
#define EAGER_STEP ((size_t)512)
#define EAGER_EVERY 256
#define EAGER_DECAY 4096
#define READ_COST ((size_t)16 << 10)
/* a sample read in parts: its fields before the stack are asked for
 * with this much; the read that fetches a sample's tail also fetches
 * as much of the next sample as this one was kept, plus the slack */
#define FRONT_MIN ((size_t)1 << 10)
#define AHEAD_SLACK ((size_t)256)
/* samples smaller than this are kept whole */
#define TRIM_MIN 4096
/* records are copied into chunks of this size */
#define RECORD_CHUNK ((size_t)256 << 10)

static int bad(const fg_perfdata *r, uint64_t off, const char *what)
{
	return fg_error_set(FG_EPARSE, "%s: offset %llu: %s", r->name, (unsigned long long)off, what);
}

/* Copies [off, off + len) of the data (len > 0, inside the file) to dst. */
static int copy_out(fg_perfdata *r, uint64_t off, size_t len, unsigned char *dst)
{
	size_t got = 0;

	if (r->fd < 0) {
		memcpy(dst, r->base + off, len);
		return 0;
	}
	while (got < len) {
		ssize_t n = pread(r->fd, dst + got, len - got, (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fg_error_set(FG_EIO, "%s: %s", r->name, strerror(errno));
		if (n == 0)
			return bad(r, off + got, "file shortened while it was read");
		got += (size_t)n;
	}
	return 0;
}

int pd_fetch_more(fg_perfdata *r, uint64_t off, size_t len, unsigned char *dst)
{
	if (!len || off < r->data_off || off > r->data_end || len > r->data_end - off)
		return FG_EPARSE;
	return copy_out(r, off, len, dst);
}

/* The bytes [off, off + len) of the data, len at most STAGE_CAP, staged:
 * *out. When the staged bytes miss them, reads from off on ahead bytes
 * (at least len, at most STAGE_CAP) into the staging buffer. (The staged
 * bytes may also be the free end of the newest chunk, which the read of
 * a dwarf sample's tail fills with the next sample: see read_parts.) */
static int stage(fg_perfdata *r, uint64_t off, size_t len, size_t ahead, const unsigned char **out)
{
	int err;

	if (r->stage && off >= r->stage_off && off - r->stage_off <= r->stage_len &&
	    len <= r->stage_len - (off - r->stage_off)) {
		*out = r->stage + (off - r->stage_off);
		return 0;
	}
	if (!r->stage_buf && !(r->stage_buf = fg_malloc(STAGE_CAP)))
		return FG_ENOMEM;
	r->stage = r->stage_buf;
	if (ahead < len)
		ahead = len;
	if (ahead > STAGE_CAP)
		ahead = STAGE_CAP;
	if (ahead > r->data_end - off)
		ahead = (size_t)(r->data_end - off);
	r->stage_len = 0;
	if ((err = copy_out(r, off, ahead, r->stage)))
		return err;
	r->stage_off = off;
	r->stage_len = ahead;
	*out = r->stage;
	return 0;
}

/* Room for len bytes at the end of the newest chunk: *out. Staged
 * bytes that lie in the chunk are left as they are (the room may start
 * at them); those of a chunk that is full go to the staging buffer
 * first (the chunk may be freed), so pointers to them must be asked
 * again after this. */
static int reserve(fg_perfdata *r, uint64_t off, size_t len, unsigned char **out, pd_chunk **chunk)
{
	pd_chunk *c = r->records.last;
	int err;

	if (!c || c->cap - c->len < len) {
		if (c && r->stage && r->stage != r->stage_buf) {
			if (!r->stage_buf && !(r->stage_buf = fg_malloc(STAGE_CAP)))
				return FG_ENOMEM;
			memcpy(r->stage_buf, r->stage, r->stage_len);
			r->stage = r->stage_buf;
		}
		if ((err = pd_chunk_new(&r->records, off, 0, RECORD_CHUNK, &c)))
			return err;
	}
	*out = c->data + c->len;
	*chunk = c;
	c->len += len;
	return 0;
}

/* A sample trimmed to *new_size bytes at dst (size reserved in chunk c):
 * the room it did not use given back, its record size and its stack's
 * size (at byte word) rewritten to the keep bytes kept, and *at set. */
static int trimmed_at(uint64_t off, uint16_t size, struct recpos *at, const uint16_t *new_size,
		      unsigned char *dst, pd_chunk *c, size_t word, uint64_t keep)
{
	c->len -= size - *new_size;
	memcpy(dst + 6, new_size, 2);
	memcpy(dst + word, &keep, 8);
	at->p = dst;
	at->off = off;
	at->chunk = c;
	return 0;
}

/* The rest of a large dwarf sample for read_trimmed, its fields and
 * first front bytes at dst (size bytes of chunk c reserved; its stack's
 * size, copy, at byte word): the first
 * r->eager bytes of its stack are kept, whatever its dynamic size (no
 * more than that is read of a copy it fills less), and its tail is read
 * straight after them in the chunk, together with as much of the next
 * sample as the hint says: that next record then already lies where the
 * chunk's room starts, and is taken where it is. */
static int read_parts(fg_perfdata *r, uint64_t off, uint16_t size, struct recpos *at,
		      uint16_t *new_size, unsigned char *dst, pd_chunk *c, size_t word, uint64_t copy,
		      size_t front)
{
	size_t after = word + 8;
	uint64_t keep = copy < r->eager ? copy : r->eager, valid;
	uint64_t tail_off = off + after + copy;
	size_t tail = size - after - (size_t)copy, ahead = tail + r->stage_hint;
	size_t room = c->cap - (size_t)(dst - c->data) - after - (size_t)keep;
	unsigned char *t = dst + after + keep;
	const unsigned char *p;
	int err;

	if (after + keep > front &&
	    (err = copy_out(r, off + front, (size_t)(after + keep - front), dst + front)))
		return err;
	if (ahead > STAGE_CAP)
		ahead = STAGE_CAP;
	if (ahead > r->data_end - tail_off)
		ahead = (size_t)(r->data_end - tail_off);
	if (ahead <= room) {
		r->stage = NULL; /* overwritten below */
		if ((err = copy_out(r, tail_off, ahead, t)))
			return err;
		r->stage = t;
		r->stage_off = tail_off;
		r->stage_len = ahead;
	} else {
		if ((err = stage(r, tail_off, tail, tail + r->stage_hint, &p)))
			return err;
		memmove(t, p, tail);
	}
	/* a dynamic size past the copy (not perf's doing) counts as the
	 * copy: the rest is read from the file, as it would have been had
	 * the copy been kept whole */
	valid = pd_u64(t);
	if (valid > copy) {
		valid = copy;
		memcpy(t, &valid, 8);
	}
	at->stack_in_file = valid > keep;
	*new_size = (uint16_t)(after + keep + tail);
	r->stage_hint = *new_size + AHEAD_SLACK;
	return trimmed_at(off, size, at, new_size, dst, c, word, keep);
}

/* A dwarf sample of size bytes at off without the unused part of its
 * stack copy, into a chunk: *at, *new_size. Its stack's size field and
 * record size are rewritten to the part kept; when valid stack is left
 * in the file, at->stack_in_file says so (its dynamic size, after the
 * part kept, still counts all of it). Returns 1 with nothing done when
 * its fields do not add up (it is then kept whole, for reader.c to say
 * what is wrong). */
static int read_trimmed(fg_perfdata *r, uint64_t off, uint16_t size, struct recpos *at,
			uint16_t *new_size)
{
	bool whole = size <= READ_THROUGH_MAX;
	const unsigned char *p;
	unsigned char *dst;
	uint64_t copy, valid, keep, front;
	size_t avail, word, after, tail;
	pd_chunk *c;
	int err;

	if ((err = stage(r, off, whole ? size : size < FRONT_MIN ? size : FRONT_MIN,
			 whole ? STAGE_READ : r->stage_hint, &p)))
		return err;
	avail = r->stage_len - (size_t)(off - r->stage_off);
	if (avail > size)
		avail = size;
	/* a long call chain: the fields before the stack are longer */
	if (!(word = pd_stack_size_at(r, p, avail)) && avail < size) {
		if ((err = stage(r, off, size, size, &p)))
			return err;
		avail = size;
		word = pd_stack_size_at(r, p, avail);
	}
	if (!word)
		return 1;
	copy = pd_u64(p + word);
	after = word + 8;
	if (!copy || copy > size - after || size - after - copy < 8)
		return 1;
	tail = size - after - (size_t)copy; /* the dynamic size, and fields after it */
	/* room for all of it; given back below */
	if ((err = reserve(r, off, size, &dst, &c)))
		return err;
	/* (the staged bytes may have moved; they may also be the room
	 * itself, or lie after it in the chunk) */
	p = r->stage + (off - r->stage_off);
	/* what the staged bytes hold of the fields and of the stack the
	 * sample may keep, copied before the tail's read moves them */
	front = after + (whole || copy < r->eager ? copy : r->eager);
	if (front > avail)
		front = avail;
	memmove(dst, p, (size_t)front);
	if (!whole)
		return read_parts(r, off, size, at, new_size, dst, c, word, copy, (size_t)front);
	if ((err = stage(r, off + after + copy, tail, STAGE_READ, &p)))
		return err;
	valid = pd_u64(p);
	/* a copy of size 0 would lose the dynamic size's field, too */
	keep = valid < 8 ? 8 : valid < copy ? (valid + 7) & ~(uint64_t)7 : copy;
	if (keep > copy)
		keep = copy;
	if (after + keep > front &&
	    (err = copy_out(r, off + front, (size_t)(after + keep - front), dst + front)))
		return err;
	memmove(dst + after + keep, p, tail);
	*new_size = (uint16_t)(after + keep + tail);
	r->stage_hint = STAGE_READ;
	return trimmed_at(off, size, at, new_size, dst, c, word, keep);
}

/* The record of size bytes at off, into a chunk: *at, *new_size. */
static int read_record(fg_perfdata *r, uint64_t off, uint32_t type, uint16_t size,
		       struct recpos *at, uint16_t *new_size)
{
	const unsigned char *p;
	unsigned char *dst;
	pd_chunk *c;
	int err;

	at->stack_in_file = false;
	if (r->dwarf && type == PERF_RECORD_SAMPLE && size >= TRIM_MIN &&
	    (err = read_trimmed(r, off, size, at, new_size)) <= 0)
		return err;
	*new_size = size;
	if ((err = stage(r, off, size, STAGE_READ, &p)) || (err = reserve(r, off, size, &dst, &c)))
		return err;
	/* the staged bytes may have moved, or be the room itself */
	memmove(dst, r->stage + (off - r->stage_off), size);
	at->p = dst;
	at->off = off;
	at->chunk = c;
	return 0;
}

int pd_walk_records(fg_perfdata *r, fg_perfdata_sample_cb cb, void *ctx)
{
	uint64_t off = r->data_off, extra;
	int err;

	/* until a sample says more: room for a sample's fields and the
	 * stack it keeps */
	if (!r->eager)
		r->eager = EAGER_START;
	r->stage_hint = r->eager + 2 * FRONT_MIN;
	while (off < r->data_end) {
		const unsigned char *h;
		struct recpos at;
		uint32_t type;
		uint16_t size, kept;
		if (r->data_end - off < 8)
			return bad(r, off, "record header truncated");
		if ((err = stage(r, off, 8, r->dwarf ? r->stage_hint : STAGE_READ, &h)))
			return err;
		type = pd_u32(h);
		size = pd_u16(h + 6);
		if (size < 8)
			return bad(r, off, "record smaller than its header");
		if (size > r->data_end - off)
			return bad(r, off, "record truncated (the recording was cut short?)");
		if ((err = read_record(r, off, type, size, &at, &kept)) ||
		    (err = pd_walk_one(r, &at, type, kept, &extra, cb, ctx)))
			return err;
		if (extra > r->data_end - off - size)
			return bad(r, off, type == REC_AUXTRACE ? "AUX data truncated" :
				   "tracing data truncated");
		off += size + extra;
	}
	return 0;
}

void pd_fetch_note_stack(fg_perfdata *r, uint64_t used)
{
	size_t b = (size_t)((used + EAGER_STEP - 1) / EAGER_STEP), best = 0, i;
	uint64_t over, cost, best_cost = UINT64_MAX;

	r->needs[b < PD_EAGER_STEPS ? b : PD_EAGER_STEPS - 1]++;
	if (++r->nneeds % EAGER_EVERY)
		return;
	/* keeping i steps: every sample copies them, those that needed
	 * more read again */
	over = r->nneeds;
	for (i = 0; i < PD_EAGER_STEPS; i++) {
		over -= r->needs[i];
		cost = (uint64_t)r->nneeds * i * EAGER_STEP + over * READ_COST;
		if (cost < best_cost) {
			best_cost = cost;
			best = i;
		}
	}
	r->eager = best ? best * EAGER_STEP : EAGER_STEP;
	if (r->nneeds >= EAGER_DECAY) {
		r->nneeds = 0;
		for (i = 0; i < PD_EAGER_STEPS; i++) {
			r->needs[i] /= 2;
			r->nneeds += r->needs[i];
		}
	}
}

void pd_fetch_release(fg_perfdata *r)
{
	pd_chunks_release(&r->records);
	free(r->stage_buf);
	r->stage_buf = NULL;
	r->stage = NULL;
	r->stage_len = 0;
}
