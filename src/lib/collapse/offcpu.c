/* Off-CPU time from sched_switch samples and switch records (collapse.h).
 *
 * The input is perf script text, line by line. An event header starts at
 * column 0; its stack lines are indented; an empty line ends an event,
 * and perf's switch records are events of one line:
 *
 *   app 8181 [001] 13404.152764:  sched:sched_switch: prev_comm=app ... prev_state=S ==> ...
 *           ffffffff82265ec8 __schedule+0x628 ([kernel.kallsyms])
 *           ...
 *
 *   app 8181 [001] 13404.152797: PERF_RECORD_SWITCH OUT
 *   app 8181 [001] 13404.452907: PERF_RECORD_SWITCH IN
 *
 * A blocking switch's stack is held per thread until the thread's next
 * SWITCH IN, then written out as one event weighted by the time between
 * them.
 *
 * The same switches also come as data (fg_offcpu_new_samples): a reader
 * of the recording hands over the switch-out samples, the switches back
 * in and the on-CPU samples, and the waits are weighed by the same code
 * and handed to a collapser as samples. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/collapse/internal.h"
#include "util/banned.h"

#define OUT_FLUSH ((size_t)256 << 10)
#define MARKER_OFF "\t0 " FG_OFFCPU_ROOT " ([unknown])\n"
#define MARKER_ON "\t0 " FG_ONCPU_ROOT " ([unknown])\n"

/* A thread that left the CPU blocking, and the stack it left with. */
struct wait {
	uint64_t t_ns;      /* when it was switched out */
	bool open;          /* waiting for its switch back in */
	bool too_big;       /* its stack passed FG_CMAX_STACK: dropped */
	fg_strbuf who;      /* "comm pid/tid" as perf printed it */
	fg_strbuf stack;    /* its stack lines */
	/* as data: the sample's frames, their names kept in names (a name
	 * is its offset there + 1, 0 for NULL, until it is handed on) */
	fg_sample_frame *frames;
	size_t nframes, aframes;
	fg_strbuf names;
	int32_t pid;
};

enum event_kind { EV_NONE, EV_DROP, EV_HOLD, EV_PASS };

struct fg_offcpu {
	bool hot_cold;
	uint64_t us_per_sample;
	fg_text_cb sink;
	void *ctx;
	fg_collapser *c;     /* as data: the collapser the waits go to */
	fg_sample_frame *scratch; /* a wait's frames with their names */
	size_t ascratch;
	int error;

	fg_strbuf line;      /* a line cut by a chunk boundary */
	bool line_too_long;  /* skipping the rest of a line past FG_CMAX_LINE */
	fg_strbuf out;

	enum event_kind kind;
	struct wait *held;   /* EV_HOLD: the wait its stack lines go to */

	fg_strmap by_tid;    /* tid -> index + 1 into waits */
	struct wait *waits;
	size_t nwaits, waits_alloc;

	fg_offcpu_stats st;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The next blank-separated word of *rest (empty at the end). */
static fg_view next_word(fg_view *rest)
{
	const char *p = rest->ptr, *end = rest->ptr + rest->len, *w;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	w = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	*rest = fg_view_of(p, (size_t)(end - p));
	return fg_view_of(w, (size_t)(p - w));
}

/* "13404.152797:" in nanoseconds; false when the word is not a time. */
static bool parse_time(fg_view w, uint64_t *ns)
{
	uint64_t secs = 0, frac = 0, scale = 1000000000;
	size_t i = 0;

	if (w.len < 2 || w.ptr[w.len - 1] != ':' || !is_digit(w.ptr[0]))
		return false;
	for (; i < w.len - 1 && is_digit(w.ptr[i]); i++) {
		if (secs > UINT64_MAX / 10 / 1000000000)
			return false;
		secs = secs * 10 + (uint64_t)(w.ptr[i] - '0');
	}
	if (i < w.len - 1 && w.ptr[i] == '.') {
		for (i++; i < w.len - 1 && is_digit(w.ptr[i]); i++) {
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(w.ptr[i] - '0') * scale;
			}
		}
	}
	if (i != w.len - 1)
		return false;
	*ns = secs * 1000000000 + frac;
	return true;
}

