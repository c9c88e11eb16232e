/* Meson projects (src/lib/project/meson): the reader (read.c), the
 * configure (configure.c) and the build (build.c).
 *
 * The project is configured into the flamegraph build folder with
 * `meson setup` (debug info, frame pointers, the user's options), read
 * through the introspection files Meson writes into BUILD/meson-info/
 * (intro-targets.json, intro-tests.json, intro-benchmarks.json,
 * intro-buildoptions.json, intro-projectinfo.json), and built with
 * `meson compile -C BUILD NAME:TYPE...`. */
#ifndef FG_LIB_PROJECT_MESON_MESON_H
#define FG_LIB_PROJECT_MESON_MESON_H

#include <stdbool.h>
#include <stddef.h>

#include "flamegraph/builder.h"
#include "lib/project/project.h"

struct cJSON;

/* One introspection file held in memory: its name in meson-info/
 * ("intro-targets.json") and its JSON text. */
typedef struct fg_meson_file {
	const char *name;
	const char *data;
	size_t len;
} fg_meson_file;

/* The reader's state (p->state). */
typedef struct fg_meson_state {
	char *user_build;    /* the user's own build folder whose options are
				carried over, or NULL; never written to */
	fg_strvec *compile;  /* per target (index into p->targets): what
				`meson compile` is given to build it */
	size_t ncompile;
	fg_strvec user_opts; /* "-DNAME=VALUE" read from user_build */
} fg_meson_state;

/* Opening a Meson project (system.c): fg_meson_prepare finds the
 * project's name and the user's build folder whose options are carried
 * over; fg_meson_configure (configure.c) runs meson setup
 * when needed; fg_meson_read reads the introspection files. Errors:
 * FG_ENOTFOUND (meson or ninja missing: says what to install), FG_EBUILD
 * (meson setup failed: its message is in the error), FG_EINVAL (unknown
 * feature or profile), FG_EPARSE. */
int fg_meson_prepare(fg_project *p);
int fg_meson_read(fg_project *p);

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

/* Helpers of the reader that the configure shares: a string
 * member of a JSON object (or NULL), a whole text file (NULL when missing),
 * writing one, and DIR/meson-info/NAME. */
const char *fg_meson_jstr(const struct cJSON *o, const char *key);
char *fg_meson_read_text(const char *path);
/* JSON text parsed (NULL for NULL text or bad JSON; cJSON_Delete it). */
struct cJSON *fg_meson_parse(const char *text);
int fg_meson_write_text(const char *path, const char *text);
char *fg_meson_info_path(const char *dir, const char *name);
/* The reader's state of p (made on first use; NULL: out of memory). */
fg_meson_state *fg_meson_state_of(fg_project *p);
/* Whether an option of intro-buildoptions.json is a feature option
 * (a combo of enabled/disabled/auto), or one --features can turn on (a
 * boolean or a feature). */
bool fg_meson_is_feature(const struct cJSON *o);
bool fg_meson_is_switch(const struct cJSON *o);
/* Records the project's switches (the names --features accepts). */
int fg_meson_read_switches(fg_project *p, const struct cJSON *options);


/* Whether dir is a Meson build folder (has meson-info/meson-info.json). */
bool fg_meson_is_build_dir(const char *dir);
/* The source folder a Meson build folder was configured from (malloc'd),
 * or NULL. */
char *fg_meson_source_of(const char *build_dir);
/* Whether dir's meson.build calls project(). */
bool fg_meson_calls_project(const char *dir);

/* Builds a target (build.c): meson compile NAME:TYPE. */
int fg_meson_build(fg_project *p, const struct fg_target *t, fg_build_result *res);
/* (Re)configures the flamegraph build folder (configure.c) when its arguments changed. */
int fg_meson_configure(fg_project *p);

#endif
