/* Project manifests and the target model of flamegraph-build.
 *
 * A project is found from a starting directory: flamegraph.toml,
 * then the outermost CMakeLists.txt calling project(), then the outermost
 * meson.build calling project() (or a Meson build folder, which names its
 * source tree), then compile_commands.json (also in build/). Whatever the manifest, the
 * result is one list of targets -- name, kind, executable, default
 * arguments, working directory, environment -- that the build stage
 * (flamegraph/builder.h) builds and the CLI profiles.
 *
 * The library never prints: progress lines ("configuring", "up to date",
 * "added -Wl,--no-rosegment") go to the `note` callback, and the build
 * tools' own output goes to the inherited stdout/stderr. */
#ifndef FLAMEGRAPH_MANIFEST_H
#define FLAMEGRAPH_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include "flamegraph/api.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

typedef enum fg_manifest_type {
	FG_MANIFEST_TOML,   /* flamegraph.toml (built-in cc or command system) */
	FG_MANIFEST_CMAKE,  /* CMakeLists.txt (File API), maybe with a flamegraph.toml */
	FG_MANIFEST_COMPDB, /* compile_commands.json */
	FG_MANIFEST_MESON,  /* meson.build or a Meson build folder (introspection) */
	FG_MANIFEST_AUTOTOOLS, /* configure, configure.ac or configure.in */
	FG_MANIFEST_MAKE,   /* a plain Makefile, makefile or GNUmakefile */
} fg_manifest_type;

typedef enum fg_target_kind {
	FG_TARGET_BIN,
	FG_TARGET_TEST,
	FG_TARGET_BENCH,
	FG_TARGET_EXAMPLE,
	FG_TARGET_KIND_COUNT
} fg_target_kind;

/* "bin", "test", "bench", "example". */
const char *fg_target_kind_name(fg_target_kind kind);

/* A found manifest. Strings are owned; release with fg_manifest_loc_release. */
typedef struct fg_manifest_loc {
	fg_manifest_type type;
	char *file;     /* absolute path of the manifest file (Meson build
			   folder: its meson-info/meson-info.json) */
	char *root;     /* absolute project directory */
	char *toml;     /* a flamegraph.toml augmenting a CMake project, or NULL */
} fg_manifest_loc;
#define FG_MANIFEST_LOC_INIT { FG_MANIFEST_TOML, NULL, NULL, NULL }

/* Finds the manifest for `path`: with `explicit_path` false, path is the
 * directory where the upward search starts; with it true, path is what
 * --manifest-path named (one of the manifest files, a Meson build folder,
 * or a directory holding one; no upward search). FG_ENOTFOUND names every place it looked. */
int fg_manifest_find(fg_manifest_loc *out, const char *path, bool explicit_path);
void fg_manifest_loc_release(fg_manifest_loc *loc);

/* Called with one line of progress; may be NULL. */
typedef void (*fg_note_cb)(void *ctx, const char *line);

/* The layout of fg_project_opts this header describes:
 * fg_project_opts_init and the functions handed one take it and every
 * older version, and refuse 0 and later ones (FG_EINVAL). */
#define FG_PROJECT_OPTS_VERSION 1

/* How to open (and, for CMake, configure) a project. */
typedef struct fg_project_opts {
	unsigned version;           /* FG_PROJECT_OPTS_VERSION */
	const char *build_profile;  /* "release" (default), "dev", or a custom name */
	const char *build_dir;      /* NULL: <root>/build/flamegraph/<build_profile> */
	const char *package;        /* -p: a sub-project directory or name, or NULL */
	const char *const *features; /* --features, already split at commas */
	size_t nfeatures;
	bool no_default_features;
	bool all_features;
	const char *const *defines; /* -D NAME=VALUE (CMake cache entries) */
	size_t ndefines;
	const char *cc;             /* the C compiler ($CC), NULL: "cc" */
	const char *cflags;         /* the user's $CFLAGS to append to, or NULL */
	const char *ldflags;        /* the user's $LDFLAGS, or NULL */
	int jobs;                   /* parallel compile jobs; 0: number of CPUs */
	bool verbose;               /* note every command run */
	fg_note_cb note;
	void *note_ctx;
} fg_project_opts;
/* Fields not named are 0, false or NULL. */
#define FG_PROJECT_OPTS_INIT { .version = FG_PROJECT_OPTS_VERSION, .build_profile = "release" }

