/* Fuzz target: the plain-Make reader of make's dry-run output
 * (fg_make_read_dryrun: lines, continuations, shell operators and
 * quotes, cd, Entering directory, compiler/ar/libtool commands), and
 * the Makefile variable reader (fg_makevars_parse, then every variable
 * the input names expanded) and the include directives read
 * (fg_make_included: every file named is a non-empty word) on the same
 * bytes.
 *
 * Checks beyond "no crash": every unit compiles into <build>/obj/ with
 * -g -fno-omit-frame-pointer, every archive we make lies in <build>/lib/
 * and every program in the build folder (no "/../" out of them: a
 * dry-run path never makes us write into the user's tree); every link
 * names units and archives that exist; every error has a message. */
#include "lib/project/make/make.h"
#include "lib/project/make/vars.h"
#include "fuzz_project.h"
#include "util/strvec.h"

static bool inside(const char *path, const char *dir, const char *sub)
{
	size_t n = strlen(dir), k = strlen(sub);
	return !strncmp(path, dir, n) && !strncmp(path + n, sub, k) && !strstr(path + n, "/../");
}

static void check(const fg_project *p)
{
	const fg_make_state *st = p->state;

	for (size_t i = 0; i < p->nunits; i++) {
		const struct fg_unit *u = &p->units[i];
		if (!u->object || !inside(u->object, p->build_dir, "/obj/"))
			fz_fail("an object outside <build>/obj/");
		if (u->argv.n < 3 || strcmp(u->argv.v[u->argv.n - 1], "-fno-omit-frame-pointer"))
			fz_fail("a unit compiled without our flags last");
	}
	if (!st)
		return;
	for (size_t i = 0; i < st->narchives; i++) {
		if (!inside(st->archives[i].path, p->build_dir, "/lib/"))
			fz_fail("an archive outside <build>/lib/");
		for (size_t k = 0; k < st->archives[i].nunits; k++)
			if (st->archives[i].units[k] >= p->nunits)
				fz_fail("an archive member that is no unit");
	}
	if (st->nlinks != p->ntargets)
		fz_fail("targets and links differ in number");
	for (size_t i = 0; i < p->ntargets; i++) {
		const fg_make_link *l = &st->links[i];
		if (!inside(p->targets[i].exe, p->build_dir, "/"))
			fz_fail("a program outside the build folder");
		if (!l->driver)
			fz_fail("a link without a driver");
		for (size_t k = 0; k < l->nunits; k++)
			if (l->units[k] >= p->nunits)
				fz_fail("a link naming no unit");
		for (size_t k = 0; k < l->narchives; k++)
			if (l->archives[k] >= st->narchives)
				fz_fail("a link naming no archive");
	}
}

static void variables(const uint8_t *data, size_t size)
{
	fg_makevars *mv = NULL;
	char name[32];

	if (fg_makevars_parse(&mv, (const char *)data, size))
		return;
	/* the names the input assigns: the words before '=' */
	for (size_t i = 0; i < size; i++) {
		size_t s = i, n;
		while (i < size && data[i] != '=' && data[i] != '\n')
			i++;
		n = i - s;
		while (n && (data[s] == ' ' || data[s] == '\t'))
			s++, n--;
		if (!n || n >= sizeof(name) || i >= size || data[i] != '=')
			continue;
		memcpy(name, data + s, n);
		name[n] = '\0';
		const char *raw = fg_makevars_raw(mv, name);
		char *v = raw ? fg_makevars_expand(mv, raw) : NULL;
		if (v && strlen(v) > (1u << 20))
			fz_fail("an expansion past its cap");
		free(v);
	}
	fg_makevars_free(mv);
}

static void included(const uint8_t *data, size_t size)
{
	fg_strvec files = FG_STRVEC_INIT;

	if (!fg_make_included((const char *)data, size, &files))
		for (size_t i = 0; i < files.n; i++)
			if (!*files.v[i] || strpbrk(files.v[i], " \t\r\n\f\v"))
				fz_fail("an included file that is not one word");
	fg_strvec_clear(&files);
	fg_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	fg_project *p = fz_project("Makefile", &opts);
	int err;

	if (!p)
		return 0;
	err = fg_make_read_dryrun(p, p->loc.root, (const char *)data, size);
	fz_check_error(err);
	check(p);
	fz_check_targets(p, false);
	fg_project_free(p);
	fg_error_clear();
	variables(data, size);
	included(data, size);
	return 0;
}
