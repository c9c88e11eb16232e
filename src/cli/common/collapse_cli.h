/* The shared body of flamegraph-collapse-{perf,dtrace,guess}: one option
 * table per format, input files (or stdin) fed into one collapser, one
 * warning per kind of bad line, sorted folded stacks out. */
#ifndef FG_CLI_COMMON_COLLAPSE_CLI_H
#define FG_CLI_COMMON_COLLAPSE_CLI_H

#include "flamegraph/collapse.h"

/* Runs a collapse program for `format` (FG_FORMAT_UNKNOWN: guess) named
 * prog. Returns the process exit code. */
int fg_collapse_cli_run(int argc, char **argv, const char *prog, fg_format format);

#endif
