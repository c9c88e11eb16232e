/* Telling the input formats apart by their first lines: the reports of
 * sample, VTune, Visual Studio, GHC and xctrace by their headers, then
 * `perf script` output from DTrace stacks by the shape of their lines. */
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

static bool view_starts(fg_view v, const char *s)
{
	size_t n = strlen(s);
	return v.len >= n && !memcmp(v.ptr, s, n);
}

/* The report formats, by their header lines. */
static fg_format looks_report(const char *buf, size_t len)
{
	struct lines it = { buf, buf + len };
	fg_view line;
	size_t n = 0;

	if (len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3))
		it.p += 3; /* a byte order mark, as Windows tools write */
	while (next_line(&it, &line) && n++ < 64) {
		if (n == 1 && view_starts(line, "Function Stack,"))
			return FG_FORMAT_VTUNE;
		if (n == 1 && view_starts(line, "Level,Function Name,"))
			return FG_FORMAT_VSPROF;
		if (n == 1 && view_starts(line, "<?xml") &&
		    memmem(buf, len < 4096 ? len : 4096, "<trace-query-result", 19))
			return FG_FORMAT_XCTRACE;
		if (view_starts(line, "Time and Allocation Profiling Report") ||
		    (view_starts(line, "COST CENTRE") && memmem(line.ptr, line.len, "MODULE", 6)))
			return FG_FORMAT_GHCPROF;
		if (view_starts(line, "Call graph:")) {
			const char *p = it.p;
			return it.end - p > 4 && !memcmp(p, "    ", 4) && p[4] >= '0' && p[4] <= '9'
				       ? FG_FORMAT_SAMPLE : FG_FORMAT_UNKNOWN;
		}
	}
	return FG_FORMAT_UNKNOWN;
}

bool fg_guess_is_folded(const char *buf, size_t len)
{
	struct lines it = { buf, buf + len };
	fg_view line;
	const char *sp;
	size_t n = 0;

	while (next_line(&it, &line) && n < 8) {
		if (!line.len)
			continue;
		sp = memrchr(line.ptr, ' ', line.len);
		if (!sp || !is_count(fg_view_of(sp + 1, (size_t)(line.ptr + line.len - sp - 1))))
			return false;
		n++;
	}
	return n > 0;
}

fg_format fg_guess_format(const char *buf, size_t len)
{
	enum verdict v;
	fg_format f;

	/* profiler text holds no NUL bytes: binary data is neither format */
	if (memchr(buf, '\0', len < 4096 ? len : 4096))
		return FG_FORMAT_UNKNOWN;
	if ((f = looks_report(buf, len)) != FG_FORMAT_UNKNOWN)
		return f;
	v = looks_perf(buf, len);

	if (v == YES)
		return FG_FORMAT_PERF;
	if (v == MORE)
		return FG_FORMAT_UNKNOWN;
	return looks_dtrace(buf, len) == YES ? FG_FORMAT_DTRACE : FG_FORMAT_UNKNOWN;
}
