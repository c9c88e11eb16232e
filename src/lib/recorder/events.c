/* The events: their attribute, settled against what the kernel takes,
 * and one event per online CPU and task. A task's events follow its
 * later threads and children (inherit); the kernel maps the ring buffer
 * of an inherited event only when the event is tied to a CPU, so each
 * is, and all the events of a CPU write into that CPU's one buffer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/recorder/internal.h"
#include "util/strbuf.h"
#include "util/banned.h"

static int parse_cpu_list(rn_state *st, const char *text)
{
	const char *p = text;

	while (*p && *p != '\n') {
		unsigned long long a, b;
		if (!rn_take_num(&p, 10, &a) || a > 65535)
			return -1;
		b = a;
		if (*p == '-') {
			p++;
			if (!rn_take_num(&p, 10, &b) || b < a || b > 65535)
				return -1;
		}
		for (unsigned long long c = a; c <= b; c++) {
			int *v = fg_realloc_array(st->cpus, st->ncpus + 1, sizeof(*st->cpus));
			if (!v)
				return FG_ENOMEM;
			st->cpus = v;
			st->cpus[st->ncpus++] = (int)c;
		}
		if (*p == ',')
			p++;
	}
	return st->ncpus ? 0 : -1;
}

int rn_events_cpus(rn_state *st)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	long count;
	int err;

	if (f)
		fclose(f);
	buf[n] = '\0';
	if (n && (err = parse_cpu_list(st, buf)) == 0)
		return 0;
	else if (n && err == FG_ENOMEM)
		return err;
	/* no sysfs: the CPUs the C library counts, numbered from 0 */
	st->ncpus = 0;
	count = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(buf, sizeof(buf), "0-%ld", count > 0 ? count - 1 : 0);
	return parse_cpu_list(st, buf) == FG_ENOMEM ? FG_ENOMEM : 0;
}

/* The attribute before the kernel has had its say: cycles with kernel
 * frames and build ids, sampled at freq; the user registers and stack
 * the reader unwinds with; the side-band records it needs. */
void rn_events_attr(rn_state *st)
{
	struct perf_event_attr *a = &st->attr;
	size_t stack = st->o->stack_bytes ? st->o->stack_bytes : FG_RECORDER_DEFAULT_STACK;

	if (stack > 65528)
		stack = 65528;
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_CPU_CYCLES;
	a->freq = 1;
	a->sample_freq = st->o->freq;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			 PERF_SAMPLE_STACK_USER;
	/* the CPU only where the switches are paired by it (off-CPU
	 * modes): the on-CPU reader has no use for its 8 bytes a sample */
	if (st->o->mode != FG_RECORDER_ON_CPU)
		a->sample_type |= PERF_SAMPLE_CPU;
	/* the kernel's walk of the user frames too (exclude_callchain_user
	 * stays 0): the copy only has to reach the first frame that keeps
	 * a frame pointer (hybrid samples), unless the caller asked for a
	 * larger one */
	a->sample_regs_user = RN_REGS_HYBRID;
	a->sample_stack_user = (uint32_t)(stack & ~(size_t)7);
	if (st->o->frame_pointers) {
		a->sample_type &= ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
		a->sample_regs_user = 0;
		a->sample_stack_user = 0;
	}
	a->inherit = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	/* the maps of data too: a library's unwind tables may lie outside
	 * its code, in a read-only map of their own, where perf's unwinder
	 * looks for them */
	a->mmap_data = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->watermark = 1;
	rn_events_mode(st);
#ifdef PERF_RECORD_MISC_MMAP_BUILD_ID
	a->build_id = 1;
#endif
}

/* The soft limit of open files raised to the hard one: an event per CPU
 * and task of each kind takes many. The command, started before, keeps
 * its own limit. Whether it rose. */
static bool raise_nofile(void)
{
	struct rlimit l;

	if (getrlimit(RLIMIT_NOFILE, &l) != 0 || l.rlim_cur >= l.rlim_max)
		return false;
	l.rlim_cur = l.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &l) == 0;
}