static int flush(fg_offcpu *o)
{
	int err;

	if (o->error || !o->out.len)
		return o->error;
	err = o->sink(o->ctx, o->out.buf, o->out.len);
	fg_strbuf_reset(&o->out);
	if (err)
		o->error = err;
	return o->error;
}

static void out_add(fg_offcpu *o, const char *p, size_t n)
{
	if (!o->error && fg_strbuf_add(&o->out, p, n))
		o->error = FG_ENOMEM;
}

/* "comm pid/tid WEIGHT EVENT:\n", the header the collapser reads the
 * weight from. */
static void out_header(fg_offcpu *o, const char *who, size_t len, uint64_t weight)
{
	out_add(o, who, len);
	if (!o->error && fg_strbuf_addf(&o->out, " %llu %s:\n", (unsigned long long)weight,
					o->hot_cold ? "hot-cold" : "off-cpu"))
		o->error = FG_ENOMEM;
}

static struct wait *wait_of(fg_offcpu *o, fg_view tid, bool create)
{
	fg_strmap_entry *e = fg_strmap_get(&o->by_tid, tid.ptr, tid.len);
	struct wait *w;

	if (e)
		return &o->waits[e->value.u - 1];
	if (!create)
		return NULL;
	if (fg_alloc_grow(&o->waits, o->nwaits + 1, &o->waits_alloc, sizeof(*o->waits), 16) ||
	    !(e = fg_strmap_put(&o->by_tid, tid.ptr, tid.len))) {
		o->error = FG_ENOMEM;
		return NULL;
	}
	w = &o->waits[o->nwaits++];
	memset(w, 0, sizeof(*w));
	fg_strbuf_init(&w->who, 0);
	fg_strbuf_init(&w->stack, 0);
	fg_strbuf_init(&w->names, 0);
	e->value.u = o->nwaits;
	return w;
}

/* The end of an event: an on-CPU stack gets its outermost frame. */
static void end_event(fg_offcpu *o)
{
	if (o->kind == EV_PASS) {
		out_add(o, MARKER_ON, sizeof(MARKER_ON) - 1);
		out_add(o, "\n", 1);
	}
	o->kind = EV_NONE;
	o->held = NULL;
}

/* The wait of w ends at t_ns: its weight in microseconds, counted, or
 * 0 when it is not one to pass on. */
static uint64_t wait_end(fg_offcpu *o, struct wait *w, uint64_t t_ns)
{
	uint64_t us;

	if (!w || !w->open)
		return 0;
	w->open = false;
	if (w->too_big || t_ns < w->t_ns)
		return 0;
	us = (t_ns - w->t_ns + 500) / 1000;
	if (!us)
		us = 1;
	o->st.waits++;
	o->st.off_us += us;
	return us;
}

/* A wait that starts at t_ns (the one before it, if still open, was not
 * seen to end). */
static void wait_start(fg_offcpu *o, struct wait *w, uint64_t t_ns)
{
	if (w->open)
		o->st.open++; /* its switch in was not recorded */
	w->open = true;
	w->too_big = false;
	w->t_ns = t_ns;
}

/* The thread runs again: its wait is over. */
static void switch_in(fg_offcpu *o, fg_view tid, uint64_t t_ns)
{
	struct wait *w = wait_of(o, tid, false);
	uint64_t us = wait_end(o, w, t_ns);

	if (!us)
		return;
	out_header(o, w->who.buf, w->who.len, us);
	out_add(o, w->stack.buf, w->stack.len);
	if (o->hot_cold)
		out_add(o, MARKER_OFF, sizeof(MARKER_OFF) - 1);
	out_add(o, "\n", 1);
}

