/* The autotools reader: the targets of a configured build
 * folder, read from its generated Makefiles' *_PROGRAMS variables, and
 * the options `configure --help` lists. Running configure, autoreconf
 * and make is source.c's, configure.c's and build.c's. */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/project/autotools/autotools.h"
#include "lib/project/make/make.h"
#include "lib/project/make/vars.h"
#include "util/input.h"
#include "util/banned.h"

#define MAX_DEPTH 8

static void state_free(void *data)
{
	fg_autotools_state *st = data;

	if (!st)
		return;
	free(st->srcdir);
	fg_strvec_clear(&st->options);
	for (size_t i = 0; i < st->ngoals; i++) {
		free(st->goals[i].dir);
		free(st->goals[i].goal);
		fg_strvec_clear(&st->goals[i].deps);
		fg_strvec_clear(&st->goals[i].built);
		fg_strvec_clear(&st->goals[i].libs);
	}
	free(st->goals);
	free(st);
}

fg_autotools_state *fg_autotools_state_of(fg_project *p)
{
	if (!p->state) {
		p->state = fg_calloc(1, sizeof(fg_autotools_state));
		p->state_free = state_free;
	}
	return p->state;
}

/* ---- configure --help ------------------------------------------------------ */

bool fg_autotools_generic_option(const char *name)
{
	static const char *const generic[] = {
		"option-checking", "silent-rules", "dependency-tracking", "largefile", "year2038",
		"threads", "cross-guesses", "maintainer-mode", "shared", "static", "fast-install",
		"libtool-lock", "nls", "rpath", "pic", "gnu-ld", "sysroot", "aix-soname",
		"included-gettext", "x", NULL
	};
	size_t n = strlen(name);

	for (const char *const *g = generic; *g; g++)
		if (!strcmp(name, *g))
			return true;
	/* --with-libiconv-prefix and the like; FEATURE and PACKAGE are the
	 * help text's placeholders */
	if (n > 7 && !strcmp(name + n - 7, "-prefix"))
		return true;
	for (size_t i = 0; i < n; i++)
		if (islower((unsigned char)name[i]) || isdigit((unsigned char)name[i]))
			return false;
	return true;
}

static bool has(const fg_strvec *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return true;
	return false;
}

/* A feature name of an option ("enable-foo" -> "foo"), or NULL. */
static const char *feature_of(const char *opt)
{
	static const char *const pre[] = { "enable-", "disable-", "with-", "without-" };
	for (size_t i = 0; i < 4; i++)
		if (!strncmp(opt, pre[i], strlen(pre[i])))
			return opt + strlen(pre[i]);
	return NULL;
}

int fg_autotools_read_help(fg_project *p, const char *text, size_t len)
{
	fg_autotools_state *st = fg_autotools_state_of(p);
	const char *s = text, *end = text + len;
	int err = 0;

	if (!st)
		return FG_ENOMEM;
	while (s < end && !err) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *e = nl ? nl : end, *w;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		/* "  --enable-foo[=ARG]  text", "  --prefix=PREFIX", "  -h, --help" */
		if (e - s > 2 && s[0] == '-' && s[1] == '-' && isalpha((unsigned char)s[2])) {
			w = s + 2;
			while (w < e && (isalnum((unsigned char)*w) || *w == '-' || *w == '_'))
				w++;
			char *opt = fg_strndup(s + 2, (size_t)(w - s - 2));
			const char *f = opt ? feature_of(opt) : NULL;
			if (!opt)
				err = FG_ENOMEM;
			else if (!has(&st->options, opt))
				err = fg_strvec_push(&st->options, opt);
			if (!err && f && *f && !fg_autotools_generic_option(f) && !has(&p->bool_options, f))
				err = fg_strvec_push(&p->bool_options, f);
			free(opt);
		}
		s = nl ? nl + 1 : end;
	}
	return err;
}

/* ---- targets --------------------------------------------------------------- */

