/* pprof export: folded stacks as a gzip-compressed profile.proto, the
 * format of `go tool pprof` and of continuous-profiling servers.
 *
 * Each distinct frame name becomes one function and one location (a
 * folded stack carries names only: no addresses, files or lines), each
 * distinct stack one sample whose location ids run leaf first, as pprof
 * wants them. */
#ifndef FLAMEGRAPH_PPROF_H
#define FLAMEGRAPH_PPROF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "flamegraph/api.h"
#include "flamegraph/folded.h"

#ifdef __cplusplus
extern "C" {
#endif

FG_API_BEGIN

/* The layout of fg_pprof_opts this header describes: fg_pprof_opts_init
 * and the functions handed one take it and every older version, and refuse
 * 0 and later ones (FG_EINVAL). */
#define FG_PPROF_OPTS_VERSION 1

typedef struct fg_pprof_opts {
	unsigned version;       /* FG_PPROF_OPTS_VERSION */
	/* what a sample's value measures: ("samples", "count") for plain
	 * counts; ("cpu", "nanoseconds") for perf's cpu-clock periods */
	const char *sample_type;
	const char *sample_unit;
	int64_t period;         /* the sampling period in sample_unit, 0: unknown */
	int64_t time_nanos;     /* when the recording started (Unix ns), 0: unknown */
	int64_t duration_nanos; /* how long it ran, 0: unknown */
	const char *comment;    /* one comment line (e.g. the command), or NULL */
	/* A second value per sample (as Go's heap profiles have objects and
	 * bytes): each stack's count in `companion` (0 where it has none),
	 * of type companion_type / companion_unit, written before the
	 * stacks' own value when companion_first, else after. NULL: one
	 * value. The period type stays sample_type. */
	const fg_folded *companion;
	const char *companion_type;
	const char *companion_unit;
	bool companion_first;
	const char *default_type; /* the profile's default sample type (one
				     of the two types), or NULL */
} fg_pprof_opts;

#define FG_PPROF_OPTS_INIT                                                  \
	{                                                                   \
		.version = FG_PPROF_OPTS_VERSION,                           \
		.sample_type = "samples", .sample_unit = "count", .period = 0, \
		.time_nanos = 0, .duration_nanos = 0, .comment = NULL,      \
		.companion = NULL, .companion_type = NULL,                  \
		.companion_unit = NULL, .companion_first = false,           \
		.default_type = NULL                                        \
	}

/* Sets *opts to the defaults (FG_PPROF_OPTS_INIT); version:
 * FG_PPROF_OPTS_VERSION, as the caller was compiled (FG_EINVAL for one this
 * library does not know). */
int fg_pprof_opts_init(fg_pprof_opts *opts, unsigned version);

/* Writes the stacks of f to out as a gzip-compressed profile.proto.
 * Differential input is written with its "after" counts; fractions of a
 * sample are dropped; counts above INT64_MAX (pprof's values are signed)
 * are written as INT64_MAX. Returns 0, FG_EINVAL (no sample type or
 * unit), FG_ENOMEM, or FG_EIO when out fails (with the reason). */
int fg_pprof_write(const fg_folded *f, const fg_pprof_opts *opts, FILE *out);

FG_API_END

#ifdef __cplusplus
}
#endif

#endif
