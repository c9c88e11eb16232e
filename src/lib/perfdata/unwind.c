/* Unwinding of dwarf call graphs (perf record --call-graph dwarf): the
 * kernel copied the user registers and the top of the user stack at each
 * sample; the frames above the sampled one are found by running the
 * CFI of the mapped ELF files (.eh_frame, or .debug_frame) over that
 * copy, with elfutils' libdwfl.
 *
 * One Dwfl per process holds the process' ELF files as modules, placed
 * where its maps put them; libdwfl keeps each module's ELF and CFI, so
 * they are read once per process and not once per sample. When the
 * process maps more code, the new files are added to its Dwfl; only a
 * file gone or moved (an exec, a library unloaded) starts a new one.
 * Memory the
 * CFI asks for comes from the stack copy, else from the mapped file's
 * contents (read-only data); anything else is unknown and ends the
 * unwinding there, as it ends perf's.
 *
 * Most samples of a recording share their frames, and asking libdw for
 * the CFI rules of an address (find the FDE, run the CIE's and FDE's
 * instructions) costs far more than applying them. So the rules of each
 * (module, address) are asked once and kept in a table (the module of
 * an address found in a table of the process' modules, by address,
 * rather than asked of libdwfl each frame), and a sample is
 * unwound with them directly when every rule on its way is of the plain
 * kinds (CFA = register + offset; registers undefined, unchanged, saved
 * at or equal to CFA + offset), doing exactly what libdwfl does with
 * them, read for read. A sample that meets anything else (an expression,
 * a signal frame, an address without CFI, where libdwfl would fall back
 * to the frame pointer) is unwound by libdwfl from its start. */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/perfdata/internal.h"
#include "util/banned.h"

/* bytes of a stack left in the recording read at once */
#define MORE_BLOCK 4096

/* registers of an x86_64 frame as libdwfl keeps them: DWARF 0..16, the
 * last one the return address (rip) */
#define NREGS 17
#define RA_REG 16

/* x86_64 DWARF registers 0..16 (rax, rdx, rcx, rbx, rsi, rdi, rbp,
 * rsp, r8..r15, rip) as perf numbers them */
static const int perf_reg_of_dwarf[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };

/* A module of a process: its file placed with a bias. */
struct placed {
	const pd_module *mod;
	uint64_t bias;
	size_t votes;       /* maps that agree (collect) */
};

/* The CFI rules of one address of a module, as libdw gives them. */
enum rule_kind {
	RULE_UNDEF,   /* undefined: the register is not set */
	RULE_SAME,    /* the caller's value is the frame's */
	RULE_AT,      /* saved in memory at CFA + off */
	RULE_VAL,     /* equal to CFA + off */
};

/* A register's rule: its kind and offset (fitting 32 bits, else the
 * rules are not plain). */
struct rule_op {
	int32_t off;
	uint8_t reg, kind;
};

struct rules {
	bool plain;           /* all of the kinds above, else libdwfl unwinds */
	uint8_t cfa_reg;
	uint8_t nops;         /* the registers saved at or equal to CFA + off */
	uint32_t same;        /* those whose rule is RULE_SAME, as bits */
	int64_t cfa_off;
	struct rule_op ops[NREGS];
};

/* The key of a table slot (kept apart from the rules, so that looking
 * one up reads little memory) */
struct rule_key {
	const pd_module *mod; /* NULL: a free slot */
	uint64_t addr;        /* the address in the module's ELF */
};

/* A module of a process' Dwfl as the fast path needs it: where libdwfl
 * placed it ([lo, hi), as dwfl_addrmodule finds it), its pd_module and
 * its .eh_frame CFI (asked on first use). */
struct placed_mod {
	uint64_t lo, hi;
	Dwfl_Module *dm;
	const pd_module *mod;
	Dwarf_CFI *cfi;
	uint64_t bias;
	bool cfi_asked;
};

struct proc_state {
	Dwfl *dwfl;
	uint64_t gen;       /* of the maps reported */
	bool attached;
	struct placed *rep; /* the modules reported to dwfl */
	size_t nrep, arep;
	struct placed_mod *mods; /* dwfl's modules, by address */
	size_t nmods, amods;
	size_t last;        /* the module found last */
};

