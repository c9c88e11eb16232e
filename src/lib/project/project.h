/* The project model: what the build systems' readers
 * (src/lib/project/KIND/) make of a project and their builds turn into
 * executables.
 *
 * It holds data and what every kind shares: discovery's helpers
 * (discover.c), the model's functions (project.c), nothing that runs a
 * tool. How a kind is found, read and built is its table's (system.h). */
#ifndef FG_LIB_PROJECT_PROJECT_H
#define FG_LIB_PROJECT_PROJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "flamegraph/manifest.h"
#include "util/path.h"
#include "util/process.h"
#include "util/strbuf.h"
#include "util/strvec.h"

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

/* flamegraph.toml's [build], features and profile, resolved by the reader
 * for its compile engine or command (toml/). */
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
	const struct fg_build_system *system; /* how it is found, read and built (system.h) */
	struct fg_build_recipe recipe; /* flamegraph.toml's build (toml/) */
	/* the build system's own state (its folder's types: what its reader
	 * learnt for its build, a compile database's symbol tables), freed by
	 * state_free */
	void *state;
	void (*state_free)(void *data);
};

/* Discovery's helpers for the kinds' detect operations (discover.c):
 * fg_manifest_loc_set fills *out with the manifest `file` in `dir`
 * (FG_ENOMEM); fg_dir_has_file tells whether dir/name is a file;
 * fg_dir_parent is dir's parent (malloc'd; NULL at / or out of memory);
 * fg_manifest_top is the outermost folder of the chain of `file`s above
 * dir whose file calls project() (`calls` tells; a subproject's does
 * not), or dir (malloc'd, NULL: FG_ENOMEM). */
int fg_manifest_loc_set(fg_manifest_loc *out, fg_manifest_type type, const char *dir,
			const char *file);
bool fg_dir_has_file(const char *dir, const char *name);
/* The detect operation of a kind known by its manifests' names, tried in
 * order: 1 with *out set for the first of names[0..n) in dir (or, for
 * fg_manifest_detect_base, when `base` is one of them), 0 when none,
 * FG_ENOMEM. */
int fg_manifest_detect_names(fg_manifest_loc *out, fg_manifest_type type, const char *dir,
			     const char *const *names, size_t n);
int fg_manifest_detect_base(fg_manifest_loc *out, fg_manifest_type type, const char *dir,
			    const char *base, const char *const *names, size_t n);
char *fg_dir_parent(const char *dir);
char *fg_manifest_top(const char *dir, const char *file, bool (*calls)(const char *dir));

/* FG_EINVAL for a feature asked for that the project does not offer, in
 * one wording for every kind: "unknown feature 'F' — did you mean 'N'?
 * WHOSE: KNOWN". `near`: the nearest known name or NULL; `near_as`: how
 * the user would spell it when that differs (CMake's ENABLE_FAST_HASH
 * asked for as fast-hash), else NULL; `known`: the names offered
 * ("(none)" when empty); whose_fmt: printf-style, whose they are
 * ("zlib's BOOL options are"). */
int fg_feature_unknown(const char *feature, const char *near, const char *near_as,
		       const fg_strvec *known, const char *whose_fmt, ...)
	__attribute__((format(printf, 5, 6)));

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

#endif
