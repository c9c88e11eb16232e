/* The ordering queue: records between two FINISHED_ROUND records may be
 * out of time order (perf writes one CPU's buffer after the other), so
 * they are queued as {time, position} and, at each round's end, those up
 * to the newest time of the rounds before are handled in time order
 * (records of equal time in file order): the order perf itself uses, so
 * a sample sees the names and maps perf shows with it. */
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
int pd_queue_flush(fg_perfdata *r, uint64_t limit, fg_perfdata_sample_cb cb, void *ctx)
{
	size_t i, n;
	int err;

	if ((err = sort_queue(r)))
		return err;
	for (n = 0; n < r->nq && r->q[n].time <= limit; n++) {
		err = pd_handle(r, &r->q[n].at, cb, ctx);
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

bool pd_is_queued_type(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_SAMPLE:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		return true;
	}
	return false;
}

/* Queues a record for the end of its round; in a recording without
 * times, handles it at once. */
int pd_queue_record(fg_perfdata *r, const struct recpos *at, uint32_t type, uint16_t size,
			fg_perfdata_sample_cb cb, void *ctx)
{
	uint64_t time;
	int err;

	if ((err = pd_record_time(r, at, type, size, &time)))
		return err;
	if (!r->timed)
		return pd_handle(r, at, cb, ctx);
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