/* A blocking switch out: hold the stack that follows. */
static void switch_out(fg_offcpu *o, fg_view who, fg_view tid, uint64_t t_ns, fg_view rest)
{
	const char *state = memmem(rest.ptr, rest.len, " prev_state=", 12);
	struct wait *w;

	if (state && state[12] == 'R') {
		o->st.preempted++;
		o->kind = EV_DROP;
		return;
	}
	if (!(w = wait_of(o, tid, true))) {
		o->kind = EV_DROP;
		return;
	}
	wait_start(o, w, t_ns);
	fg_strbuf_reset(&w->who);
	fg_strbuf_reset(&w->stack);
	if (fg_strbuf_add(&w->who, who.ptr, who.len))
		o->error = FG_ENOMEM;
	o->kind = EV_HOLD;
	o->held = w;
}

/* An on-CPU sample (hot_cold): written out as it comes, weighed in
 * microseconds. period: the word before the event, perf's period when it
 * is a number. */
/* An on-CPU sample's weight in microseconds, counted: its period in
 * nanoseconds when known (have_ns), else the time between samples. */
static uint64_t on_cpu_us(fg_offcpu *o, bool have_ns, uint64_t ns)
{
	uint64_t us = have_ns ? (ns + 500) / 1000 : o->us_per_sample;

	if (!us)
		us = 1;
	o->st.on_samples++;
	o->st.on_us += us;
	return us;
}

static void on_cpu(fg_offcpu *o, fg_view who, fg_view period)
{
	unsigned long long ns = 0;
	bool have = period.len && !fg_parse_u64(period, &ns);

	out_header(o, who.ptr, who.len, on_cpu_us(o, have, ns));
	o->kind = EV_PASS;
}

static void header_line(fg_offcpu *o, fg_view line)
{
	fg_view comm, pid, tid, rest, w, prev = { NULL, 0 }, who;
	uint64_t t_ns = 0;
	bool have_time = false;

	end_event(o);
	o->kind = EV_DROP;
	if (!fg_perf_header_split(line, &comm, &pid, &tid, &rest))
		return;
	who = fg_view_of(line.ptr, (size_t)(rest.ptr - line.ptr));
	while ((w = next_word(&rest)).len) {
		if (w.ptr[0] == '[')
			continue;
		if (!have_time && parse_time(w, &t_ns)) {
			have_time = true;
			continue;
		}
		if (fg_view_eq(w, "PERF_RECORD_SWITCH") || fg_view_eq(w, "PERF_RECORD_SWITCH_CPU_WIDE")) {
			if (have_time && fg_view_eq(next_word(&rest), "IN"))
				switch_in(o, tid, t_ns);
			o->kind = EV_NONE; /* an event of one line */
			return;
		}
		if (w.ptr[w.len - 1] != ':') {
			prev = w;
			continue;
		}
		/* the event */
		if (fg_view_ends_with(fg_view_of(w.ptr, w.len - 1), "sched_switch")) {
			if (have_time)
				switch_out(o, who, tid, t_ns, rest);
		} else if (o->hot_cold) {
			on_cpu(o, who, prev);
		}
		return;
	}
}

static void stack_line(fg_offcpu *o, fg_view line)
{
	if (o->kind == EV_PASS) {
		out_add(o, line.ptr, line.len);
		out_add(o, "\n", 1);
	} else if (o->kind == EV_HOLD && !o->held->too_big) {
		if (o->held->stack.len + line.len >= FG_CMAX_STACK) {
			o->held->too_big = true;
			return;
		}
		if (fg_strbuf_add(&o->held->stack, line.ptr, line.len) ||
		    fg_strbuf_addch(&o->held->stack, '\n'))
			o->error = FG_ENOMEM;
	}
}

/* Lines are sorted as the collapser sorts them: '#' comments skipped, a
 * blank line ends an event (the same blanks: a line it takes as blank
 * must end the event here too, or the stack lines after it would reach
 * it as headers), the first line of an event is its header whatever its
 * indentation (older perf right-aligns the command name). A line that
 * starts at column 0 inside an event is a header too: perf prints switch
 * records, events of one line, without a blank line after them. */
