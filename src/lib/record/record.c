/* Command lines of the recorders. Kept free of process handling so they
 * can be unit-tested anywhere (the DTrace one included, on Linux). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "flamegraph/error.h"
#include "flamegraph/record.h"
#include "util/strvec.h"
#include "util/version.h"
#include "util/banned.h"

static const char *const call_graph_names[] = { "dwarf", "fp", "lbr" };

const char *fg_call_graph_name(fg_call_graph mode)
{
	if ((unsigned)mode >= sizeof(call_graph_names) / sizeof(*call_graph_names))
		return "dwarf";
	return call_graph_names[mode];
}

int fg_call_graph_parse(fg_call_graph *out, const char *name)
{
	unsigned i;

	for (i = 0; name && i < sizeof(call_graph_names) / sizeof(*call_graph_names); i++) {
		if (!strcmp(name, call_graph_names[i])) {
			*out = (fg_call_graph)i;
			return 0;
		}
	}
	return fg_error_set(FG_EINVAL, "unknown call-graph mode '%s' — use fp, dwarf or lbr",
			    name ? name : "");
}

const char *fg_recorder_tool(fg_recorder recorder)
{
	switch (recorder) {
	case FG_RECORDER_DTRACE: return "dtrace";
	case FG_RECORDER_XCTRACE: return "xctrace";
	case FG_RECORDER_NATIVE: return "perf_event_open";
	default: return "perf";
	}
}

fg_recorder fg_record_choose(const fg_record_host *h)
{
	if (h->dtrace_named)
		return FG_RECORDER_DTRACE;
	if (h->xctrace_named)
		return FG_RECORDER_XCTRACE;
	/* DTrace without root fails at once ("requires additional
	 * privileges"); xctrace records the user's own programs as they are */
	if (h->dtrace_found && h->privileged)
		return FG_RECORDER_DTRACE;
	if (h->xctrace_found)
		return FG_RECORDER_XCTRACE;
	return FG_RECORDER_DTRACE;
}

