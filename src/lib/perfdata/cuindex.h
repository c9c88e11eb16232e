/* The compile unit of an address in a module's DWARF (cuindex.c). */
#ifndef FG_LIB_PERFDATA_CUINDEX_H
#define FG_LIB_PERFDATA_CUINDEX_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/perfdata/internal.h"

/* The DIE of the unit of addr in dwarf (a Dwarf *), *out, with *found;
 * ix is filled on first use. 0 or FG_ENOMEM. */
int pd_cu_of(pd_cu_index *ix, void *dwarf, uint64_t addr, Dwarf_Die *out, bool *found);
void pd_cu_index_release(pd_cu_index *ix);

#endif
