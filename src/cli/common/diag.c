#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "cli/common/diag.h"

static const char *prog_name = "flamegraph";

void fg_diag_init(const char *prog)
{
	prog_name = prog;
}

const char *fg_diag_prog(void)
{
	return prog_name;
}

static int use_colour(void)
{
	static int cached = -1;

	if (cached < 0) {
		const char *nc = getenv("NO_COLOR");
		cached = isatty(STDERR_FILENO) && !(nc && *nc);
	}
	return cached;
}

static void vmessage(const char *kind, const char *colour, const char *fmt, va_list ap)
{
	if (use_colour())
		fprintf(stderr, "%s: \033[%sm%s:\033[0m ", prog_name, colour, kind);
	else
		fprintf(stderr, "%s: %s: ", prog_name, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void fg_errorf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("error", "1;31", fmt, ap);
	va_end(ap);
}

void fg_warnf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("warning", "1;33", fmt, ap);
	va_end(ap);
}

void fg_notef(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("note", "1;36", fmt, ap);
	va_end(ap);
}

int fg_exit_code_for(int err)
{
	switch (err) {
	case FG_OK:
		return FG_EXIT_OK;
	case FG_EBUILD:
		return FG_EXIT_BUILD;
	case FG_ERECORD:
		return FG_EXIT_RECORD;
	case FG_ENODATA:
		return FG_EXIT_NODATA;
	case FG_EINTR:
		return FG_EXIT_SIGNAL_BASE + 2; /* SIGINT; the caller knows better */
	default:
		return FG_EXIT_USAGE;
	}
}

int fg_die_lib(int err)
{
	/* an allocation that failed on the way is the cause, whatever the
	 * error it led to says (a name left out, a path cut short) */
	if (err != FG_EINTR && (err == FG_ENOMEM || fg_error_nomem_count())) {
		fg_errorf("out of memory — free some memory (or raise the limit: ulimit -v) "
			  "or give a smaller input");
		return fg_exit_code_for(FG_ENOMEM);
	}
	fg_errorf("%s", *fg_error_last() ? fg_error_last() : "unknown error");
	return fg_exit_code_for(err);
}

int fg_cli_check_memory(void)
{
	if (fg_error_nomem_count())
		return fg_error_set(FG_ENOMEM, "out of memory");
	return 0;
}
