/* Meson projects (SPEC 3d), shared by the reader (src/lib/manifest/meson.c)
 * and the builder (src/lib/builder/meson.c).
 *
 * The project is configured into the flamegraph build folder with
 * `meson setup` (debug info, frame pointers, the user's options), read
 * through the introspection files Meson writes into BUILD/meson-info/
 * (intro-targets.json, intro-tests.json, intro-benchmarks.json,
 * intro-buildoptions.json, intro-projectinfo.json), and built with
 * `meson compile -C BUILD NAME:TYPE...`. */
#ifndef FG_LIB_MANIFEST_MESON_H
#define FG_LIB_MANIFEST_MESON_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/manifest/project.h"

/* One introspection file held in memory: its name in meson-info/
 * ("intro-targets.json") and its JSON text. */
typedef struct fg_meson_file {
	const char *name;
	const char *data;
	size_t len;
} fg_meson_file;

/* The reader's state (p->reader_data). */
typedef struct fg_meson_state {
	char *user_build;    /* the user's own build folder whose options are
				carried over, or NULL; never written to */
	fg_strvec *compile;  /* per target (index into p->targets): what
				`meson compile` is given to build it */
	size_t ncompile;
	fg_strvec user_opts; /* "-DNAME=VALUE" read from user_build */
} fg_meson_state;

/* Opens a Meson project: configures (when needed) and reads the
 * introspection files. Errors: FG_ENOTFOUND (meson or ninja missing:
 * says what to install), FG_EBUILD (meson setup failed: its message is
 * in the error), FG_EINVAL (unknown feature or profile), FG_EPARSE. */
int fg_meson_open(fg_project *p);

/* Reads introspection files from memory instead of the build folder
 * (tests, fuzzing): targets, tests, benchmarks, the project's name and
 * its boolean and feature options. Builds, configures and runs nothing.
 * p needs loc and build_dir set, and no reader state yet. Missing files
 * count as empty lists, except intro-targets.json. */
int fg_meson_read_intro(fg_project *p, const fg_meson_file *files, size_t n);

/* The -D arguments of the configure step, in order: build type, flags
 * with frame pointers appended, the options of the user's build folder
 * (`user_options`: its intro-buildoptions.json text, or NULL), the
 * user's -D, then one per boolean or feature option of the project as
 * --features, --all-features, --no-default-features and `defaults`
 * (NAME=VALUE lines recorded at the first configure, or NULL) say, when
 * `options` (intro-buildoptions.json of the flamegraph build folder, or
 * NULL before the first configure) lists them. `fp_flags`: the frame
 * pointer flags the compiler accepts. FG_EINVAL for an unknown feature
 * or profile (with a "did you mean"). */
int fg_meson_setup_args(fg_project *p, const char *fp_flags, const char *user_options,
			const char *options, const char *defaults, fg_strvec *args);

/* The build hook (p->build_hook). */
int fg_meson_build(fg_project *p, const struct fg_target *t, fg_build_result *res);
/* (Re)configures the flamegraph build folder when its arguments changed. */
int fg_meson_configure(fg_project *p);

/* Whether dir is a Meson build folder (has meson-info/meson-info.json). */
bool fg_meson_is_build_dir(const char *dir);
/* The source folder a Meson build folder was configured from (malloc'd),
 * or NULL. */
char *fg_meson_source_of(const char *build_dir);
/* Whether dir's meson.build calls project(). */
bool fg_meson_calls_project(const char *dir);

#endif
