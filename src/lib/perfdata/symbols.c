/* Symbol sources of the perf.data reader, each loaded once, on the first
 * address that needs it:
 * - a mapped ELF file: its PT_LOAD segments (to turn the file-relative
 *   addresses of the maps into ELF addresses) and the symbol table of the
 *   first file in perf's order that has one: the debuglink target, the
 *   build-id debug file under the debug folder, the file itself (or its
 *   .dynsym when nothing has a .symtab). The file itself is the one the
 *   map names when its build id is the recorded one, else the copy in
 *   the build-id cache;
 * - the DWARF of that symbol file, for inlined frames: the scopes around
 *   an address, innermost first, as addr2line -i lists them;
 * - kallsyms for kernel addresses.
 * Which symbol wins at an address several share, and where one without a
 * size ends, follow perf's documented choices (sized over unsized, strong
 * over weak, global over local, fewer leading underscores, the longer
 * name, else the first); each address is resolved once per module. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/perfdata/cuindex.h"
#include "lib/perfdata/internal.h"
#include "lib/perfdata/scopes.h"
#include "util/banned.h"

/* Unresolved frames of inlined scopes kept per address, at most. */
#define MAX_INLINE 64

void pd_symbols_init(pd_symbols *s, const fg_perfdata_opts *opts)
{
	fg_strmap empty = FG_STRMAP_INIT;

	memset(s, 0, sizeof(*s));
	elf_version(EV_CURRENT);
	s->opts = *opts;
	s->modules = empty;
	s->buildids = empty;
	s->kernel.kernel = true;
	s->kernel.path = "[kernel.kallsyms]";
	s->kernel.dwarf_fd = -1;
}

static void module_release(pd_module *m)
{
	pd_cu_index_release(&m->cus);
	pd_scope_index_release(&m->scopes);
	if (m->dwarf)
		dwarf_end(m->dwarf);
	if (m->dwarf_elf)
		elf_end(m->dwarf_elf);
	if (m->dwarf_fd >= 0)
		close(m->dwarf_fd);
	free(m->elf_path);
	free(m->segs);
	free(m->syms);
	pd_kallsyms_release(m);
	free(m->pool);
	pd_jitmap_free(m->jitmap);
	pd_u64map_release(&m->cache);
	pd_u64map_release(&m->die_names);
	fg_arena_release(&m->arena);
}

void pd_symbols_release(pd_symbols *s)
{
	size_t i = 0;
	fg_strmap_entry *e;

	while ((e = fg_strmap_next(&s->modules, &i))) {
		pd_module *m = e->value.p;
		if (!m)
			continue; /* its allocation failed */
		module_release(m);
		free(m->path);
		free(m);
	}
	fg_strmap_release(&s->modules);
	fg_strmap_release(&s->buildids);
	module_release(&s->kernel);
}

int pd_symbols_add_buildid(pd_symbols *s, const char *path, size_t plen, const uint8_t *id,
			   size_t idlen)
{
	fg_strmap_entry *e = fg_strmap_put(&s->buildids, path, plen);
	uint8_t *copy;

	if (!e || !(copy = fg_arena_alloc(&s->buildids.keys, 21)))
		return FG_ENOMEM;
	if (idlen > 20)
		idlen = 20;
	copy[0] = (uint8_t)idlen;
	memcpy(copy + 1, id, idlen);
	e->value.p = copy;
	return 0;
}

static bool is_kernel_name(const char *path)
{
	return !strncmp(path, "[kernel.kallsyms]", 17) || !strncmp(path, "[guest.kernel", 13) ||
	       (path[0] == '/' && strstr(path, ".ko") && strstr(path, "/lib/modules/"));
}

pd_module *pd_symbols_module(pd_symbols *s, const char *path)
{
	size_t len = strlen(path);
	fg_strmap_entry *e;
	pd_module *m;

	if (is_kernel_name(path))
		return &s->kernel;
	if (!(e = fg_strmap_put(&s->modules, path, len)))
		return NULL;
	if ((m = e->value.p))
		return m;
	if (!(m = fg_calloc(1, sizeof(*m))) || !(m->path = fg_strndup(path, len))) {
		free(m);
		return NULL;
	}
	m->dwarf_fd = -1;
	m->vdso = !strcmp(path, "[vdso]");
	/* memory with no file: perf shows its addresses unchanged */
	m->jit = len > 14 && !strncmp(path, "/tmp/perf-", 10) && !strcmp(path + len - 4, ".map");
	m->anon = !strncmp(path, "//anon", 6) || !strncmp(path, "/dev/zero", 9) ||
		  !strncmp(path, "/anon_hugepage", 14) || !strncmp(path, "[stack", 6) ||
		  !strcmp(path, "[heap]") || !strncmp(path, "/SYSV", 5) || !strncmp(path, "[anon:", 6) ||
		  m->jit;
	m->loaded = m->anon && !m->jit;
	if ((e = fg_strmap_get(&s->buildids, path, len))) {
		const uint8_t *id = e->value.p;
		m->build_id_len = id[0];
		memcpy(m->build_id, id + 1, id[0]);
	}
	/* after the lookup above: the put may have moved the entries */
	e = fg_strmap_get(&s->modules, path, len);
	e->value.p = m;
	return m;
}

