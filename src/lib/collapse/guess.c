/* Telling `perf script` output from DTrace stacks by their first lines. */
#include <string.h>

#include "lib/collapse/internal.h"
#include "util/banned.h"

enum verdict { NO, YES, MORE };

struct lines {
	const char *p, *end;
};

static bool next_line(struct lines *it, fg_view *line)
{
	const char *nl;

	if (it->p >= it->end)
		return false;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	*line = fg_view_trim(fg_view_of(it->p, (size_t)((nl ? nl : it->end) - it->p)));
	it->p = nl ? nl + 1 : it->end;
	return true;
}

static bool is_count(fg_view t)
{
	size_t i;

	for (i = 0; i < t.len; i++)
		if (t.ptr[i] < '0' || t.ptr[i] > '9')
			return false;
	return t.len > 0;
}

/* perf: the first line that is not a comment is an event header, followed
 * by a stack line or an empty line. */
static enum verdict looks_perf(const char *buf, size_t len)
{
	struct lines it = { buf, buf + len };
	fg_view line;

	do
		if (!next_line(&it, &line))
			return MORE;
	while (!line.len || line.ptr[0] == '#');
	if (!fg_perf_header_ok(line))
		return NO;
	if (!next_line(&it, &line))
		return MORE;
	return !line.len || fg_perf_stack_ok(line) ? YES : NO;
}

/* Frames in a row, all "module`function", that are enough to call the
 * input DTrace before its first count: a very deep first stack may not
 * reach its count within the bytes the collapser looks at. */
#define DTRACE_SURE_FRAMES 1000

/* DTrace: after the header (up to the first empty line), frames and then
 * a line holding only a count. */
static enum verdict looks_dtrace(const char *buf, size_t len)
{
	struct lines it = { buf, buf + len };
	bool header = true, frames = false, header_lines = false;
	size_t backtick_run = 0;
	fg_view line;

	while (next_line(&it, &line)) {
		if (!line.len) {
			header = false;
			continue;
		}
		if (is_count(line)) {
			/* a count before any empty line: there was no header */
			if (frames || (header && header_lines))
				return YES;
			header = false;
			continue;
		}
		if (header) {
			header_lines = true;
		} else {
			frames = true;
			backtick_run = memchr(line.ptr, '`', line.len) ? backtick_run + 1 : 0;
			if (backtick_run >= DTRACE_SURE_FRAMES)
				return YES;
		}
	}
	return MORE;
}

fg_format fg_guess_format(const char *buf, size_t len)
{
	enum verdict v;

	/* profiler text holds no NUL bytes: binary data is neither format */
	if (memchr(buf, '\0', len < 4096 ? len : 4096))
		return FG_FORMAT_UNKNOWN;
	v = looks_perf(buf, len);

	if (v == YES)
		return FG_FORMAT_PERF;
	if (v == MORE)
		return FG_FORMAT_UNKNOWN;
	return looks_dtrace(buf, len) == YES ? FG_FORMAT_DTRACE : FG_FORMAT_UNKNOWN;
}
