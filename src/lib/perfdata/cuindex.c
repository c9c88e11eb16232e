/* The compile unit of an address, for the inlined frames of symbols.c.
 *
 * libdw's own lookup (dwarf_addrdie) reads .debug_aranges into a list of
 * its own on first use, visiting every unit as it goes: some 30 ms and
 * thousands of allocations for glibc's debug file, in every run, for
 * the few dozen addresses a profile has there. The section is a plain
 * table, read here directly into one sorted array. Addresses it does not
 * cover (units it leaves out, debug files without it) are looked up in
 * a list of every unit's ranges, in unit order, made on first need. */
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/perfdata/cuindex.h"
#include "util/banned.h"

struct pd_cu_range {
	uint64_t lo, hi;          /* [lo, hi) */
	uint64_t unit;            /* the unit's header (sorted) or DIE (units),
				     as a .debug_info offset */
};

static int add_range(struct pd_cu_range **v, size_t *n, size_t *a, uint64_t lo, uint64_t hi,
		     uint64_t unit)
{
	if (hi <= lo)
		return 0;
	if (FG_ALLOC_GROW(*v, *n + 1, *a, 256))
		return FG_ENOMEM;
	(*v)[*n].lo = lo;
	(*v)[*n].hi = hi;
	(*v)[(*n)++].unit = unit;
	return 0;
}

/* The DIE of the unit whose header is at off in .debug_info; 0: none. */
static uint64_t unit_die(Dwarf *dw, uint64_t off)
{
	Dwarf_Off next;
	size_t header;

	if (dwarf_next_unit(dw, off, &next, &header, NULL, NULL, NULL, NULL, NULL, NULL))
		return 0;
	return off + header;
}

static const Elf_Data *section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;
		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(n, name))
			continue;
		/* libdw has decompressed the sections it reads; one still
		 * compressed is not read here */
		if (sh.sh_flags & SHF_COMPRESSED || sh.sh_type == SHT_NOBITS)
			return NULL;
		return elf_getdata(scn, NULL);
	}
	return NULL;
}

static uint64_t get(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	memcpy(&v, p, n); /* little-endian hosts only, as the reader */
	return v;
}

static int cmp_range(const void *pa, const void *pb)
{
	const struct pd_cu_range *a = pa, *b = pb;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The sets of .debug_aranges: a header (length, version 2, the unit's
 * offset, address and segment sizes), padding to twice the address
 * size, then {address, length} pairs up to a pair of zeros. */
static int read_aranges(pd_cu_index *ix, Dwarf *dw)
{
	const Elf_Data *d = section(dwarf_getelf(dw), ".debug_aranges");
	const unsigned char *p, *end;
	int err;

	if (!d || !d->d_buf)
		return 0;
	p = d->d_buf;
	end = p + d->d_size;
	while (end - p >= 4) {
		const unsigned char *set = p, *q, *set_end;
		uint64_t len = get(p, 4), cu;
		size_t offsize = 4, asize;
		q = p + 4;
		if (len == 0xffffffff) {
			if (end - q < 8)
				break;
			len = get(q, 8);
			q += 8;
			offsize = 8;
		}
		if (len > (uint64_t)(end - q))
			break;
		set_end = q + len;
		p = set_end;
		if (set_end - q < (ptrdiff_t)(2 + offsize + 2) || get(q, 2) != 2)
			continue;
		cu = get(q + 2, offsize);
		asize = q[2 + offsize];
		q += 2 + offsize + 2;
		if (asize != 4 && asize != 8)
			continue;
		q = set + ((size_t)(q - set) + 2 * asize - 1) / (2 * asize) * (2 * asize);
		for (; set_end - q >= (ptrdiff_t)(2 * asize); q += 2 * asize) {
			uint64_t lo = get(q, asize), n = get(q + asize, asize);
			if (!lo && !n)
				break;
			if ((err = add_range(&ix->sorted, &ix->nsorted, &ix->asorted, lo, lo + n, cu)))
				return err;
		}
	}
	if (ix->nsorted > 1)
		qsort(ix->sorted, ix->nsorted, sizeof(*ix->sorted), cmp_range);
	return 0;
}

/* Every unit's ranges, in unit order. */
static int read_units(pd_cu_index *ix, Dwarf *dw)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;
	Dwarf_Half version;
	int err;

	while (!dwarf_get_units(dw, cu, &cu, &version, &unit_type, &cudie, NULL)) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0)
			if ((err = add_range(&ix->units, &ix->nunits, &ix->aunits, lo, hi,
					     dwarf_dieoffset(&cudie))))
				return err;
	}
	return 0;
}

static bool in_sorted(const pd_cu_index *ix, Dwarf *dw, uint64_t addr, uint64_t *die)
{
	size_t lo = 0, hi = ix->nsorted;

	/* the last range starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->sorted[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= ix->sorted[lo - 1].hi)
		return false;
	*die = unit_die(dw, ix->sorted[lo - 1].unit);
	return *die != 0;
}

int pd_cu_of(pd_cu_index *ix, void *dwarf, uint64_t addr, Dwarf_Die *out, bool *found)
{
	Dwarf *dw = dwarf;
	uint64_t die = 0;
	size_t i;
	int err;

	*found = false;
	if (!ix->aranges_read) {
		ix->aranges_read = true;
		if ((err = read_aranges(ix, dw)))
			return err;
	}
	if (!in_sorted(ix, dw, addr, &die)) {
		if (!ix->units_read) {
			ix->units_read = true;
			if ((err = read_units(ix, dw)))
				return err;
		}
		for (i = 0; i < ix->nunits && !die; i++)
			if (addr >= ix->units[i].lo && addr < ix->units[i].hi)
				die = ix->units[i].unit;
	}
	*found = die && dwarf_offdie(dw, die, out);
	return 0;
}

void pd_cu_index_release(pd_cu_index *ix)
{
	free(ix->sorted);
	free(ix->units);
	memset(ix, 0, sizeof(*ix));
}
