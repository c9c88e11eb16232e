/* The project model: what the manifest readers (src/lib/manifest) make of
 * a project and the builder (src/lib/builder) turns into executables.
 *
 * This is the one header of a stage that other stages include (see
 * docs/ARCHITECTURE.md): it holds data and the readers' entry points,
 * nothing that runs a tool. The readers only read and describe (manifest
 * files, File API replies, introspection); configuring, compiling,
 * linking and reading the symbols of built objects are the builder's, and
 * src/lib/builder/open.c calls the two in turn when a project is opened.
 * Implemented by src/lib/manifest/project.c and the readers. */
#ifndef FG_LIB_MANIFEST_PROJECT_H
#define FG_LIB_MANIFEST_PROJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "flamegraph/manifest.h"
#include "util/path.h"
#include "util/process.h"
#include "util/strbuf.h"

struct fg_target {
	char *name;
	char *alias;        /* a second name it answers to (compile db: the
			       source stem when named after its executable) */
	fg_target_kind kind;
	bool kind_guessed;  /* the kind is a guess from the name: any kind
			       flag selects it */
	bool installed;     /* the project installs it: a bin, whatever runs it */
	char *exe;          /* absolute */
	char *build_name;   /* target to build, NULL: build everything */
	bool ctest;
	char *filter;       /* filter template or NULL */
	fg_strvec argv;     /* ctest: the whole command; else default args */
	fg_strvec env;
	char *cwd;
	fg_strvec sources;  /* cc system / compile db: the target's sources */
	fg_strvec missing_features; /* flamegraph.toml required-features not enabled */
	size_t unit;        /* compile db: index of the unit defining main */
};

/* One compile of a source file into an object (compile db and cc system). */
struct fg_unit {
	char *source;       /* absolute */
	char *dir;          /* where the compile runs */
	char *object;       /* absolute, inside the flamegraph build dir */
	fg_strvec argv;     /* the full compile command, -c and -o included */
	bool has_main;      /* known after compiling */
	char *output;       /* compile db: what the entry's -o named (or NULL) */
	fg_strvec linkflags; /* compile db: -l/-L/-Wl,... of an entry that also
				links (they belong to its program) */
};

/* How a project is built; the reader decides, the builder follows. */
enum fg_build_system {
	FG_BUILD_NONE = 0,  /* not read yet */
	FG_BUILD_CMAKE,     /* cmake --build in the configured build_dir */
	FG_BUILD_CC,        /* flamegraph.toml system = "cc": p->units, compiled and linked */
	FG_BUILD_COMMAND,   /* flamegraph.toml system = "command": run it, use each `path` */
	FG_BUILD_COMPDB,    /* compile_commands.json: rerun each compile, link by symbols */
	FG_BUILD_MESON,     /* meson compile NAME:TYPE in the configured build_dir */
	FG_BUILD_AUTOTOOLS, /* make -C DIR PROGRAM in the configured build_dir */
	FG_BUILD_MAKE,      /* plain Make: the dry run's units, archives and link lines */
};

/* flamegraph.toml's [build], features and profile, resolved by the reader
 * for FG_BUILD_CC and FG_BUILD_COMMAND. */
struct fg_build_recipe {
	char *cc;                 /* [build] cc or NULL */
	char *command;            /* [build] command or NULL */
	fg_strvec cflags;         /* [build] cflags + enabled features' cflags */
	fg_strvec cppflags;       /* -I and -D from [build] and the features */
	fg_strvec ldflags;        /* [build] ldflags */
	fg_strvec libs;           /* [build] libs + features' libs, as written */
	fg_strvec profile_cflags; /* -O level and cflags along the inherits chain */
	fg_strvec profile_ldflags;
};

struct fg_project {
	fg_manifest_loc loc;
	fg_project_opts opts;   /* borrowed strings; valid while the project lives */
	char *name;
	char *profile;
	char *build_dir;
	struct fg_target *targets;
	size_t ntargets, talloc;
	struct fg_unit *units;
	size_t nunits, ualloc;
	/* the project's on/off options, for messages: CMake's BOOL ones,
	 * Meson's switches, configure's --enable/--with */
	fg_strvec bool_options;
	fg_strvec feature_names; /* flamegraph.toml: its [features] (not "default") */
	fg_strvec profile_names; /* flamegraph.toml: its [profile.*] */
	fg_strvec libs;         /* extra link libraries (-lfoo or paths) */
	fg_strvec ldflags;
	bool no_rosegment;      /* link with -Wl,--no-rosegment */
	char *cc;               /* link driver for the builder; NULL: the first
				 * unit's compiler, else opts.cc, else "cc" */
	enum fg_build_system system;
	struct fg_build_recipe recipe; /* FG_BUILD_CC, FG_BUILD_COMMAND */
	void *reader_data;      /* the reader's own state, freed by reader_free */
	void (*reader_free)(void *data);
	void *builder_data;     /* the builder's own state (compile db symbol
				 * tables), freed by builder_free */
	void (*builder_free)(void *data);
};

/* The manifest discovery would pick in dir itself (no climbing), in
 * *type: 1 when there is one, 0 when none, FG_ENOMEM. */
int fg_manifest_first_in(const char *dir, fg_manifest_type *type);

