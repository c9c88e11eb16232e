/* Internals shared by the manifest readers (src/lib/manifest) and the
 * build stage (src/lib/builder): the concrete project and target structs. */
#ifndef FG_LIB_MANIFEST_PROJECT_H
#define FG_LIB_MANIFEST_PROJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "flamegraph/build.h"
#include "flamegraph/manifest.h"
#include "util/process.h"
#include "util/strbuf.h"

struct fg_target {
	char *name;
	char *alias;        /* a second name it answers to (compile db: the
			       source stem when named after its executable) */
	fg_target_kind kind;
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
	fg_strvec bool_options; /* CMake: the project's BOOL options, for messages */
	fg_strvec feature_names; /* flamegraph.toml: its [features] (not "default") */
	fg_strvec profile_names; /* flamegraph.toml: its [profile.*] */
	fg_strvec libs;         /* extra link libraries (-lfoo or paths) */
	fg_strvec ldflags;
	fg_strvec cflags;       /* cc system: final compile flags */
	char *cmake_target_dir; /* unused placeholder for future use */
	bool no_rosegment;      /* link with -Wl,--no-rosegment */
	char *cc;               /* link driver for fg_units_link; NULL: the first
				 * unit's compiler, else opts.cc, else "cc" */
	/* How fg_units_build builds a target of a non-CMake project; set by
	 * the reader (cc system, command system, compile db). */
	int (*build_hook)(fg_project *p, const struct fg_target *t, fg_build_result *res);
	void *reader_data;      /* the reader's own state, freed by reader_free */
	void (*reader_free)(void *data);
};

/* Notes a progress line through opts.note (printf-style). */
void fg_project_note(const fg_project *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends a target (zeroed) and returns it, or NULL (FG_ENOMEM). */
struct fg_target *fg_project_add_target(fg_project *p, const char *name,
					fg_target_kind kind);
struct fg_unit *fg_project_add_unit(fg_project *p);

/* Readers: fill p's targets. */
int fg_cmake_open(fg_project *p);
/* (Re)configures a CMake project when its arguments changed. */
int fg_cmake_configure(fg_project *p);
int fg_compdb_open(fg_project *p);
int fg_tomlproj_open(fg_project *p);

/* Memory entry points of the readers, for fuzzing and tests: they parse
 * what the readers above read from disk, but build, configure and run
 * nothing. p needs loc.file, loc.root and build_dir set, and no reader
 * state yet (or only state these functions made).
 *
 * fg_compdb_parse_memory reads compile_commands.json text (the contents
 * of p->loc.file; relative folders resolve against its folder) into
 * p->units, as fg_compdb_open does before compiling. Errors as that. */
int fg_compdb_parse_memory(fg_project *p, const char *data, size_t len);
/* Names a target after every unit whose compdb has_main flag is set (the
 * flags fg_compdb_open reads from the objects' symbol tables). */
int fg_compdb_add_targets(fg_project *p);

/* A CMake File API reply file held in memory: its name in the reply
 * folder (.cmake/api/v1/reply) and its JSON text. */
typedef struct fg_cmake_reply {
	const char *name;
	const char *data;
	size_t len;
} fg_cmake_reply;

/* Reads a configured CMake project's targets from reply files in memory
 * instead of p->build_dir: the newest index-*.json, its cache-v2 reply
 * (BOOL options, p->opts.features resolved into -D switches as
 * fg_cmake_configure does) and its codemodel-v2 reply with the target
 * replies it names (executables; p->opts.package applied). A file named
 * "ctest.json" stands for the output of `ctest --show-only=json-v1`
 * (tests become targets). Errors as fg_cmake_open. */
int fg_cmake_read_replies(fg_project *p, const fg_cmake_reply *files, size_t n);

/* Builders. */
int fg_cmake_build(fg_project *p, const struct fg_target *t, fg_build_result *res);
int fg_units_build(fg_project *p, const struct fg_target *t, fg_build_result *res);

/* The compile engine (src/lib/builder/units.c), generic over struct fg_unit.
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
 * than an object, or the link command changed (<exe>.link). When the
 * result is linked by lld or mold it relinks once with
 * -Wl,--no-rosegment and remembers that in the build dir. Sets
 * res->rebuilt, res->linker, res->no_rosegment. */
int fg_units_compile(fg_project *p, const size_t *units, size_t n, bool *changed);
int fg_units_link(fg_project *p, const struct fg_target *t, const size_t *units, size_t n,
		  bool changed, fg_build_result *res);

/* Path helpers. */
char *fg_path_join(const char *a, const char *b);
int fg_mkdir_p(const char *path);
bool fg_path_is_dir(const char *path);
bool fg_path_is_file(const char *path);
/* Modification time in nanoseconds, or -1 when the file does not exist. */
long long fg_path_mtime(const char *path);
const char *fg_path_base(const char *path);
/* Runs cmd and reports whether it exited 0; FG_ENOTFOUND when the
 * program does not exist. `quiet`: its stdout is discarded. */
int fg_run_checked(const fg_project *p, fg_cmd *cmd, bool quiet, fg_exit_status *st);

#endif