/* Sets *opts to the defaults (FG_PROJECT_OPTS_INIT); version:
 * FG_PROJECT_OPTS_VERSION, as the caller was compiled (FG_EINVAL for one
 * this library does not know). */
int fg_project_opts_init(fg_project_opts *opts, unsigned version);

typedef struct fg_project fg_project;
typedef struct fg_target fg_target; /* owned by its project */

/* (a project is opened by the builder, which runs the tools that opening
 * needs: fg_project_open in flamegraph/builder.h) */
void fg_project_free(fg_project *p);

const char *fg_project_name(const fg_project *p);
const char *fg_project_root(const fg_project *p);
const char *fg_project_build_dir(const fg_project *p);
fg_manifest_type fg_project_type(const fg_project *p);
size_t fg_project_target_count(const fg_project *p);
const fg_target *fg_project_target(const fg_project *p, size_t i);

/* Finds the target called `name` (its name, or its executable's file
 * name) of `kind`; kind FG_TARGET_KIND_COUNT matches any kind. name NULL:
 * the only target of that kind. Errors: FG_ENOTFOUND ("no bin target
 * 'x'", listing the targets by kind), FG_EAMBIGUOUS (listing candidates). */
int fg_project_select(const fg_target **out, const fg_project *p,
		      fg_target_kind kind, const char *name);

/* --unit-test [NAME]: a test executable run directly (not a CTest entry);
 * NAME NULL: the only one. Errors as fg_project_select. */
int fg_project_select_unit(const fg_target **out, const fg_project *p, const char *name);

/* --unit-bench [NAME]: a bench executable run directly (not a Meson
 * benchmark entry), its trailing arguments a filter as for
 * --unit-test; NAME NULL: the only one. Errors as fg_project_select. */
int fg_project_select_unit_bench(const fg_target **out, const fg_project *p, const char *name);

/* The targets grouped by kind, one line per kind ("bin      a, b (exe)"),
 * as malloc'd text (free() it), or NULL when out of memory. */
char *fg_project_describe(const fg_project *p);
/* The names of one kind, one per line, for completions and scripts (free()
 * it): "bin", "test", "bench", "example", "unit-test" (test executables
 * that are not CTest tests), "unit-bench" (bench executables that
 * are not Meson benchmark entries), "feature" or "profile" (the build
 * profiles, fg_project_opts.build_profile's values). NULL with FG_EINVAL
 * for another word. */
char *fg_project_names(const fg_project *p, const char *what);

const char *fg_target_name(const fg_target *t);
fg_target_kind fg_target_kind_of(const fg_target *t);
/* Absolute path of the executable (exists after fg_project_build). */
const char *fg_target_exe(const fg_target *t);
/* The CMake target (or toml/compdb target) that builds it; for a CTest
 * test this is the target owning the test's executable, or NULL when the
 * test runs a program the project does not build (a script, cmake -P). */
const char *fg_target_build_name(const fg_target *t);
/* True for a CTest test: its registered command is run as is. */
bool fg_target_is_ctest(const fg_target *t);
/* The filter template ("--filter={}") or NULL when none is declared. */
const char *fg_target_filter(const fg_target *t);
/* What a test or benchmark of the build system's own test runner is
 * called ("CTest test", "Meson benchmark"), for a target it runs
 * (fg_target_is_ctest); NULL for any other. */
const char *fg_target_runner_kind(const fg_project *p, const fg_target *t);
/* True when the project's manifest declares how each test takes a filter
 * (flamegraph.toml): a test that declares none takes no filter, rather
 * than one guessed. */
bool fg_project_declares_filters(const fg_project *p);

/* The command that runs the target: argv (the executable, default
 * arguments or the CTest command, then `extra`), working directory and
 * environment ("NAME=VALUE" entries), as malloc'd NULL-terminated arrays.
 * With `as_filter`, the extra arguments are a test filter passed through
 * the target's filter template (each `{}` replaced; no template: plain
 * arguments). Release with fg_run_spec_release. */
typedef struct fg_run_spec {
	char **argv;
	size_t argc;
	char **env;
	size_t nenv;
	char *cwd;   /* NULL: the caller's */
} fg_run_spec;
#define FG_RUN_SPEC_INIT { NULL, 0, NULL, 0, NULL }
int fg_target_run_spec(fg_run_spec *out, const fg_target *t,
		       const char *const *extra, size_t nextra, bool as_filter);
void fg_run_spec_release(fg_run_spec *spec);

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
