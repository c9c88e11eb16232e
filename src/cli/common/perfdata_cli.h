/* Collapse input that is a perf.data recording: read natively
 * (flamegraph/perfdata.h) or, when asked or when the recording holds
 * what the reader does not support, through `perf script`. */
#ifndef FG_CLI_COMMON_PERFDATA_CLI_H
#define FG_CLI_COMMON_PERFDATA_CLI_H

#include <stdbool.h>

#include "flamegraph/collapse.h"

/* True when the file at path starts with perf.data's magic. */
bool fg_cli_is_perfdata(const char *path);

/* perf's build-id cache, where perf record keeps copies of the files it
 * saw: $HOME/.debug (NULL without HOME). */
const char *fg_cli_buildid_dir(void);

/* Where uncompressed copies of compressed debug files are kept:
 * $XDG_CACHE_HOME/flamegraph-build/debug, else
 * $HOME/.cache/flamegraph-build/debug (NULL: neither is set). */
const char *fg_cli_debug_cache_dir(void);

/* Feeds the samples of the perf.data at path into c: natively unless
 * force_script (or unsupported input: then a one-line note, unless
 * quiet), else from `perf script -i path` ($PERF overrides perf).
 * co->inline_frames: as perf script without --no-inline; co->lines: with
 * the source lines (perf script -F +srcline). Returns 0 or an
 * FG_E* code (detail in fg_error_last). */
int fg_cli_collapse_perfdata(fg_collapser *c, const char *path, const fg_collapse_opts *co,
			     bool force_script, bool quiet);

/* Standard input, for the perf collapsers: a perf.data recording in it is
 * read as fg_cli_collapse_perfdata would (a pipe-form stream, perf record
 * -o - | ..., natively and block by block; a redirected file as that
 * file), anything else is fed to c as text. A stream the native reader
 * cannot read, or --perf-script on a stream, is an error: perf script
 * cannot be handed the bytes already read. */
int fg_cli_collapse_stdin(fg_collapser *c, const fg_collapse_opts *co, bool force_script, bool quiet);

#endif
