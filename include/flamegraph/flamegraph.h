/* libflamegraph: the whole pipeline behind the flamegraph programs.
 *
 *   manifest -> build -> check -> record -> collapse -> render   (+ git)
 *
 * Each stage has its own header; this umbrella includes them all. Every
 * function returns 0 or a negative FG_E* code, with the detail in
 * fg_error_last() (error.h).
 *
 * Options come in versioned structs (FG_*_OPTS_VERSION, set up with
 * fg_*_opts_init or FG_*_OPTS_INIT). A new version adds its fields at the
 * end of its struct, and raises the version of every struct that embeds
 * it; the library takes every version from 1 to its own, reading only the
 * fields of the caller's version, and refuses 0 and later versions
 * (FG_EINVAL). */
#ifndef FLAMEGRAPH_FLAMEGRAPH_H
#define FLAMEGRAPH_FLAMEGRAPH_H

/* (each header below declares its functions inside extern "C" for C++) */

#include "flamegraph/error.h"
#include "flamegraph/manifest.h"  /* project discovery and the target model */
#include "flamegraph/builder.h"     /* building a target with debug info */
#include "flamegraph/elfcheck.h"  /* link layout, debug info, frame pointers */
#include "flamegraph/record.h"    /* perf / dtrace command lines */
#include "flamegraph/recorder.h"  /* the native recorder: perf events, no perf */
#include "flamegraph/collapse.h"  /* profiler text -> folded stacks */
#include "flamegraph/perfdata.h"  /* perf.data read natively */
#include "flamegraph/folded.h"    /* folded stacks: the stages' currency */
#include "flamegraph/render.h"    /* folded stacks -> SVG */
#include "flamegraph/pprof.h"     /* folded stacks -> pprof profile.proto */
#include "flamegraph/diff.h"      /* two folded profiles -> differential */
#include "flamegraph/regress.h"   /* two profiles -> regression gate */
#include "flamegraph/compare.h"   /* --compare: differential graph of two runs */
#include "flamegraph/profile.h"   /* record -> collapse -> render in one call */
#include "flamegraph/git.h"       /* provenance and REV checkouts */
#include "flamegraph/pipeline.h"  /* a project's target profiled; --compare */

#endif