int rn_sys_open(struct perf_event_attr *a, pid_t pid, int cpu, int group)
{
	long fd = syscall(SYS_perf_event_open, a, pid, cpu, group, (unsigned long)PERF_FLAG_FD_CLOEXEC);

	if (fd < 0 && errno == EMFILE && raise_nofile())
		fd = syscall(SYS_perf_event_open, a, pid, cpu, group,
			     (unsigned long)PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -1 : (int)fd;
}

/* The first event: each refusal that has a way around it takes it. */
static int open_settling(rn_state *st, pid_t pid, int cpu, int *fd)
{
	struct perf_event_attr *a = &st->attr;
	rn_host h;

	for (;;) {
		if ((*fd = rn_sys_open(a, pid, cpu, -1)) >= 0)
			return 0;
#ifdef PERF_RECORD_MISC_MMAP_BUILD_ID
		/* a kernel from before build ids in map records (5.12) */
		if ((errno == EINVAL || errno == E2BIG) && a->build_id) {
			a->build_id = 0;
			continue;
		}
#endif
		/* no hardware counter (a VM without a PMU): the timer */
		if ((errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV) &&
		    a->type == PERF_TYPE_HARDWARE) {
			a->type = PERF_TYPE_SOFTWARE;
			a->config = PERF_COUNT_SW_CPU_CLOCK;
			st->res->software_clock = true;
			/* the timer's rate is a period of CPU time the kernel
			 * derives from the frequency and keeps: set it here,
			 * and the samples need not carry it (the reader then
			 * takes the attribute's) */
			if (a->freq && a->sample_freq && st->o->mode == FG_RECORDER_ON_CPU) {
				a->sample_period = 1000000000ULL / a->sample_freq;
				a->freq = 0;
				a->sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
			}
			continue;
		}
		/* kernel frames not allowed to this user: user frames only */
		if ((errno == EACCES || errno == EPERM) && !a->exclude_kernel) {
			a->exclude_kernel = 1;
			a->exclude_hv = 1;
			st->res->kernel_excluded = true;
			continue;
		}
		break;
	}
	rn_host_read(&h);
	return rn_msg_open_failed(&h, errno, a->type == PERF_TYPE_HARDWARE ? "cycles" : "cpu-clock",
				  pid, st->o->freq);
}

/* The second event's attribute, from the first as the kernel took it:
 * a rare sample with a copy that reaches the outermost frames, user
 * frames from the copy alone, no side-band (the first has it). */
static void whole_attr(rn_state *st)
{
	struct perf_event_attr *w = &st->whole;

	*w = st->attr;
	w->disabled = st->attr.disabled;
	w->sample_freq = RN_WHOLE_FREQ;
	w->sample_regs_user = RN_REGS_X86_64;
	w->sample_stack_user = RN_WHOLE_STACK;
	w->exclude_callchain_user = 1;
	w->mmap = w->mmap2 = w->mmap_data = w->comm = w->comm_exec = w->task = 0;
#ifdef PERF_RECORD_MISC_MMAP_BUILD_ID
	w->build_id = 0;
#endif
	if (w->type == PERF_TYPE_SOFTWARE) {
		w->freq = 0;
		w->sample_period = 1000000000ULL / RN_WHOLE_FREQ;
		st->fast = *w;
		st->fast.sample_period = RN_WHOLE_FIRST_NS;
		st->whole_fast = true;
	}
}

int rn_event_keep(int fd, int **fds, uint64_t **ids, size_t *n, size_t *alloc)
{
	uint64_t id = 0;

	if (*n == *alloc) {
		size_t grow = *alloc ? 2 * *alloc : 16;
		uint64_t *i2 = fg_realloc_array(*ids, grow, sizeof(**ids));
		int *f2 = i2 ? fg_realloc_array(*fds, grow, sizeof(**fds)) : NULL;
		if (i2)
			*ids = i2;
		if (!f2) {
			close(fd);
			return FG_ENOMEM;
		}
		*fds = f2;
		*alloc = grow;
	}
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0) {
		int e = errno;
		close(fd);
		return fg_error_set(FG_ERECORD, "cannot read the id of a perf event: %s", strerror(e));
	}
	(*fds)[*n] = fd;
	(*ids)[(*n)++] = id;
	return 0;
}


/* The CPU's buffer: the first event of the CPU maps it, the others
 * write into it. */
static int attach_ring(rn_state *st, size_t i, int fd)
{
	if (!st->rings[i].base)
		return rn_ring_map(st, i, fd);
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, st->rings[i].fd) != 0)
		return fg_error_set(FG_ERECORD, "cannot share CPU %d's ring buffer between events: %s",
				    st->cpus[i], strerror(errno));
	return 0;
}

