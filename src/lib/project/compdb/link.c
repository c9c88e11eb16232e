/* Linking a compile-database target: the target's object plus
 * the smallest set of other non-main objects resolving its undefined
 * symbols, read from the objects' symbol tables with libelf; then the
 * system libraries (-lm, -lpthread, -ldl, -lrt) whose symbol tables
 * define what is still missing. Asking the libraries themselves, rather
 * than keeping a list of well-known names, stays right across libc
 * versions (pthread moved into libc in glibc 2.34). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "flamegraph/error.h"
#include "lib/project/compdb/link.h"
#include "util/input.h"
#include "util/banned.h"

static int push_sym(const char ***arr, size_t *n, size_t *alloc, const char *s)
{
	if (*n == *alloc) {
		size_t cap = *alloc ? 2 * *alloc : 32;
		const char **a = fg_realloc_array((void *)*arr, cap, sizeof(**arr));
		if (!a)
			return FG_ENOMEM;
		*arr = a;
		*alloc = cap;
	}
	(*arr)[(*n)++] = s;
	return 0;
}

/* Calls fn for every global or weak symbol of the symbol tables of type
 * `want` (SHT_SYMTAB, SHT_DYNSYM) in e. */
typedef int (*sym_fn)(void *ctx, const char *name, bool defined, bool weak);

static int walk_symbols(Elf *e, Elf64_Word want, sym_fn fn, void *ctx)
{
	Elf_Scn *scn = NULL;
	int err = 0;

	while (!err && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != want || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		size_t count = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; !err && i < count; i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			int bind = GELF_ST_BIND(sym.st_info);
			if ((bind != STB_GLOBAL && bind != STB_WEAK) ||
			    !(name = elf_strptr(e, sh.sh_link, sym.st_name)) || !*name)
				continue;
			err = fn(ctx, name, sym.st_shndx != SHN_UNDEF, bind == STB_WEAK);
		}
	}
	return err;
}

struct unit_ctx {
	struct fg_compdb *db;
	size_t ui;
};

static int unit_sym(void *ctx, const char *name, bool defined, bool weak)
{
	struct unit_ctx *c = ctx;
	struct fg_compdb_unit *x = &c->db->ux[c->ui];
	const char *s = fg_strmap_intern(&c->db->names, name, strlen(name));

	if (!s)
		return FG_ENOMEM;
	if (!defined) /* a weak reference may stay unresolved */
		return weak ? 0 : push_sym(&x->undefs, &x->nundefs, &x->aundefs, s);
	if (!strcmp(name, "main"))
		x->has_main = true;
	return push_sym(&x->defs, &x->ndefs, &x->adefs, s);
}

static int open_elf(const char *path, int *fd, Elf **e)
{
	*e = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return fg_error_set(FG_EIO, "libelf is unusable");
	if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return fg_error_set(FG_EIO, "cannot open %s", path);
	*e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*e) {
		close(*fd);
		return fg_error_set(FG_EIO, "%s: %s", path, elf_errmsg(-1));
	}
	return 0;
}

int fg_compdb_read_symbols(struct fg_compdb *db, fg_project *p, size_t ui)
{
	struct unit_ctx c = { db, ui };
	struct fg_compdb_unit *x = &db->ux[ui];
	const char *path = p->units[ui].object;
	Elf *e = NULL;
	int fd, err;

	x->ndefs = x->nundefs = 0;
	x->has_main = p->units[ui].has_main = false;
	if ((err = open_elf(path, &fd, &e)))
		return err;
	if (elf_kind(e) != ELF_K_ELF)
		err = fg_error_set(FG_EIO, "%s (compiled from %s) is not an ELF object — only ELF "
				   "toolchains are supported", path, p->units[ui].source);
	else
		err = walk_symbols(e, SHT_SYMTAB, unit_sym, &c);
	elf_end(e);
	close(fd);
	p->units[ui].has_main = x->has_main;
	if (err || x->has_main)
		return err;
	/* only objects without main can be linked into another program */
	for (size_t i = 0; i < x->ndefs; i++) {
		const char *s = x->defs[i];
		fg_strmap_entry *d = fg_strmap_put(&db->defs, s, strlen(s));
		if (!d)
			return FG_ENOMEM;
		if (!d->value.u) /* the first definer in database order wins */
			d->value.u = (uint64_t)(ui + 1);
	}
	return 0;
}

