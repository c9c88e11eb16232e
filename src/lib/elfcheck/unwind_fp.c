/* Frame pointers told from the unwind tables, with libdw.
 *
 * Why the rule works. For every address of a function, the unwind tables
 * (DWARF CFI: .eh_frame, or .debug_frame) say how to find the caller's
 * frame: first the CFA, the stack pointer as it was before the call, as a
 * register plus an offset. A function built with frame pointers begins
 * with push %rbp; mov %rsp,%rbp, and from there to its epilogue the
 * compiler gives its CFA as rbp+16 (.cfi_def_cfa_register 6), since rbp,
 * unlike rsp, stays put through the body's pushes and calls. A function
 * built without frame pointers gives its CFA from rsp throughout; only
 * the few that use rbp as a frame base for another reason (a stack of
 * run-time size: alloca, variable-length arrays; a stack realigned past
 * 16 bytes) give it from rbp. So the share of functions whose CFA, in the
 * middle of their code (past the prologue, before the epilogue), comes
 * from rbp is close to all of them in code built with
 * -fno-omit-frame-pointer and close to none in code built without. And
 * .eh_frame stays in a stripped program: exceptions, backtraces and
 * debuggers need it.
 *
 * A leaf function whose locals all fit in registers gets no frame even
 * with -fno-omit-frame-pointer (GCC 12 and clang 14 at -O2, with
 * -mno-omit-leaf-frame-pointer too): its CFA stays rsp+8, as in code
 * built without, so a function whose CFA is rsp+8 mid-function says
 * nothing and is not counted; nor are functions under 16 bytes and the
 * PLT's entries (whose CFA is an expression).
 *
 * Measured so, the share from rbp was 98-100% in this project's sources
 * built with -fno-omit-frame-pointer by GCC 12 and clang 14 at -O0 and
 * -O2, and 0% built with -fomit-frame-pointer; in Debian 12's x86_64
 * files built with frame pointers 85-100% (perf 85.5%, node 94.9%,
 * libpq 96.4%); in those built without 0-6% for most (xz 0 of 83
 * functions, gzip 1 of 99, ls 1 of 171, python3.11 0 of 7818, git 2 of
 * 4794, cmake 5.8% of 10175), up to 45% for a few that use alloca or
 * realigned stacks a lot (make 12%, gdb 27%). The thresholds
 * (unwind_fp.h) sit in that gap: 20% or less is judged omitted, 70% or
 * more kept; in between, and with fewer than FG_UNWIND_FP_MIN_FUNCTIONS
 * functions counted, nothing is said. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elfcheck/unwind_fp.h"
#include "util/banned.h"

#define X86_64_RBP 6
#define X86_64_RSP 7
#define MIN_BYTES 16
#define MAX_PLT 8

typedef struct plt_ranges {
	GElf_Addr lo[MAX_PLT], hi[MAX_PLT];
	unsigned n;
} plt_ranges;

/* One CFI section walked with dwarf_next_cfi. */
typedef struct cfi_walk {
	const unsigned char *ident;
	Elf_Data *data;
	GElf_Addr addr; /* the section's address: the base of pc-relative values */
	bool eh;        /* .eh_frame's format, else .debug_frame's */
} cfi_walk;

/* Reads one value of the DW_EH_PE_* encoding enc at *p, moving *p past
 * it. Only absolute and pc-relative values (what x86_64's compilers and
 * linkers write); false for any other or a value past end. */