/* ---- ELF files ---- */

/* The GNU build id of an ELF, in *id (up to 20 bytes); 0: none. */
static size_t elf_build_id(Elf *elf, uint8_t *id)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + name_off, "GNU", 4)) {
				size_t n = nh.n_descsz > 20 ? 20 : nh.n_descsz;
				memcpy(id, (const char *)d->d_buf + desc_off, n);
				return n;
			}
		}
	}
	return 0;
}

static bool build_id_matches(const pd_module *m, Elf *elf)
{
	uint8_t id[20];
	size_t n;

	if (!m->build_id_len)
		return true;
	n = elf_build_id(elf, id);
	return n == m->build_id_len && !memcmp(id, m->build_id, n);
}

/* Opens path as an ELF file; *fd gets its descriptor. */
static Elf *open_elf(const char *path, int *fd)
{
	struct stat st;
	Elf *elf;

	/* a recording names any path: never block on a FIFO or read a device */
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0)
		return NULL;
	if (fstat(*fd, &st) || !S_ISREG(st.st_mode)) {
		close(*fd);
		*fd = -1;
		return NULL;
	}
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(*fd);
		*fd = -1;
		return NULL;
	}
	return elf;
}

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;
		if (!gelf_getshdr(scn, out) || !(n = elf_strptr(elf, shstrndx, out->sh_name)))
			continue;
		if (!strcmp(n, name))
			return scn;
	}
	return NULL;
}

static bool has_section_type(Elf *elf, uint32_t type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return true;
	return false;
}

static int read_segments(pd_module *m, Elf *elf)
{
	size_t i, n, alloc = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (FG_ALLOC_GROW(m->segs, m->nsegs + 1, alloc, 4))
			return FG_ENOMEM;
		m->segs[m->nsegs].off = ph.p_offset;
		m->segs[m->nsegs].vaddr = ph.p_vaddr;
		m->segs[m->nsegs].filesz = ph.p_filesz;
		m->nsegs++;
	}
	return 0;
}

/* perf's preference between two symbols at one address: true when a
 * should be kept over b. */
static bool better(const struct pd_elfsym *a, int abind, const struct pd_elfsym *b, int bbind)
{
	size_t ua = 0, ub = 0, la, lb;

	if ((a->end > a->start) != (b->end > b->start))
		return a->end > a->start;
	if ((abind == STB_WEAK) != (bbind == STB_WEAK))
		return bbind == STB_WEAK;
	if ((abind == STB_GLOBAL) != (bbind == STB_GLOBAL))
		return abind == STB_GLOBAL;
	while (a->name[ua] == '_')
		ua++;
	while (b->name[ub] == '_')
		ub++;
	if (ua != ub)
		return ua < ub;
	la = strlen(a->name);
	lb = strlen(b->name);
	return la >= lb;
}

struct rawsym {
	struct pd_elfsym s;
	int bind;
	size_t seq;
};

/* Sorts raw[0..n) by start, those with one start in the order they
 * came (by seq, as they are listed): a radix sort of the starts' bytes,
 * least significant first, the bytes all symbols share skipped.
 * Returns 0 or FG_ENOMEM. */
