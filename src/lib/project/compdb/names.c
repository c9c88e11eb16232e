/* Real names for compile_commands targets. A compile database says which
 * sources are compiled, not what the programs are called: a program
 * `tool` linked from cli/tool_os.c (its main) and other objects would be
 * offered as `tool_os`. When the project's own build has made its
 * executables in the tree, each target is named after the executable
 * that holds its main unit, found by the source file names the
 * executable's symbol table records (STT_FILE, one per compile unit) and
 * its definition of main; the source stem stays a second name. */
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/project/compdb/compdb.h"
#include "util/banned.h"

#define MAX_DEPTH 6
#define MAX_FILES 20000

struct exe {
	char *path;
	fg_strvec files; /* the source file names of its compile units */
};

struct scan {
	const fg_project *p;
	struct exe *exes;
	size_t n, alloc;
	size_t seen;     /* files looked at, against MAX_FILES */
};

static bool is_elf_file(const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool elf;

	if (fd < 0)
		return false;
	elf = read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);
	close(fd);
	return elf;
}

/* A program (not a shared library or object): an executable ELF file, or
 * a position-independent one with an interpreter. */
static bool is_program(Elf *e)
{
	GElf_Ehdr eh;
	size_t nph;

	if (!gelf_getehdr(e, &eh))
		return false;
	if (eh.e_type == ET_EXEC)
		return true;
	if (eh.e_type != ET_DYN || elf_getphdrnum(e, &nph) != 0)
		return false;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
			return true;
	}
	return false;
}

/* The STT_FILE names of a program that defines main; false when it does
 * not (or has no symbol table: stripped). */
static bool read_files(Elf *e, fg_strvec *files)
{
	Elf_Scn *scn = NULL;
	bool has_main = false;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;
			if (!gelf_getsym(d, (int)i, &s) || !(name = elf_strptr(e, sh.sh_link, s.st_name)))
				continue;
			if (GELF_ST_TYPE(s.st_info) == STT_FILE && *name)
				fg_strvec_push(files, name);
			else if (GELF_ST_TYPE(s.st_info) == STT_FUNC && s.st_shndx != SHN_UNDEF &&
				 !strcmp(name, "main"))
				has_main = true;
		}
	}
	return has_main;
}

static bool room(struct scan *sc)
{
	struct exe *grown;

	if (sc->n < sc->alloc)
		return true;
	if (!(grown = fg_realloc_array(sc->exes, sc->alloc ? sc->alloc * 2 : 16, sizeof(*grown))))
		return false;
	sc->exes = grown;
	sc->alloc = sc->alloc ? sc->alloc * 2 : 16;
	return true;
}

static bool inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

static void consider(struct scan *sc, const char *path)
{
	struct exe x = { NULL, FG_STRVEC_INIT };
	Elf *e;
	int fd;

	if (!is_elf_file(path) || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && is_program(e) && read_files(e, &x.files) && x.files.n && room(sc) &&
	    (x.path = fg_strdup(path))) {
		sc->exes[sc->n++] = x;
		x.files = (fg_strvec)FG_STRVEC_INIT;
	}
	fg_strvec_clear(&x.files);
	if (e)
		elf_end(e);
	close(fd);
}

static void walk(struct scan *sc, const char *dir, int depth)
{
	DIR *d;
	struct dirent *de;

	if (depth > MAX_DEPTH || !(d = opendir(dir)))
		return;
	while ((de = readdir(d)) && sc->seen < MAX_FILES) {
		struct stat st;
		char *path;
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "node_modules"))
			continue;
		if (!(path = fg_path_join(dir, de->d_name)))
			break;
		sc->seen++;
		/* our own build folder holds our programs, not the project's */
		if (lstat(path, &st) != 0)
			;
		else if (S_ISDIR(st.st_mode) && !inside(path, sc->p->build_dir))
			walk(sc, path, depth + 1);
		else if (S_ISREG(st.st_mode) && (st.st_mode & S_IXUSR) && st.st_size > 64)
			consider(sc, path);
		free(path);
	}
	closedir(d);
}

static bool holds(const struct exe *x, const char *file)
{
	for (size_t i = 0; i < x->files.n; i++)
		if (!strcmp(x->files.v[i], file))
			return true;
	return false;
}

static bool name_used(const fg_project *p, const char *name)
{
	for (size_t i = 0; i < p->ntargets; i++)
		if (!strcmp(p->targets[i].name, name) || (p->targets[i].alias && !strcmp(p->targets[i].alias, name)))
			return true;
	return false;
}

int fg_compdb_real_names(fg_project *p)
{
	struct scan sc = { p, NULL, 0, 0, 0 };
	int err = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	walk(&sc, p->loc.root, 0);
	for (size_t i = 0; !err && i < p->ntargets; i++) {
		struct fg_target *t = &p->targets[i];
		const char *file = fg_path_base(p->units[t->unit].source);
		const struct exe *found = NULL;
		for (size_t k = 0; k < sc.n && !found; k++)
			if (holds(&sc.exes[k], file))
				found = &sc.exes[k];
		if (!found)
			continue;
		const char *real = fg_path_base(found->path);
		if (!strcmp(real, t->name) || name_used(p, real))
			continue;
		char *exe = fg_path_join(p->build_dir, real), *name = fg_strdup(real);
		if (!exe || !name) {
			free(exe);
			free(name);
			err = FG_ENOMEM;
			break;
		}
		t->alias = t->name;
		t->name = name;
		free(t->exe);
		t->exe = exe;
	}
	for (size_t k = 0; k < sc.n; k++) {
		free(sc.exes[k].path);
		fg_strvec_clear(&sc.exes[k].files);
	}
	free(sc.exes);
	return err;
}
