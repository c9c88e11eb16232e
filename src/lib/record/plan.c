/* Planning a recording against the machine: the kernel's sampling limit,
 * the free space (the default size cap is half of it) and the ring buffer
 * that keeps perf from dropping samples. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "flamegraph/record.h"
#include "util/version.h"
#include "util/path.h"
#include "util/banned.h"

/* Below this there is no point in recording: a second of dwarf samples. */
#define MIN_FREE (64ull * 1024 * 1024)

static int check_rate(fg_record_plan *plan, const fg_record_opts *o)
{
	long long max = fg_read_number_file("/proc/sys/kernel/perf_event_max_sample_rate", -1);

	plan->max_rate = max > 0 && max < 0x7fffffff ? (unsigned)max : 0;
	if (!plan->max_rate || o->custom || o->recorder != FG_RECORDER_PERF || fg_record_freq(o) <= plan->max_rate)
		return 0;
	return fg_error_set(FG_ELIMIT, "the sampling frequency %u Hz is above this kernel's limit of "
			    "%u Hz (kernel.perf_event_max_sample_rate) — sample at %u Hz or less; "
			    "%u Hz is usually plenty", fg_record_freq(o), plan->max_rate, plan->max_rate,
			    FG_RECORD_DEFAULT_FREQ);
}

static uint64_t ring_buffer(const fg_record_opts *o)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN), pages = sysconf(_SC_PHYS_PAGES);
	long page = sysconf(_SC_PAGESIZE);
	uint64_t ram = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0, limit = 0;

	/* an unprivileged user may lock this much per CPU beyond its
	 * RLIMIT_MEMLOCK; root may lock anything */
	if (geteuid() != 0) {
		long long kb = fg_read_number_file("/proc/sys/kernel/perf_event_mlock_kb", -1);
		limit = kb > 4 ? (uint64_t)(kb - 4) * 1024 : 512 * 1024;
	}
	return fg_record_buffer_size(o->call_graph, o->freq, ncpus > 0 ? (unsigned)ncpus : 1, ram,
				     limit);
}

/* Off-CPU recordings open the sched:sched_switch tracepoint: perf finds
 * it in tracefs, and reads its raw data only with privilege. Said before
 * anything runs, with the way out; through sudo (--root) root's rights
 * apply. */
static int check_sched_events(const fg_record_opts *o)
{
	static const char *const ids[] = {
		"/sys/kernel/tracing/events/sched/sched_switch/id",
		"/sys/kernel/debug/tracing/events/sched/sched_switch/id",
	};
	bool denied = false, found = false;
	size_t i;

	if (o->mode == FG_RECORD_ON_CPU || o->recorder != FG_RECORDER_PERF || o->root)
		return 0;
	for (i = 0; i < sizeof(ids) / sizeof(*ids) && !found; i++) {
		if (access(ids[i], R_OK) == 0)
			found = true;
		else if (errno == EACCES)
			denied = true;
	}
	if (!found && (denied || geteuid() != 0))
		return fg_error_set(FG_ERECORD, "off-CPU graphs need the scheduler tracepoint "
				    "sched:sched_switch, which only root may use here — run as root, "
				    "or record through sudo with `opts.root`");
	if (!found)
		return fg_error_set(FG_ERECORD, "off-CPU graphs need the scheduler tracepoint "
				    "sched:sched_switch, but tracefs is not mounted — mount it "
				    "(mount -t tracefs nodev /sys/kernel/tracing) and run again");
	if (geteuid() != 0 && fg_read_number_file("/proc/sys/kernel/perf_event_paranoid", -1) > -1)
		return fg_error_set(FG_ERECORD, "off-CPU graphs read the scheduler's trace data, which "
				    "a user other than root may read only with "
				    "kernel.perf_event_paranoid = -1 — run as root, record through "
				    "sudo with `opts.root`, or set it (sudo sysctl "
				    "kernel.perf_event_paranoid=-1)");
	return 0;
}

int fg_record_plan_make(fg_record_plan *plan, const fg_record_opts *o, const char *dir)
{
	struct statvfs vfs;
	int err;

	memset(plan, 0, sizeof(*plan));
	if ((err = fg_opts_version_check("fg_record_opts", o->version, FG_RECORD_OPTS_VERSION)))
		return err;
	if ((err = check_rate(plan, o)) || (err = check_sched_events(o)))
		return err;
	plan->bytes_per_second = fg_record_bytes_per_sample(o->call_graph) * fg_record_freq(o);
	plan->buffer_bytes = o->buffer_bytes ? o->buffer_bytes : ring_buffer(o);
	if (statvfs(dir, &vfs) == 0)
		plan->free_bytes = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
	else
		plan->free_bytes = UINT64_MAX; /* unknown: no default cap */
	if (o->max_size == UINT64_MAX) {
		plan->max_size = 0;
	} else if (o->max_size) {
		plan->max_size = o->max_size;
	} else if (plan->free_bytes != UINT64_MAX) {
		char shown[32];
		if (plan->free_bytes < MIN_FREE) {
			fg_record_format_size(shown, sizeof(shown), plan->free_bytes);
			return fg_error_set(FG_ELIMIT, "only %s is free in %s, too little for a recording — "
					    "free some space, or record into another folder", shown, dir);
		}
		plan->max_size = plan->free_bytes / 2;
		plan->max_size_default = true;
	}
	/* a buffer the user sized is theirs to keep */
	if (!o->buffer_bytes) {
		long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
		plan->buffer_bytes = fg_record_buffer_within(plan->buffer_bytes, plan->max_size,
							     ncpus > 0 ? (unsigned)ncpus : 1);
	}
	return 0;
}