static int sort_rawsyms(struct rawsym *raw, size_t n)
{
	uint64_t all_or = 0, all_and = UINT64_MAX;
	struct rawsym *tmp, *from = raw, *to;
	size_t count[256], i, b;
	unsigned shift;

	for (i = 0; i < n; i++) {
		all_or |= raw[i].s.start;
		all_and &= raw[i].s.start;
	}
	if (n < 2 || !(tmp = fg_malloc(n * sizeof(*tmp))))
		return n < 2 ? 0 : FG_ENOMEM;
	to = tmp;
	for (shift = 0; shift < 64; shift += 8) {
		size_t sum = 0;
		if (!((all_or ^ all_and) >> shift & 0xff))
			continue;
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[from[i].s.start >> shift & 0xff]++;
		for (b = 0; b < 256; b++) {
			size_t c = count[b];
			count[b] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			to[count[from[i].s.start >> shift & 0xff]++] = from[i];
		to = from;
		from = from == raw ? tmp : raw;
	}
	if (from != raw)
		memcpy(raw, from, n * sizeof(*raw));
	free(tmp);
	return 0;
}

/* Sorts raw[0..n), keeps one symbol per address and gives the unsized
 * ones the next symbol's start as end; the result goes to m->syms. */
static int finish_symbols(pd_module *m, struct rawsym *raw, size_t n)
{
	size_t i, k = 0;
	int err;

	if ((err = sort_rawsyms(raw, n)))
		return err;
	for (i = 0; i < n; i++) {
		if (k && raw[k - 1].s.start == raw[i].s.start) {
			if (!better(&raw[k - 1].s, raw[k - 1].bind, &raw[i].s, raw[i].bind))
				raw[k - 1] = raw[i];
			continue;
		}
		raw[k++] = raw[i];
	}
	for (i = 0; i + 1 < k; i++)
		if (raw[i].s.end == raw[i].s.start)
			raw[i].s.end = raw[i + 1].s.start;
	if (!(m->syms = fg_malloc((k ? k : 1) * sizeof(*m->syms))))
		return FG_ENOMEM;
	for (i = 0; i < k; i++)
		m->syms[i] = raw[i].s;
	m->nsyms = k;
	return 0;
}

static bool section_is_text(Elf *elf, size_t shstrndx, size_t ndx)
{
	Elf_Scn *scn = elf_getscn(elf, ndx);
	GElf_Shdr sh;
	const char *name;

	if (!scn || !gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
		return false;
	return strstr(name, "text") != NULL || strstr(name, "data") != NULL;
}

/* A growing list of symbols before finish_symbols. */
struct rawlist {
	struct rawsym *v;
	size_t n, alloc;
};

static int raw_add(pd_module *m, struct rawlist *l, uint64_t start, uint64_t size,
		   const char *name, size_t nlen, int bind)
{
	struct rawsym *r;

	if (FG_ALLOC_GROW(l->v, l->n + 1, l->alloc, 256))
		return FG_ENOMEM;
	r = &l->v[l->n];
	r->s.start = start;
	r->s.end = start + size;
	r->s.mod = NULL;
	if (!(r->s.name = fg_arena_strndup(&m->arena, name, nlen)))
		return FG_ENOMEM;
	r->bind = bind;
	r->seq = l->n++;
	return 0;
}

/* Adds the functions and labels of table `type` of elf. */
static int load_elf_symbols(pd_module *m, Elf *elf, uint32_t type, struct rawlist *l)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t i, count, shstrndx;
	Elf_Data *d;
	int err;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			break;
	if (!scn || !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
		return 0;
	count = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < count; i++) {
		GElf_Sym sym;
		const char *name;
		int t;
		if (!gelf_getsym(d, (int)i, &sym))
			continue;
		t = GELF_ST_TYPE(sym.st_info);
		if (t != STT_FUNC && t != STT_GNU_IFUNC && t != STT_NOTYPE)
			continue;
		if (!sym.st_name || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		if (!(name = elf_strptr(elf, sh.sh_link, sym.st_name)) || !*name)
			continue;
		/* functions in any section (_init in .init); labels only in
		 * text (or data) sections, as perf takes them */
		if (t == STT_NOTYPE && !section_is_text(elf, shstrndx, sym.st_shndx))
			continue;
		if ((err = raw_add(m, l, sym.st_value, sym.st_size, name, strlen(name),
				   GELF_ST_BIND(sym.st_info))))
			return err;
	}
	return 0;
}

/* A .rela.plt relocation: the GOT slot it fills and the symbol's name. */
struct plt_rel {
	uint64_t slot;
	const char *name;
};

static int by_slot(const void *a, const void *b)
{
	const struct plt_rel *x = a, *y = b;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* perf names the PLT entries of a file after the functions they call.
 * Entry i of .plt.sec (or of .plt, after its 16-byte header) jumps
 * through the i-th GOT slot of the PLT's, so the entries take the
 * relocations of .rela.plt in the order of the slots they fill, which is
 * not always the order of the table: glibc's libc lists its IRELATIVE
 * ones first. "NAME@plt", "@plt" for one without a symbol. */
static int plt_symbols(pd_module *m, Elf *elf, struct rawlist *l)
{
	GElf_Shdr plt, rela, dynsym;
	Elf_Scn *rscn, *sscn;
	Elf_Data *rd, *sd;
	uint64_t base, entry = 16;
	size_t i, count, n = 0;
	struct plt_rel *rels;
	char name[512];
	int err = 0;

	if (!(rscn = find_section(elf, ".rela.plt", &rela)) || rela.sh_type != SHT_RELA ||
	    !rela.sh_entsize || !(rd = elf_getdata(rscn, NULL)))
		return 0;
	if (find_section(elf, ".plt.sec", &plt))
		base = plt.sh_addr;
	else if (find_section(elf, ".plt", &plt))
		base = plt.sh_addr + 16;
	else
		return 0;
	if (!(sscn = elf_getscn(elf, rela.sh_link)) || !gelf_getshdr(sscn, &dynsym) ||
	    !(sd = elf_getdata(sscn, NULL)))
		return 0;
	count = rela.sh_size / rela.sh_entsize;
	if (!count)
		return 0;
	if (!(rels = fg_malloc(count * sizeof(*rels))))
		return FG_ENOMEM;
	for (i = 0; i < count; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *sname = "";
		if (!gelf_getrela(rd, (int)i, &r))
			continue;
		if (GELF_R_SYM(r.r_info) && gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym) &&
		    !(sname = elf_strptr(elf, dynsym.sh_link, sym.st_name)))
			sname = "";
		rels[n].slot = r.r_offset;
		rels[n++].name = sname;
	}
	qsort(rels, n, sizeof(*rels), by_slot);
	for (i = 0; i < n && !err; i++) {
		int len = snprintf(name, sizeof(name), "%s@plt", rels[i].name);
		if (len < 0 || (size_t)len >= sizeof(name))
			continue;
		err = raw_add(m, l, base + i * entry, entry, name, (size_t)len, STB_GLOBAL);
	}
	free(rels);
	return err;
}

/* The PLT sections of elf, for the unwinder (see plt_ra_offset). */
static void plt_ranges(pd_module *m, Elf *elf)
{
	GElf_Shdr sh;

	if (find_section(elf, ".plt", &sh)) {
		m->plt_start = sh.sh_addr;
		m->plt_end = sh.sh_addr + sh.sh_size;
	}
	if (find_section(elf, ".plt.sec", &sh) || find_section(elf, ".plt.got", &sh)) {
		m->plt_sec_start = sh.sh_addr;
		m->plt_sec_end = sh.sh_addr + sh.sh_size;
	}
}

/* The .gnu_debuglink name of elf, or NULL. */
static const char *debuglink(Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(elf, ".gnu_debuglink", &sh);
	Elf_Data *d;

	if (!scn || !(d = elf_getdata(scn, NULL)) || !d->d_size)
		return NULL;
	if (!memchr(d->d_buf, '\0', d->d_size))
		return NULL;
	return d->d_buf;
}

/* Tries one candidate symbol file: kept (in *elf_out, *fd_out) when it
 * is an ELF with a .symtab and the module's build id. */
static bool try_symfile(pd_module *m, const char *path, Elf **elf_out, int *fd_out)
{
	int fd;
	Elf *elf = open_elf(path, &fd);

	if (!elf)
		return false;
	if (has_section_type(elf, SHT_SYMTAB) && build_id_matches(m, elf)) {
		*elf_out = elf;
		*fd_out = fd;
		return true;
	}
	elf_end(elf);
	close(fd);
	return false;
}

void pd_hex_id(const pd_module *m, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < m->build_id_len; i++) {
		out[2 * i] = hex[m->build_id[i] >> 4];
		out[2 * i + 1] = hex[m->build_id[i] & 15];
	}
	out[2 * m->build_id_len] = '\0';
}

/* The separate file with the symbols of m (runtime is its own ELF),
 * in perf's order; NULL when runtime itself is to be used, or (*err
 * FG_ENOMEM) when a path could not be made. */
static Elf *find_symfile(pd_symbols *s, pd_module *m, Elf *runtime, const char *runtime_path,
			 int *fd, int *err)
{
	const char *dbg = s->opts.debug_dir ? s->opts.debug_dir : "/usr/lib/debug";
	const char *link = debuglink(runtime), *slash = strrchr(runtime_path, '/');
	size_t dirlen = slash ? (size_t)(slash - runtime_path) : 0;
	fg_strbuf p = FG_STRBUF_INIT;
	Elf *elf = NULL;
	char id[41];

	if (link) {
		fg_strbuf_reset(&p);
		if (!fg_strbuf_addf(&p, "%.*s/%s", (int)dirlen, runtime_path, link) &&
		    strcmp(p.buf, runtime_path) && try_symfile(m, p.buf, &elf, fd))
			goto done;
		fg_strbuf_reset(&p);
		if (!fg_strbuf_addf(&p, "%.*s/.debug/%s", (int)dirlen, runtime_path, link) &&
		    try_symfile(m, p.buf, &elf, fd))
			goto done;
		fg_strbuf_reset(&p);
		if (!fg_strbuf_addf(&p, "%s%.*s/%s", dbg, (int)dirlen, runtime_path, link) &&
		    try_symfile(m, p.buf, &elf, fd))
			goto done;
	}
	if (m->build_id_len > 1) {
		pd_hex_id(m, id);
		fg_strbuf_reset(&p);
		if (!fg_strbuf_addf(&p, "%s/.build-id/%.2s/%s.debug", dbg, id, id + 2) &&
		    try_symfile(m, p.buf, &elf, fd))
			goto done;
	}
done:
	*err = fg_strbuf_check(&p);
	fg_strbuf_release(&p);
	return elf;
}

/* The file the map names, or its copy in the build-id cache when that
 * one is not the recorded build (path: its name; failed when it could
 * not be made). */
static Elf *open_runtime(pd_symbols *s, pd_module *m, fg_strbuf *path, int *fd)
{
	Elf *elf = NULL;
	char id[41];

	fg_strbuf_reset(path);
	if (!m->vdso && !fg_strbuf_addstr(path, m->path) && (elf = open_elf(path->buf, fd))) {
		if (build_id_matches(m, elf))
			return elf;
		elf_end(elf);
		close(*fd);
		elf = NULL;
	}
	if (s->opts.buildid_dir && m->build_id_len > 1) {
		pd_hex_id(m, id);
		fg_strbuf_reset(path);
		/* perf keeps the vdso it saw as "vdso", other files as "elf" */
		if (!fg_strbuf_addf(path, "%s/.build-id/%.2s/%s/%s", s->opts.buildid_dir, id, id + 2,
				    m->vdso ? "vdso" : "elf") &&
		    (elf = open_elf(path->buf, fd)) && build_id_matches(m, elf))
			return elf;
		if (elf) {
			elf_end(elf);
			close(*fd);
		}
	}
	return NULL;
}

/* The vdso of this process: the same kernel made the recording's when
 * the build ids agree. */
static Elf *own_vdso(pd_module *m)
{
	const unsigned char *base = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	Elf *elf;
	GElf_Ehdr eh;
	size_t size;

	if (!base)
		return NULL;
	/* the image ends with its section headers */
	if (!(elf = elf_memory((char *)base, 4096)) || !gelf_getehdr(elf, &eh)) {
		if (elf)
			elf_end(elf);
		return NULL;
	}
	elf_end(elf);
	size = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
	if (!(elf = elf_memory((char *)base, size)))
		return NULL;
	if (!build_id_matches(m, elf)) {
		elf_end(elf);
		return NULL;
	}
	/* the unwinder reads its CFI from the image too */
	m->image = base;
	m->image_size = size;
	return elf;
}

/* m's DWARF, from *elf (which m then owns: *elf and *fd are cleared),
 * or from the uncompressed copy of the debug cache when *elf's is
 * compressed. */
static void open_dwarf(pd_symbols *s, pd_module *m, Elf **elf, int *fd)
{
	char id[41];
	int cfd = -1;
	Elf *copy = NULL;

	pd_hex_id(m, id);
	if (s->opts.cache_dir && m->build_id_len && pd_debugcache_wanted(*elf))
		copy = pd_debugcache_open(s->opts.cache_dir, id, *elf, &cfd);
	if (copy && (m->dwarf = dwarf_begin_elf(copy, DWARF_C_READ, NULL))) {
		m->dwarf_elf = copy;
		m->dwarf_fd = cfd;
		return;
	}
	if (copy) {
		elf_end(copy);
		close(cfd);
	}
	if ((m->dwarf = dwarf_begin_elf(*elf, DWARF_C_READ, NULL))) {
		m->dwarf_elf = *elf;
		m->dwarf_fd = *fd;
		*elf = NULL;
		*fd = -1;
	}
}

static int load_module(pd_symbols *s, pd_module *m)
{
	fg_strbuf path = FG_STRBUF_INIT;
	int fd = -1, sfd = -1, err = 0;
	Elf *elf = NULL, *symelf = NULL;
	struct rawlist raw = { NULL, 0, 0 };
	GElf_Ehdr eh;

	m->loaded = true;
	if (m->jit)
		return pd_jitmap_load(&m->jitmap, m->path);
	elf = open_runtime(s, m, &path, &fd);
	if ((err = fg_strbuf_check(&path)))
		goto done;
	if (elf && !(m->elf_path = fg_strdup(path.buf))) {
		err = FG_ENOMEM;
		goto done;
	}
	if (!elf && m->vdso)
		elf = own_vdso(m);
	if (!elf)
		goto done;
	s->loaded++;
	if (gelf_getehdr(elf, &eh))
		m->elf_type = eh.e_type;
	/* perf records the build ids of the files with sampled addresses
	 * only: the others are read from the file, as perf does */
	if (!m->build_id_len)
		m->build_id_len = elf_build_id(elf, m->build_id);
	if ((err = read_segments(m, elf)))
		goto done;
	if (!m->vdso && !(symelf = find_symfile(s, m, elf, path.buf, &sfd, &err)) && err)
		goto done;
	if (symelf)
		err = load_elf_symbols(m, symelf, SHT_SYMTAB, &raw);
	else if (has_section_type(elf, SHT_SYMTAB))
		err = load_elf_symbols(m, elf, SHT_SYMTAB, &raw);
	else {
		/* a debug link or build id: the rest is in a debug file */
		m->partial_symbols = !m->vdso && (debuglink(elf) || m->build_id_len > 1);
		err = load_elf_symbols(m, elf, SHT_DYNSYM, &raw);
	}
	if (!err)
		err = plt_symbols(m, elf, &raw);
	plt_ranges(m, elf);
	if (!err)
		err = finish_symbols(m, raw.v, raw.n);
	if (err || !(s->opts.inline_frames || s->opts.lines) || m->vdso)
		goto done;
	/* inlined frames come from the DWARF of the symbol file */
	if (symelf)
		open_dwarf(s, m, &symelf, &sfd);
	else
		open_dwarf(s, m, &elf, &fd);
done:
	if (symelf)
		elf_end(symelf);
	if (sfd >= 0)
		close(sfd);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	free(raw.v);
	fg_strbuf_release(&path);
	return err;
}

/* ---- resolution ---- */

static const struct pd_elfsym *find_sym(const pd_module *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	{
		const struct pd_elfsym *sym = &m->syms[lo - 1];
		if (addr < sym->end || (addr == sym->start && sym->end == sym->start))
			return sym;
	}
	return NULL;
}

/* file offset (as the maps give it) -> ELF address */
static uint64_t to_vaddr(const pd_module *m, uint64_t off)
{
	size_t i;

	for (i = 0; i < m->nsegs; i++)
		if (off >= m->segs[i].off && off < m->segs[i].off + m->segs[i].filesz)
			return off - m->segs[i].off + m->segs[i].vaddr;
	return off;
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n;

	if ((dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	     dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a)) &&
	    (n = dwarf_formstring(&a)))
		return n;
	if (dwarf_attr_integrate(die, DW_AT_name, &a) && (n = dwarf_formstring(&a)))
		return n;
	return NULL;
}

