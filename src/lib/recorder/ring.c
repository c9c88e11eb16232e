/* The ring buffers: mapped one per CPU, read from the tail the kernel
 * left to its head, each round's records put in time order (the CPUs'
 * buffers interleave in time) and written, followed by FINISHED_ROUND,
 * which tells the reader that no later record is older. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/recorder/internal.h"
#include "util/banned.h"

static uint64_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (uint64_t)p : 4096;
}

/* The buffer's data size: a power of two of pages, at least 8 pages. */
static uint64_t ring_bytes(const rn_state *st)
{
	uint64_t want = st->o->buffer_bytes ? st->o->buffer_bytes : FG_RECORDER_DEFAULT_BUFFER;
	uint64_t size = 8 * page_size();

	while (size * 2 <= want && size < ((uint64_t)1 << 31))
		size *= 2;
	return size;
}

int rn_ring_map(rn_state *st, size_t i, int fd)
{
	rn_ring *r = &st->rings[i];
	uint64_t size = ring_bytes(st);
	void *p;
	rn_host h;

	p = mmap(NULL, (size_t)(size + page_size()), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		int e = errno;
		rn_host_read(&h);
		return rn_msg_mmap_failed(&h, e, size);
	}
	r->fd = fd;
	r->cpu = st->cpus[i];
	r->base = p;
	r->len = (size_t)(size + page_size());
	r->size = size;
	return 0;
}

void rn_ring_unmap(rn_state *st)
{
	for (size_t i = 0; st->rings && i < st->ncpus; i++)
		if (st->rings[i].base)
			munmap(st->rings[i].base, st->rings[i].len);
	free(st->rings);
	st->rings = NULL;
}

/* A record's time: a sample's after its ip and tid, another's in its
 * sample_id_all trailer (tid, time, id, cpu: 24 bytes from the end). */
static uint64_t record_time(const unsigned char *p)
{
	struct perf_event_header h;
	uint64_t t;

	memcpy(&h, p, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE) {
		memcpy(&t, p + 24, 8);
		return t;
	}
	if (h.size < 8 + 32)
		return 0;
	memcpy(&t, p + h.size - 24, 8);
	return t;
}

/* Whether record p (a sample, of h.size bytes) is the second event's:
 * its id, where the sample type puts it, is one of that event's. */
static bool whole_sample(const rn_state *st, const unsigned char *p, uint16_t size)
{
	uint64_t t = st->attr.sample_type, id;
	size_t off = sizeof(struct perf_event_header);

	if (!(t & PERF_SAMPLE_IDENTIFIER)) {
		if (!(t & PERF_SAMPLE_ID))
			return false;
		off += 8 * (!!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) +
			    !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ADDR));
	}
	if (off + 8 > size)
		return false;
	memcpy(&id, p + off, 8);
	for (size_t i = 0; i < st->nwids; i++)
		if (st->wids[i] == id)
			return true;
	for (size_t i = 0; i < st->nfids; i++)
		if (st->fids[i] == id)
			return true;
	return false;
}

/* Appends what one buffer holds to the round, records whole (one that
 * wraps around the buffer's end is joined), and frees it for the kernel. */
static int read_ring(rn_state *st, rn_ring *r)
{
	struct perf_event_mmap_page *pg = r->base;
	const unsigned char *data = (const unsigned char *)r->base + page_size();
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail, mask = r->size - 1;
	int err = 0;

	while (tail < head && head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint64_t at = tail & mask, first;
		size_t pos = st->round.len;
		for (size_t k = 0; k < sizeof(h); k++)
			((unsigned char *)&h)[k] = data[(at + k) & mask];
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		first = r->size - at < h.size ? r->size - at : h.size;
		if ((err = fg_strbuf_add(&st->round, data + at, (size_t)first)) ||
		    (first < h.size && (err = fg_strbuf_add(&st->round, data, h.size - (size_t)first))))
			break;
		if (FG_ALLOC_GROW(st->offs, st->noffs + 1, st->aoffs, 256)) {
			err = FG_ENOMEM;
			break;
		}
		st->offs[st->noffs].time = record_time((const unsigned char *)st->round.buf + pos);
		st->offs[st->noffs++].off = pos;
		st->res->records++;
		if (h.type == PERF_RECORD_SAMPLE) {
			const unsigned char *p = (const unsigned char *)st->round.buf + pos;
			st->res->samples++;
			if (!whole_sample(st, p, h.size))
				rn_grow_count(st, p, h.size);
			else if (st->whole_fast)
				rn_events_whole_slow(st);
		}
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return err;
}

static int by_time(const void *a, const void *b)
{
	const struct rn_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	/* records of the same time keep their order */
	return x->off < y->off ? -1 : x->off > y->off;
}

int rn_ring_drain(rn_state *st)
{
	int err = 0;

	fg_strbuf_reset(&st->round);
	st->noffs = 0;
	for (size_t i = 0; i < st->ncpus && !err; i++)
		if (st->rings[i].base)
			err = read_ring(st, &st->rings[i]);
	if (err || !st->noffs)
		return err;
	rn_grow_check(st);
	qsort(st->offs, st->noffs, sizeof(*st->offs), by_time);
	for (size_t i = 0; i < st->noffs && !err; i++) {
		const unsigned char *p = (const unsigned char *)st->round.buf + st->offs[i].off;
		struct perf_event_header h;
		memcpy(&h, p, sizeof(h));
		err = rn_stream_write(st, p, h.size);
	}
	return err ? err : rn_stream_round(st);
}