/* automake's name of a program's variables: "src/foo-bar" -> "src_foo_bar" */
static char *canonical(const char *prog)
{
	char *c = fg_strdup(prog);
	for (char *s = c; s && *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '@')
			*s = '_';
	return c;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? fg_strndup(path, slash == path ? 1 : (size_t)(slash - path)) : fg_strdup(".");
}

/* a/b/../c -> a/c, for paths built from a Makefile's relative ones */
static void normalize(char *path)
{
	char *out = path, *s = path;

	while (*s) {
		if (s[0] == '/' && s[1] == '.' && (s[2] == '/' || !s[2])) {
			s += 2;
			continue;
		}
		if (s[0] == '/' && s[1] == '.' && s[2] == '.' && (s[3] == '/' || !s[3])) {
			while (out > path && *--out != '/')
				;
			s += 3;
			continue;
		}
		*out++ = *s++;
	}
	*out = '\0';
	if (!*path) {
		path[0] = '/';
		path[1] = '\0';
	}
}

/* The words of a program's variables that may name the in-tree
 * libraries it links: its _DEPENDENCIES (automake leaves out what comes
 * from a configure substitution or a -l), its _LDADD (else the folder's
 * LDADD) and its _LDFLAGS (else AM_LDFLAGS), for -L folders. */
static int link_words(const fg_makevars *mv, const char *prog, fg_strvec *words)
{
	static const char *const suffix[] = { "_DEPENDENCIES", "_LDADD", "_LDFLAGS" };
	static const char *const fallback[] = { NULL, "LDADD", "AM_LDFLAGS" };
	fg_strbuf var = FG_STRBUF_INIT;
	char *canon = canonical(prog);
	int err = canon ? 0 : FG_ENOMEM;

	for (size_t k = 0; !err && k < 3; k++) {
		fg_strbuf_reset(&var);
		fg_strbuf_addf(&var, "%s%s", canon, suffix[k]);
		if (!var.buf)
			err = FG_ENOMEM;
		else if (fg_makevars_raw(mv, var.buf) || !fallback[k])
			err = fg_makevars_words(mv, var.buf, words);
		else
			err = fg_makevars_words(mv, fallback[k], words);
	}
	free(canon);
	fg_strbuf_release(&var);
	return err;
}

static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && (!path[n] || path[n] == '/');
}

/* The folder of the nearest Makefile at or above exe's folder, inside
 * the build folder (what `make -C` is given), or NULL. */
static char *makefile_dir(const fg_project *p, const char *exe)
{
	char *dir = dir_of(exe);

	while (dir && below(dir, p->build_dir)) {
		char *mk = fg_path_join(dir, "Makefile");
		bool found = mk && fg_path_is_file(mk);
		free(mk);
		if (found)
			return dir;
		if (!strcmp(dir, p->build_dir))
			break;
		char *up = dir_of(dir);
		free(dir);
		dir = up;
	}
	free(dir);
	return NULL;
}

/* The in-tree libraries a program links, from its variables: the build
 * folders of those in other folders (made with `make -C` first) and
 * those its own Makefile makes (made as goals first: "libfoo.la", or
 * "lib/libfoo.a" in a folder with no Makefile of its own, as a
 * non-recursive Makefile builds gnulib's lib/). A -L folder inside the
 * build counts as one that holds such a library. */