/* die_name of a scope, asked of libdw once per DIE (its bytes' address
 * is its key): the scopes of a function's many addresses share its DIEs,
 * and an inlined instance's name is found through its abstract origin.
 * Returns 0 or FG_ENOMEM. */
static int scope_name(pd_module *m, Dwarf_Die *die, const char **out)
{
	uint64_t *v;
	const char *n;

	if (pd_u64map_put(&m->die_names, (uint64_t)(uintptr_t)die->addr, &v))
		return FG_ENOMEM;
	if (!*v) {
		n = die_name(die);
		/* 1 stands for no name: 0 is a new entry */
		*v = n ? (uint64_t)(uintptr_t)n : 1;
	}
	*out = *v == 1 ? NULL : (const char *)(uintptr_t)*v;
	return 0;
}

static bool has_linkage_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	       dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a);
}



/* The function of an assembly unit at addr, as addr2line names it (and
 * perf with it): of the unit's functions around addr, the smallest, of
 * equal ones the last — glibc's assembly gives one address several
 * (alarm, __alarm, __GI_alarm), and the last is perf's. NULL: none. */
static const char *assembly_name(Dwarf_Die *cudie, uint64_t addr)
{
	Dwarf_Die die;
	const char *best = NULL;
	uint64_t best_size = UINT64_MAX;

	if (dwarf_child(cudie, &die))
		return NULL;
	do {
		Dwarf_Addr lo, hi;
		const char *name;
		if (dwarf_tag(&die) != DW_TAG_subprogram || dwarf_lowpc(&die, &lo) ||
		    dwarf_highpc(&die, &hi) || addr < lo || addr >= hi || !(name = die_name(&die)))
			continue;
		if (hi - lo <= best_size) {
			best = name;
			best_size = hi - lo;
		}
	} while (!dwarf_siblingof(&die, &die));
	return best;
}

