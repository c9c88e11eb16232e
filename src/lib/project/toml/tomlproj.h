/* flamegraph.toml projects (src/lib/project/toml): the schema reader's
 * state (read.c, features.c), also read by the CMake reader when a
 * flamegraph.toml augments a CMake project. Its build is the compile
 * engine's over p->recipe, or the command it gives (system.c). */
#ifndef FG_LIB_PROJECT_TOML_TOMLPROJ_H
#define FG_LIB_PROJECT_TOML_TOMLPROJ_H

#include "lib/project/toml/toml.h"
#include "lib/project/project.h"

enum fg_tomlproj_system { FG_TOMLPROJ_CC, FG_TOMLPROJ_COMMAND, FG_TOMLPROJ_CMAKE };

/* A read flamegraph.toml, features and profile already resolved. */
struct fg_tomlproj {
	enum fg_tomlproj_system system;
	bool augment;             /* beside a CMakeLists.txt: targets are overrides */
	fg_strvec defines;        /* augment: the -D entries handed to CMake */
	const char **define_ptrs; /* augment: the opts.defines array pointing into it */
	fg_strvec cmake_features; /* augment: --features left for CMake to match */
	const char **feature_ptrs;
	fg_project *overrides;    /* augment: the target tables, as targets */
	struct fg_build_recipe build; /* handed to the project (p->recipe) when read */
	fg_strvec cmake_args;     /* [cmake] args */
	fg_strvec features;       /* the enabled features, in declaration order */
	fg_strvec cmake_options;  /* "-DOPT=ON/OFF" for features that name a cmake option */
};

/* Reads and checks `file` for project p (p->name and targets are
 * filled; with `augment`, for a CMake project: no targets, no profile). FG_EPARSE with file:line:col for schema mistakes, FG_EINVAL
 * for an unknown feature or profile. */
int fg_tomlproj_read(fg_project *p, const char *file, bool augment, struct fg_tomlproj **out);
void fg_tomlproj_free(struct fg_tomlproj *tp);

/* Resolves [features] against the requested ones (opts) into tp. */
int fg_tomlproj_features(const fg_project *p, const fg_toml *doc, struct fg_tomlproj *tp);
/* Resolves profile `name` through its inherits chain into tp. */
int fg_tomlproj_profile(const char *name, const fg_toml *doc, struct fg_tomlproj *tp);

/* Opens a flamegraph.toml project: reads it (fg_tomlproj_read) and hands
 * its build to the project (p->recipe). */
int fg_tomlproj_open(fg_project *p);

#endif
