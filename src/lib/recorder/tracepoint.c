/* The off-CPU modes' scheduler events: the sched:sched_switch
 * tracepoint, found in tracefs (its id and the places of its fields,
 * read at run time), opened beside the sampling event on every CPU of
 * every task with the same call-chain settings, every switch sampled
 * (period 1) with its raw fields, and writing into the CPU's ring
 * buffer. The sampling event then asks for the kernel's switch records
 * (context_switch), which say when a thread runs again. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/recorder/internal.h"
#include "util/banned.h"

#define FORMAT_MAX 16384

static const char *const tracefs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

/* A tracefs file's text appended to out: 0, or the errno. */
static int read_file(const char *dir, const char *name, fg_strbuf *out)
{
	char path[160], buf[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "r")))
		return errno == EPERM ? EACCES : errno;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (fg_strbuf_add(out, buf, n))
			break;
	fclose(f);
	return fg_strbuf_failed(out) ? ENOMEM : 0;
}

/* The format's text and the tracefs it was found in; the errno of the
 * last place tried (EACCES wins: tracefs is there, this user may not
 * read it). */
static int read_format(fg_strbuf *text, const char **where)
{
	int why = ENOENT, err;

	for (size_t i = 0; i < sizeof(tracefs) / sizeof(*tracefs); i++) {
		fg_strbuf_reset(text);
		if (!(err = read_file(tracefs[i], "events/sched/sched_switch/format", text))) {
			*where = tracefs[i];
			return 0;
		}
		if (err == ENOMEM)
			return err;
		if (err == EACCES)
			why = EACCES;
	}
	return why;
}

static int sched_switch_of(fg_perfdata_sched_switch *out, fg_strbuf *text, const char **where)
{
	int why = read_format(text, where);

	memset(out, 0, sizeof(*out));
	if (why == ENOMEM)
		return FG_ENOMEM;
	if (why == EACCES)
		return fg_error_set(FG_ERECORD, "off-CPU graphs need the scheduler tracepoint "
				    "sched:sched_switch, whose description in tracefs "
				    "(/sys/kernel/tracing) only root may read here — record as root, "
				    "or let this user read it ('sudo chmod -R a+rX "
				    "/sys/kernel/tracing')");
	if (why)
		return fg_error_set(FG_ERECORD, "off-CPU graphs need the scheduler tracepoint "
				    "sched:sched_switch, but tracefs is not mounted — mount it "
				    "('sudo mount -t tracefs nodev /sys/kernel/tracing') and run again");
	if (fg_perfdata_sched_switch_parse(out, text->buf, text->len))
		return fg_error_set(FG_EPARSE, "%s/events/sched/sched_switch/format: %s", *where,
				    fg_error_last());
	return 0;
}

int fg_recorder_sched_switch(fg_perfdata_sched_switch *out)
{
	fg_strbuf text = FG_STRBUF_INIT;
	const char *where = NULL;
	int err = sched_switch_of(out, &text, &where);

	fg_strbuf_release(&text);
	return err;
}

int rn_tp_setup(rn_state *st)
{
	return sched_switch_of(&st->sched, &st->tp_format, &st->tp_dir);
}

static void add_u32(fg_strbuf *sb, uint32_t v)
{
	fg_strbuf_add(sb, &v, sizeof(v));
}

static void add_u64(fg_strbuf *sb, uint64_t v)
{
	fg_strbuf_add(sb, &v, sizeof(v));
}

/* One tracefs file as the tracing data holds it: its size, its text. */
static int add_file(fg_strbuf *sb, const char *dir, const char *name)
{
	fg_strbuf text = FG_STRBUF_INIT;
	int err = read_file(dir, name, &text);

	if (!err) {
		add_u64(sb, text.len);
		fg_strbuf_add(sb, text.buf, text.len);
	}
	fg_strbuf_release(&text);
	return err;
}

/* The tracing data perf keeps beside a recording of tracepoints, so that
 * perf script can print their fields: its magic and version, the byte
 * order, long and page sizes, tracefs's descriptions of the ring
 * buffer's page and event headers, no ftrace events, one system (sched)
 * with one event's format, and empty kallsyms, printk formats and
 * command names. Little-endian x86_64 only, as the recorder. */
