/* The scopes around an address in a compile unit (scopes.c). */
#ifndef FG_LIB_PERFDATA_SCOPES_H
#define FG_LIB_PERFDATA_SCOPES_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/perfdata/internal.h"

/* deeper scopes than this are cut at the outer end */
#define MAX_SCOPE_DEPTH 64

/* The DIEs of the scopes holding addr in the unit of cudie, innermost
 * first, up to max of them (the unit itself not among them): chain[0 ..
 * *n), as dwarf_getscopes_die gives them for dwarf_getscopes' innermost.
 * ix keeps what it learns of the unit. 0 or FG_ENOMEM. */
int pd_scopes_at(pd_scope_index *ix, Dwarf_Die *cudie, uint64_t addr, Dwarf_Die *chain, size_t max,
		 size_t *n);
void pd_scope_index_release(pd_scope_index *ix);

#endif