/* Which non-main unit defines s, or (size_t)-1. */
static size_t definer(const struct fg_compdb *db, const char *s)
{
	fg_strmap_entry *d = fg_strmap_get(&db->defs, s, strlen(s));
	return d && d->value.u ? (size_t)(d->value.u - 1) : (size_t)-1;
}

int fg_compdb_select(size_t **out, size_t *n, const struct fg_compdb *db, size_t main_unit,
		     fg_strvec *missing)
{
	fg_strmap provided = FG_STRMAP_INIT;
	bool *in = fg_calloc(db->n ? db->n : 1, sizeof(*in));
	size_t *sel = fg_calloc(db->n ? db->n : 1, sizeof(*sel)), count = 0;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (!in || !sel) {
		err = FG_ENOMEM;
		goto done;
	}
	sel[count++] = main_unit;
	in[main_unit] = true;
	/* breadth first over the selected units: each one's undefined
	 * symbols pull in their definers, which are scanned in turn */
	for (size_t k = 0; !err && k < count; k++) {
		const struct fg_compdb_unit *x = &db->ux[sel[k]];
		for (size_t i = 0; !err && i < x->ndefs; i++)
			if (!fg_strmap_put(&provided, x->defs[i], strlen(x->defs[i])))
				err = FG_ENOMEM;
		for (size_t i = 0; !err && i < x->nundefs; i++) {
			size_t d = definer(db, x->undefs[i]);
			if (d != (size_t)-1 && !in[d]) {
				in[d] = true;
				sel[count++] = d;
			}
		}
	}
	for (size_t k = 0; !err && k < count; k++) {
		const struct fg_compdb_unit *x = &db->ux[sel[k]];
		for (size_t i = 0; !err && i < x->nundefs; i++) {
			const char *s = x->undefs[i];
			fg_strmap_entry *m = fg_strmap_get(&provided, s, strlen(s));
			if (m)
				continue;
			/* listed once: mark it provided */
			if (!fg_strmap_put(&provided, s, strlen(s)) || fg_strvec_push(missing, s))
				err = FG_ENOMEM;
		}
	}
done:
	fg_strmap_release(&provided);
	free(in);
	if (err) {
		free(sel);
		return err;
	}
	*out = sel;
	*n = count;
	return 0;
}

/* The system libraries asked about, in the order they are tried; libc
 * first so that what it defines never pulls in another one. */
static const char *const sys_libs[] = { "c", "m", "pthread", "dl", "rt" };
#define NSYS (sizeof(sys_libs) / sizeof(sys_libs[0]))

struct sys_ctx {
	struct fg_compdb *db;
	uint64_t bit;
};

static int sys_sym(void *ctx, const char *name, bool defined, bool weak)
{
	struct sys_ctx *c = ctx;
	fg_strmap_entry *m;

	(void)weak;
	if (!defined)
		return 0;
	if (!(m = fg_strmap_put(&c->db->sys, name, strlen(name))))
		return FG_ENOMEM;
	m->value.u |= c->bit;
	return 0;
}

/* Reads one library file: a shared object's dynamic symbols, an
 * archive's members' symbols, or the files a linker script names
 * (Debian's libc.so and libm.so are scripts). `depth` stops loops. */
static void read_lib_file(struct sys_ctx *c, const char *path, int depth)
{
	Elf *e = NULL, *m;
	int fd;

	if (depth > 2 || open_elf(path, &fd, &e)) {
		fg_error_clear();
		return;
	}
	if (elf_kind(e) == ELF_K_ELF) {
		walk_symbols(e, SHT_DYNSYM, sys_sym, c);
	} else if (elf_kind(e) == ELF_K_AR) {
		Elf_Cmd cmd = ELF_C_READ_MMAP;
		while ((m = elf_begin(fd, cmd, e))) {
			walk_symbols(m, SHT_SYMTAB, sys_sym, c);
			cmd = elf_next(m);
			elf_end(m);
		}
	} else {
		char *data = NULL;
		size_t len = 0;
		if (!fg_read_file(path, &data, &len)) {
			for (char *s = data; (s = strchr(s, '/'));) {
				size_t n = strcspn(s, " \t\r\n()");
				char save = s[n];
				s[n] = '\0';
				read_lib_file(c, s, depth + 1);
				s[n] = save;
				s += n;
			}
		}
		free(data);
		fg_error_clear();
	}
	elf_end(e);
	close(fd);
}