/* The name of file number idx of a unit's line table, without its folder. */
static const char *unit_file(Dwarf_Die *cudie, Dwarf_Word idx)
{
	Dwarf_Files *files;
	size_t nfiles;
	const char *name;

	if (dwarf_getsrcfiles(cudie, &files, &nfiles) || idx >= nfiles ||
	    !(name = dwarf_filesrc(files, idx, NULL, NULL)))
		return NULL;
	return strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
}

/* Where the scope `inl` (an inlined instance) was inlined: its call file
 * and line, the line of its caller. */
static void call_site(Dwarf_Die *cudie, Dwarf_Die *inl, struct pd_srcpos *pos)
{
	Dwarf_Attribute a;
	Dwarf_Word file, line;

	pos->file = NULL;
	pos->line = 0;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &a), &file) ||
	    dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &a), &line))
		return;
	pos->file = unit_file(cudie, file);
	pos->line = pos->file ? (unsigned)line : 0;
}

/* The line addr is on, from the unit's line table. */
static void line_at(Dwarf_Die *cudie, uint64_t addr, struct pd_srcpos *pos)
{
	Dwarf_Line *l = dwarf_getsrc_die(cudie, addr);
	const char *name = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	int line = 0;

	pos->file = name ? (strrchr(name, '/') ? strrchr(name, '/') + 1 : name) : NULL;
	pos->line = name && !dwarf_lineno(l, &line) && line > 0 ? (unsigned)line : 0;
	if (!pos->line)
		pos->file = NULL;
}

