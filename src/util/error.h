/* Setting an error with its reason (flamegraph/error.h). */
#ifndef FG_UTIL_ERROR_H
#define FG_UTIL_ERROR_H

#include "flamegraph/error.h"

/* fg_error_set, with the reason fg_error_last_reason() then returns
 * (enum fg_error_reason); fg_error_set itself sets FG_REASON_NONE. */
int fg_error_set_reason(int code, int reason, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
