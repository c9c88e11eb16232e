/* Plain Make projects (src/lib/project/make): the dry-run reader
 * (dryrun.c) and the build (build.c); the autotools reader uses the
 * dry-run reader for a Makefile.in written by hand.
 *
 * The build is learnt from a dry run (`make -nB -w`, which build.c
 * runs: nothing is built in the user's tree): its compile commands
 * become units compiled into the flamegraph build folder with the
 * project's flags and ours appended; its archive commands (ar) become
 * archives of our objects; its link commands become targets, linked as
 * the project links them (its objects, archives, -l, -L, link flags). */
#ifndef FG_LIB_PROJECT_MAKE_MAKE_H
#define FG_LIB_PROJECT_MAKE_MAKE_H

#include <stdbool.h>
#include <stddef.h>

#include "flamegraph/builder.h"
#include "lib/project/project.h"
#include "util/hashmap.h"

/* A static archive the project builds (`ar rcs libx.a a.o b.o`, or a
 * libtool library), remade from our objects. */
typedef struct fg_make_archive {
	char *orig;       /* the project's path (absolute) */
	char *path;       /* ours, in the build folder */
	size_t *units;    /* its members: indexes into p->units */
	size_t nunits;
} fg_make_archive;

/* How one program is linked (per index into p->targets). */
typedef struct fg_make_link {
	char *driver;     /* the compiler that links */
	size_t *units;    /* its objects: indexes into p->units */
	size_t nunits;
	size_t *archives; /* in-tree archives it links: indexes into archives */
	size_t narchives;
	fg_strvec libs;   /* -l, -L, -Wl,..., other inputs, as written (paths absolute) */
} fg_make_link;

/* A header a command of the dry run writes with its output
 * (`scripts/detect.sh > programs/config.h`): the command is run again
 * with its output into our build folder, whose folder of it every unit
 * gets last as -I (so that the project's own copy, when built, comes
 * first). */
typedef struct fg_make_header {
	char *orig;       /* the project's path (absolute) */
	char *path;       /* ours: <build>/gen/<its path below the root> */
	char *dir;        /* where the command runs */
	fg_strvec argv;   /* the command, its redirection left out */
	fg_strvec env;    /* its leading NAME=VALUE words */
} fg_make_header;

typedef struct fg_make_state {
	fg_make_archive *archives;
	size_t narchives;
	fg_make_link *links;
	size_t nlinks;
	fg_make_header *headers;
	size_t nheaders;
	size_t ncommands; /* compiler and ar commands understood */
	fg_strmap objects; /* the project's object path -> 1 + unit index */
	fg_strmap seen;    /* numbering of one source compiled twice */
} fg_make_state;

/* Reads the output of `make -nB -w` run in `dir` (absolute): compile,
 * archive and link commands ("cd DIR && cc ...", continuations,
 * `make[1]: Entering directory` lines; libtool's compile and link
 * commands, its own flags made into the compiler driver's, and its other
 * modes -- install, execute, clean, finish -- passed over) into p->units,
 * the archives, the headers commands write (fg_make_header) and one
 * target per program a link command writes (kind guessed from its
 * name). Runs nothing. FG_EPARSE when the text holds no
 * compile or link command (the message says what to do instead),
 * FG_ENOMEM. */
int fg_make_read_dryrun(fg_project *p, const char *dir, const char *text, size_t len);

/* The goals other than the default whose programs are tests or
 * benchmarks, among those the database `make -pq` prints (`db`, its
 * "# Files" part) lists as targets, appended to `tests` ("check", "test",
 * "tests", "test_programs", "test-programs", "check_programs") and
 * `benches` ("bench", "benches", "benchmark", "benchmarks",
 * "bench_programs") in that order. A name the database lists only as a
 * prerequisite ("# Not a target:") is no goal. FG_ENOMEM. */
int fg_make_extra_goals(const char *db, size_t len, fg_strvec *tests, fg_strvec *benches);

/* Reads the output of `make -nB -w GOAL...` run in `dir` after the
 * default goal's dry run was read (fg_make_read_dryrun), for goals that
 * build tests or benchmarks: each program its link commands write that
 * the default goal does not build becomes a target of `kind` (for
 * FG_TARGET_TEST, a bench when its name says benchmark), with the units
 * and archives it needs; the programs of the default goal keep theirs.
 * A dry run that links nothing new adds nothing (no error). FG_ENOMEM. */
int fg_make_read_goal_dryrun(fg_project *p, const char *dir, fg_target_kind kind,
			     const char *text, size_t len);

/* The files a Makefile's text includes (include, -include, sinclude;
 * variables expanded as makevars.h does, so a function such as
 * $(wildcard) names nothing), appended to out: the dry run names them
 * with -o, as make remakes an included makefile for real even under -n
 * (it would write into the user's tree). FG_ENOMEM. */
int fg_make_included(const char *text, size_t len, fg_strvec *out);

/* One dry-run line split into commands (at &&, ||, ;, |, outside quotes)
 * and words, for tests: `cb` gets each command's words. */
typedef int (*fg_make_command_fn)(void *ctx, fg_strvec *words);
int fg_make_split_line(const char *line, fg_make_command_fn cb, void *ctx);

/* Opening and building (build.c): fg_make_open learns the build from a dry
 * run (make -nB -w) and reads it (FG_EPARSE when it cannot be
 * understood: the message suggests bear); fg_make_build compiles a
 * program's units and archives and links it as its link line does
 * (system.c). */
int fg_make_open(fg_project *p);
int fg_make_build(fg_project *p, const struct fg_target *t, fg_build_result *res);

#endif
