/* Error reporting for every libflamegraph call.
 *
 * Functions return 0 on success or a negative FG_E* code. The one-line
 * detail of the last failure in the calling thread (with file:line:col for
 * parse errors) comes from fg_error_last(); it is never printed by the
 * library. */
#ifndef FLAMEGRAPH_ERROR_H
#define FLAMEGRAPH_ERROR_H

#include "flamegraph/api.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

enum fg_error_code {
	FG_OK = 0,
	FG_ENOMEM = -1,   /* out of memory, or a size that would overflow */
	FG_EIO = -2,      /* reading or writing a file or pipe failed */
	FG_EINVAL = -3,   /* bad argument or option value */
	FG_EPARSE = -4,   /* malformed input (detail has file:line:col) */
	FG_ENOTFOUND = -5,/* a file, target, program or symbol was not found */
	FG_EBUILD = -6,   /* a build step failed */
	FG_ERECORD = -7,  /* recording (perf/dtrace) failed */
	FG_ENODATA = -8,  /* no samples / nothing to show */
	FG_EAMBIGUOUS = -9, /* several candidates where one was needed */
	FG_ECHILD = -10,  /* a child process could not be run */
	FG_ELIMIT = -11,  /* input exceeds a safety limit */
	FG_EINTR = -12,   /* stopped by a signal (flamegraph/signals.h) */
};

/* Why the last error happened, where the fix depends on the system more
 * than the library can know (its package manager, its package names):
 * a program can then say the command that fixes it. The message of
 * fg_error_last() says the same in general terms. */
enum fg_error_reason {
	FG_REASON_NONE = 0,
	FG_REASON_PERF_MISSING = 1,   /* perf is not on PATH */
	FG_REASON_PERF_NO_KERNEL = 2, /* perf is there but cannot run: it is
					 a distribution's wrapper that found
					 no perf for the running kernel
					 (Ubuntu's linux-tools-common without
					 linux-tools-KERNEL) */
	FG_REASON_PERF_TOO_OLD = 3,   /* perf does not know an option the
					 recording needs (perf before 5.10) */
};

/* The reason of the last error set in this thread (FG_REASON_NONE if
 * none is known, or no error). */
int fg_error_last_reason(void);

/* The detail of the last error set in this thread ("" if none). The string
 * is owned by the library and valid until the next failing call. */
const char *fg_error_last(void);

/* The code of the last error set in this thread (FG_OK if none). */
int fg_error_last_code(void);

/* Sets the thread's last error; returns `code` so callers can
 * `return fg_error_set(FG_EINVAL, "...")`. printf-style. */
int fg_error_set(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Forgets the thread's last error. */
void fg_error_clear(void);

/* How many allocations have failed in the library so far, in any thread.
 * Every failure is also returned as FG_ENOMEM by the call that met it;
 * this count is the safety net for a caller that must not hand on a
 * result after a failure a lower layer could not report (a callback of a
 * third-party library has no error channel): compare it before and after
 * the work, and treat a change as FG_ENOMEM. */
unsigned long fg_error_nomem_count(void);

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