/* Asks the compiler where lib<name>.so is, and reads its symbols. */
static int load_sys_lib(struct fg_compdb *db, const fg_project *p, const char *cc, size_t k)
{
	struct sys_ctx c = { db, 1ull << k };
	fg_cmd cmd = FG_CMD_INIT;
	fg_strbuf out = FG_STRBUF_INIT;
	fg_exit_status st = { 0, 0 };
	int err = 0;

	(void)p;
	db->sys_loaded |= 1u << k;
	if (fg_strvec_push(&cmd.argv, cc) ||
	    fg_strvec_pushf(&cmd.argv, "-print-file-name=lib%s.so", sys_libs[k])) {
		err = FG_ENOMEM;
		goto done;
	}
	if (fg_cmd_capture(&cmd, &out, &st) || st.code != 0) {
		fg_error_clear();
		goto done;
	}
	fg_view v = fg_view_trim(fg_view_of(out.buf, out.len));
	fg_strbuf_setlen(&out, v.len);
	/* without a path the compiler did not find it */
	if (strchr(out.buf, '/'))
		read_lib_file(&c, out.buf, 0);
done:
	fg_cmd_clear(&cmd);
	fg_strbuf_release(&out);
	return err;
}

/* Symbols the linker itself provides. */
static bool linker_defined(const char *s)
{
	static const char *const names[] = { "_GLOBAL_OFFSET_TABLE_", "_DYNAMIC", "__dso_handle",
		"__ehdr_start", "__executable_start", "_end", "_edata", "__bss_start", "_etext",
		"etext", "edata", "end", "__TMC_END__", NULL };
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(s, names[i]))
			return true;
	return !strncmp(s, "__start_", 8) || !strncmp(s, "__stop_", 7) ||
	       !strncmp(s, "__init_array_", 13) || !strncmp(s, "__fini_array_", 13) ||
	       !strncmp(s, "__preinit_array_", 16);
}

/* Adds -l<lib> for the libraries that define missing symbols, and keeps
 * in `left` what none defines. */
static int pick_sys_libs(struct fg_compdb *db, const fg_project *p, const char *cc,
			 const fg_strvec *missing, fg_strvec *libs, fg_strvec *left)
{
	uint64_t used = 0;
	int err = 0;

	for (size_t i = 0; !err && i < missing->n; i++) {
		const char *s = missing->v[i];
		fg_strmap_entry *m = NULL;
		if (linker_defined(s))
			continue;
		for (size_t k = 0; !err && k < NSYS; k++) {
			if (!(db->sys_loaded & (1u << k)))
				err = load_sys_lib(db, p, cc, k);
			m = fg_strmap_get(&db->sys, s, strlen(s));
			if (m && (m->value.u & (1ull << k))) {
				used |= 1ull << k;
				break;
			}
			m = NULL;
		}
		if (!err && !m)
			err = fg_strvec_push(left, s);
	}
	for (size_t k = 1; !err && k < NSYS; k++)
		if (used & (1ull << k))
			err = fg_strvec_pushf(libs, "-l%s", sys_libs[k]);
	return err;
}

/* "foo (used in src/a.c), bar (used in src/b.c)" for the error message. */
static void describe_left(const fg_project *p, const struct fg_compdb *db, const size_t *sel,
			  size_t nsel, const fg_strvec *left, fg_strbuf *sb)
{
	size_t root = strlen(p->loc.root);

	for (size_t i = 0; i < left->n && i < 12; i++) {
		fg_strbuf_addf(sb, "%s%s (used in", i ? ", " : "", left->v[i]);
		for (size_t k = 0; k < nsel; k++) {
			const struct fg_compdb_unit *x = &db->ux[sel[k]];
			for (size_t j = 0; j < x->nundefs; j++) {
				if (strcmp(x->undefs[j], left->v[i]))
					continue;
				const char *src = p->units[sel[k]].source;
				if (!strncmp(src, p->loc.root, root) && src[root] == '/')
					src += root + 1;
				fg_strbuf_addf(sb, " %s", src);
				break;
			}
		}
		fg_strbuf_addch(sb, ')');
	}
	if (left->n > 12)
		fg_strbuf_addf(sb, " and %zu more", left->n - 12);
}

