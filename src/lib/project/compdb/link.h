/* compile_commands.json projects, the build: the objects' symbol
 * tables (read once the project is opened, see system.c) and the
 * choice of objects a target's link needs (link.c). */
#ifndef FG_LIB_PROJECT_COMPDB_LINK_H
#define FG_LIB_PROJECT_COMPDB_LINK_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/project/build.h"
#include "util/hashmap.h"

/* The symbols of one unit's object (parallel to p->units). */
struct fg_compdb_unit {
	const char **defs;     /* defined global symbols (interned) */
	size_t ndefs, adefs;
	const char **undefs;   /* referenced, undefined (strong) symbols */
	size_t nundefs, aundefs;
	bool has_main;
};

/* p->state of a compile-database project. */
struct fg_compdb {
	struct fg_compdb_unit *ux; /* parallel to p->units */
	size_t n;
	fg_strmap names;    /* interned symbol names */
	fg_strmap defs;     /* symbol -> 1 + index of its first non-main definer */
	fg_strmap sys;      /* symbol -> bit mask of system libraries */
	unsigned sys_loaded; /* bit mask of the libraries read into `sys` */
};

/* Frees db and its tables; NULL is a no-op. */
void fg_compdb_free(struct fg_compdb *db);

/* Reads the symbol table of unit ui's object into db->ux[ui] (and its
 * has_main into p->units[ui]) and records its definitions in db->defs.
 * FG_EIO when the object is no ELF file. */
int fg_compdb_read_symbols(struct fg_compdb *db, fg_project *p, size_t ui);

/* Picks, for target unit `main_unit`, the smallest set of other non-main
 * units that resolves its undefined symbols (transitively). *out
 * (malloc'd) starts with main_unit; `missing` receives the symbols no
 * object defines (interned; not owned). For unit tests too. */
int fg_compdb_select(size_t **out, size_t *n, const struct fg_compdb *db,
		     size_t main_unit, fg_strvec *missing);

#endif
