/* flamegraph.toml projects: what the schema reader (tomlproj.c) hands the
 * builders (src/lib/builder/units_cc.c) and the CMake reader. */
#ifndef FG_LIB_MANIFEST_TOMLPROJ_H
#define FG_LIB_MANIFEST_TOMLPROJ_H

#include "flamegraph/toml.h"
#include "lib/manifest/project.h"

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
	char *cc;                 /* [build] cc or NULL */
	char *command;            /* [build] command or NULL */
	fg_strvec cflags;         /* [build] cflags + enabled features' cflags */
	fg_strvec cppflags;       /* -I and -D from [build] and the features */
	fg_strvec ldflags;        /* [build] ldflags */
	fg_strvec libs;           /* [build] libs + features' libs, as written */
	fg_strvec cmake_args;     /* [cmake] args */
	fg_strvec features;       /* the enabled features, in declaration order */
	fg_strvec cmake_options;  /* "-DOPT=ON/OFF" for features that name a cmake option */
	fg_strvec profile_cflags; /* -O level and cflags along the inherits chain */
	fg_strvec profile_ldflags;
};

/* Reads and checks `file` for project p (p->name, targets, build_hook are
 * filled; with `augment`, for a CMake project: no targets, no profile). FG_EPARSE with file:line:col for schema mistakes, FG_EINVAL
 * for an unknown feature or profile. */
int fg_tomlproj_read(fg_project *p, const char *file, bool augment, struct fg_tomlproj **out);
void fg_tomlproj_free(struct fg_tomlproj *tp);

/* Resolves [features] against the requested ones (opts) into tp. */
int fg_tomlproj_features(const fg_project *p, const fg_toml *doc, struct fg_tomlproj *tp);
/* Resolves profile `name` through its inherits chain into tp. */
int fg_tomlproj_profile(const char *name, const fg_toml *doc, struct fg_tomlproj *tp);

/* A flamegraph.toml beside a CMakeLists.txt (SPEC 3): _pre, before the
 * CMake reader configures, turns [cmake] args and features with a
 * `cmake` option into -D entries (p->opts.defines/features are pointed at
 * arrays owned by p->reader_data); _post applies the [[bin]]/[[test]]/...
 * tables to the targets CMake reported: kind, args, cwd, env, filter. */
int fg_tomlproj_cmake_pre(fg_project *p);
int fg_tomlproj_cmake_post(fg_project *p);

/* build_hook implementations. */
int fg_tomlproj_build_cc(fg_project *p, const struct fg_target *t, fg_build_result *res);
int fg_tomlproj_build_command(fg_project *p, const struct fg_target *t, fg_build_result *res);

#endif