static void one_line(fg_offcpu *o, fg_view line)
{
	size_t i = 0;

	if (line.len && line.ptr[0] == '#')
		return;
	while (i < line.len && (line.ptr[i] == ' ' || line.ptr[i] == '\t' || line.ptr[i] == '\r' ||
				line.ptr[i] == '\v' || line.ptr[i] == '\f'))
		i++;
	if (i == line.len)
		end_event(o);
	else if (o->kind == EV_NONE || (line.ptr[0] != ' ' && line.ptr[0] != '\t'))
		header_line(o, line);
	else
		stack_line(o, line);
}

int fg_offcpu_new(fg_offcpu **out, bool hot_cold, uint64_t us_per_sample, fg_text_cb sink,
		  void *ctx)
{
	fg_offcpu *o = fg_calloc(1, sizeof(*o));

	*out = NULL;
	if (!o)
		return FG_ENOMEM;
	o->hot_cold = hot_cold;
	o->us_per_sample = us_per_sample;
	o->sink = sink;
	o->ctx = ctx;
	fg_strbuf_init(&o->line, 0);
	fg_strbuf_init(&o->out, 0);
	o->by_tid = (fg_strmap)FG_STRMAP_INIT;
	*out = o;
	return 0;
}

int fg_offcpu_feed(fg_offcpu *o, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;

	while (!o->error && p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		if (o->line_too_long) {
			/* the rest of a line too long to keep */
		} else if (o->line.len + n > FG_CMAX_LINE) {
			o->line_too_long = true;
			fg_strbuf_reset(&o->line);
		} else if (!nl && !o->line.len) {
			if (fg_strbuf_add(&o->line, p, n))
				o->error = FG_ENOMEM;
		} else if (o->line.len) {
			if (fg_strbuf_add(&o->line, p, n))
				o->error = FG_ENOMEM;
			else if (nl) {
				one_line(o, fg_view_of(o->line.buf, o->line.len));
				fg_strbuf_reset(&o->line);
			}
		} else {
			one_line(o, fg_view_of(p, n));
		}
		if (nl)
			o->line_too_long = false;
		p = nl ? nl + 1 : end;
		if (o->out.len >= OUT_FLUSH)
			flush(o);
	}
	return o->error;
}

int fg_offcpu_finish(fg_offcpu *o)
{
	size_t i;

	if (o->line.len && !o->line_too_long)
		one_line(o, fg_view_of(o->line.buf, o->line.len));
	fg_strbuf_reset(&o->line);
	end_event(o);
	for (i = 0; i < o->nwaits; i++)
		if (o->waits[i].open) {
			o->waits[i].open = false;
			o->st.open++;
		}
	return flush(o);
}

/* The switches as data: each wait's sample is kept (its frames, their
 * names copied) until the thread's switch back in. */

int fg_offcpu_new_samples(fg_offcpu **out, bool hot_cold, uint64_t us_per_sample,
			  fg_collapser *c)
{
	int err = fg_offcpu_new(out, hot_cold, us_per_sample, NULL, NULL);

	if (!err)
		(*out)->c = c;
	return err;
}

static struct wait *wait_of_tid(fg_offcpu *o, int32_t tid, bool create)
{
	char key[16];
	int n = snprintf(key, sizeof(key), "%d", (int)tid);

	return wait_of(o, fg_view_of(key, (size_t)n), create);
}

/* A name kept in w->names: its offset + 1, 0 for NULL. */
static uintptr_t keep_name(fg_offcpu *o, struct wait *w, const char *name)
{
	size_t at = w->names.len;

	if (!name)
		return 0;
	if (fg_strbuf_add(&w->names, name, strlen(name) + 1))
		o->error = FG_ENOMEM;
	return at + 1;
}

static const char *name_at(const struct wait *w, const char *kept)
{
	uintptr_t at = (uintptr_t)kept;

	return at ? w->names.buf + at - 1 : NULL;
}