int fg_compdb_build(fg_project *p, const struct fg_target *t, fg_build_result *res)
{
	struct fg_compdb *db = p->state;
	fg_strvec missing = FG_STRVEC_INIT, libs = FG_STRVEC_INIT, left = FG_STRVEC_INIT;
	fg_strbuf why = FG_STRBUF_INIT;
	const struct fg_unit *tx = &p->units[t->unit];
	const char *cc = p->units[t->unit].argv.v[0];
	size_t *sel = NULL, nsel = 0, nlibs = p->libs.n;
	int err;

	if ((err = fg_compdb_select(&sel, &nsel, db, t->unit, &missing)))
		goto done;
	if ((err = pick_sys_libs(db, p, cc, &missing, &libs, &left)))
		goto done;
	/* with libraries we cannot see into (flamegraph.toml, the entry's own
	 * -l flags) the linker has the last word */
	if (left.n && !p->libs.n && !p->ldflags.n && !tx->linkflags.n) {
		describe_left(p, db, sel, nsel, &left, &why);
		err = fg_error_set(FG_EBUILD, "cannot link %s: no object in %s defines %s — add the "
				   "missing source to the build (and regenerate the database), or "
				   "name the library in flamegraph.toml [build] libs", t->name,
				   fg_path_base(p->loc.file), why.buf);
		goto done;
	}
	/* the program's own link flags and the libraries found on demand
	 * join the project's for this link only */
	if ((err = fg_strvec_pushv(&p->libs, (const char *const *)tx->linkflags.v, tx->linkflags.n)) ||
	    (err = fg_strvec_pushv(&p->libs, (const char *const *)libs.v, libs.n)))
		goto done;
	err = fg_units_link(p, t, sel, nsel, false, res);
	for (size_t i = 0; !err && res->rebuilt && i < libs.n; i++)
		fg_project_note(p, "%s uses symbols only %s defines: linked with it", t->name, libs.v[i]);
done:
	while (p->libs.n > nlibs)
		free(p->libs.v[--p->libs.n]);
	if (p->libs.v)
		p->libs.v[p->libs.n] = NULL;
	free(sel);
	fg_strvec_clear(&missing);
	fg_strvec_clear(&libs);
	fg_strvec_clear(&left);
	fg_strbuf_release(&why);
	return err;
}

void fg_compdb_free(struct fg_compdb *db)
{

	if (!db)
		return;
	for (size_t i = 0; i < db->n; i++) {
		free(db->ux[i].defs);
		free(db->ux[i].undefs);
	}
	free(db->ux);
	fg_strmap_release(&db->names);
	fg_strmap_release(&db->defs);
	fg_strmap_release(&db->sys);
	free(db);
}

static void compdb_free(void *data)
{
	fg_compdb_free(data);
}

int fg_compdb_compile_all(fg_project *p)
{
	struct fg_compdb *db = fg_calloc(1, sizeof(*db));
	size_t *all = fg_calloc(p->nunits ? p->nunits : 1, sizeof(*all));
	bool changed = false;
	int err;

	if (db && !(db->ux = fg_calloc(p->nunits ? p->nunits : 1, sizeof(*db->ux)))) {
		free(db);
		db = NULL;
	}
	if (!db || !all) {
		free(all);
		compdb_free(db);
		return FG_ENOMEM;
	}
	db->n = p->nunits;
	if (p->state_free)
		p->state_free(p->state);
	p->state = db;
	p->state_free = compdb_free;
	for (size_t i = 0; i < p->nunits; i++)
		all[i] = i;
	err = fg_units_compile(p, all, p->nunits, &changed);
	free(all);
	for (size_t i = 0; !err && i < p->nunits; i++)
		err = fg_compdb_read_symbols(db, p, i);
	return err;
}