static bool read_encoded(const uint8_t **p, const uint8_t *end, uint8_t enc, GElf_Addr at,
			 uint64_t *out)
{
	const uint8_t *q = *p;
	uint64_t v = 0;
	size_t n, i;
	unsigned shift = 0;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		n = 8;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		n = 4;
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		n = 2;
		break;
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		do {
			if (q >= end || shift > 63)
				return false;
			v |= (uint64_t)(*q & 0x7f) << shift;
			shift += 7;
		} while (*q++ & 0x80);
		if ((enc & 0x0f) == DW_EH_PE_sleb128 && shift < 64 && (q[-1] & 0x40))
			v |= ~(uint64_t)0 << shift;
		n = 0;
		break;
	default:
		return false;
	}
	if (n) {
		if ((size_t)(end - q) < n)
			return false;
		for (i = 0; i < n; i++) /* x86_64 is little-endian */
			v |= (uint64_t)q[i] << (8 * i);
		if ((enc & DW_EH_PE_signed) && n < 8 && (v >> (8 * n - 1)) & 1)
			v |= ~(uint64_t)0 << (8 * n);
		q += n;
	}
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		v += at;
		break;
	default:
		return false;
	}
	*p = q;
	*out = v;
	return true;
}

/* The encoding of the addresses in the FDEs of a CIE: its augmentation's
 * 'R' entry in .eh_frame, plain addresses without one and in
 * .debug_frame. False for an augmentation it cannot read past. */
static bool fde_encoding(const Dwarf_CIE *cie, bool eh, uint8_t *enc)
{
	const char *a = cie->augmentation;
	const uint8_t *p = cie->augmentation_data, *end;
	uint64_t skip;

	*enc = DW_EH_PE_absptr;
	if (!eh || !a || !a[0])
		return true;
	if (a[0] != 'z' || !p)
		return false;
	end = p + cie->augmentation_data_size;
	for (a++; *a; a++) {
		switch (*a) {
		case 'R':
			if (p >= end)
				return false;
			*enc = *p;
			return true;
		case 'L':
			p++;
			break;
		case 'P': /* the personality routine's encoding, then its address */
			if (p >= end)
				return false;
			*enc = *p++;
			if (!read_encoded(&p, end, *enc & 0x0f, 0, &skip))
				return false;
			*enc = DW_EH_PE_absptr;
			break;
		case 'S':
		case 'B':
			break;
		default:
			return false;
		}
	}
	return true;
}

/* The register the CFA is given from at pc, and its offset: -1 for an
 * expression or no rule; -2 when pc has no rules at all. */
static int cfa_register(Dwarf_CFI *cfi, Dwarf_Addr pc, int64_t *offset)
{
	Dwarf_Frame *frame;
	Dwarf_Op *ops;
	size_t nops;
	int reg = -1;

	*offset = 0;
	if (dwarf_cfi_addrframe(cfi, pc, &frame) != 0)
		return -2;
	if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1) {
		if (ops[0].atom == DW_OP_bregx) {
			reg = ops[0].number < 64 ? (int)ops[0].number : -1;
			*offset = (int64_t)ops[0].number2;
		} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
			reg = ops[0].atom - DW_OP_breg0;
			*offset = (int64_t)ops[0].number;
		}
	}
	free(frame);
	return reg;
}

static bool in_plt(const plt_ranges *plt, GElf_Addr pc)
{
	for (unsigned i = 0; i < plt->n; i++)
		if (pc >= plt->lo[i] && pc < plt->hi[i])
			return true;
	return false;
}

/* Walks the FDEs of one section, judging each function's middle by the
 * rules cfi gives for it. */
static void count_section(const cfi_walk *w, Dwarf_CFI *cfi, const plt_ranges *plt,
			  fg_unwind_fp *c)
{
	Dwarf_Off off = 0, next, cie_off = (Dwarf_Off)-1;
	Dwarf_CFI_Entry entry, cie;
	uint8_t enc = DW_EH_PE_absptr;
	bool cie_ok = false;

	while (dwarf_next_cfi(w->ident, w->data, w->eh, off, &next, &entry) == 0) {
		const uint8_t *p, *end;
		uint64_t start, len;
		int64_t cfa_offset;
		int reg;

		if (next <= off)
			break;
		off = next;
		if (dwarf_cfi_cie_p(&entry))
			continue;
		if (entry.fde.CIE_pointer != cie_off) {
			Dwarf_Off ignored;
			cie_off = entry.fde.CIE_pointer;
			cie_ok = dwarf_next_cfi(w->ident, w->data, w->eh, cie_off, &ignored, &cie) == 0 &&
				 dwarf_cfi_cie_p(&cie) && fde_encoding(&cie.cie, w->eh, &enc);
		}
		p = entry.fde.start;
		end = entry.fde.end;
		if (!cie_ok ||
		    !read_encoded(&p, end, enc, w->addr + (GElf_Addr)(p - (const uint8_t *)w->data->d_buf),
				  &start) ||
		    !read_encoded(&p, end, enc & 0x0f, 0, &len))
			continue;
		if (!start || len < MIN_BYTES || in_plt(plt, start))
			continue;
		reg = cfa_register(cfi, start + len / 2, &cfa_offset);
		/* no rules, or no frame there: nothing to judge by */
		if (reg == -2 || (reg == X86_64_RSP && cfa_offset == 8))
			continue;
		c->functions++;
		if (reg == X86_64_RBP)
			c->rbp_cfa++;
	}
}

