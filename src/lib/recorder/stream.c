/* The stream in perf's pipe form: the 16-byte header ("PERFILE2", its
 * size 16), a HEADER_ATTR record per event kind (the attribute as the
 * kernel took it, then the ids of every event opened with it; more than
 * one record fits repeats the attribute with the ids that follow), then
 * the records. Every
 * byte goes through rn_stream_write, which counts it against the cap. */
#include <string.h>

#include "flamegraph/error.h"
#include "lib/recorder/internal.h"
#include "util/banned.h"

/* perf.data's record types beyond the kernel's */
#define REC_HEADER_ATTR 64
#define REC_HEADER_TRACING_DATA 66
#define REC_FINISHED_ROUND 68

void rn_emit(rn_state *st, fg_recorder_event kind, const char *msg)
{
	double t = rn_now() - st->t0;

	if (st->o->on_event)
		st->o->on_event(st->o->event_ctx, kind, msg, t, st->written);
}

int rn_stream_write(rn_state *st, const void *buf, size_t len)
{
	int err = st->o->write(st->o->write_ctx, buf, len);

	if (err)
		return err;
	st->written += len;
	st->res->bytes = st->written;
	if (st->o->max_size && st->o->max_size != UINT64_MAX && st->written >= st->o->max_size &&
	    !st->capped) {
		st->capped = true;
		rn_emit(st, FG_RECORDER_CAPPED, NULL);
	}
	return 0;
}

int rn_stream_round(rn_state *st)
{
	struct perf_event_header h = { .type = REC_FINISHED_ROUND, .misc = 0, .size = sizeof(h) };

	return rn_stream_write(st, &h, sizeof(h));
}

/* One HEADER_ATTR record: the attribute and n ids. */
static int attr_record(rn_state *st, const struct perf_event_attr *a, const uint64_t *ids, size_t n)
{
	struct perf_event_header h = { .type = REC_HEADER_ATTR, .misc = 0, .size = 0 };
	int err;

	h.size = (uint16_t)(sizeof(h) + sizeof(*a) + n * sizeof(*ids));
	if ((err = rn_stream_write(st, &h, sizeof(h))) ||
	    (err = rn_stream_write(st, a, sizeof(*a))))
		return err;
	return n ? rn_stream_write(st, ids, n * sizeof(*ids)) : 0;
}

/* The tracepoint's tracing data: a record that gives its size (padded
 * to 8 bytes), then the data, outside the record. */
static int tracing_data_record(rn_state *st)
{
	struct {
		struct perf_event_header h;
		uint32_t size, pad;
	} rec = { { REC_HEADER_TRACING_DATA, 0, sizeof(rec) }, 0, 0 };
	static const char zeros[8];
	fg_strbuf data = FG_STRBUF_INIT;
	size_t pad;
	int err;

	if ((err = rn_tp_tracing_data(st, &data)))
		goto done;
	pad = (8 - data.len % 8) % 8;
	rec.size = (uint32_t)(data.len + pad);
	if (!(err = rn_stream_write(st, &rec, sizeof(rec))) &&
	    !(err = rn_stream_write(st, data.buf, data.len)))
		err = rn_stream_write(st, zeros, pad);
done:
	fg_strbuf_release(&data);
	return err;
}

/* An attribute's records: as many as its n ids need (per a record). */
static int attr_records(rn_state *st, const struct perf_event_attr *a, const uint64_t *ids,
			size_t n, size_t per)
{
	size_t i = 0;
	int err;

	do {
		size_t k = n - i < per ? n - i : per;
		if ((err = attr_record(st, a, ids + i, k)))
			return err;
		i += k;
	} while (i < n);
	return 0;
}

int rn_stream_header(rn_state *st)
{
	static const unsigned char magic[8] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2' };
	/* the ids a record of at most 65535 bytes holds */
	size_t per = (65535 - sizeof(struct perf_event_header) - sizeof(st->attr)) / sizeof(uint64_t);
	uint64_t size = 16;
	int err;

	if (st->header_done)
		return 0;
	if ((err = rn_stream_write(st, magic, sizeof(magic))) ||
	    (err = rn_stream_write(st, &size, sizeof(size))))
		return err;
	if ((err = attr_records(st, &st->attr, st->ids, st->nfds, per)) ||
	    (st->nwids && (err = attr_records(st, &st->whole, st->wids, st->nwids, per))) ||
	    (st->nfids && (err = attr_records(st, &st->fast, st->fids, st->nfids, per))) ||
	    (st->ngids && (err = attr_records(st, &st->grown, st->gids, st->ngids, per))))
		return err;
	/* the off-CPU modes' tracepoint, with the ids of its events */
	if (st->ntp && (err = attr_records(st, &st->tp_attr, st->tp_ids, st->ntp, per)))
		return err;
	if (st->ntp && (err = tracing_data_record(st)))
		return err;
	st->header_done = true;
	return 0;
}