struct pd_unwinder {
	pd_symbols *syms;
	pd_machine *machine;
	fg_strmap procs;    /* 4-byte pid -> struct proc_state * */
	struct proc_state *ps; /* the sample's process (ps_pid) */
	int32_t ps_pid;
	Dwfl_Callbacks callbacks;
	struct placed *cur; /* the modules of a process' maps (collect) */
	size_t ncur, acur;
	/* the sample being unwound: its stack copy, and the registers
	 * libdwfl starts from (the sample's, or its caller's when the
	 * sample is in a PLT entry) */
	const struct pd_user_state *st;
	struct pd_user_state start;
	bool start_is_caller;  /* then the first pc libdwfl gives (after the
				  entry's, already in pcs) is a return address */
	uint64_t *pcs;
	size_t max, n;
	/* a read for the frame after the last one failed: its return
	 * address lies beyond the stack copy (a frame with large locals) */
	bool read_failed;
	uint64_t used;         /* bytes of the stack copy the sample needed */
	bool outermost;        /* the unwinding ended at the outermost frame
				  (no return address, or 0) */
	/* of the sample's stack left in the recording: the block read last,
	 * bytes more_at .. more_at + more_len of the copy */
	unsigned char more[MORE_BLOCK];
	uint64_t more_at;
	size_t more_len;
	/* the rules asked of libdw: open addressing, a power of 2 slots */
	struct rule_key *rkeys;
	struct rules *rules;
	size_t nrules, arules;
};

/* Modules come with their file (dwfl_report_elf): nothing to find. */
static int no_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		  char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)name, (void)base, (void)file_name, (void)elfp;
	return -1;
}

/* Separate debug files are not looked for: the CFI of the runtime files
 * (.eh_frame) is what perf unwinds with, and the standard lookup may
 * query debuginfod servers over the network. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static pid_t no_next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	(void)dwfl, (void)arg, (void)thread_arg;
	return 0;
}

/* Every thread asked for is the sample's. */
static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl, (void)tid;
	*thread_arg = arg;
	return true;
}

/* A word of a mapped file's contents at a run-time address. */
static bool read_file_word(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *out)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	GElf_Addr bias;
	GElf_Phdr ph;
	Elf *elf;
	size_t i, nph, size;
	const char *raw;

	if (!mod || !(elf = dwfl_module_getelf(mod, &bias)) || elf_getphdrnum(elf, &nph))
		return false;
	if (!(raw = elf_rawfile(elf, &size)))
		return false;
	for (i = 0; i < nph; i++) {
		uint64_t v = addr - bias;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (v < ph.p_vaddr || ph.p_filesz < 8 || v - ph.p_vaddr > ph.p_filesz - 8)
			continue;
		if (ph.p_offset > size || v - ph.p_vaddr + 8 > size - ph.p_offset)
			return false;
		memcpy(out, raw + ph.p_offset + (v - ph.p_vaddr), 8);
		return true;
	}
	return false;
}

/* A word of the sample's stack left in the recording, at byte i of
 * the copy (i + 8 <= stack_full): read in blocks, as unwinding goes up
 * the stack. */