/* Notes a progress line through opts.note (printf-style). */
void fg_project_note(const fg_project *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends a target (zeroed) and returns it, or NULL (FG_ENOMEM). */
struct fg_target *fg_project_add_target(fg_project *p, const char *name,
					fg_target_kind kind);
struct fg_unit *fg_project_add_unit(fg_project *p);

void fg_build_recipe_release(struct fg_build_recipe *r);

/* The kind a program's name suggests where the build system declares
 * none: test, bench or example when a word of `name` or of a folder of
 * `path` (below the project root; may be NULL) says so, else bin. Words
 * split at non-alphanumerics. */
fg_target_kind fg_kind_by_name(const fg_project *p, const char *name, const char *path);

/* A fresh project for the manifest at loc (no targets yet): name, profile
 * and build_dir decided, the profile name checked. FG_ENOMEM, FG_EINVAL. */
int fg_project_new(fg_project **out, const fg_manifest_loc *loc, const fg_project_opts *opts);

/* The readers. Each fills p's targets (and p->system, p->units, p->recipe
 * for the builder) from what is on disk; none configures, compiles or
 * links (the one program they may run is `ctest --show-only`, which only
 * lists the tests).
 *
 * fg_tomlproj_open reads a flamegraph.toml project. A CMake project is
 * read from its configured build_dir (the builder configures it first):
 * fg_tomlproj_cmake_pre, before the configure, turns a flamegraph.toml
 * beside the CMakeLists.txt into -D entries (p->opts.defines/features are
 * pointed at arrays owned by p->reader_data); fg_cmake_read reads the File
 * API replies and `ctest --show-only=json-v1`; fg_tomlproj_cmake_post
 * then applies the toml's [[bin]]/[[test]]/... tables to those targets.
 * A compile database is read in two steps around the builder's compile:
 * fg_compdb_load reads the entries into p->units (and [build] libs and
 * ldflags of a flamegraph.toml beside it); fg_compdb_add_targets, once
 * the units' has_main flags are known, names a target after each. */
int fg_tomlproj_open(fg_project *p);
int fg_tomlproj_cmake_pre(fg_project *p);
int fg_cmake_read(fg_project *p);
int fg_tomlproj_cmake_post(fg_project *p);
int fg_compdb_load(fg_project *p);
int fg_compdb_add_targets(fg_project *p);

/* Memory entry points of the readers, for fuzzing and tests: they parse
 * what the readers above read from disk, but run nothing. p needs
 * loc.file, loc.root and build_dir set, and no reader state yet (or only
 * state these functions made).
 *
 * fg_compdb_parse_memory reads compile_commands.json text (the contents
 * of p->loc.file; relative folders resolve against its folder) into
 * p->units, as fg_compdb_load does. Errors as that. */
int fg_compdb_parse_memory(fg_project *p, const char *data, size_t len);

/* The CMake File API, for the builder's configure step (the replies are
 * the manifest's to read):
 *  - fg_cmake_write_queries asks for codemodel-v2 and cache-v2 replies in
 *    p->build_dir (FG_EIO);
 *  - fg_cmake_has_reply: whether a configure has answered them yet;
 *  - fg_cmake_load_cache: the newest cache-v2 reply (cJSON_Delete it), or
 *    NULL with the error set;
 *  - fg_cmake_cache_value: the value of cache entry `name`, or NULL;
 *  - fg_cmake_cache_defaults: the cache's BOOL entries as "\nNAME=ON\n..."
 *    (malloc'd), the defaults a first configure chose;
 *  - fg_cmake_feature_args resolves p->opts' features against the cache's
 *    BOOL options (kept in p->bool_options) into -DNAME=ON|OFF entries
 *    appended to args; feature-like options not asked for get their
 *    default from `defaults`. FG_EINVAL (listing the options) for an
 *    unknown feature;
 *  - fg_cmake_features_in_cache: whether every -DNAME=VALUE of
 *    args[from..] already is the cache's value. */
struct cJSON;
int fg_cmake_write_queries(const fg_project *p);
bool fg_cmake_has_reply(const fg_project *p);
struct cJSON *fg_cmake_load_cache(const fg_project *p);
const char *fg_cmake_cache_value(const struct cJSON *cache, const char *name);
char *fg_cmake_cache_defaults(const struct cJSON *cache);
int fg_cmake_feature_args(fg_project *p, const struct cJSON *cache, const char *defaults,
			  fg_strvec *args);
bool fg_cmake_features_in_cache(const struct cJSON *cache, const fg_strvec *args, size_t from);

/* A CMake File API reply file held in memory: its name in the reply
 * folder (.cmake/api/v1/reply) and its JSON text. */
typedef struct fg_cmake_reply {
	const char *name;
	const char *data;
	size_t len;
} fg_cmake_reply;

/* Reads a configured CMake project's targets from reply files in memory
 * instead of p->build_dir: the newest index-*.json, its cache-v2 reply
 * (BOOL options, p->opts.features resolved into -D switches as the
 * configure step does) and its codemodel-v2 reply with the target
 * replies it names (executables; p->opts.package applied). A file named
 * "ctest.json" stands for the output of `ctest --show-only=json-v1`
 * (tests become targets). Errors as fg_cmake_read. */
int fg_cmake_read_replies(fg_project *p, const fg_cmake_reply *files, size_t n);

#endif