/* The second event of task pid on the CPU of index i, into that CPU's
 * buffer. One the kernel refuses leaves the stacks to the first event's
 * copies (and their outermost frames unknown where those never reach
 * them): not an error. */
static int open_whole(rn_state *st, pid_t pid, size_t i)
{
	int fd, err;

	if (st->o->frame_pointers || st->o->stack_bytes >= RN_WHOLE_STACK)
		return 0;
	if (!st->nwids && !st->whole_on) {
		if (st->whole.size)
			return 0;
		whole_attr(st);
	}
	if ((fd = rn_sys_open(&st->whole, pid, st->cpus[i], -1)) < 0)
		return 0;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, st->rings[i].fd) != 0) {
		close(fd);
		return 0;
	}
	st->whole_on = true;
	if ((err = rn_event_keep(fd, &st->wfds, &st->wids, &st->nwids, &st->awids)))
		return err;
	/* the fast copy, while none of its samples has been read */
	if (!st->whole_fast || (fd = rn_sys_open(&st->fast, pid, st->cpus[i], -1)) < 0)
		return 0;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, st->rings[i].fd) != 0) {
		close(fd);
		return 0;
	}
	return rn_event_keep(fd, &st->ffds, &st->fids, &st->nfids, &st->afids);
}

void rn_events_whole_slow(rn_state *st)
{
	for (size_t i = 0; i < st->nfids; i++)
		(void)ioctl(st->ffds[i], PERF_EVENT_IOC_DISABLE, 0);
	st->whole_fast = false;
}

int rn_events_open_task(rn_state *st, pid_t pid, bool enable_on_exec)
{
	rn_host h;
	int err, fd;

	if (!st->rings && !(st->rings = fg_calloc(st->ncpus, sizeof(*st->rings))))
		return FG_ENOMEM;
	for (size_t i = 0; i < st->ncpus; i++) {
		if (!st->attr_known) {
			rn_events_attr(st);
			st->attr.disabled = enable_on_exec;
			st->attr.enable_on_exec = enable_on_exec;
			if ((err = open_settling(st, pid, st->cpus[i], &fd)))
				return err;
			st->attr_known = true;
		} else if ((fd = rn_sys_open(&st->attr, pid, st->cpus[i], -1)) < 0) {
			/* a CPU gone offline since it was listed */
			if (errno == ENODEV)
				continue;
			rn_host_read(&h);
			return rn_msg_open_failed(&h, errno, st->attr.type == PERF_TYPE_HARDWARE ?
						  "cycles" : "cpu-clock", pid, st->o->freq);
		}
		if ((err = rn_event_keep(fd, &st->fds, &st->ids, &st->nfds, &st->afds)) ||
		    (err = attach_ring(st, i, fd)) ||
		    (err = open_whole(st, pid, i)) || (err = rn_grow_open(st, pid, i)))
			return err;
		if (st->o->mode != FG_RECORDER_ON_CPU && st->rings[i].base &&
		    (err = rn_tp_open(st, pid, i)))
			return err;
	}
	return 0;
}

void rn_events_enable(rn_state *st, bool on)
{
	/* the first event's family, or the grown copy's once it took over */
	for (size_t i = 0; i < st->nfds; i++)
		if (!on || !st->grown_on)
			(void)ioctl(st->fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
	for (size_t i = 0; i < st->ngids; i++)
		if (!on || st->grown_on)
			(void)ioctl(st->gfds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
	rn_tp_enable(st, on);
	for (size_t i = 0; i < st->nwids; i++)
		(void)ioctl(st->wfds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
	for (size_t i = 0; i < st->nfids; i++)
		if (!on || st->whole_fast)
			(void)ioctl(st->ffds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

void rn_events_close(rn_state *st)
{
	rn_tp_close(st);
	rn_grow_close(st);
	for (size_t i = 0; i < st->nfds; i++)
		close(st->fds[i]);
	for (size_t i = 0; i < st->nwids; i++)
		close(st->wfds[i]);
	for (size_t i = 0; i < st->nfids; i++)
		close(st->ffds[i]);
	st->nfds = st->nwids = st->nfids = 0;
}
