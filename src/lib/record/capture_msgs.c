#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/record/capture_msgs.h"
#include "util/error.h"
#include "util/strvec.h"
#include "util/banned.h"

void fg_capture_msgs_init(fg_capture_msgs *m, void (*warn)(void *ctx, const char *line), void *ctx)
{
	memset(m, 0, sizeof(*m));
	fg_strbuf_init(&m->partial, 0);
	fg_strbuf_init(&m->text, 0);
	m->warn = warn;
	m->ctx = ctx;
}

void fg_capture_msgs_release(fg_capture_msgs *m)
{
	fg_strbuf_release(&m->partial);
	fg_strbuf_release(&m->text);
	fg_strvec_clear(&m->pending);
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* perf's routine output, which the summary line replaces. */
static bool routine(const char *line)
{
	static const char *const prefixes[] = {
		"[ perf record: Woken up", "[ perf record: Captured and wrote",
		"Events disabled", "Events enabled", "Check IO/CPU overload",
		"Rounding mmap pages size", "Warning:",
	};

	if (!*line)
		return true;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (starts(line, prefixes[i]))
			return strcmp(prefixes[i], "Warning:") || !line[8];
	/* "Processed 1234 events and lost 16 chunks!": counted by us */
	return starts(line, "Processed ") && strstr(line, " lost ");
}

static void keep(fg_capture_msgs *m, const char *line)
{
	const char *p = m->text.buf;
	size_t n = strlen(line);

	/* once each */
	for (; p && (p = strstr(p, line)); p += n)
		if ((p == m->text.buf || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return;
	fg_strbuf_addf(&m->text, "%s\n", line);
	fg_strvec_push(&m->pending, line);
}

static void line_done(fg_capture_msgs *m, char *line)
{
	size_t n = strlen(line);

	while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		line[--n] = '\0';
	while (*line == ' ' || *line == '\t')
		line++;
	if (strstr(line, "perf size limit reached")) {
		m->capped = true;
		return;
	}
	if (starts(line, "[ perf record: Captured and wrote"))
		m->wrote = true;
	if (!routine(line))
		keep(m, line);
}

void fg_capture_msgs_feed(fg_capture_msgs *m, const char *buf, size_t len)
{
	const char *end = buf ? buf + len : NULL, *nl;

	if (!buf) {
		if (m->partial.len)
			line_done(m, m->partial.buf);
		fg_strbuf_reset(&m->partial);
		return;
	}
	while (buf < end && (nl = memchr(buf, '\n', (size_t)(end - buf)))) {
		fg_strbuf_add(&m->partial, buf, (size_t)(nl - buf));
		line_done(m, m->partial.buf);
		fg_strbuf_reset(&m->partial);
		buf = nl + 1;
	}
	/* a runaway line is cut, not grown without end */
	if (buf < end && m->partial.len < 4096)
		fg_strbuf_add(&m->partial, buf, (size_t)(end - buf));
}

void fg_capture_msgs_read(fg_capture_msgs *m, int *fd)
{
	char buf[4096];
	ssize_t n;

	while (*fd >= 0) {
		n = read(*fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			close(*fd);
			*fd = -1;
			fg_capture_msgs_feed(m, NULL, 0);
			return;
		}
		fg_capture_msgs_feed(m, buf, (size_t)n);
	}
}

void fg_capture_msgs_flush(fg_capture_msgs *m)
{
	for (size_t i = 0; i < m->pending.n; i++)
		if (m->warn)
			m->warn(m->ctx, m->pending.v[i]);
	fg_strvec_clear(&m->pending);
}

/* The first line that reads like the reason. */
static void first_reason(const fg_capture_msgs *m, fg_strbuf *out)
{
	const char *t = m->text.buf ? m->text.buf : "", *line = t, *nl;

	for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		if (n && strncmp(line, "Error:", 6) != 0) {
			fg_strbuf_add(out, line, n);
			return;
		}
	}
}

/* The package a distribution's wrapper names for the running kernel's
 * perf: Ubuntu's lists linux-tools-6.8.0-45-generic (then the
 * linux-tools-generic that follows new kernels), Debian's says
 * "E: linux-perf-5.10 is not installed". */
static void kernel_package(const char *t, fg_strbuf *out)
{
	static const char *const prefixes[] = { "linux-tools-", "linux-perf-" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++) {
		size_t n = strlen(prefixes[i]);
		for (const char *p = t; (p = strstr(p, prefixes[i])); p += n) {
			size_t len = n;
			if (p[n] < '0' || p[n] > '9')
				continue;
			while (p[len] && !strchr(" \t\n,;:)\"'", p[len]))
				len++;
			while (p[len - 1] == '.')
				len--;
			fg_strbuf_add(out, p, len);
			return;
		}
	}
}

int fg_capture_msgs_no_kernel(const fg_capture_msgs *m, const char *tool)
{
	const char *t = m->text.buf ? m->text.buf : "", *line;
	fg_strbuf said = FG_STRBUF_INIT, pkg = FG_STRBUF_INIT;
	int err;

	if (!(line = strstr(t, "perf not found for kernel")) &&
	    !((line = strstr(t, "E: linux-perf-")) && strstr(line, " is not installed")))
		return 0;
	while (line > t && line[-1] != '\n')
		line--;
	fg_strbuf_add(&said, line, strcspn(line, "\n"));
	kernel_package(t, &pkg);
	err = fg_error_set_reason(FG_ERECORD, FG_REASON_PERF_NO_KERNEL,
				  "%s cannot run: it is a wrapper that found no perf for the running "
				  "kernel (it says \"%s\"%s%s) — install the perf "
				  "of the running kernel (Ubuntu: linux-tools-common and "
				  "linux-tools-KERNEL, KERNEL being what `uname -r` prints)",
				  tool, said.buf ? said.buf : "", pkg.len ? " and names " : "",
				  pkg.len ? pkg.buf : "");
	fg_strbuf_release(&said);
	fg_strbuf_release(&pkg);
	return err;
}

int fg_capture_msgs_failure(const fg_capture_msgs *m, const fg_record_opts *rec,
			    const fg_exit_status *st)
{
	const char *t = m->text.buf ? m->text.buf : "";
	fg_strbuf why = FG_STRBUF_INIT, how = FG_STRBUF_INIT;
	int err;

	if ((err = fg_capture_msgs_no_kernel(m, rec->tool && *rec->tool ? rec->tool : "perf")))
		return err;
	if (st->signal)
		fg_strbuf_addf(&how, "was killed by signal %d", st->signal);
	else
		fg_strbuf_addf(&how, "exited with status %d", st->code);
	first_reason(m, &why);
	if (strstr(t, "perf_event_paranoid") || strstr(t, "Access to performance monitoring"))
		err = fg_error_set(FG_ERECORD, "perf record is not allowed to profile here — "
				   "kernel.perf_event_paranoid forbids it for this user; allow it with "
				   "'sudo sysctl kernel.perf_event_paranoid=1', or record as root");
	else if (strstr(t, "Permission error mapping pages") || strstr(t, "perf_event_mlock_kb"))
		err = fg_error_set(FG_ERECORD, "perf record could not lock its ring buffer of %llu KB "
				   "per CPU — ask for a smaller buffer, or raise "
				   "kernel.perf_event_mlock_kb ('sudo sysctl kernel.perf_event_mlock_kb=N')",
				   (unsigned long long)(rec->buffer_bytes / 1024));
	else if (rec->call_graph == FG_CALL_GRAPH_LBR && !rec->custom &&
		 (strstr(t, "branch stack") || strstr(t, "branch_stack")))
		err = fg_error_set(FG_ERECORD, "`opts.call_graph=lbr` needs the Last Branch Record of "
				   "recent Intel CPUs, which this machine does not offer (%s) — "
				   "use `opts.call_graph=fp` or dwarf", why.len ? why.buf : "perf refused it");
	else if ((strstr(t, "unknown option") || strstr(t, "unknown switch")) &&
		 (strstr(t, "control") || strstr(t, "max-size") || strstr(t, "`D'")))
		err = fg_error_set_reason(FG_ERECORD, FG_REASON_PERF_TOO_OLD,
					  "this perf is too old (%s) — install perf 5.10 or newer",
				   why.len ? why.buf : "it does not know --control");
	else if (why.len)
		err = fg_error_set(FG_ERECORD, "perf record %s: %s", how.buf, why.buf);
	else
		err = fg_error_set(FG_ERECORD, "perf record %s and wrote no data", how.buf);
	fg_strbuf_release(&why);
	fg_strbuf_release(&how);
	return err;
}
