/* What the pipeline's files share: the caller's options brought to this
 * library's version, and what the weights of a run's graph are. */
#ifndef FG_LIB_PIPELINE_INTERNAL_H
#define FG_LIB_PIPELINE_INTERNAL_H

#include <stdbool.h>

#include "flamegraph/pipeline.h"
#include "flamegraph/regress.h"

/* *out, of this version, from the caller's options of any version this
 * library knows; nothing is read past the caller's version, and the
 * structs it embeds are checked against it. FG_EINVAL. */
int fg_build_and_profile_opts_current(fg_build_and_profile_opts *out,
				      const fg_build_and_profile_opts *in);

/* Whether the folded weights of a run with po are nanoseconds of CPU
 * time: perf's cpu-clock, which a custom command, an off-CPU mode or an
 * allocation graph replaces. */
bool fg_pipeline_weights_are_ns(const fg_profile_opts *po);

/* A comparison of target t of p with itself at o->compare.rev (its
 * differential graph written as fg_pipeline_compare writes it), and with
 * o->gate, *judged: the gate's judgment of its runs (fg_regress_free
 * it; NULL without a gate). Errors of fg_pipeline_compare. */
int fg_pipeline_compare_judged(const fg_build_and_profile_opts *o, const fg_manifest_loc *loc,
				const fg_project *p, const fg_target *t, fg_regress **judged);

/* The gate's table of r, in o->report_format with o->report_top rows, to
 * o->report_out (replaced atomically) or o->report_stream (neither: no
 * table). */
int fg_pipeline_gate_report(const fg_build_and_profile_opts *o, const fg_regress *r);

#endif