void fg_argv_free(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* Hands the vector over as a plain NULL-terminated char ** (an empty one
 * still gets its terminator). */
static int detach(fg_strvec *sv, char ***out)
{
	if (!sv->v && fg_strvec_push(sv, "") == 0) {
		free(sv->v[0]);
		sv->v[0] = NULL;
		sv->n = 0;
	}
	if (!sv->v)
		return FG_ENOMEM;
	*out = sv->v;
	sv->v = NULL;
	sv->n = sv->alloc = 0;
	return 0;
}

/* "sudo [FLAGS]" in front of the tool when asked for. */
static int push_prefix(fg_strvec *sv, const fg_record_opts *o, const char *deftool)
{
	int err;

	if (o->root) {
		if ((err = fg_strvec_push(sv, "sudo")))
			return err;
		if (o->sudo_flags && (err = fg_strvec_split(sv, o->sudo_flags)))
			return fg_error_set(err, "`opts.sudo_flags`: %s", fg_error_last());
	}
	return fg_strvec_push(sv, o->tool && *o->tool ? o->tool : deftool);
}

static int check_target(const fg_record_opts *o)
{
	int targets = (o->npids > 0) + (o->argc > 0 && o->attach_pid <= 0) + (o->attach_pid > 0);

	if (targets != 1)
		return fg_error_set(FG_EINVAL, "give either a command or PIDs to record, not %s",
				    targets ? "both" : "neither");
	if (o->attach_pid > 0 && (!o->control_ctl || !o->control_ack))
		return fg_error_set(FG_EINVAL, "recording a held process needs the control fifos");
	if (!o->output || !*o->output)
		return fg_error_set(FG_EINVAL, "no output file for the recorder");
	return 0;
}

/* What perf samples. On-CPU: its default event at -F FREQ. Off-CPU:
 * every sched_switch (-c 1) with its stack, and the switch records that
 * tell when a thread runs again. Hot/cold: both, cpu-clock keeping its
 * own frequency while -c 1 holds for the tracepoint. */
static int push_events(fg_strvec *sv, const fg_record_opts *o)
{
	unsigned freq = fg_record_freq(o);
	int err = 0;

	switch (o->mode) {
	case FG_RECORD_OFF_CPU:
		err = fg_strvec_push(sv, "-e");
		if (!err)
			err = fg_strvec_push(sv, "sched:sched_switch");
		break;
	case FG_RECORD_HOT_COLD:
		err = fg_strvec_push(sv, "-e");
		if (!err)
			err = fg_strvec_pushf(sv, "cpu-clock/freq=%u/", freq);
		if (!err)
			err = fg_strvec_push(sv, "-e");
		if (!err)
			err = fg_strvec_push(sv, "sched:sched_switch");
		break;
	case FG_RECORD_ON_CPU:
	default:
		err = fg_strvec_push(sv, "-F");
		if (!err)
			err = fg_strvec_pushf(sv, "%u", freq);
		return err;
	}
	if (!err)
		err = fg_strvec_push(sv, "-c");
	if (!err)
		err = fg_strvec_push(sv, "1");
	if (!err)
		err = fg_strvec_push(sv, "--switch-events");
	return err;
}

static int perf_command(fg_strvec *sv, const fg_record_opts *o)
{
	size_t i, first;
	int err;

	if ((err = push_prefix(sv, o, "perf")))
		return err;
	first = sv->n;
	if (o->custom) {
		if ((err = fg_strvec_split(sv, o->custom)))
			return fg_error_set(err, "`opts.custom`: %s", fg_error_last());
		if (sv->n == first || strcmp(sv->v[first], "record") != 0) {
			/* "-c '-e cycles -g'" means the record arguments */
			fg_strvec tail = FG_STRVEC_INIT;
			err = fg_strvec_pushv(&tail, (const char *const *)sv->v + first, sv->n - first);
			while (!err && sv->n > first)
				free(sv->v[--sv->n]);
			if (!err)
				err = fg_strvec_push(sv, "record");
			if (!err)
				err = fg_strvec_pushv(sv, (const char *const *)tail.v, tail.n);
			fg_strvec_clear(&tail);
			if (err)
				return err;
		}
	} else {
		err = fg_strvec_push(sv, "record");
		if (!err)
			err = push_events(sv, o);
		if (!err)
			err = fg_strvec_push(sv, "--call-graph");
		if (!err && o->call_graph == FG_CALL_GRAPH_DWARF)
			err = fg_strvec_pushf(sv, "dwarf,%d", FG_DWARF_STACK_SIZE);
		else if (!err)
			err = fg_strvec_push(sv, fg_call_graph_name(o->call_graph));
		if (!err)
			err = fg_strvec_push(sv, "-g");
		if (err)
			return err;
	}
	/* sizes in KiB: perf takes them as they are, with no "rounding" note */
	if (!o->custom && o->buffer_bytes &&
	    ((err = fg_strvec_push(sv, "-m")) ||
	     (err = fg_strvec_pushf(sv, "%lluK", (unsigned long long)(o->buffer_bytes / 1024)))))
		return err;
	if (o->max_size &&
	    (err = fg_strvec_pushf(sv, "--max-size=%lluK",
				   (unsigned long long)((o->max_size + 1023) / 1024))))
		return err;
	if (o->compression_level >= 0 &&
	    (err = fg_strvec_pushf(sv, "--compression-level=%d", o->compression_level)))
		return err;
	if ((err = fg_strvec_push(sv, "-o")) || (err = fg_strvec_push(sv, o->output)))
		return err;
	if (o->attach_pid > 0) {
		/* events stay off until the caller enables them through the
		 * control fifo, then releases the held process to exec */
		err = fg_strvec_push(sv, "-D");
		if (!err)
			err = fg_strvec_push(sv, "-1");
		if (!err)
			err = fg_strvec_pushf(sv, "--control=fifo:%s,%s", o->control_ctl, o->control_ack);
		if (!err)
			err = fg_strvec_push(sv, "-p");
		if (!err)
			err = fg_strvec_pushf(sv, "%ld", o->attach_pid);
		return err;
	}
	if (o->npids) {
		fg_strbuf list = FG_STRBUF_INIT;
		for (i = 0; i < o->npids; i++)
			fg_strbuf_addf(&list, "%s%s", i ? "," : "", o->pids[i]);
		err = fg_strvec_push(sv, "-p");
		if (!err)
			err = fg_strvec_push(sv, list.buf);
		fg_strbuf_release(&list);
		return err;
	}
	if ((err = fg_strvec_push(sv, "--")))
		return err;
	return fg_strvec_pushv(sv, o->argv, o->argc);
}

static int dtrace_command(fg_strvec *sv, const fg_record_opts *o)
{
	size_t i;
	int err;

	if ((err = push_prefix(sv, o, "dtrace")))
		return err;
	if (o->custom) {
		if ((err = fg_strvec_split(sv, o->custom)))
			return fg_error_set(err, "`opts.custom`: %s", fg_error_last());
	} else {
		err = fg_strvec_push(sv, "-x");
		if (!err)
			err = fg_strvec_push(sv, "ustackframes=100");
		if (!err)
			err = fg_strvec_push(sv, "-n");
		if (!err)
			err = fg_strvec_pushf(sv, "profile-%u /pid == $target/ { @[ustack(100)] = count(); }",
					      fg_record_freq(o));
		if (err)
			return err;
	}
	if ((err = fg_strvec_push(sv, "-o")) || (err = fg_strvec_push(sv, o->output)))
		return err;
	for (i = 0; i < o->npids; i++)
		if ((err = fg_strvec_push(sv, "-p")) || (err = fg_strvec_push(sv, o->pids[i])))
			return err;
	if (o->argc) {
		/* dtrace -c takes one string and splits it itself */
		fg_strvec args = FG_STRVEC_INIT;
		fg_strbuf joined = FG_STRBUF_INIT;
		err = fg_strvec_pushv(&args, o->argv, o->argc);
		if (!err) {
			fg_strvec_join_quoted(&args, &joined);
			err = fg_strvec_push(sv, "-c");
		}
		if (!err)
			err = fg_strvec_push(sv, joined.buf);
		fg_strbuf_release(&joined);
		fg_strvec_clear(&args);
	}
	return err;
}

/* Instruments' Time Profiler: it samples at its own rate (1 kHz), so
 * there is no -F; the program's stdout stays the program's. */
static int xctrace_command(fg_strvec *sv, const fg_record_opts *o)
{
	int err;

	if (o->npids > 1)
		return fg_error_set(FG_EINVAL, "xctrace records one process — give one PID, not %zu",
				    o->npids);
	if ((err = push_prefix(sv, o, "xctrace")) || (err = fg_strvec_push(sv, "record")))
		return err;
	if (o->custom) {
		if ((err = fg_strvec_split(sv, o->custom)))
			return fg_error_set(err, "`opts.custom`: %s", fg_error_last());
	} else if ((err = fg_strvec_push(sv, "--template")) ||
		   (err = fg_strvec_push(sv, "Time Profiler"))) {
		return err;
	}
	if ((err = fg_strvec_push(sv, "--output")) || (err = fg_strvec_push(sv, o->output)))
		return err;
	if (o->npids)
		return (err = fg_strvec_push(sv, "--attach")) ? err : fg_strvec_push(sv, o->pids[0]);
	/* --target-stdout is refused beside --attach */
	if ((err = fg_strvec_push(sv, "--target-stdout")) || (err = fg_strvec_push(sv, "-")) ||
	    (err = fg_strvec_push(sv, "--launch")) || (err = fg_strvec_push(sv, "--")))
		return err;
	return fg_strvec_pushv(sv, o->argv, o->argc);
}

FG_OPTS_INIT_FUNCTION(fg_record_opts, FG_RECORD_OPTS_VERSION, FG_RECORD_OPTS_INIT)

int fg_record_command(char ***out, const fg_record_opts *opts)
{
	fg_strvec sv = FG_STRVEC_INIT;
	int err;

	*out = NULL;
	if ((err = fg_opts_version_check("fg_record_opts", opts->version, FG_RECORD_OPTS_VERSION)))
		return err;
	if (opts->recorder == FG_RECORDER_NATIVE)
		return fg_error_set(FG_EINVAL, "the native recorder runs no command: it opens the "
				    "kernel's events itself (fg_recorder_run)");
	if ((err = check_target(opts)))
		return err;
	if (opts->mode != FG_RECORD_ON_CPU && opts->recorder != FG_RECORDER_PERF)
		return fg_error_set(FG_EINVAL, "off-CPU graphs are made with perf's scheduler "
				    "events; %s records on-CPU samples only",
				    opts->recorder == FG_RECORDER_DTRACE ? "DTrace" : "xctrace");
	if (opts->mode != FG_RECORD_ON_CPU && opts->custom)
		return fg_error_set(FG_EINVAL, "off-CPU graphs choose perf's events themselves: a "
				    "custom record command cannot be combined with them");
	if (opts->recorder == FG_RECORDER_DTRACE)
		err = dtrace_command(&sv, opts);
	else if (opts->recorder == FG_RECORDER_XCTRACE)
		err = xctrace_command(&sv, opts);
	else
		err = perf_command(&sv, opts);
	if (!err)
		err = detach(&sv, out);
	fg_strvec_clear(&sv);
	return err;
}

int fg_record_script_command(char ***out, const fg_record_opts *opts,
			     const char *perfdata, bool no_inline)
{
	fg_strvec sv = FG_STRVEC_INIT;
	int err;

	*out = NULL;
	if ((err = fg_opts_version_check("fg_record_opts", opts->version, FG_RECORD_OPTS_VERSION)))
		return err;
	if (opts->recorder == FG_RECORDER_DTRACE)
		return fg_error_set(FG_EINVAL, "DTrace output needs no script step");
	if (opts->recorder == FG_RECORDER_XCTRACE) {
		(void)no_inline; /* Instruments' stacks hold no inlined frames */
		err = push_prefix(&sv, opts, "xctrace");
		if (!err)
			err = fg_strvec_push(&sv, "export");
		if (!err)
			err = fg_strvec_push(&sv, "--input");
		if (!err)
			err = fg_strvec_push(&sv, perfdata);
		if (!err)
			err = fg_strvec_push(&sv, "--xpath");
		if (!err)
			err = fg_strvec_push(&sv, FG_XCTRACE_XPATH);
		goto done;
	}
	err = push_prefix(&sv, opts, "perf");
	if (!err)
		err = fg_strvec_push(&sv, "script");
	if (!err && opts->root)
		err = fg_strvec_push(&sv, "-f");
	if (!err)
		err = fg_strvec_push(&sv, "-i");
	if (!err)
		err = fg_strvec_push(&sv, perfdata);
	if (!err && no_inline)
		err = fg_strvec_push(&sv, "--no-inline");
	if (!err && opts->mode != FG_RECORD_ON_CPU)
		err = fg_strvec_push(&sv, "--show-switch-events");
	if (!err && opts->script_lines)
		err = fg_strvec_push(&sv, "-F");
	if (!err && opts->script_lines)
		err = fg_strvec_push(&sv, "+ip,+sym,+dso,+srcline");
done:
	if (!err)
		err = detach(&sv, out);
	fg_strvec_clear(&sv);
	return err;
}

uint64_t fg_record_bytes_per_sample(fg_call_graph mode)
{
	/* header, ip, tid, time, period and ~30 callchain entries; dwarf adds
	 * the user registers and the stack copy, lbr 32 branch entries */
	const uint64_t base = 64 + 30 * 8;

	switch (mode) {
	case FG_CALL_GRAPH_DWARF:
		return base + 20 * 8 + 16 + FG_DWARF_STACK_SIZE;
	case FG_CALL_GRAPH_LBR:
		return base + 32 * 24;
	default:
		return base;
	}
}

static uint64_t floor_pow2(uint64_t v)
{
	uint64_t p = 1;

	while (p <= v / 2)
		p *= 2;
	return p;
}

unsigned fg_record_freq(const fg_record_opts *o)
{
	return o->freq ? o->freq : FG_RECORD_DEFAULT_FREQ;
}

uint64_t fg_record_buffer_size(fg_call_graph mode, unsigned freq, unsigned ncpus,
			       uint64_t ram_bytes, uint64_t unprivileged_limit)
{
	const uint64_t min = 512 * 1024, max = 64 * 1024 * 1024;
	uint64_t want = fg_record_bytes_per_sample(mode) * (freq ? freq : FG_RECORD_DEFAULT_FREQ) / 4, size;

	/* the nearest power of two */
	size = want <= min ? min : floor_pow2(want) + floor_pow2(want) / 2 < want ?
	       floor_pow2(want) * 2 : floor_pow2(want);
	if (size > max)
		size = max;
	if (ncpus && ram_bytes && size > ram_bytes / 32 / ncpus)
		size = floor_pow2(ram_bytes / 32 / ncpus);
	if (unprivileged_limit && size > unprivileged_limit)
		size = floor_pow2(unprivileged_limit);
	/* perf needs at least a few pages */
	return size < 16 * 1024 ? 16 * 1024 : size;
}

uint64_t fg_record_buffer_within(uint64_t buffer, uint64_t cap, unsigned ncpus)
{
	uint64_t most;

	if (!cap || cap == UINT64_MAX)
		return buffer;
	most = floor_pow2(cap / 4 / (ncpus ? ncpus : 1));
	if (buffer > most)
		buffer = most;
	return buffer < 16 * 1024 ? 16 * 1024 : buffer;
}

int fg_record_parse_size(uint64_t *out, const char *text)
{
	static const struct { const char *unit; unsigned shift; } units[] = {
		{ "", 0 }, { "b", 0 }, { "k", 10 }, { "kb", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mb", 20 }, { "mib", 20 }, { "g", 30 }, { "gb", 30 },
		{ "gib", 30 }, { "t", 40 }, { "tb", 40 }, { "tib", 40 },
	};
	const char *p = text ? text : "";
	unsigned long long n = 0;
	size_t i, digits = 0;

	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (n > (~0ULL - 9) / 10)
			goto bad;
		n = n * 10 + (unsigned)(*p - '0');
	}
	if (!digits)
		goto bad;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(p, units[i].unit))
			continue;
		if (units[i].shift && n > (~0ULL >> units[i].shift))
			goto bad;
		*out = (uint64_t)n << units[i].shift;
		return 0;
	}
bad:
	return fg_error_set(FG_EINVAL, "'%s' is not a size — give bytes or a number with K, M or G, "
			    "e.g. 500M or 2G", text ? text : "");
}

void fg_record_format_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "bytes", "KB", "MB", "GB", "TB" };
	double v = (double)bytes;
	unsigned u = 0;

	while (v >= 1000 && u < 4) {
		v /= 1024;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
	else
		snprintf(buf, len, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
}
