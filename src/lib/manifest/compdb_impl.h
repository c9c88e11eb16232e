/* compile_commands.json projects (SPEC 3c): state shared by the reader
 * (src/lib/manifest/compdb.c) and the linker (src/lib/builder/compdb_link.c).
 *
 * Which translation unit defines main is read from the objects' symbol
 * tables, not guessed from the source text (macros, #ifdef'd mains and
 * generated code make text scans wrong), so opening a compile database
 * compiles every entry into the flamegraph build directory. The objects
 * and their .cmd/.d stamps are the cache: a re-run recompiles nothing and
 * only reads the symbol tables again. Every object is needed anyway,
 * because linking a target picks the objects that define its undefined
 * symbols. */
#ifndef FG_LIB_MANIFEST_COMPDB_IMPL_H
#define FG_LIB_MANIFEST_COMPDB_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/manifest/project.h"
#include "util/hashmap.h"

/* Per-unit extras of a compile database entry (parallel to p->units). */
struct fg_compdb_unit {
	fg_strvec linkflags;   /* -l/-L/-Wl,... of an entry that also links */
	const char **defs;     /* defined global symbols (interned) */
	size_t ndefs, adefs;
	const char **undefs;   /* referenced, undefined (strong) symbols */
	size_t nundefs, aundefs;
	bool has_main;
};

struct fg_compdb {
	struct fg_compdb_unit *ux; /* parallel to p->units */
	size_t n, nalloc;
	fg_strmap names;    /* interned symbol names */
	fg_strmap defs;     /* symbol -> 1 + index of its first non-main definer */
	fg_strmap sys;      /* symbol -> bit mask of system libraries */
	unsigned sys_loaded; /* bit mask of the libraries read into `sys` */
};

/* Reads the symbol table of unit ui's object into db->ux[ui] and records
 * its definitions in db->defs. FG_EIO when the object is no ELF file. */
/* Renames the targets after the executables the project's own build made
 * in its tree (their old names stay as aliases); see compdb_names.c. */
int fg_compdb_real_names(fg_project *p);
int fg_compdb_read_symbols(struct fg_compdb *db, fg_project *p, size_t ui);

/* Build hook: picks the objects target t needs and links them. */
int fg_compdb_build(fg_project *p, const struct fg_target *t, fg_build_result *res);

/* Picks, for target unit `main_unit`, the smallest set of other non-main
 * units that resolves its undefined symbols (transitively). *out
 * (malloc'd) starts with main_unit; `missing` receives the symbols no
 * object defines (interned; not owned). For unit tests too. */
int fg_compdb_select(size_t **out, size_t *n, const struct fg_compdb *db,
		     size_t main_unit, fg_strvec *missing);

#endif