int fg_offcpu_switch_out(fg_offcpu *o, const fg_sample *s, bool preempted)
{
	struct wait *w;
	size_t i;

	if (o->error)
		return o->error;
	if (preempted) {
		o->st.preempted++;
		return 0;
	}
	if (!(w = wait_of_tid(o, s->tid, true)))
		return o->error;
	wait_start(o, w, s->time);
	w->pid = s->pid;
	w->nframes = 0;
	fg_strbuf_reset(&w->names);
	fg_strbuf_reset(&w->who);
	if (fg_strbuf_addstr(&w->who, s->comm ? s->comm : ""))
		return o->error = FG_ENOMEM;
	if (FG_ALLOC_GROW(w->frames, s->nframes, w->aframes, 16))
		return o->error = FG_ENOMEM;
	for (i = 0; i < s->nframes; i++) {
		fg_sample_frame f = s->frames[i];
		f.sym = (const char *)keep_name(o, w, f.sym);
		f.module = (const char *)keep_name(o, w, f.module);
		f.file = (const char *)keep_name(o, w, f.file);
		w->frames[i] = f;
	}
	w->nframes = s->nframes;
	return o->error;
}

/* Hands a sample on with its frames and, for hot/cold, the outermost
 * frame that says whether it ran or waited. */
static int pass_on(fg_offcpu *o, const fg_sample *s, const struct wait *w, const char *root,
		   uint64_t us)
{
	fg_sample out = *s;
	size_t n = s->nframes + (o->hot_cold ? 1 : 0), i;

	if (FG_ALLOC_GROW(o->scratch, n, o->ascratch, 16))
		return o->error = FG_ENOMEM;
	for (i = 0; i < s->nframes; i++) {
		o->scratch[i] = s->frames[i];
		if (w) {
			o->scratch[i].sym = name_at(w, s->frames[i].sym);
			o->scratch[i].module = name_at(w, s->frames[i].module);
			o->scratch[i].file = name_at(w, s->frames[i].file);
		}
	}
	if (o->hot_cold)
		o->scratch[i] = (fg_sample_frame){ .sym = root };
	out.frames = o->scratch;
	out.nframes = n;
	out.period = us;
	out.event = o->hot_cold ? "hot-cold" : "off-cpu";
	if ((o->error = fg_collapser_add_sample(o->c, &out)))
		return o->error;
	return 0;
}

int fg_offcpu_switch_in(fg_offcpu *o, int32_t tid, uint64_t t_ns)
{
	struct wait *w;
	fg_sample s;
	uint64_t us;

	if (o->error)
		return o->error;
	w = wait_of_tid(o, tid, false);
	if (!(us = wait_end(o, w, t_ns)))
		return o->error;
	memset(&s, 0, sizeof(s));
	s.comm = w->who.buf;
	s.pid = w->pid;
	s.tid = tid;
	s.time = w->t_ns;
	s.frames = w->frames;
	s.nframes = w->nframes;
	return pass_on(o, &s, w, FG_OFFCPU_ROOT, us);
}

int fg_offcpu_on_cpu(fg_offcpu *o, const fg_sample *s, bool period_ns)
{
	if (o->error || !o->hot_cold)
		return o->error;
	return pass_on(o, s, NULL, FG_ONCPU_ROOT, on_cpu_us(o, period_ns, s->period));
}

void fg_offcpu_filter_stats(const fg_offcpu *o, fg_offcpu_stats *out)
{
	*out = o->st;
}

void fg_offcpu_free(fg_offcpu *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->nwaits; i++) {
		fg_strbuf_release(&o->waits[i].who);
		fg_strbuf_release(&o->waits[i].stack);
		fg_strbuf_release(&o->waits[i].names);
		free(o->waits[i].frames);
	}
	free(o->scratch);
	free(o->waits);
	fg_strmap_release(&o->by_tid);
	fg_strbuf_release(&o->line);
	fg_strbuf_release(&o->out);
	free(o);
}
