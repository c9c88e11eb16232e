/* fg_record_run with the native recorder (flamegraph/recorder.h): the
 * same options and outcome, no perf run. */
#ifndef FG_LIB_RECORD_NATIVE_H
#define FG_LIB_RECORD_NATIVE_H

#include "flamegraph/record.h"

/* Records into opts->rec.output (or opts->recorder_stdout when it is
 * "-"), the pipe form of perf.data. */
int fg_record_run_native(const fg_record_run_opts *opts, fg_record_outcome *out);

#endif