static int dependencies(const fg_project *p, const fg_makevars *mv, const char *dir,
			const char *prog, fg_strvec *dirs, fg_strvec *here)
{
	fg_strvec words = FG_STRVEC_INIT;
	int err = link_words(mv, prog, &words);

	for (size_t i = 0; !err && i < words.n; i++) {
		const char *w = words.v[i];
		size_t n = strlen(w);
		bool lib = (n > 3 && !strcmp(w + n - 3, ".la")) || (n > 2 && !strcmp(w + n - 2, ".a"));
		bool ldir = n > 2 && !strncmp(w, "-L", 2);
		if (!lib && !ldir)
			continue;
		if (ldir)
			w += 2;
		char *path = w[0] == '/' ? fg_strdup(w) : fg_path_join(dir, w), *folder = NULL;
		if (path) {
			normalize(path);
			folder = ldir ? fg_strdup(path) : dir_of(path);
		}
		if (!path || !folder) {
			err = FG_ENOMEM;
		} else if (below(folder, p->build_dir) && strcmp(folder, dir)) {
			/* a folder without a Makefile is the nearest one's above */
			char *mk = fg_path_join(folder, "Makefile"), *owner = NULL;
			if (!mk)
				err = FG_ENOMEM;
			else if (!fg_path_is_file(mk) && (owner = makefile_dir(p, path)) &&
				 !strcmp(owner, dir)) {
				const char *rel = path + strlen(dir) + 1;
				if (lib && !has(here, rel))
					err = fg_strvec_push(here, rel);
			} else if (!has(dirs, owner ? owner : folder))
				err = fg_strvec_push(dirs, owner ? owner : folder);
			free(mk);
			free(owner);
		} else if (below(folder, p->build_dir) && lib && !has(here, fg_path_base(path))) {
			err = fg_strvec_push(here, fg_path_base(path));
		}
		free(path);
		free(folder);
	}
	fg_strvec_clear(&words);
	return err;
}

static struct fg_target *find_exe(fg_project *p, const char *exe)
{
	for (size_t i = 0; i < p->ntargets; i++)
		if (p->targets[i].exe && !strcmp(p->targets[i].exe, exe))
			return &p->targets[i];
	return NULL;
}

static int add_goal(fg_autotools_state *st, size_t index)
{
	if (index >= st->ngoals) {
		fg_autotools_goal *g = fg_realloc_array(st->goals, index + 1, sizeof(*g));
		if (!g)
			return FG_ENOMEM;
		memset(g + st->ngoals, 0, (index + 1 - st->ngoals) * sizeof(*g));
		st->goals = g;
		st->ngoals = index + 1;
	}
	return 0;
}

/* The source folder matching build folder `dir` (srcdir, as `make check`
 * exports it to the tests). */
static char *source_dir_of(const fg_project *p, const fg_autotools_state *st, const char *dir)
{
	size_t blen = strlen(p->build_dir);
	const char *root = st->srcdir ? st->srcdir : p->loc.root;

	if (strncmp(dir, p->build_dir, blen) || (dir[blen] && dir[blen] != '/'))
		return fg_strdup(root);
	return dir[blen] ? fg_path_join(root, dir + blen + 1) : fg_strdup(root);
}

/* Adds the program `prog` of the Makefile in `dir` (a path below it:
 * what `make -C dir` is given) of kind `kind` (a guess when `guessed`);
 * `mv`, that Makefile's variables, tells the libraries it needs (NULL:
 * none known). */
static int add_program(fg_project *p, const fg_makevars *mv, const char *dir, const char *prog,
		       fg_target_kind kind, bool guessed)
{
	fg_autotools_state *st = fg_autotools_state_of(p);
	char *exe = fg_path_join(dir, prog), *srcdir = NULL;
	size_t blen = strlen(p->build_dir);
	struct fg_target *t;
	fg_autotools_goal *g;
	int err = 0;

	if (!st || !exe) {
		free(exe);
		return FG_ENOMEM;
	}
	normalize(exe);
	if (find_exe(p, exe)) {
		free(exe);
		return 0;
	}
	if (!(t = fg_project_add_target(p, fg_path_base(prog), kind)) ||
	    (err = add_goal(st, p->ntargets - 1))) {
		free(exe);
		return err ? err : FG_ENOMEM;
	}
	t->exe = exe;
	t->kind_guessed = guessed;
	/* "sub/prog": a name that tells two programs of one name apart */
	if (!strncmp(exe, p->build_dir, blen) && exe[blen] == '/' && strchr(exe + blen + 1, '/') &&
	    !(t->alias = fg_strdup(exe + blen + 1)))
		return FG_ENOMEM;
	if (!(t->build_name = fg_strdup(prog)))
		return FG_ENOMEM;
	g = &st->goals[p->ntargets - 1];
	if (!(g->dir = fg_strdup(dir)) || !(g->goal = fg_strdup(prog)))
		return FG_ENOMEM;
	if (mv && ((err = dependencies(p, mv, dir, prog, &g->deps, &g->libs)) ||
		   (err = fg_makevars_words(mv, "BUILT_SOURCES", &g->built))))
		return err;
	if (kind == FG_TARGET_TEST && !guessed) {
		/* as `make check` runs it: in its folder, with srcdir */
		if (!(t->cwd = fg_strdup(dir)) || !(srcdir = source_dir_of(p, st, dir)))
			return FG_ENOMEM;
		err = fg_strvec_pushf(&t->env, "srcdir=%s", srcdir);
		free(srcdir);
	}
	return err;
}

