/* The scopes around an address in a compile unit, for the inlined
 * frames of symbols.c.
 *
 * libdw's dwarf_getscopes and dwarf_getscopes_die walk the unit's DIEs
 * for every address; a profile asks for hundreds of addresses in the
 * same few units (glibc's malloc.c alone has thousands of inlined
 * scopes). Here each DIE libdw would look into (those with code ranges,
 * under the kinds of DIE that hold scopes) is read once, and kept with
 * its ranges and its children: an address descends from the unit into
 * the first child that holds it, as libdw's walk does, to the innermost
 * scope. A DIE's children are read the first time an address falls in
 * it, so the functions a profile never samples (most of a unit) are not
 * walked at all. */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/perfdata/scopes.h"
#include "util/strbuf.h"
#include "util/banned.h"

struct scope {
	uint64_t die;             /* .debug_info offset */
	uint32_t first, nranges;  /* in the unit's ranges */
	uint32_t kids, nkids;     /* its children with code, once expanded */
	int depth;                /* how deep (the unit: -1) */
	bool expanded;
};

struct pd_unit_scopes {
	uint64_t cu;              /* the unit's DIE offset */
	struct scope *v;          /* v[0]: the unit */
	size_t n, a;
	uint64_t (*ranges)[2];    /* [lo, hi) */
	size_t nranges, aranges;
};

/* The kinds of DIE libdw looks into for scopes. */
static bool may_hold_scopes(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
		return true;
	}
	return false;
}

/* Adds the children of v[at] (its DIE: parent) that have code ranges,
 * in order; a child's own children wait until an address falls in it.
 * Depth is bounded against hostile input. On failure v[at] is left as
 * it was. */
static int expand(struct pd_unit_scopes *u, size_t at, Dwarf_Die *parent)
{
	size_t n0 = u->n, r0 = u->nranges;
	int depth = u->v[at].depth + 1;
	Dwarf_Die die;

	if (depth <= 256 && !dwarf_child(parent, &die)) {
		do {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			size_t first = u->nranges;
			if (!may_hold_scopes(dwarf_tag(&die)))
				continue;
			while ((off = dwarf_ranges(&die, off, &base, &lo, &hi)) > 0) {
				if (FG_ALLOC_GROW(u->ranges, u->nranges + 1, u->aranges, 256))
					goto nomem;
				u->ranges[u->nranges][0] = lo;
				u->ranges[u->nranges++][1] = hi;
			}
			/* no code of its own: libdw looks no further in it */
			if (u->nranges == first)
				continue;
			if (FG_ALLOC_GROW(u->v, u->n + 1, u->a, 64))
				goto nomem;
			memset(&u->v[u->n], 0, sizeof(u->v[u->n]));
			u->v[u->n].die = dwarf_dieoffset(&die);
			u->v[u->n].first = (uint32_t)first;
			u->v[u->n].nranges = (uint32_t)(u->nranges - first);
			u->v[u->n].depth = depth;
			u->n++;
		} while (!dwarf_siblingof(&die, &die));
	}
	u->v[at].kids = (uint32_t)n0;
	u->v[at].nkids = (uint32_t)(u->n - n0);
	u->v[at].expanded = true;
	return 0;
nomem:
	u->n = n0;
	u->nranges = r0;
	return FG_ENOMEM;
}

static bool holds(const struct pd_unit_scopes *u, const struct scope *s, uint64_t addr)
{
	uint32_t i;

	for (i = 0; i < s->nranges; i++)
		if (addr >= u->ranges[s->first + i][0] && addr < u->ranges[s->first + i][1])
			return true;
	return false;
}

static int unit_of(pd_scope_index *ix, Dwarf_Die *cudie, struct pd_unit_scopes **out)
{
	uint64_t cu = dwarf_dieoffset(cudie);
	struct pd_unit_scopes *u;
	size_t i;

	for (i = 0; i < ix->n; i++)
		if (ix->v[i].cu == cu) {
			*out = &ix->v[i];
			return 0;
		}
	if (FG_ALLOC_GROW(ix->v, ix->n + 1, ix->a, 16))
		return FG_ENOMEM;
	u = &ix->v[ix->n];
	memset(u, 0, sizeof(*u));
	u->cu = cu;
	if (FG_ALLOC_GROW(u->v, 1, u->a, 64))
		return FG_ENOMEM;
	memset(&u->v[0], 0, sizeof(u->v[0]));
	u->v[0].die = cu;
	u->v[0].depth = -1;
	u->n = 1;
	ix->n++;
	*out = u;
	return 0;
}

int pd_scopes_at(pd_scope_index *ix, Dwarf_Die *cudie, uint64_t addr, Dwarf_Die *chain, size_t max,
		 size_t *n)
{
	struct pd_unit_scopes *u;
	uint64_t path[MAX_SCOPE_DEPTH];
	size_t depth = 0, at = 0, k;
	Dwarf *dw = dwarf_cu_getdwarf(cudie->cu);
	int err;

	*n = 0;
	if ((err = unit_of(ix, cudie, &u)))
		return err;
	/* from the unit down, into the first child holding addr */
	for (;;) {
		struct scope *s = &u->v[at];
		Dwarf_Die die;

		if (!s->expanded) {
			if (at && !dwarf_offdie(dw, s->die, &die))
				break;
			if ((err = expand(u, at, at ? &die : cudie)))
				return err;
			s = &u->v[at];
		}
		for (k = s->kids; k < (size_t)s->kids + s->nkids; k++)
			if (holds(u, &u->v[k], addr))
				break;
		if (k == (size_t)s->kids + s->nkids)
			break;
		if (depth < MAX_SCOPE_DEPTH)
			path[depth++] = u->v[k].die;
		at = k;
	}
	/* innermost first, as dwarf_getscopes_die gives them */
	while (depth && *n < max)
		if (dwarf_offdie(dw, path[--depth], &chain[*n]))
			(*n)++;
	return 0;
}

void pd_scope_index_release(pd_scope_index *ix)
{
	size_t i;

	for (i = 0; i < ix->n; i++) {
		free(ix->v[i].v);
		free(ix->v[i].ranges);
	}
	free(ix->v);
	memset(ix, 0, sizeof(*ix));
}