static Elf_Data *section_data(Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d;

	if (sh->sh_type == SHT_NOBITS)
		return NULL;
	if ((sh->sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return NULL;
	d = elf_getdata(scn, NULL);
	return d && d->d_buf && d->d_size ? d : NULL;
}

fg_frame_pointers fg_unwind_frame_pointers(Elf *e, fg_unwind_fp *counts)
{
	fg_unwind_fp c = { 0, 0 };
	cfi_walk eh = { NULL, NULL, 0, true }, debug = { NULL, NULL, 0, false };
	plt_ranges plt = { .n = 0 };
	fg_frame_pointers verdict = FG_FP_UNKNOWN;
	Elf_Scn *scn = NULL;
	GElf_Ehdr ehdr;
	GElf_Shdr sh;
	size_t shstrndx;

	if (counts)
		*counts = c;
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &ehdr) ||
	    ehdr.e_ident[EI_CLASS] != ELFCLASS64 || ehdr.e_ident[EI_DATA] != ELFDATA2LSB ||
	    ehdr.e_machine != EM_X86_64 || elf_getshdrstrndx(e, &shstrndx) != 0)
		return FG_FP_UNKNOWN;
	eh.ident = debug.ident = (const unsigned char *)elf_getident(e, NULL);
	while ((scn = elf_nextscn(e, scn))) {
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".eh_frame")) {
			eh.data = section_data(scn, &sh);
			eh.addr = sh.sh_addr;
		} else if (!strcmp(name, ".debug_frame")) {
			debug.data = section_data(scn, &sh);
			debug.addr = sh.sh_addr;
		} else if ((!strncmp(name, ".plt", 4) || !strcmp(name, ".iplt")) &&
			   (sh.sh_flags & SHF_EXECINSTR) && plt.n < MAX_PLT) {
			plt.lo[plt.n] = sh.sh_addr;
			plt.hi[plt.n++] = sh.sh_addr + sh.sh_size;
		}
	}
	if (eh.data && eh.ident) {
		Dwarf_CFI *cfi = dwarf_getcfi_elf(e);
		if (cfi) {
			count_section(&eh, cfi, &plt, &c);
			dwarf_cfi_end(cfi);
		}
	}
	/* .debug_frame describes the same functions when both are there:
	 * read only when .eh_frame gave none */
	if (!c.functions && debug.data && debug.ident) {
		Dwarf *dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
		Dwarf_CFI *cfi = dw ? dwarf_getcfi(dw) : NULL;
		if (cfi)
			count_section(&debug, cfi, &plt, &c);
		if (dw)
			dwarf_end(dw);
	}
	if (c.functions >= FG_UNWIND_FP_MIN_FUNCTIONS) {
		uint64_t rbp = (uint64_t)c.rbp_cfa * 100, all = c.functions;
		if (rbp >= all * FG_UNWIND_FP_KEPT_PCT)
			verdict = FG_FP_PRESENT;
		else if (rbp <= all * FG_UNWIND_FP_OMITTED_PCT)
			verdict = FG_FP_OMITTED;
	}
	if (counts)
		*counts = c;
	return verdict;
}
