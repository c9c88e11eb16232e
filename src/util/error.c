#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "flamegraph/error.h"
#include "util/error.h"

static _Thread_local char last_message[1024];
static _Thread_local int last_code;
static _Thread_local int last_reason;

const char *fg_error_last(void)
{
	return last_message;
}

int fg_error_last_code(void)
{
	return last_code;
}

int fg_error_last_reason(void)
{
	return last_reason;
}

static int set(int code, int reason, const char *fmt, va_list ap)
{
	/* Callers may pass fg_error_last() itself as an argument, to add
	 * context to the message a callee set; formatting straight into
	 * last_message would then read the buffer while writing it. */
	char tmp[sizeof(last_message)];

	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	memcpy(last_message, tmp, sizeof(tmp));
	last_code = code;
	last_reason = reason;
	return code;
}

int fg_error_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = set(code, FG_REASON_NONE, fmt, ap);
	va_end(ap);
	return code;
}

int fg_error_set_reason(int code, int reason, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = set(code, reason, fmt, ap);
	va_end(ap);
	return code;
}

void fg_error_clear(void)
{
	last_message[0] = '\0';
	last_code = 0;
	last_reason = FG_REASON_NONE;
}
