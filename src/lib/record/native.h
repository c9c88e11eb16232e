/* fg_record_run with the native recorder (flamegraph/recorder.h): the
 * same options and outcome, no perf run. */
#ifndef FG_LIB_RECORD_NATIVE_H
#define FG_LIB_RECORD_NATIVE_H

#include "flamegraph/record.h"
#include "util/strbuf.h"

/* Records into opts->rec.output (or opts->recorder_stdout when it is
 * "-"), the pipe form of perf.data. */
int fg_record_run_native(const fg_record_run_opts *opts, fg_record_outcome *out);

/* The note that a program (as named) was built without frame pointers,
 * so the recorder copies whole stacks. */
void fg_record_native_stack_note(fg_strbuf *out, const char *program);

#endif
