/* Off-CPU recordings read natively: the sched:sched_switch tracepoint's
 * format (as tracefs describes it) parsed into the places of the fields
 * the reader uses, and the recording's switches handed to the off-CPU
 * weighing (collapse.h, fg_offcpu) as data: a sched_switch sample is a
 * thread leaving the CPU with its stack, a SWITCH record without the
 * out flag a thread coming back, any other sample on-CPU time. */
#include <linux/perf_event.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/perfdata/reader.h"
#include "util/strbuf.h"
#include "util/banned.h"

/* prev_state's bits of a thread that blocked; with none set it was
 * runnable (preempted), whatever the bit above them (preemption) says */
#define STATE_BLOCKED_MASK 0xffu
/* how often progress hears of the samples (as feed_collapser.c) */
#define PROGRESS_EVERY 512

/* The next line of *rest (without its newline). */
static fg_view next_line(fg_view *rest)
{
	const char *nl = memchr(rest->ptr, '\n', rest->len);
	size_t n = nl ? (size_t)(nl - rest->ptr) : rest->len;
	fg_view line = fg_view_of(rest->ptr, n);

	*rest = fg_view_of(rest->ptr + n + (nl ? 1 : 0), rest->len - n - (nl ? 1 : 0));
	return line;
}

/* The number after "key:" in line, up to ';' or the end. */
static bool number_after(fg_view line, const char *key, unsigned long long *out)
{
	size_t klen = strlen(key);
	const char *p = line.len >= klen ? memmem(line.ptr, line.len, key, klen) : NULL;
	const char *end = line.ptr + line.len, *q;

	if (!p)
		return false;
	p += klen;
	q = memchr(p, ';', (size_t)(end - p));
	return !fg_parse_u64(fg_view_trim(fg_view_of(p, (size_t)((q ? q : end) - p))), out);
}

/* A field line's name: the last word of its declaration ("char
 * prev_comm[16]" names prev_comm). */
static fg_view field_name(fg_view line)
{
	const char *p = memmem(line.ptr, line.len, "field:", 6), *end, *w;

	if (!p)
		return fg_view_of(NULL, 0);
	p += 6;
	end = memchr(p, ';', (size_t)(line.ptr + line.len - p));
	if (!end)
		return fg_view_of(NULL, 0);
	if (memchr(p, '[', (size_t)(end - p)))
		end = memchr(p, '[', (size_t)(end - p));
	while (end > p && end[-1] == ' ')
		end--;
	for (w = end; w > p && w[-1] != ' ' && w[-1] != '\t' && w[-1] != '*'; w--)
		;
	return fg_view_of(w, (size_t)(end - w));
}

static int set_field(fg_perfdata_sched_field *f, fg_view line, unsigned lineno)
{
	unsigned long long off, size;

	if (!number_after(line, "offset:", &off) || !number_after(line, "size:", &size) ||
	    off > 0xffff || size > 0xffff || !size)
		return fg_error_set(FG_EPARSE, "sched_switch format:%u: a field without its offset "
				    "and size", lineno);
	f->offset = (uint16_t)off;
	f->size = (uint16_t)size;
	return 0;
}

