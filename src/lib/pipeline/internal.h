/* What the pipeline's files share: the caller's options brought to this
 * library's version, and what the weights of a run's graph are. */
#ifndef FG_LIB_PIPELINE_INTERNAL_H
#define FG_LIB_PIPELINE_INTERNAL_H

#include <stdbool.h>

#include "flamegraph/pipeline.h"

/* *out, of this version, from the caller's options of any version this
 * library knows; nothing is read past the caller's version, and the
 * structs it embeds are checked against it. FG_EINVAL. */
int fg_build_and_profile_opts_current(fg_build_and_profile_opts *out,
				      const fg_build_and_profile_opts *in);

/* Whether the folded weights of a run with po are nanoseconds of CPU
 * time: perf's cpu-clock, which a custom command or an off-CPU mode
 * replaces. */
bool fg_pipeline_weights_are_ns(const fg_profile_opts *po);

#endif
