/* The kernel's refusals in the user's terms, with the way out: as the
 * messages of a failed perf record are worded (record/capture_msgs.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/recorder/internal.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/banned.h"

/* Whether this process may profile anything: root, or the capabilities
 * that stand for it (CAP_PERFMON 38, CAP_SYS_ADMIN 21) in effect. */
static bool privileged(void)
{
	char line[256];
	FILE *f;
	bool yes = geteuid() == 0;

	if (yes || !(f = fopen("/proc/self/status", "r")))
		return yes;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long caps = 0;
		const char *p = line + 7;
		if (strncmp(line, "CapEff:", 7))
			continue;
		while (*p == '\t' || *p == ' ')
			p++;
		for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
			caps = caps * 16 + (unsigned)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
		yes = (caps >> 38 & 1) || (caps >> 21 & 1);
	}
	fclose(f);
	return yes;
}

void rn_host_read(rn_host *h)
{
	h->paranoid = (int)fg_read_number_file("/proc/sys/kernel/perf_event_paranoid", -9);
	h->privileged = privileged();
	h->max_rate = (int)fg_read_number_file("/proc/sys/kernel/perf_event_max_sample_rate", 0);
	h->mlock_kb = (uint64_t)fg_read_number_file("/proc/sys/kernel/perf_event_mlock_kb", 0);
}

int rn_msg_open_failed(const rn_host *h, int errnum, const char *what, pid_t pid, unsigned freq)
{
	switch (errnum) {
	case ESRCH:
		return fg_error_set(FG_ENOTFOUND, "process %d is gone: there is nothing to record",
				    (int)pid);
	case ENOSYS:
		return fg_error_set(FG_ERECORD, "this system has no perf_event_open (the kernel was "
				    "built without perf events, or a container's seccomp filter "
				    "hides it) — in a container, run it with '--cap-add PERFMON' "
				    "and a seccomp profile that allows perf_event_open "
				    "('--security-opt seccomp=PROFILE'), or record with "
				    "`opts.record.recorder=perf`");
	case EACCES:
	case EPERM:
		if (h->paranoid != -9 && h->paranoid > 1 && !h->privileged)
			return fg_error_set(FG_ERECORD, "the native recorder is not allowed to profile "
					    "here — kernel.perf_event_paranoid is %d, which forbids it "
					    "for this user; allow it with 'sudo sysctl "
					    "kernel.perf_event_paranoid=1', or record as root",
					    h->paranoid);
		if (h->paranoid != -9 && h->paranoid >= 3)
			return fg_error_set(FG_ERECORD, "the native recorder is not allowed to profile "
					    "here — kernel.perf_event_paranoid is %d, which this kernel "
					    "takes to forbid perf events to everyone but root with "
					    "CAP_PERFMON; allow it with 'sudo sysctl "
					    "kernel.perf_event_paranoid=1'", h->paranoid);
		return fg_error_set(FG_ERECORD, "the native recorder may not open perf events here "
				    "(%s): a container or its seccomp filter forbids perf_event_open "
				    "— in a container, run it with '--cap-add PERFMON' and a seccomp "
				    "profile that allows perf_event_open ('--security-opt "
				    "seccomp=PROFILE'), or record with `opts.record.recorder=perf`",
				    strerror(errnum));
	case EINVAL:
		if (h->max_rate > 0 && freq > (unsigned)h->max_rate)
			return fg_error_set(FG_ERECORD, "the kernel samples at most %d times a second "
					    "(kernel.perf_event_max_sample_rate), below `opts.record.freq` "
					    "%u — sample less often, or raise the limit with 'sudo sysctl "
					    "kernel.perf_event_max_sample_rate=%u'", h->max_rate, freq,
					    freq);
		break;
	case EMFILE:
		return fg_error_set(FG_ERECORD, "too many open files for one perf event per CPU and "
				    "thread — raise the limit ('ulimit -n'), or record fewer "
				    "processes");
	default:
		break;
	}
	return fg_error_set(FG_ERECORD, "the kernel refused the %s event (perf_event_open: %s) — "
			    "record with `opts.record.recorder=perf`", what, strerror(errnum));
}

int rn_msg_mmap_failed(const rn_host *h, int errnum, uint64_t bytes)
{
	if (errnum == EPERM || errnum == ENOMEM)
		return fg_error_set(FG_ERECORD, "the native recorder could not lock its ring buffer of "
				    "%llu KB per CPU (kernel.perf_event_mlock_kb is %llu) — ask for a "
				    "smaller buffer (`opts.record.buffer_bytes`), or raise "
				    "kernel.perf_event_mlock_kb ('sudo sysctl "
				    "kernel.perf_event_mlock_kb=N')",
				    (unsigned long long)(bytes / 1024), (unsigned long long)h->mlock_kb);
	return fg_error_set(FG_ERECORD, "cannot map a perf event's ring buffer of %llu KB: %s",
			    (unsigned long long)(bytes / 1024), strerror(errnum));
}

void rn_msg_kernel_excluded(const rn_host *h, fg_strbuf *out)
{
	fg_strbuf_addf(out, "kernel frames are not recorded: kernel.perf_event_paranoid is %d, "
		       "which allows this user's own code only — allow them with 'sudo sysctl "
		       "kernel.perf_event_paranoid=1', or record as root", h->paranoid);
}

void rn_msg_kptr_hidden(int kptr_restrict, fg_strbuf *out)
{
	if (kptr_restrict > 0)
		fg_strbuf_addf(out, "kernel frames are not named: kernel.kptr_restrict is %d, which "
			       "hides the kernel's addresses from this user — show them with 'sudo "
			       "sysctl kernel.kptr_restrict=0', or record as root", kptr_restrict);
	else
		fg_strbuf_addstr(out, "kernel frames are not named: /proc/kallsyms gives no address "
				 "of _text here");
}

int rn_msg_arch(const char *arch)
{
	return fg_error_set(FG_EINVAL, "the native recorder records x86_64 only, not %s — record "
			    "with `opts.record.recorder=perf`", arch);
}
