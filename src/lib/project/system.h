/* A build system, as the rest of the library sees it: one table of
 * operations per kind of project, defined in the kind's own folder
 * (src/lib/project/KIND/system.c) and listed in discovery's order by
 * systems.c. Discovery, opening, building and listing walk the tables;
 * no file outside a kind's folder knows what the kind runs or reads. */
#ifndef FG_LIB_PROJECT_SYSTEM_H
#define FG_LIB_PROJECT_SYSTEM_H

#include <stdbool.h>

#include "flamegraph/builder.h"
#include "flamegraph/elfcheck.h"
#include "flamegraph/manifest.h"

struct fg_target;

struct fg_build_system {
	fg_manifest_type type;
	/* its folder under build/flamegraph/ when another kind's manifest
	 * was found first in the same tree ("cmake") */
	const char *name;
	/* its manifest, as messages name it ("CMakeLists.txt") */
	const char *manifest;
	/* Whether dir holds this kind's manifest: 1 with *out set (the
	 * project's top folder: `climb` lets a reader look above dir for the
	 * top of a project that dir is a part of), 0 when not, else an error.
	 * Tried in the order of fg_build_systems. */
	int (*detect)(fg_manifest_loc *out, const char *dir, bool climb);
	/* The same for a manifest named by its path (--manifest-path): `base`
	 * is its name, dir its folder. */
	int (*detect_file)(fg_manifest_loc *out, const char *dir, const char *base);
	/* Opening, in this order, each optional but read: what must happen
	 * before the configure (a copy, queries, checks), the configure of
	 * the flamegraph build folder, then the reading of targets, their
	 * kinds and features into the project. */
	int (*prepare)(fg_project *p);
	int (*configure)(fg_project *p);
	int (*read)(fg_project *p);
	/* Builds target t (only what it needs); the link-layout fix done. */
	int (*build)(fg_project *p, const struct fg_target *t, fg_build_result *res);
	/* Targets that a test runner of the build system runs (t->ctest):
	 * how --list marks them and how a run names them, for a test and a
	 * bench. NULL: the kind has none. */
	const char *listed_test, *listed_bench; /* " (ctest)" */
	const char *runs_test, *runs_bench;     /* "CTest test" */
	const char *runner;                     /* "ctest": "N ctest tests" */
	/* How a link-layout warning says to fix the link */
	fg_fix_style fix_style;
	/* The manifest declares no kinds (they are guessed from names): any
	 * program answers to its name, whatever kind is asked for. */
	bool kinds_guessed;
	/* A test's filter must be declared by the manifest, not guessed. */
	bool filters_declared;
	/* Builds in the folder of the kind found first in its tree, not one
	 * of its own beside it (a compile database shares the Makefile's:
	 * both compile through the same units and stamps). */
	bool shares_build_dir;
};

/* The kinds, in the order discovery tries them, ending in NULL. */
extern const struct fg_build_system *const fg_build_systems[];

/* Appends the kinds' manifests to sb as a list: "flamegraph.toml, ...,
 * Makefile or compile_commands.json". */
struct fg_strbuf;
void fg_build_systems_manifests(struct fg_strbuf *sb);

/* The table of manifest type `type` (never NULL for a valid type). */
const struct fg_build_system *fg_build_system_of(fg_manifest_type type);

extern const struct fg_build_system fg_system_toml, fg_system_cmake, fg_system_meson,
	fg_system_autotools, fg_system_make, fg_system_compdb;

#endif