static bool read_more(pd_unwinder *u, uint64_t i, Dwarf_Word *out)
{
	const struct pd_user_state *st = u->st;

	if (i < u->more_at || i + 8 > u->more_at + u->more_len) {
		size_t len = st->stack_full - i < MORE_BLOCK ? (size_t)(st->stack_full - i) :
			     MORE_BLOCK;
		u->more_len = 0;
		if (st->more(st->more_ctx, st->at + i, len, u->more))
			return false;
		u->more_at = i;
		u->more_len = len;
	}
	memcpy(out, u->more + (i - u->more_at), 8);
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *out, void *arg)
{
	pd_unwinder *u = arg;
	const struct pd_user_state *st = u->st;
	uint64_t sp = st->regs[PD_REG_SP];

	if (addr >= sp && (addr - sp < st->stack_len || addr - sp < st->stack_full) &&
	    addr - sp + 8 > u->used)
		u->used = addr - sp + 8;
	if (addr >= sp && addr - sp < st->stack_len && st->stack_len - (addr - sp) >= 8) {
		memcpy(out, st->stack + (addr - sp), 8);
		return true;
	}
	if (addr >= sp && addr - sp < st->stack_full && st->stack_full - (addr - sp) >= 8 &&
	    st->more && read_more(u, addr - sp, out))
		return true;
	if (read_file_word(dwfl, addr, out))
		return true;
	/* past the end of the copy (not below the stack pointer) */
	if (addr >= sp)
		u->read_failed = true;
	return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct pd_user_state *st = &((const pd_unwinder *)arg)->start;
	int d;

	for (d = 0; d < 16; d++) {
		int p = perf_reg_of_dwarf[d];
		Dwarf_Word v = st->regs[p];
		/* registers perf did not record stay unknown */
		if ((st->mask >> p & 1) && !dwfl_thread_state_registers(thread, d, 1, &v))
			return false;
	}
	dwfl_thread_state_register_pc(thread, st->regs[PD_REG_IP]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = no_next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

int pd_unwinder_new(pd_unwinder **out, pd_symbols *s, pd_machine *m)
{
	fg_strmap empty = FG_STRMAP_INIT;
	pd_unwinder *u;

	if (!(*out = u = fg_calloc(1, sizeof(*u))))
		return FG_ENOMEM;
	u->syms = s;
	u->machine = m;
	u->procs = empty;
	u->callbacks.find_elf = no_elf;
	u->callbacks.find_debuginfo = no_debuginfo;
	u->callbacks.section_address = dwfl_offline_section_address;
	return 0;
}

void pd_unwinder_free(pd_unwinder *u)
{
	size_t i = 0;
	fg_strmap_entry *e;

	if (!u)
		return;
	while ((e = fg_strmap_next(&u->procs, &i))) {
		struct proc_state *ps = e->value.p;
		if (ps && ps->dwfl)
			dwfl_end(ps->dwfl);
		if (ps) {
			free(ps->rep);
			free(ps->mods);
		}
		free(ps);
	}
	fg_strmap_release(&u->procs);
	free(u->cur);
	free(u->rules);
	free(u->rkeys);
	free(u);
}

void pd_unwinder_forget(pd_unwinder *u, int32_t pid)
{
	fg_strmap_entry *e = fg_strmap_get(&u->procs, (const char *)&pid, sizeof(pid));
	struct proc_state *ps = e ? e->value.p : NULL;

	if (!ps)
		return;
	if (ps->dwfl)
		dwfl_end(ps->dwfl);
	ps->dwfl = NULL;
	ps->attached = false;
	ps->nrep = 0;
	ps->nmods = 0;
}

/* Where the map may put the module's ELF addresses (run-time address
 * minus ELF address): one bias per loadable segment that the map's file
 * page can hold. Segments share pages (the end of .rodata and the start
 * of .data), so a map may give several; all the maps of a module agree
 * on the right one (collect). Returns how many, at most max. */
static size_t map_biases(const struct pd_map *map, uint64_t *out, size_t max)
{
	const pd_module *m = map->mod;
	size_t i, n = 0;

	for (i = 0; i < m->nsegs && n < max; i++) {
		uint64_t off = m->segs[i].off, page = off & ~(uint64_t)4095;
		if (map->pgoff < page || map->pgoff >= off + m->segs[i].filesz)
			continue;
		out[n++] = map->start - map->pgoff + off - m->segs[i].vaddr;
	}
	return n;
}

/* A descriptor of an in-memory image (the vdso), for dwfl_report_elf. */
static int image_fd(const pd_module *m)
{
	int fd = memfd_create("vdso", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (write(fd, m->image, m->image_size) != (ssize_t)m->image_size) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reports one module; false when libdwfl refuses it (it overlaps one
 * reported before) or its file cannot be read. */
static bool report_module(Dwfl *dwfl, const struct placed *pl)
{
	const pd_module *m = pl->mod;
	Dwfl_Module *dm;
	void **userdata = NULL;
	int fd = -1;

	if (!m->elf_path && (fd = image_fd(m)) < 0)
		return false;
	/* fd is consumed on success only */
	if (!(dm = dwfl_report_elf(dwfl, m->path, m->elf_path ? m->elf_path : m->path, fd,
				   pl->bias, true))) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	/* the module's rules are found by its pd_module (fast_unwind) */
	dwfl_module_info(dm, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	if (userdata)
		*userdata = (void *)m;
	return true;
}

static bool has_placed(const struct placed *v, size_t n, const struct placed *pl)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].mod == pl->mod && v[i].bias == pl->bias)
			return true;
	return false;
}

/* Counts one map's vote for each bias it allows its module. */
static int vote(pd_unwinder *u, const struct pd_map *map)
{
	uint64_t b[8];
	size_t n = 1, i, k;

	b[0] = 0;
	if (map->mod->elf_type == ET_DYN)
		n = map_biases(map, b, 8);
	for (i = 0; i < n; i++) {
		struct placed pl = { map->mod, b[i], 1 };
		for (k = 0; k < u->ncur; k++)
			if (u->cur[k].mod == pl.mod && u->cur[k].bias == pl.bias)
				break;
		if (k < u->ncur) {
			u->cur[k].votes++;
			continue;
		}
		if (FG_ALLOC_GROW(u->cur, u->ncur + 1, u->acur, 16))
			return FG_ENOMEM;
		u->cur[u->ncur++] = pl;
	}
	return 0;
}

/* The modules of p's file maps in u->cur, each once, with the bias most
 * of its maps agree on (the first of those in a tie). */
static int collect(pd_unwinder *u, const pd_proc *p)
{
	size_t i, k, n = 0;
	int err;

	u->ncur = 0;
	for (i = 0; i < p->n; i++) {
		pd_module *m = p->maps[i].mod;
		if (!m || m->anon || m->kernel)
			continue;
		if ((err = pd_symbols_load(u->syms, m)))
			return err;
		if ((m->elf_path || m->image) && (err = vote(u, &p->maps[i])))
			return err;
	}
	for (i = 0; i < u->ncur; i++) {
		for (k = 0; k < n && u->cur[k].mod != u->cur[i].mod; k++)
			;
		if (k == n)
			u->cur[n++] = u->cur[i];
		else if (u->cur[i].votes > u->cur[k].votes)
			u->cur[k] = u->cur[i];
	}
	u->ncur = n;
	return 0;
}

/* Brings ps->dwfl to the modules in u->cur: the new ones are added to
 * the Dwfl as it is (libdwfl keeps the ELF and CFI of the others), unless
 * one of those it holds is gone or moved, or libdwfl refuses one (a file
 * mapped over another's place): then a new Dwfl gets them all. */
static int update(pd_unwinder *u, struct proc_state *ps)
{
	bool fresh = !ps->dwfl, ok = true;
	size_t i;

	for (i = 0; i < ps->nrep && !fresh; i++)
		fresh = !has_placed(u->cur, u->ncur, &ps->rep[i]);
	for (;;) {
		if (fresh) {
			if (ps->dwfl)
				dwfl_end(ps->dwfl);
			ps->attached = false;
			ps->nrep = 0;
			if (!(ps->dwfl = dwfl_begin(&u->callbacks)))
				return FG_ENOMEM;
			dwfl_report_begin(ps->dwfl);
		} else {
			dwfl_report_begin_add(ps->dwfl);
		}
		for (i = 0; i < u->ncur && ok; i++) {
			if (has_placed(ps->rep, ps->nrep, &u->cur[i]))
				continue;
			if (FG_ALLOC_GROW(ps->rep, ps->nrep + 1, ps->arep, 16))
				return FG_ENOMEM;
			/* a fresh Dwfl leaves out what it refuses */
			if (report_module(ps->dwfl, &u->cur[i]) || fresh)
				ps->rep[ps->nrep++] = u->cur[i];
			else
				ok = false;
		}
		dwfl_report_end(ps->dwfl, NULL, NULL);
		if (ok || fresh)
			return 0;
		fresh = true;
		ok = true;
	}
}

static int add_placed_mod(Dwfl_Module *dm, void **userdata, const char *name, Dwarf_Addr start,
			  void *arg)
{
	struct proc_state *ps = arg;
	Dwarf_Addr end = 0;
	struct placed_mod *pm;

	(void)userdata, (void)name;
	dwfl_module_info(dm, NULL, NULL, &end, NULL, NULL, NULL, NULL);
	if (FG_ALLOC_GROW(ps->mods, ps->nmods + 1, ps->amods, 8))
		return DWARF_CB_ABORT;
	pm = &ps->mods[ps->nmods++];
	memset(pm, 0, sizeof(*pm));
	pm->lo = start;
	pm->hi = end;
	pm->dm = dm;
	pm->mod = *userdata;
	return DWARF_CB_OK;
}

static int cmp_placed_mod(const void *pa, const void *pb)
{
	const struct placed_mod *a = pa, *b = pb;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* ps->mods: the modules of ps->dwfl, by address (0 or FG_ENOMEM). */
static int list_mods(struct proc_state *ps)
{
	ps->nmods = 0;
	ps->last = 0;
	if (dwfl_getmodules(ps->dwfl, add_placed_mod, ps, 0) != 0)
		return FG_ENOMEM;
	if (ps->nmods > 1)
		qsort(ps->mods, ps->nmods, sizeof(*ps->mods), cmp_placed_mod);
	return 0;
}

/* The module of ps's Dwfl at a run-time address, as dwfl_addrmodule
 * finds it (modules never overlap), or NULL. */
static struct placed_mod *mod_at(struct proc_state *ps, uint64_t pc)
{
	size_t lo = 0, hi = ps->nmods;

	if (ps->last < ps->nmods && pc >= ps->mods[ps->last].lo && pc < ps->mods[ps->last].hi)
		return &ps->mods[ps->last];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ps->mods[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
#ifdef PD_CHECK_MODS
	{
		Dwfl_Module *want = dwfl_addrmodule(ps->dwfl, pc);
		Dwfl_Module *got = lo && pc < ps->mods[lo - 1].hi ? ps->mods[lo - 1].dm : NULL;
		if (want != got)
			abort();
	}
#endif
	if (!lo || pc >= ps->mods[lo - 1].hi)
		return NULL;
	ps->last = lo - 1;
	return &ps->mods[lo - 1];
}

/* The Dwfl of pid, its modules those of the process' current maps;
 * NULL in *out when it cannot unwind. */
static int proc_dwfl(pd_unwinder *u, int32_t pid, Dwfl **out)
{
	const pd_proc *p = pd_machine_proc(u->machine, pid);
	fg_strmap_entry *e;
	struct proc_state *ps;
	int err;

	*out = NULL;
	if (!p)
		return FG_ENOMEM;
	/* the state of the process of the sample before (states live as
	 * long as the unwinder) */
	if (u->ps && u->ps_pid == pid) {
		ps = u->ps;
	} else {
		if (!(e = fg_strmap_put(&u->procs, (const char *)&pid, sizeof(pid))))
			return FG_ENOMEM;
		if (!(ps = e->value.p) && !(ps = e->value.p = fg_calloc(1, sizeof(*ps))))
			return FG_ENOMEM;
		u->ps_pid = pid;
		u->ps = ps;
	}
	if (!ps->dwfl || ps->gen != p->gen) {
		if ((err = collect(u, p)) || (err = update(u, ps)) || (err = list_mods(ps)))
			return err;
		ps->gen = p->gen;
	}
	/* the architecture comes from the modules: none yet, try later */
	if (!ps->attached)
		ps->attached = dwfl_attach_state(ps->dwfl, NULL, pid, &thread_callbacks, u);
	if (ps->attached)
		*out = ps->dwfl;
	return 0;
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	pd_unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;

	u->read_failed = false;
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!pc) {
		u->outermost = true;
		return DWARF_CB_ABORT;
	}
	if (u->st->reach)
		u->st->reach[u->n] = u->used;
	/* a return address: its call is the instruction before */
	if (!activation || (u->start_is_caller && u->n == 1))
		pc--;
	u->pcs[u->n++] = pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* Where a PLT entry has the return address: the offset from the stack
 * pointer (-1: addr is in no PLT). The lazy-binding entries of .plt push
 * the relocation index from their 12th byte on (then the header pushes
 * the GOT's second word from its 7th); .plt.sec and .plt.got push
 * nothing. Their CFI says the same as an expression, which libdwfl
 * (0.188) does not evaluate: it falls back to the frame pointer there and
 * skips the PLT's caller. */
static int plt_ra_offset(const pd_module *m, uint64_t vaddr)
{
	if (vaddr >= m->plt_start && vaddr < m->plt_end) {
		if (vaddr - m->plt_start < 16)
			return vaddr - m->plt_start < 6 ? 8 : 16;
		return (vaddr & 15) >= 11 ? 8 : 0;
	}
	if (vaddr >= m->plt_sec_start && vaddr < m->plt_sec_end)
		return 0;
	return -1;
}

/* Sets u->start: the sample's registers, or, for a sample in a PLT
 * entry, its caller's (the entry itself is then already pcs[0]). */
static void start_state(pd_unwinder *u, Dwfl *dwfl, int32_t pid, const struct pd_user_state *st)
{
	uint64_t ip = st->regs[PD_REG_IP], sp = st->regs[PD_REG_SP], ra;
	const struct pd_map *map;
	struct placed_mod *pm;
	Dwarf_Addr bias;
	int off;

	u->start = *st;
	u->start_is_caller = false;
	if (!dwfl || !(pm = mod_at(u->ps, ip)))
		return;
	map = pd_machine_find_map(u->machine, pid, ip);
	if (!map || !map->mod || !map->mod->loaded || map->mod->anon || map->mod->kernel)
		return;
	/* the bias libdwfl placed the module with */
	if (!dwfl_module_getelf(pm->dm, &bias))
		return;
	if ((off = plt_ra_offset(map->mod, ip - bias)) < 0)
		return;
	if (st->stack_len < (uint64_t)off + 8)
		return;
	memcpy(&ra, st->stack + off, 8);
	u->start.regs[PD_REG_IP] = ra;
	u->start.regs[PD_REG_SP] = sp + (uint64_t)off + 8;
	u->start_is_caller = true;
	u->pcs[u->n++] = ip;
}

static size_t rules_hash(const pd_module *m, uint64_t addr)
{
	uint64_t h = ((uint64_t)(uintptr_t)m ^ addr * 0x9e3779b97f4a7c15u) * 0xff51afd7ed558ccdu;

	return (size_t)(h ^ h >> 29);
}

/* Room in the rules table for one more entry: 0 or FG_ENOMEM (a cache
 * that cannot grow is an error, as the reader's other caches). */
static int rules_room(pd_unwinder *u)
{
	struct rule_key *oldk = u->rkeys, *vk;
	struct rules *old = u->rules, *v;
	size_t n = u->arules, a = n ? n * 2 : 1024, i, k;

	if ((u->nrules + 1) * 2 <= n)
		return 0;
	if (!(vk = fg_calloc(a, sizeof(*vk))))
		return FG_ENOMEM;
	if (!(v = fg_malloc(a * sizeof(*v)))) {
		free(vk);
		return FG_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (!oldk[i].mod)
			continue;
		for (k = rules_hash(oldk[i].mod, oldk[i].addr) & (a - 1); vk[k].mod;
		     k = (k + 1) & (a - 1))
			;
		vk[k] = oldk[i];
		v[k] = old[i];
	}
	free(old);
	free(oldk);
	u->rules = v;
	u->rkeys = vk;
	u->arules = a;
	return 0;
}

/* libdw's rules for addr of cfi in r; r->plain false when there are
 * none (libdwfl then tries .debug_frame and the frame pointer) or they
 * are not all of the plain kinds. */
static void read_rules(Dwarf_CFI *cfi, uint64_t addr, struct rules *r)
{
	Dwarf_Frame *frame;
	Dwarf_Op mem[3], *ops;
	size_t nops, k;
	bool signal;
	int d;

	r->plain = false;
	r->nops = 0;
	r->same = 0;
	if (dwarf_cfi_addrframe(cfi, addr, &frame))
		return;
	/* a signal frame is unwound from its own pc, not the one before */
	if (dwarf_frame_info(frame, NULL, NULL, &signal) != RA_REG || signal)
		goto done;
	if (dwarf_frame_cfa(frame, &ops, &nops) || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    ops[0].number >= NREGS)
		goto done;
	r->cfa_reg = (uint8_t)ops[0].number;
	r->cfa_off = (int64_t)ops[0].number2;
	for (d = 0; d < NREGS; d++) {
		uint64_t off = 0;
		bool val = false;

		if (dwarf_frame_register(frame, d, mem, &ops, &nops))
			goto done;
		if (!nops) {
			if (ops != mem && ops)
				goto done;
			if (!ops)
				r->same |= 1u << d;
			continue;
		}
		if (ops[0].atom != DW_OP_call_frame_cfa)
			goto done;
		k = 1;
		if (k < nops && ops[k].atom == DW_OP_plus_uconst)
			off = ops[k++].number;
		if (k < nops && ops[k].atom == DW_OP_stack_value) {
			val = true;
			k++;
		}
		if (k != nops || (int64_t)off < INT32_MIN || (int64_t)off > INT32_MAX)
			goto done;
		r->ops[r->nops].reg = (uint8_t)d;
		r->ops[r->nops].off = (int32_t)off;
		r->ops[r->nops++].kind = val ? RULE_VAL : RULE_AT;
	}
	r->plain = true;
done:
	free(frame);
}

/* The rules at pc (a run-time address) of the module there in *out,
 * asked of libdw once per module and address; NULL where libdwfl finds
 * no module or CFI (it falls back to the frame pointer). 0 or
 * FG_ENOMEM. */
static int rules_at(pd_unwinder *u, uint64_t pc, const struct rules **out)
{
	struct placed_mod *pm = mod_at(u->ps, pc);
	const pd_module *m;
	size_t k, mask;
	uint64_t addr;
	int err;

	*out = NULL;
	if (!pm || !(m = pm->mod))
		return 0;
	if (!pm->cfi_asked) {
		Dwarf_Addr bias = 0;
		pm->cfi = dwfl_module_eh_cfi(pm->dm, &bias);
		pm->bias = bias;
		pm->cfi_asked = true;
	}
	if (!pm->cfi)
		return 0;
	addr = pc - pm->bias;
	if (u->arules) {
		mask = u->arules - 1;
		for (k = rules_hash(m, addr) & mask; u->rkeys[k].mod; k = (k + 1) & mask)
			if (u->rkeys[k].mod == m && u->rkeys[k].addr == addr) {
				*out = &u->rules[k];
				return 0;
			}
	}
	if ((err = rules_room(u)))
		return err;
	mask = u->arules - 1;
	for (k = rules_hash(m, addr) & mask; u->rkeys[k].mod; k = (k + 1) & mask)
		;
	read_rules(pm->cfi, addr, &u->rules[k]);
	u->rkeys[k].mod = m;
	u->rkeys[k].addr = addr;
	u->nrules++;
	*out = &u->rules[k];
	return 0;
}

/* Unwinds the sample from u->start with the rules of rules_at, doing
 * what libdwfl's dwfl_getthread_frames and on_frame do with them (the
 * same registers known, the same memory read, the same frames given):
 * 1 when done; 0, with u->n as it was, where a rule is not plain (then
 * libdwfl unwinds the sample); FG_ENOMEM. */
static int fast_unwind(pd_unwinder *u, Dwfl *dwfl)
{
	uint64_t regs[NREGS] = { 0 }, pc = u->start.regs[PD_REG_IP];
	const struct pd_user_state *st = u->st;
	const unsigned char *stack = st->stack;
	uint64_t sp = st->regs[PD_REG_SP];
	/* the last offset in the copy a word can be read at (as unsigned,
	 * addresses below sp are past it: none when the copy holds no
	 * word); the end of the valid stack */
	bool words = st->stack_len >= 8;
	uint64_t last = words ? st->stack_len - 8 : 0;
	uint64_t valid = st->stack_full > st->stack_len ? st->stack_full : st->stack_len;
	uint32_t known = 0, got;
	size_t n0 = u->n, j;
	bool initial = true;
	int d, err;

	if (!pc)
		return 0;
	/* as set_initial_registers: rip itself is not a known register */
	for (d = 0; d < 16; d++) {
		int p = perf_reg_of_dwarf[d];
		if (u->start.mask >> p & 1) {
			regs[d] = u->start.regs[p];
			known |= 1u << d;
		}
	}
	for (;;) {
		/* past the sampled frame, the call is the instruction before
		 * the return address */
		const struct rules *r;
		uint64_t cfa, v = 0;
		bool cfa_ok;

		if ((err = rules_at(u, initial ? pc : pc - 1, &r)))
			return err;
		if (!r || !r->plain) {
			u->n = n0;
			return 0;
		}
		u->read_failed = false;
		if (st->reach)
			st->reach[u->n] = u->used;
		u->pcs[u->n] = initial && !(u->start_is_caller && u->n == 1) ? pc : pc - 1;
		if (++u->n >= u->max)
			return 1;
		cfa_ok = known >> r->cfa_reg & 1;
		cfa = regs[r->cfa_reg] + (uint64_t)r->cfa_off;
		/* the registers that keep their value stay as they are (known
		 * when they were); the others are set from the CFA, which was
		 * taken before any changes */
		got = known & r->same;
		/* what the sample needed of its stack, for fetch.c: up to the
		 * CFA, below which a frame keeps what it saves */
		if (cfa_ok && cfa - sp < valid && cfa - sp > u->used)
			u->used = cfa - sp;
		for (j = 0; j < r->nops && cfa_ok; j++) {
			const struct rule_op *op = &r->ops[j];
			uint64_t a = cfa + (uint64_t)(int64_t)op->off;
			d = op->reg;
			if (op->kind == RULE_VAL)
				v = a;
			else if (words && a - sp <= last) /* in the copy: memory_read's first case */
				memcpy(&v, stack + (a - sp), 8);
			else if (!memory_read(dwfl, a, &v, u))
				continue;
			regs[d] = v;
			got |= 1u << d;
		}
		/* no return address, or 0: the outermost frame */
		if (!(got >> RA_REG & 1) || !regs[RA_REG]) {
			u->outermost = true;
			return 1;
		}
		known = got;
		pc = regs[RA_REG];
		initial = false;
	}
}

int pd_unwind(pd_unwinder *u, int32_t pid, int32_t tid, const struct pd_user_state *st,
	      uint64_t *pcs, size_t max, size_t *n)
{
	Dwfl *dwfl;
	int err;

	*n = 0;
	if (!max)
		return 0;
	if ((err = proc_dwfl(u, pid, &dwfl)))
		return err;
	u->st = st;
	u->pcs = pcs;
	u->max = max;
	u->n = 0;
	u->more_len = 0;
	u->used = 0;
	u->outermost = false;
	start_state(u, dwfl, pid, st);
	u->read_failed = false;
	if (dwfl && u->n < max && !(err = fast_unwind(u, dwfl))) {
		u->read_failed = false;
		/* 0: the frames went on to one without a return address */
		if (!dwfl_getthread_frames(dwfl, tid > 0 ? tid : pid, on_frame, u) &&
		    !u->read_failed)
			u->outermost = true;
	}
	if (err < 0) {
		u->st = NULL;
		*n = 0;
		return err;
	}
	/* perf's unwinding reads what is beyond the copy as 0 and still
	 * gives that frame (address -1, "[unknown]"): so does this one */
	if (u->read_failed && u->n && u->n < max)
		pcs[u->n++] = UINT64_MAX;
	/* not even the sampled frame: it is still the sample's address */
	if (!u->n && (st->mask >> PD_REG_IP & 1))
		pcs[u->n++] = st->regs[PD_REG_IP];
	*n = u->n;
	u->st = NULL;
	return 0;
}

uint64_t pd_unwind_used(const pd_unwinder *u)
{
	return u->used;
}

bool pd_unwind_outermost(const pd_unwinder *u)
{
	return u->outermost;
}