/* The programs of one variable, $(EXEEXT) expanded. */
static int add_programs(fg_project *p, const fg_makevars *mv, const char *dir, const char *var,
			fg_target_kind kind, bool guessed)
{
	fg_strvec progs = FG_STRVEC_INIT;
	int err = fg_makevars_words(mv, var, &progs);

	for (size_t i = 0; !err && i < progs.n; i++) {
		fg_target_kind k = kind;
		if (guessed) {
			/* not installed: an example unless its name says more */
			k = fg_kind_by_name(p, fg_path_base(progs.v[i]), NULL);
			k = k == FG_TARGET_BIN ? FG_TARGET_EXAMPLE : k;
		}
		err = add_program(p, mv, dir, progs.v[i], k, guessed);
	}
	fg_strvec_clear(&progs);
	return err;
}

/* Every NAME_PROGRAMS of the Makefile but check_, noinst_ and EXTRA_:
 * programs installed somewhere (bin_, sbin_, libexec_, pkglibexec_...). */
static int installed_vars(const char *text, size_t len, fg_strvec *vars)
{
	const char *s = text, *end = text + len;
	int err = 0;

	while (s < end && !err) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *e = nl ? nl : end;
		const char *w = s;
		while (w < e && (isalnum((unsigned char)*w) || *w == '_'))
			w++;
		size_t n = (size_t)(w - s);
		if (n > 9 && !memcmp(w - 9, "_PROGRAMS", 9) && w < e && (*w == ' ' || *w == '=')) {
			char *name = fg_strndup(s, n);
			if (!name)
				err = FG_ENOMEM;
			else if (strcmp(name, "check_PROGRAMS") && strcmp(name, "noinst_PROGRAMS") &&
				 strcmp(name, "EXTRA_PROGRAMS") && !has(vars, name))
				err = fg_strvec_push(vars, name);
			free(name);
		}
		s = nl ? nl + 1 : end;
	}
	return err;
}

int fg_autotools_read_makefile(fg_project *p, const char *dir, const char *text, size_t len)
{
	fg_makevars *mv = NULL;
	fg_strvec vars = FG_STRVEC_INIT;
	int err;

	if ((err = fg_makevars_parse(&mv, text, len)) || (err = installed_vars(text, len, &vars)))
		goto done;
	/* configure's output of a Makefile.in written by hand: no automake
	 * variables to read; its link rules tell the programs */
	if (!strcmp(dir, p->build_dir))
		fg_autotools_state_of(p)->handwritten = !fg_makevars_raw(mv, "AUTOMAKE");
	/* the project's own name, as AC_INIT gives it */
	if (!strcmp(dir, p->build_dir) && fg_makevars_raw(mv, "PACKAGE") &&
	    *fg_makevars_raw(mv, "PACKAGE")) {
		char *name = fg_makevars_expand(mv, fg_makevars_raw(mv, "PACKAGE"));
		if (name && *name && !strpbrk(name, " \t/")) {
			free(p->name);
			p->name = name;
		} else
			free(name);
	}
	for (size_t i = 0; !err && i < vars.n; i++)
		err = add_programs(p, mv, dir, vars.v[i], FG_TARGET_BIN, false);
	if (!err)
		err = add_programs(p, mv, dir, "check_PROGRAMS", FG_TARGET_TEST, false);
	if (!err)
		err = add_programs(p, mv, dir, "noinst_PROGRAMS", FG_TARGET_EXAMPLE, true);
	if (!err)
		err = add_programs(p, mv, dir, "EXTRA_PROGRAMS", FG_TARGET_EXAMPLE, true);
done:
	fg_strvec_clear(&vars);
	fg_makevars_free(mv);
	return err;
}