int rn_tp_tracing_data(rn_state *st, fg_strbuf *out)
{
	static const char magic[] = "\027\010\104tracing";
	long page = sysconf(_SC_PAGESIZE);
	int err;

	fg_strbuf_add(out, magic, 10);
	fg_strbuf_add(out, "0.6", 4);
	fg_strbuf_addch(out, 0);                    /* little-endian */
	fg_strbuf_addch(out, (char)sizeof(long));
	add_u32(out, (uint32_t)(page > 0 ? page : 4096));
	fg_strbuf_add(out, "header_page", 12);
	if ((err = add_file(out, st->tp_dir, "events/header_page")))
		goto missing;
	fg_strbuf_add(out, "header_event", 13);
	if ((err = add_file(out, st->tp_dir, "events/header_event")))
		goto missing;
	add_u32(out, 0);                            /* ftrace events */
	add_u32(out, 1);                            /* systems */
	fg_strbuf_add(out, "sched", 6);
	add_u32(out, 1);                            /* its events */
	add_u64(out, st->tp_format.len);
	fg_strbuf_add(out, st->tp_format.buf, st->tp_format.len);
	add_u32(out, 0);                            /* kallsyms */
	add_u32(out, 0);                            /* printk formats */
	add_u64(out, 0);                            /* command names */
	return fg_strbuf_check(out);
missing:
	if (err == ENOMEM)
		return FG_ENOMEM;
	return fg_error_set(FG_ERECORD, "cannot read %s/events/header_page or header_event: %s",
			    st->tp_dir, strerror(err));
}

/* The tracepoint's attribute, once the sampling event's is settled:
 * its call-chain and sample settings, every switch sampled, the raw
 * fields; no side-band records (the sampling event has them). */
static void tp_attr(rn_state *st)
{
	struct perf_event_attr *a = &st->tp_attr;

	/* the sampling event's settings as the kernel took them (call chain,
	 * registers, stack copy, kernel frames, enabling), then what makes
	 * it the tracepoint */
	*a = st->attr;
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = st->sched.id;
	a->freq = 0;
	a->sample_period = 1;
	a->sample_type |= PERF_SAMPLE_RAW;
	a->mmap = a->mmap2 = a->mmap_data = a->comm = a->comm_exec = a->task = 0;
	a->context_switch = 0;
#ifdef PERF_RECORD_MISC_MMAP_BUILD_ID
	a->build_id = 0;
#endif
	a->watermark = 0;
	a->wakeup_events = 0;
}


/* The kernel's refusal of the tracepoint, in the user's terms: its raw
 * fields are the kernel's data, which it gives a user other than root
 * only with kernel.perf_event_paranoid at -1. */
static int tp_refused(int errnum, pid_t pid)
{
	rn_host h;

	rn_host_read(&h);
	if ((errnum == EACCES || errnum == EPERM) && !h.privileged)
		return fg_error_set(FG_ERECORD, "the native recorder may not record the scheduler "
				    "tracepoint sched:sched_switch here — its fields are the "
				    "kernel's data, which kernel.perf_event_paranoid %d keeps from "
				    "this user; allow it with 'sudo sysctl "
				    "kernel.perf_event_paranoid=-1', or record as root", h.paranoid);
	return rn_msg_open_failed(&h, errnum, "sched:sched_switch", pid, 0);
}

int rn_tp_open(rn_state *st, pid_t pid, size_t i)
{
	long fd;
	int err;

	if (!st->tp_ready) {
		tp_attr(st);
		st->tp_ready = true;
	}
	fd = rn_sys_open(&st->tp_attr, pid, st->cpus[i], -1);
	if (fd < 0)
		return errno == ENODEV ? 0 : tp_refused(errno, pid);
	if ((err = rn_event_keep((int)fd, &st->tp_fds, &st->tp_ids, &st->ntp, &st->atp)))
		return err;
	if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, st->rings[i].fd) != 0)
		return fg_error_set(FG_ERECORD, "cannot share CPU %d's ring buffer between events: %s",
				    st->cpus[i], strerror(errno));
	return 0;
}

void rn_tp_enable(rn_state *st, bool on)
{
	for (size_t i = 0; i < st->ntp; i++)
		(void)ioctl(st->tp_fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

void rn_tp_close(rn_state *st)
{
	for (size_t i = 0; i < st->ntp; i++)
		close(st->tp_fds[i]);
	st->ntp = 0;
}

void rn_events_mode(rn_state *st)
{
	struct perf_event_attr *a = &st->attr;

	if (st->o->mode == FG_RECORDER_ON_CPU)
		return;
	/* the switch records, which end each wait */
	a->context_switch = 1;
	a->type = PERF_TYPE_SOFTWARE;
	if (st->o->mode == FG_RECORDER_HOT_COLD) {
		/* on-CPU periods in nanoseconds, weighed as times beside the
		 * waits */
		a->config = PERF_COUNT_SW_CPU_CLOCK;
		return;
	}
	/* off CPU alone: an event that samples nothing and carries the
	 * side-band records (maps, names, switches) */
	a->config = PERF_COUNT_SW_DUMMY;
	a->freq = 0;
	a->sample_period = 0;
}