/* Names of the scopes around addr: inlined instances innermost first,
 * then the function, in *count (0: no DWARF for addr); with pos, the
 * source line of each (the sampled line for the innermost, the call line
 * of the scope inside for the others). Returns 0 or FG_ENOMEM. The
 * scopes of dwarf_getscopes go from an inlined instance on to its
 * abstract definition's, not to where it was inlined: the chain of
 * callers is that of the innermost scope's enclosing DIEs
 * (dwarf_getscopes_die). */
static int scope_names(pd_module *m, uint64_t addr, const char **names, struct pd_srcpos *pos,
		       size_t max, size_t *count)
{
	Dwarf_Die cudie, chain[MAX_SCOPE_DEPTH];
	int lang;
	size_t i, n, k = 0, inner = 0; /* inner: the last function scope seen */
	bool cplus, found;

	*count = 0;
	/* the compilation unit holding addr (the aranges when there are;
	 * else each unit's ranges) */
	if (!m->dwarf)
		return 0;
	if (pd_cu_of(&m->cus, m->dwarf, addr, &cudie, &found))
		return FG_ENOMEM;
	if (!found)
		return 0;
	if ((lang = dwarf_srclang(&cudie)) == DW_LANG_Mips_Assembler) {
		*count = max && (names[0] = assembly_name(&cudie, addr)) ? 1 : 0;
		if (*count && pos)
			line_at(&cudie, addr, &pos[0]);
		return 0;
	}
	cplus = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
		lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
	if (pd_scopes_at(&m->scopes, &cudie, addr, chain, MAX_SCOPE_DEPTH, &n))
		return FG_ENOMEM;
	for (i = 0; i < n && k < max; i++) {
		int tag = dwarf_tag(&chain[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		if (pos && !k)
			line_at(&cudie, addr, &pos[k]);
		else if (pos)
			call_site(&cudie, &chain[inner], &pos[k]);
		inner = i;
		if (scope_name(m, &chain[i], &names[k++]))
			return FG_ENOMEM;
		if (tag == DW_TAG_subprogram) {
			/* a C++ function known by its plain name only (a
			 * lambda's operator()): perf names it by its symbol */
			if (cplus && !has_linkage_name(&chain[i]))
				names[k - 1] = NULL;
			break;
		}
	}
	*count = k;
	return 0;
}

static fg_perfdata_frame *pool_add(pd_module *m)
{
	if (FG_ALLOC_GROW(m->pool, m->npool + 1, m->apool, 256))
		return NULL;
	memset(&m->pool[m->npool], 0, sizeof(*m->pool));
	return &m->pool[m->npool++];
}

/* Whether a scope's DWARF name is the function of the symbol itself:
 * the same name, or, for C++, the same demangled name up to its
 * parameters, as perf compares them (the symbol of a clone, such as
 * "f(double const&) [clone .isra.0]", is f's). */
static bool same_function(fg_arena *arena, const char *name, const char *sym)
{
	const char *a, *b;
	size_t la, lb;

	if (!strcmp(name, sym))
		return true;
	if (strncmp(name, "_Z", 2) || strncmp(sym, "_Z", 2))
		return false;
	a = pd_demangle(arena, name);
	b = pd_demangle(arena, sym);
	if (!a || !b)
		return false; /* out of memory: the caller's demangling fails too */
	la = strcspn(a, "(");
	lb = strcspn(b, "(");
	return la == lb && !memcmp(a, b, la);
}

static int resolve_new(pd_symbols *s, pd_module *m, uint64_t rel, struct pd_resolved *r)
{
	uint64_t addr = m->kernel ? rel : to_vaddr(m, rel);
	struct pd_elfsym ksym;
	const struct pd_elfsym *sym = m->jit ? pd_jitmap_find(m->jitmap, addr) :
				      !m->kernel ? find_sym(m, addr) :
				      pd_kallsyms_find(m, addr, &ksym) ? &ksym : NULL;
	const char *names[MAX_INLINE];
	struct pd_srcpos pos[MAX_INLINE], outer = { NULL, 0 };
	bool lines = s->opts.lines && !m->kernel && !m->jit;
	size_t n = 0, i;
	fg_perfdata_frame *f;

	r->first = (uint32_t)m->npool;
	/* the linker's PLT entries belong to no compile unit: not looked
	 * for (which would visit every unit) */
	if (sym && !m->kernel && (s->opts.inline_frames || lines) &&
	    !(addr >= m->plt_start && addr < m->plt_end) &&
	    !(addr >= m->plt_sec_start && addr < m->plt_sec_end) &&
	    scope_names(m, addr, names, lines ? pos : NULL, MAX_INLINE, &n))
		return FG_ENOMEM;
	/* lines without inlined frames: the function alone, named by its
	 * symbol as ever, at the line of the outermost call inlined into it */
	if (n && !s->opts.inline_frames) {
		outer = pos[n - 1];
		n = 0;
	}
	for (i = 0; i < n; i++) {
		if (!(f = pool_add(m)))
			return FG_ENOMEM;
		f->addr = rel;
		f->module = m->path;
		/* NULL: the function is named by its symbol */
		f->sym = names[i] ? names[i] : sym->name;
		f->inlined = !same_function(&m->arena, f->sym, sym->name);
		/* DWARF's C++ names are the mangled linkage names */
		if (f->inlined && !(f->sym = fg_arena_strndup(&m->arena, f->sym, strlen(f->sym))))
			return FG_ENOMEM;
		if (!(f->sym = pd_demangle(&m->arena, f->inlined ? f->sym : sym->name)))
			return FG_ENOMEM;
		if (lines) {
			f->file = pos[i].file;
			f->line = pos[i].line;
		}
	}
	if (!n) {
		const char *name = NULL, *module = NULL;
		if (m->kernel && sym && pd_kallsyms_names(m, sym, &name, &module))
			return FG_ENOMEM;
		if (!(f = pool_add(m)))
			return FG_ENOMEM;
		f->addr = rel;
		/* perf shows a JIT's names as it wrote them */
		f->sym = m->kernel ? name : !sym ? NULL : m->jit ? sym->name :
			 pd_demangle(&m->arena, sym->name);
		if (!sym && m->partial_symbols)
			m->unnamed++;
		if (sym && !m->kernel && !f->sym)
			return FG_ENOMEM;
		f->module = module ? module : m->path;
		f->kernel = m->kernel;
		f->file = outer.file;
		f->line = outer.line;
	}
	r->n = (uint32_t)(m->npool - r->first);
	return 0;
}

int pd_symbols_load(pd_symbols *s, pd_module *m)
{
	if (m->loaded)
		return 0;
	return m->kernel ? pd_kallsyms_load(s, m) : load_module(s, m);
}

int pd_symbols_resolve(pd_symbols *s, pd_module *m, uint64_t rel, const fg_perfdata_frame **frames,
		       size_t *n)
{
	uint64_t *v;
	struct pd_resolved r;
	int err;

	if (!m->loaded && (err = m->kernel ? pd_kallsyms_load(s, m) : load_module(s, m)))
		return err;
	if ((v = pd_u64map_get(&m->cache, rel))) {
		r.first = (uint32_t)(*v >> 32);
		r.n = (uint32_t)*v;
	} else {
		if ((err = resolve_new(s, m, rel, &r)) || (err = pd_u64map_put(&m->cache, rel, &v)))
			return err;
		*v = (uint64_t)r.first << 32 | r.n;
	}
	*frames = m->pool + r.first;
	*n = r.n;
	return 0;
}

bool pd_symbols_missing_debug(const pd_symbols *s, size_t *iter, const char **path,
			      uint64_t *addresses)
{
	fg_strmap_entry *e;

	while ((e = fg_strmap_next(&s->modules, iter))) {
		const pd_module *m = e->value.p;
		if (m && m->unnamed) {
			*path = m->path;
			*addresses = m->unnamed;
			return true;
		}
	}
	return false;
}