/* Every Makefile below dir, top first (our copy of the tree and the
 * .libs/.deps folders left out). */
static int walk(fg_project *p, const char *dir, int depth, bool *found)
{
	char *mk = fg_path_join(dir, "Makefile"), *text = NULL;
	size_t len = 0;
	DIR *d = NULL;
	struct dirent *e;
	fg_strvec subs = FG_STRVEC_INIT;
	int err = mk ? 0 : FG_ENOMEM;

	if (!err && fg_path_is_file(mk)) {
		if ((err = fg_read_file(mk, &text, &len)))
			goto done;
		*found = true;
		if ((err = fg_autotools_read_makefile(p, dir, text, len)))
			goto done;
	}
	if (err || depth >= MAX_DEPTH || !(d = opendir(dir)))
		goto done;
	while (!err && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, FG_AUTOTOOLS_COPY) ||
		    !strcmp(e->d_name, "autom4te.cache"))
			continue;
		char *sub = fg_path_join(dir, e->d_name);
		if (!sub)
			err = FG_ENOMEM;
		else if (fg_path_is_dir(sub))
			err = fg_strvec_push(&subs, sub);
		free(sub);
	}
	closedir(d);
	/* readdir's order is the file system's: sort for stable target order */
	for (size_t i = 1; i < subs.n; i++)
		for (size_t j = i; j > 0 && strcmp(subs.v[j - 1], subs.v[j]) > 0; j--) {
			char *tmp = subs.v[j];
			subs.v[j] = subs.v[j - 1];
			subs.v[j - 1] = tmp;
		}
	for (size_t i = 0; !err && i < subs.n; i++)
		err = walk(p, subs.v[i], depth + 1, found);
done:
	fg_strvec_clear(&subs);
	free(text);
	free(mk);
	return err;
}

int fg_autotools_read(fg_project *p)
{
	bool found = false;
	int err;

	if (!fg_autotools_state_of(p))
		return FG_ENOMEM;
	if ((err = walk(p, p->build_dir, 0, &found)))
		return err;
	if (!found)
		return fg_error_set(FG_ENOTFOUND, "configure wrote no Makefile into %s — is %s an "
				    "autotools project? Point `opts.manifest_path` at its Makefile or "
				    "compile_commands.json instead", p->build_dir, p->loc.root);
	return 0;
}

int fg_autotools_read_links(fg_project *p, const char *text, size_t len)
{
	fg_manifest_loc loc = { 0 };
	fg_project_opts opts = p->opts;
	fg_project *scratch = NULL;
	int err;

	/* the plain-Make reader, on a project rooted in the build folder: the
	 * programs it finds keep the paths the Makefile writes them to */
	loc.type = FG_MANIFEST_MAKE;
	loc.root = p->build_dir;
	loc.file = fg_path_join(p->build_dir, "Makefile");
	opts.build_dir = p->build_dir;
	if (!loc.file)
		return FG_ENOMEM;
	if ((err = fg_project_new(&scratch, &loc, &opts)) ||
	    (err = fg_make_read_dryrun(scratch, p->build_dir, text, len)))
		goto done;
	for (size_t i = 0; !err && i < scratch->ntargets; i++) {
		const struct fg_target *t = &scratch->targets[i];
		char *dir = makefile_dir(p, t->exe);
		if (dir)
			err = add_program(p, NULL, dir, t->exe + strlen(dir) + 1, t->kind, true);
		free(dir);
	}
done:
	fg_project_free(scratch);
	free(loc.file);
	return err;
}
