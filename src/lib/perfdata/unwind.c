/* Unwinding of dwarf call graphs (perf record --call-graph dwarf): the
 * kernel copied the user registers and the top of the user stack at each
 * sample; the frames above the sampled one are found by running the
 * CFI of the mapped ELF files (.eh_frame, or .debug_frame) over that
 * copy, with elfutils' libdwfl.
 *
 * One Dwfl per process holds the process' ELF files as modules, placed
 * where its maps put them; libdwfl keeps each module's ELF and CFI, so
 * they are read once per process and not once per sample. The modules are
 * reported again only when the process maps another file. Memory the
 * CFI asks for comes from the stack copy, else from the mapped file's
 * contents (read-only data); anything else is unknown and ends the
 * unwinding there, as it ends perf's. */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/perfdata/internal.h"
#include "util/banned.h"

/* x86_64 DWARF registers 0..16 (rax, rdx, rcx, rbx, rsi, rdi, rbp,
 * rsp, r8..r15, rip) as perf numbers them */
static const int perf_reg_of_dwarf[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };

struct proc_state {
	Dwfl *dwfl;
	uint64_t gen;       /* of the maps reported */
	bool attached;
};

struct pd_unwinder {
	pd_symbols *syms;
	pd_machine *machine;
	fg_strmap procs;    /* 4-byte pid -> struct proc_state * */
	Dwfl_Callbacks callbacks;
	/* the sample being unwound: its stack copy, and the registers
	 * libdwfl starts from (the sample's, or its caller's when the
	 * sample is in a PLT entry) */
	const struct pd_user_state *st;
	struct pd_user_state start;
	bool start_is_caller;  /* then its first pc is a return address */
	uint64_t *pcs;
	size_t max, n;
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

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *out, void *arg)
{
	const pd_unwinder *u = arg;
	const struct pd_user_state *st = u->st;
	uint64_t sp = st->regs[PD_REG_SP];

	if (addr >= sp && addr - sp < st->stack_len && st->stack_len - (addr - sp) >= 8) {
		memcpy(out, st->stack + (addr - sp), 8);
		return true;
	}
	return read_file_word(dwfl, addr, out);
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
		free(ps);
	}
	fg_strmap_release(&u->procs);
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
}

/* Where the map puts the module's ELF addresses: run-time address minus
 * ELF address, from the loadable segment holding the map's offset. */
static bool map_bias(const struct pd_map *map, uint64_t *bias)
{
	const pd_module *m = map->mod;
	size_t i;

	for (i = 0; i < m->nsegs; i++) {
		uint64_t off = m->segs[i].off, page = off & ~(uint64_t)4095;
		if (map->pgoff < page || map->pgoff >= off + m->segs[i].filesz)
			continue;
		*bias = map->start - map->pgoff + off - m->segs[i].vaddr;
		return true;
	}
	return false;
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

static void report_module(Dwfl *dwfl, const struct pd_map *map)
{
	const pd_module *m = map->mod;
	uint64_t bias = 0;
	int fd = -1;

	if (m->elf_type == ET_DYN && !map_bias(map, &bias))
		return;
	if (!m->elf_path && (fd = image_fd(m)) < 0)
		return;
	/* a module already reported at the same place is kept (and fd
	 * consumed); one overlapping another is refused and left out */
	if (!dwfl_report_elf(dwfl, m->path, m->elf_path ? m->elf_path : m->path, fd, bias, true) &&
	    fd >= 0)
		close(fd);
}

/* Reports the file maps of p to dwfl, each module once. */
static int report_maps(pd_unwinder *u, Dwfl *dwfl, const pd_proc *p)
{
	const pd_module **seen = NULL;
	size_t i, k, nseen = 0, aseen = 0;
	int err = 0;

	dwfl_report_begin(dwfl);
	for (i = 0; i < p->n; i++) {
		pd_module *m = p->maps[i].mod;
		if (!m || m->anon || m->kernel)
			continue;
		if ((err = pd_symbols_load(u->syms, m)))
			break;
		if (!m->elf_path && !m->image)
			continue;
		for (k = 0; k < nseen && seen[k] != m; k++)
			;
		if (k < nseen)
			continue;
		if (FG_ALLOC_GROW(seen, nseen + 1, aseen, 16)) {
			err = FG_ENOMEM;
			break;
		}
		seen[nseen++] = m;
		report_module(dwfl, &p->maps[i]);
	}
	free(seen);
	dwfl_report_end(dwfl, NULL, NULL);
	return err;
}

/* A new Dwfl for ps holding the file maps of p. A process that maps
 * another file gets a new one: libdwfl refuses a module overlapping one
 * reported before, as a file mapped over another's place would be. */
static int renew(pd_unwinder *u, struct proc_state *ps, const pd_proc *p)
{
	if (ps->dwfl)
		dwfl_end(ps->dwfl);
	ps->attached = false;
	ps->gen = p->gen;
	if (!(ps->dwfl = dwfl_begin(&u->callbacks)))
		return FG_ENOMEM;
	return report_maps(u, ps->dwfl, p);
}

/* The Dwfl of pid, its modules those of the process' current maps;
 * NULL in *out when it cannot unwind. */
static int proc_dwfl(pd_unwinder *u, int32_t pid, Dwfl **out)
{
	fg_strmap_entry *e = fg_strmap_put(&u->procs, (const char *)&pid, sizeof(pid));
	const pd_proc *p = pd_machine_proc(u->machine, pid);
	struct proc_state *ps;
	int err;

	*out = NULL;
	if (!e || !p)
		return FG_ENOMEM;
	if (!(ps = e->value.p) && !(ps = e->value.p = fg_calloc(1, sizeof(*ps))))
		return FG_ENOMEM;
	if ((!ps->dwfl || ps->gen != p->gen) && (err = renew(u, ps, p)))
		return err;
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

	if (!dwfl_frame_pc(state, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	/* a return address: its call is the instruction before */
	if (!activation || (u->start_is_caller && !u->n))
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
static void start_state(pd_unwinder *u, int32_t pid, const struct pd_user_state *st)
{
	uint64_t ip = st->regs[PD_REG_IP], sp = st->regs[PD_REG_SP], bias = 0, ra;
	const struct pd_map *map = pd_machine_find_map(u->machine, pid, ip);
	int off;

	u->start = *st;
	u->start_is_caller = false;
	if (!map || !map->mod || !map->mod->loaded || map->mod->anon || map->mod->kernel)
		return;
	if (map->mod->elf_type == ET_DYN && !map_bias(map, &bias))
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
	start_state(u, pid, st);
	if (dwfl && u->n < max)
		dwfl_getthread_frames(dwfl, tid > 0 ? tid : pid, on_frame, u);
	/* not even the sampled frame: it is still the sample's address */
	if (!u->n && (st->mask >> PD_REG_IP & 1))
		pcs[u->n++] = st->regs[PD_REG_IP];
	*n = u->n;
	u->st = NULL;
	return 0;
}