int fg_perfdata_sched_switch_parse(fg_perfdata_sched_switch *out, const char *text, size_t len)
{
	static const struct {
		const char *name;
		size_t at;
	} fields[] = {
		{ "prev_comm", offsetof(fg_perfdata_sched_switch, prev_comm) },
		{ "prev_pid", offsetof(fg_perfdata_sched_switch, prev_pid) },
		{ "prev_prio", offsetof(fg_perfdata_sched_switch, prev_prio) },
		{ "prev_state", offsetof(fg_perfdata_sched_switch, prev_state) },
		{ "next_comm", offsetof(fg_perfdata_sched_switch, next_comm) },
		{ "next_pid", offsetof(fg_perfdata_sched_switch, next_pid) },
	};
	fg_view rest = fg_view_of(text, len), line;
	unsigned lineno = 0, seen = 0;
	unsigned long long id;
	bool have_id = false;
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	while (rest.len) {
		line = next_line(&rest);
		lineno++;
		if (fg_view_starts_with(line, "ID:")) {
			if (!number_after(line, "ID:", &id))
				return fg_error_set(FG_EPARSE, "sched_switch format:%u: an ID that is "
						    "not a number", lineno);
			out->id = id;
			have_id = true;
			continue;
		}
		fg_view name = field_name(line);
		for (i = 0; name.len && i < sizeof(fields) / sizeof(*fields); i++) {
			if (name.len != strlen(fields[i].name) ||
			    memcmp(name.ptr, fields[i].name, name.len))
				continue;
			if ((err = set_field((fg_perfdata_sched_field *)((char *)out + fields[i].at),
					     line, lineno)))
				return err;
			seen |= 1u << i;
		}
	}
	if (!have_id)
		return fg_error_set(FG_EPARSE, "sched_switch format: no ID line");
	for (i = 0; i < sizeof(fields) / sizeof(*fields); i++)
		if (!(seen & (1u << i)))
			return fg_error_set(FG_EPARSE, "sched_switch format: no field %s",
					    fields[i].name);
	if (out->prev_state.size > 8 || out->prev_pid.size > 8)
		return fg_error_set(FG_EPARSE, "sched_switch format: prev_state or prev_pid wider "
				    "than 8 bytes");
	return 0;
}

/* An integer field of the raw data (little-endian, as x86_64 writes it);
 * false when the data is too short for it. */
static bool raw_uint(const unsigned char *raw, size_t len, fg_perfdata_sched_field f,
		     uint64_t *out)
{
	uint64_t v = 0;

	if ((size_t)f.offset + f.size > len || f.size > 8)
		return false;
	for (unsigned i = f.size; i-- > 0;)
		v = v << 8 | raw[f.offset + i];
	*out = v;
	return true;
}

bool pd_is_sched_switch(const fg_perfdata *r, const struct pd_attr *a)
{
	return r->sched && a->type == PERF_TYPE_TRACEPOINT && a->config == r->sched->id;
}

int pd_offcpu_sample(fg_perfdata *r, const struct pd_attr *a, const unsigned char *raw,
		     size_t raw_len, const fg_perfdata_sample *s)
{
	uint64_t state;
	int err;

	if (r->offcpu_progress && r->stats.samples % PROGRESS_EVERY == 0 &&
	    (err = r->offcpu_progress(r->offcpu_ctx, r->stats.samples)))
		return err;
	if (!pd_is_sched_switch(r, a))
		return fg_offcpu_on_cpu(r->offcpu, s,
					a->type == PERF_TYPE_SOFTWARE &&
					a->config == PERF_COUNT_SW_CPU_CLOCK);
	if (!raw || !raw_uint(raw, raw_len, r->sched->prev_state, &state)) {
		r->stats.skipped++;
		return 0;
	}
	return fg_offcpu_switch_out(r->offcpu, s, (state & STATE_BLOCKED_MASK) == 0);
}

int pd_offcpu_switch(fg_perfdata *r, const struct recpos *at, uint16_t size, uint16_t misc)
{
	const struct pd_attr *f = r->attrs;
	uint64_t time;
	int err;

	if (!r->offcpu || (misc & PERF_RECORD_MISC_SWITCH_OUT))
		return 0;
	/* the record is its header and the sample_id trailer, whose first
	 * field is the pid and tid */
	if (!f->id_all || !(f->sample_type & PERF_SAMPLE_TID) || size < 16)
		return 0;
	if ((err = pd_record_time(r, at, PERF_RECORD_SWITCH, size, &time)))
		return err;
	return fg_offcpu_switch_in(r->offcpu, (int32_t)pd_u32(at->p + 12), time);
}

int fg_perfdata_collapse_offcpu(fg_perfdata *r, fg_offcpu *o, const fg_perfdata_sched_switch *fmt,
				fg_perfdata_progress_cb progress, void *ctx)
{
	r->sched = fmt;
	r->offcpu = o;
	r->offcpu_progress = progress;
	r->offcpu_ctx = ctx;
	return fg_perfdata_foreach(r, NULL, NULL);
}
