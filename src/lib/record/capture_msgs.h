/* What perf record says on stderr, sorted: its routine banners ("Woken up
 * N times", "Captured and wrote ...", "Events enabled", the lost-chunks
 * warning that our own count replaces) are dropped, the size-cap notice
 * is noted, and every other line is kept, once, to be shown as a warning
 * or to explain a failure in our words where the fix is known. */
#ifndef FG_LIB_RECORD_CAPTURE_MSGS_H
#define FG_LIB_RECORD_CAPTURE_MSGS_H

#include <stdbool.h>

#include "flamegraph/record.h"
#include "util/process.h"
#include "util/strbuf.h"
#include "util/strvec.h"

typedef struct fg_capture_msgs {
	fg_strbuf partial;  /* a line not yet ended */
	fg_strbuf text;     /* the lines kept, newline-separated */
	fg_strvec pending;  /* kept lines not yet handed to warn */
	bool capped;        /* perf said its size limit was reached */
	bool wrote;         /* perf said it finished its file ("Captured and
			       wrote ...") */
	void (*warn)(void *ctx, const char *line);
	void *ctx;
} fg_capture_msgs;

void fg_capture_msgs_init(fg_capture_msgs *m, void (*warn)(void *ctx, const char *line), void *ctx);
/* Feeds perf's stderr; buf NULL ends it (a last line without newline). */
void fg_capture_msgs_feed(fg_capture_msgs *m, const char *buf, size_t len);
/* Feeds what can be read from *fd now (all of it when *fd blocks); at
 * end of file closes it, sets it to -1 and ends the feed. */
void fg_capture_msgs_read(fg_capture_msgs *m, int *fd);
/* Hands the kept lines to warn (each once). */
void fg_capture_msgs_flush(fg_capture_msgs *m);
/* Sets the error for a recorder that failed (it ended with st, or before
 * attaching) from what it said, and returns FG_ERECORD. */
int fg_capture_msgs_failure(const fg_capture_msgs *m, const fg_record_opts *rec,
			    const fg_exit_status *st);
/* When what the recorder said is that of a distribution's perf wrapper
 * that found no perf for the running kernel (Ubuntu's linux-tools-common
 * alone), sets that error (reason FG_REASON_PERF_NO_KERNEL; tool is the
 * perf that ran) and returns FG_ERECORD; else 0. */
int fg_capture_msgs_no_kernel(const fg_capture_msgs *m, const char *tool);
void fg_capture_msgs_release(fg_capture_msgs *m);

#endif
