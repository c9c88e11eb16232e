/* What the build systems share to build (src/lib/project): running a
 * build tool, asking the compiler, the compile engine over the project's
 * units, and the link-layout fix. Each kind's own steps are in its
 * folder's header. */
#ifndef FG_LIB_PROJECT_BUILD_H
#define FG_LIB_PROJECT_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "flamegraph/builder.h"
#include "lib/project/project.h"

/* Runs cmd and reports whether it exited 0; FG_ENOTFOUND when the
 * program does not exist. `quiet`: its stdout is discarded. Notes the
 * command line with opts.verbose. */
int fg_build_tool_run(const fg_project *p, fg_cmd *cmd, bool quiet, fg_exit_status *st);

/* Whether compiler `cc` (words: "ccache gcc") accepts `flag`, asked by
 * compiling a one-line file in p->build_dir with -Werror. */
bool fg_cc_accepts(const fg_project *p, const fg_strvec *cc, const char *flag);
/* Whether the user asked for lld or mold (rosegment.c). */
bool fg_wants_lld(const fg_project *p);

/* The compile engine (units.c), generic over struct fg_unit.
 *
 * fg_units_compile compiles the units listed (indexes into p->units), up
 * to opts.jobs at a time (0: one per CPU). Each runs its argv as is, in
 * u->dir, with "-MMD -MF <object>.d" appended; a unit is recompiled only
 * when its object is missing, its command changed since the last good
 * compile (<object>.cmd), or a file in its dependency list is newer than
 * the object. Notes "compiling SRC" per compile. *changed: whether
 * anything was compiled. FG_EBUILD when a compile failed (the compiler's
 * output went to stderr; running compiles are waited for, none started
 * after), FG_ENOTFOUND when the compiler does not exist.
 *
 * fg_units_link links the units' objects into t->exe: driver p->cc (else
 * the first unit's argv[0], else opts.cc, else "cc"), then p->ldflags,
 * opts.ldflags, -Wl,--no-rosegment when needed, -o EXE, the objects,
 * p->libs. It relinks only when `changed`, the exe is missing or older
 * than an object, or the link command changed (<exe>.link); then the
 * link-layout fix below. Sets res->rebuilt, res->linker,
 * res->no_rosegment. */
/* The builds of a flamegraph.toml project (units_cc.c, called by toml/system.c): system = "cc"
 * compiles p->units and links, system = "command" runs the command. */
int fg_cc_build(fg_project *p, const struct fg_target *t, fg_build_result *res);
int fg_command_build(fg_project *p, const struct fg_target *t, fg_build_result *res);

int fg_units_compile(fg_project *p, const size_t *units, size_t n, bool *changed);
int fg_units_link(fg_project *p, const struct fg_target *t, const size_t *units, size_t n,
		  bool changed, fg_build_result *res);

/* The link-layout fix (-Wl,--no-rosegment), for every build system the builder links
 * or drives (rosegment.c). lld and mold put code at a file offset perf
 * may mis-map; once one of them is seen linking a project, a marker file
 * in the build folder makes every later link of it pass
 * -Wl,--no-rosegment, so the link command (and with it the up-to-date
 * check) stays the same from run to run.
 *
 * The marker holds the options that decide the linker (compiler, flags,
 * -D entries): it holds only for a run with the same ones, so a run
 * without the -fuse-ld=lld of an earlier one links without the flag that
 * GNU ld rejects. fg_rosegment_load sets p->no_rosegment when the marker
 * is there and was written for this run's options (a stale one is
 * removed); fg_rosegment_mark writes it for them.
 * fg_rosegment_after_link reads the linker of `exe` into res->linker;
 * when it is lld or mold and the flag was not used, it writes the marker,
 * sets p->no_rosegment, notes "<name> is linked by <linker>: adding
 * -Wl,--no-rosegment<where> ..." and sets *relink: the caller links again.
 * res->no_rosegment tells whether the final link has the flag. */
void fg_rosegment_load(fg_project *p);
void fg_rosegment_mark(const fg_project *p);
void fg_rosegment_after_link(fg_project *p, const char *exe, const char *name, const char *where,
			     fg_build_result *res, bool *relink);

#endif
