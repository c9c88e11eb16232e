/* The plain-Make reader: what the dry run of a Makefile
 * (`make -nB -w`, run by the builder) says about its build -- compile
 * commands, archives and link lines -- made into units, archives and
 * targets (see makefile.h). Nothing here runs a tool. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/project/compdb/compdb.h"
#include "lib/project/make/make.h"
#include "lib/project/make/vars.h"
#include "util/hashmap.h"
#include "util/banned.h"

#define MAX_DIRS 64

/* Options whose value is the next word. */
static const char *const with_value[] = {
	"-I", "-D", "-U", "-include", "-imacros", "-isystem", "-iquote", "-idirafter",
	"-isysroot", "-x", "-Xpreprocessor", "-Xassembler", "-Xclang", "-arch", "-target",
	"--param", "--sysroot", "-MF", "-MT", "-MQ", "-MJ", "-o", "-L", "-l", "-Xlinker", "-T",
	"-u", "-z", "-e", NULL
};

struct reader {
	fg_project *p;
	fg_make_state *st;
	char *dirs[MAX_DIRS];  /* Entering directory ... stack; dirs[0] the start */
	size_t ndirs;
	char *cwd;             /* of the command being read (cd changes it) */
	size_t understood;
	bool goal;             /* the dry run of a test or bench goal */
	fg_target_kind kind;   /* goal: the kind of the programs it adds */
	size_t before;         /* goal: the targets of the default dry run */
};

static bool is_source(const char *path)
{
	static const char *const exts[] = { "c", "cc", "cpp", "cxx", "c++", "C", "s", "S", NULL };
	return fg_str_in_list(exts, fg_path_ext(path));
}

static bool is_object(const char *path)
{
	return !strcmp(fg_path_ext(path), "o") || !strcmp(fg_path_ext(path), "lo");
}

static bool is_archive(const char *path)
{
	return !strcmp(fg_path_ext(path), "a") || !strcmp(fg_path_ext(path), "la");
}

static bool is_shared(const char *path)
{
	return strstr(fg_path_base(path), ".so") != NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
	return fg_view_ends_with(fg_view_cstr(s), suffix);
}

/* cc, gcc, clang, c++, g++, clang++, x86_64-linux-gnu-gcc-12, gcc-12 */
static bool is_compiler(const char *word)
{
	static const char *const names[] = { "cc", "gcc", "clang", "c++", "g++", "clang++", NULL };
	const char *b = fg_path_base(word);
	char stem[64];
	size_t n = strlen(b);

	/* a version suffix: gcc-12, clang-14 */
	while (n && (isdigit((unsigned char)b[n - 1]) || b[n - 1] == '.'))
		n--;
	if (n && b[n - 1] == '-')
		n--;
	if (!n || n >= sizeof(stem))
		return false;
	memcpy(stem, b, n);
	stem[n] = '\0';
	if (fg_str_in_list(names, stem))
		return true;
	for (const char *const *s = names; *s; s++) {
		char dashed[16] = "-";
		strncat(dashed, *s, sizeof(dashed) - 2);
		if (ends_with(stem, dashed))
			return true;
	}
	return false;
}

static bool is_archiver(const char *word)
{
	const char *b = fg_path_base(word);
	return !strcmp(b, "ar") || ends_with(b, "-ar");
}

/* dir/path, "." and ".." segments resolved (the files need not exist). */
static char *resolve(const char *dir, const char *path)
{
	char *joined = path[0] == '/' ? fg_strdup(path) : fg_path_join(dir, path), *out, *s;

	if (!joined)
		return NULL;
	for (out = s = joined; *s;) {
		if (s[0] == '/' && s[1] == '/') {
			s++;
			continue;
		}
		if (s[0] == '/' && s[1] == '.' && (s[2] == '/' || !s[2])) {
			s += 2;
			continue;
		}
		if (s[0] == '/' && s[1] == '.' && s[2] == '.' && (s[3] == '/' || !s[3])) {
			while (out > joined && *--out != '/')
				;
			s += 3;
			continue;
		}
		*out++ = *s++;
	}
	*out = '\0';
	if (!*joined) {
		joined[0] = '/';
		joined[1] = '\0';
	}
	return joined;
}

static void drop_first(fg_strvec *w, size_t k)
{
	for (size_t i = 0; i < k && i < w->n; i++)
		free(w->v[i]);
	k = k < w->n ? k : w->n;
	memmove(w->v, w->v + k, (w->n - k) * sizeof(*w->v));
	w->n -= k;
	w->v[w->n] = NULL;
}

/* ---- splitting a line ------------------------------------------------------ */

int fg_make_split_line(const char *line, fg_make_command_fn cb, void *ctx)
{
	size_t start = 0, i = 0, n = strlen(line);
	char quote = 0;
	int err = 0;

	for (;; i++) {
		char c = i < n ? line[i] : '\0';
		bool cut = !c;
		if (c && quote) {
			if (c == quote)
				quote = 0;
			else if (c == '\\' && quote == '"' && i + 1 < n)
				i++;
			continue;
		}
		if (c == '\\' && i + 1 < n) {
			i++;
			continue;
		}
		if (c == '\'' || c == '"') {
			quote = c;
			continue;
		}
		if (c == ';' || c == '|' || c == '&' || c == '(' || c == ')' || c == '`')
			cut = true;
		if (!cut)
			continue;
		if (i > start) {
			char *piece = fg_strndup(line + start, i - start);
			fg_strvec words = FG_STRVEC_INIT;
			if (!piece)
				return FG_ENOMEM;
			/* an unterminated quote: not a command we can read */
			int split = fg_strvec_split(&words, piece);
			if (!split && words.n)
				err = cb(ctx, &words);
			if (split == FG_ENOMEM)
				err = split;
			else
				fg_error_clear();
			fg_strvec_clear(&words);
			free(piece);
			if (err)
				return err;
		}
		start = i + 1;
		if (!c)
			break;
	}
	return 0;
}

/* ---- commands ------------------------------------------------------------- */

/* ---- libtool ------------------------------------------------------------- */

/* What a libtool command does: not one (LT_NOT), one with no mode
 * (libtool refuses it; older ones guessed, so the command is read as it
 * stands), compile, link, or a mode that builds nothing we need
 * (install, execute, clean, finish, uninstall, relink). */
enum lt_mode { LT_NOT, LT_NONE, LT_COMPILE, LT_LINK, LT_OTHER };

static bool is_libtool(const char *word)
{
	const char *b = fg_path_base(word);
	return !strcmp(b, "libtool") || !strcmp(b, "glibtool") || ends_with(b, "-libtool");
}

/* A mode by its name; as the first argument, libtool also takes a
 * prefix of it ("c" and "co" compile, "cl" clean, "l" link). relink is
 * only ever named in full, after --mode. */
static enum lt_mode lt_mode_named(const char *word, bool prefix)
{
	static const struct {
		const char *name;
		enum lt_mode mode;
	} modes[] = { { "compile", LT_COMPILE }, { "clean", LT_OTHER },   { "execute", LT_OTHER },
		      { "finish", LT_OTHER },    { "install", LT_OTHER }, { "link", LT_LINK },
		      { "uninstall", LT_OTHER }, { "relink", LT_OTHER } };
	size_t n = strlen(word);

	for (size_t i = 0; n && i < sizeof(modes) / sizeof(modes[0]); i++) {
		bool full = !strcmp(word, modes[i].name);
		if (full || (prefix && i < 7 && !strncmp(word, modes[i].name, n)))
			return modes[i].mode;
	}
	return LT_NONE;
}

/* libtool's own arguments before the command it runs: the mode word
 * (first only), --mode=M or --mode M, --finish, options taking a value
 * (--tag CC, -W CATEGORY, --dlopen FILE) and those taking none (--quiet,
 * --silent, --no-silent, --preserve-dup-deps, -n, -v, --debug...). A
 * mode libtool does not know makes it fail: nothing to read. */
static enum lt_mode libtool_options(fg_strvec *w)
{
	static const char *const valued[] = { "--tag", "--warnings", "--warning", "-W", "--dlopen",
					      "-dlopen", NULL };
	enum lt_mode mode = w->n ? lt_mode_named(w->v[0], true) : LT_NONE, named;
	size_t i = mode != LT_NONE;

	while (i < w->n && w->v[i][0] == '-') {
		const char *a = w->v[i++];
		if (!strcmp(a, "--mode") || !strncmp(a, "--mode=", 7)) {
			const char *m = a[6] == '=' ? a + 7 : i < w->n ? w->v[i++] : "";
			named = lt_mode_named(m, false);
			mode = named == LT_NONE ? LT_OTHER : named;
		} else if (!strcmp(a, "--finish")) {
			mode = LT_OTHER;
		} else if (fg_str_in_list(valued, a) && i < w->n) {
			i++;
		}
	}
	drop_first(w, i);
	return mode;
}

/* Leading VAR=value words, launchers (ccache), `exec`/`env`, libtool and
 * its options ("/bin/bash ../libtool --tag=CC --mode=link gcc ..."), and
 * redirections go; *lt tells what libtool runs, if it runs it. */
static void strip_wrappers(fg_strvec *w, enum lt_mode *lt)
{
	static const char *const launchers[] = { "ccache", "distcc", "icecc", "sccache", "exec",
						  "env", "nice", "time", NULL };
	static const char *const shells[] = { "sh", "bash", "dash", NULL };
	*lt = LT_NOT;
	while (w->n) {
		const char *a = w->v[0], *eq = strchr(a, '=');
		const char *b = fg_path_base(a);
		if (eq && eq != a && !memchr(a, '/', (size_t)(eq - a)) && a[0] != '-')
			drop_first(w, 1);
		else if (fg_str_in_list(launchers, b))
			drop_first(w, 1);
		else if (fg_str_in_list(shells, b) && w->n > 1 && is_libtool(w->v[1]))
			drop_first(w, 1);
		else if (is_libtool(a)) {
			drop_first(w, 1);
			*lt = libtool_options(w);
		} else
			break;
	}
	/* redirections: "> file", "2>&1", ">file" */
	size_t o = 0;
	for (size_t i = 0; i < w->n; i++) {
		const char *a = w->v[i];
		bool redir = a[0] == '>' || a[0] == '<' || ((a[0] == '1' || a[0] == '2') && a[1] == '>');
		if (redir) {
			bool bare = !strcmp(a, ">") || !strcmp(a, ">>") || !strcmp(a, "<") ||
				    !strcmp(a, "2>") || !strcmp(a, "1>");
			free(w->v[i]);
			if (bare && i + 1 < w->n)
				free(w->v[++i]);
			continue;
		}
		w->v[o++] = w->v[i];
	}
	w->n = o;
	if (w->v)
		w->v[o] = NULL;
}

/* -Wc,A,B: A and B, for the compiler driver. */
static int push_commas(fg_strvec *out, const char *list)
{
	int err = 0;

	while (!err && *list) {
		size_t n = strcspn(list, ",");
		char *one = n ? fg_strndup(list, n) : NULL;
		if (n)
			err = one ? fg_strvec_push(out, one) : FG_ENOMEM;
		free(one);
		list += n + (list[n] == ',');
	}
	return err;
}

/* The words libtool itself takes from a command it compiles or links,
 * made into what it hands the compiler driver. Compiling: -static,
 * -shared, -prefer-pic, -prefer-non-pic and -no-suppress choose libtool's
 * objects and go. Linking: -static, -static-libtool-libs and -shared say
 * how libtool libraries are linked (ours are archives anyway) and go,
 * -all-static is the driver's -static, -export-dynamic its -rdynamic,
 * -R DIR a run path; the options about the library's version, install
 * folder or dlopen'ed modules go with their value. -Xcompiler X,
 * -XCClinker X and -Wc,X reach the driver as X. */
static int libtool_args(fg_strvec *w, bool compiling)
{
	static const char *const compile_only[] = { "-static", "-shared", "-prefer-pic",
						    "-prefer-non-pic", "-no-suppress", NULL };
	static const char *const link_only[] = {
		"-static", "-static-libtool-libs", "-shared", "-avoid-version", "-module",
		"-no-fast-install", "-fast-install", "-no-install", "-no-undefined", NULL
	};
	static const char *const link_valued[] = {
		"-rpath", "-version-info", "-version-number", "-release", "-bindir", "-dlopen",
		"-dlpreopen", "-export-symbols", "-export-symbols-regex", "-shrext", "-weak",
		"-precious-files-regex", "-objectlist", "-os2dllname", "-inst-prefix-dir", NULL
	};
	fg_strvec out = FG_STRVEC_INIT;
	int err = w->n ? fg_strvec_push(&out, w->v[0]) : 0;

	for (size_t i = 1; !err && i < w->n; i++) {
		const char *a = w->v[i], *next = i + 1 < w->n ? w->v[i + 1] : NULL;
		if (fg_str_in_list(compiling ? compile_only : link_only, a))
			continue;
		if (!compiling && fg_str_in_list(link_valued, a) && next)
			i++;
		else if (next && (!strcmp(a, "-Xcompiler") ||
				  (!compiling && !strcmp(a, "-XCClinker"))))
			err = fg_strvec_push(&out, w->v[++i]);
		else if (!strncmp(a, "-Wc,", 4))
			err = push_commas(&out, a + 4);
		else if (!compiling && !strcmp(a, "-all-static"))
			err = fg_strvec_push(&out, "-static");
		else if (!compiling && !strcmp(a, "-export-dynamic"))
			err = fg_strvec_push(&out, "-rdynamic");
		else if (!compiling && !strcmp(a, "-R") && next)
			err = fg_strvec_pushf(&out, "-Wl,-rpath,%s", w->v[++i]);
		else if (!compiling && !strncmp(a, "-R", 2) && a[2])
			err = fg_strvec_pushf(&out, "-Wl,-rpath,%s", a + 2);
		else
			err = fg_strvec_push(&out, a);
	}
	fg_strvec_clear(w);
	*w = out;
	return err;
}

/* ---- objects ---------------------------------------------------------------- */

static int remember_object(struct reader *r, const char *path, size_t unit)
{
	fg_strmap_entry *e = fg_strmap_put(&r->st->objects, path, strlen(path));
	if (!e)
		return FG_ENOMEM;
	e->value.u = unit + 1;
	return 0;
}

static size_t object_unit(const struct reader *r, const char *path)
{
	fg_strmap_entry *e = fg_strmap_get(&r->st->objects, path, strlen(path));
	return e ? (size_t)e->value.u - 1 : (size_t)-1;
}

static char *stem_object(const char *cwd, const char *source, const char *ext)
{
	const char *b = fg_path_base(source), *dot = strrchr(b, '.');
	fg_strbuf sb = FG_STRBUF_INIT;
	char *path;

	fg_strbuf_add(&sb, b, dot ? (size_t)(dot - b) : strlen(b));
	fg_strbuf_addstr(&sb, ext);
	path = sb.buf ? resolve(cwd, sb.buf) : NULL;
	fg_strbuf_release(&sb);
	return path;
}

/* The -o value of a command, and whether it only compiles (when
 * compile_only is not NULL). */
static const char *output_of(const fg_strvec *w, bool *compile_only)
{
	const char *out = NULL;
	bool only = false;

	for (size_t i = 1; i < w->n; i++) {
		const char *a = w->v[i];
		if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E") || !strcmp(a, "-M") ||
		    !strcmp(a, "-MM"))
			only = true;
		if (!strcmp(a, "-o") && i + 1 < w->n)
			out = w->v[++i];
		else if (!strncmp(a, "-o", 2) && a[2])
			out = a + 2;
		else if (a[0] == '-' && fg_str_in_list(with_value, a))
			i++;
	}
	if (compile_only)
		*compile_only = only;
	return out;
}

static int compile_source(struct reader *r, const fg_strvec *w, const char *src, const char *out,
			  bool libtool, size_t *unit)
{
	char *source = resolve(r->cwd, src), *object = NULL;
	int err;

	if (!source)
		return FG_ENOMEM;
	object = out ? resolve(r->cwd, out) : stem_object(r->cwd, src, libtool ? ".lo" : ".o");
	err = object ? fg_compdb_add_command(r->p, r->cwd, w, source, out, &r->st->seen, unit) : FG_ENOMEM;
	if (!err && *unit != (size_t)-1)
		err = remember_object(r, object, *unit);
	free(source);
	free(object);
	return err;
}

static int compile_command(struct reader *r, const fg_strvec *w, const char *out, bool libtool)
{
	size_t nsrc = 0, unit;
	int err = 0;

	for (size_t i = 1; i < w->n; i++)
		if (w->v[i][0] != '-' && is_source(w->v[i]) && !(i > 1 && fg_str_in_list(with_value, w->v[i - 1])))
			nsrc++;
	for (size_t i = 1; !err && i < w->n; i++) {
		const char *a = w->v[i];
		if (a[0] == '-' || !is_source(a) || (i > 1 && fg_str_in_list(with_value, w->v[i - 1])))
			continue;
		err = compile_source(r, w, a, nsrc == 1 ? out : NULL, libtool, &unit);
	}
	r->understood += nsrc > 0;
	return err;
}

static fg_make_archive *find_archive(fg_make_state *st, const char *orig, size_t *index)
{
	for (size_t i = 0; i < st->narchives; i++)
		if (!strcmp(st->archives[i].orig, orig)) {
			if (index)
				*index = i;
			return &st->archives[i];
		}
	return NULL;
}

/* Our copy of an archive: <build>/lib/<its path below the root>. */
static char *our_archive_path(const fg_project *p, const char *orig)
{
	size_t n = strlen(p->loc.root);
	const char *rel = !strncmp(orig, p->loc.root, n) && orig[n] == '/' ? orig + n + 1 : orig + 1;
	fg_strbuf sb = FG_STRBUF_INIT;
	char *path;

	fg_strbuf_addf(&sb, "%s/lib/%s", p->build_dir, rel);
	if (ends_with(sb.buf ? sb.buf : "", ".la"))
		memcpy(sb.buf + sb.len - 3, ".a\0", 3), sb.len--;
	path = fg_strbuf_detach(&sb, NULL);
	for (char *c = path; c && (c = strstr(c, "/../")); )
		memcpy(c, "/__/", 4);
	return path;
}

static fg_make_archive *archive_of(struct reader *r, const char *orig)
{
	fg_make_state *st = r->st;
	fg_make_archive *a = find_archive(st, orig, NULL);

	if (a)
		return a;
	a = fg_realloc_array(st->archives, st->narchives + 1, sizeof(*a));
	if (!a)
		return NULL;
	st->archives = a;
	a = &st->archives[st->narchives];
	memset(a, 0, sizeof(*a));
	if (!(a->orig = fg_strdup(orig)) || !(a->path = our_archive_path(r->p, orig))) {
		free(a->orig);
		free(a->path);
		return NULL;
	}
	st->narchives++;
	return a;
}

static int add_index(size_t **arr, size_t *n, size_t v)
{
	size_t *grown;

	for (size_t i = 0; i < *n; i++)
		if ((*arr)[i] == v)
			return 0;
	if (!(grown = fg_realloc_array(*arr, *n + 1, sizeof(**arr))))
		return FG_ENOMEM;
	grown[(*n)++] = v;
	*arr = grown;
	return 0;
}

static int archive_members(struct reader *r, const char *orig, const fg_strvec *w, size_t from)
{
	fg_make_archive *a = archive_of(r, orig);
	int err = a ? 0 : FG_ENOMEM;

	for (size_t i = from; !err && i < w->n; i++) {
		char *path = resolve(r->cwd, w->v[i]);
		size_t u = path ? object_unit(r, path) : (size_t)-1;
		if (!path)
			err = FG_ENOMEM;
		else if (u != (size_t)-1)
			err = add_index(&a->units, &a->nunits, u);
		free(path);
	}
	return err;
}

/* ar rcs libx.a a.o b.o (also "ar -rc", "ar cq") */
static int archive_command(struct reader *r, const fg_strvec *w)
{
	const char *key;
	char *orig;
	int err;

	if (w->n < 3)
		return 0;
	key = w->v[1][0] == '-' ? w->v[1] + 1 : w->v[1];
	if ((!strchr(key, 'r') && !strchr(key, 'q')) || strpbrk(key, "dtxp"))
		return 0;
	if (!(orig = resolve(r->cwd, w->v[2])))
		return FG_ENOMEM;
	err = archive_members(r, orig, w, 3);
	r->understood++;
	free(orig);
	return err;
}

/* -lNAME, looked up among the in-tree archives in the -L folders */
static bool link_archive(struct reader *r, const fg_strvec *ldirs, const char *name, size_t *index)
{
	for (size_t i = 0; i < ldirs->n; i++)
		for (int k = 0; k < 2; k++) {
			fg_strbuf sb = FG_STRBUF_INIT;
			bool found;
			fg_strbuf_addf(&sb, "%s/lib%s.%s", ldirs->v[i], name, k ? "la" : "a");
			found = sb.buf && find_archive(r->st, sb.buf, index);
			fg_strbuf_release(&sb);
			if (found)
				return true;
		}
	return false;
}

static bool kept_link_flag(const char *a)
{
	static const char *const exact[] = { "-pthread", "-static", "-static-libgcc", "-rdynamic",
					     "-pie", "-no-pie", "-fopenmp", "-m32", "-m64", NULL };
	return fg_str_in_list(exact, a) || !strncmp(a, "-Wl,", 4) || !strncmp(a, "-fuse-ld=", 9) ||
	       !strncmp(a, "-fsanitize=", 11) || !strncmp(a, "-flto", 5);
}

/* One input of a link line into the link (units, archives, libs). */
static int link_input(struct reader *r, fg_make_link *l, fg_strvec *ldirs, const fg_strvec *w,
		      size_t *i, bool libtool)
{
	const char *a = w->v[*i];
	char *path = NULL;
	size_t idx;
	int err = 0;

	if ((!strcmp(a, "-L") || !strcmp(a, "-l")) && *i + 1 < w->n) {
		fg_strbuf sb = FG_STRBUF_INIT;
		fg_strbuf_addf(&sb, "%s%s", a, w->v[++*i]);
		fg_strvec one = FG_STRVEC_INIT;
		size_t k = 0;
		err = sb.buf ? fg_strvec_push(&one, sb.buf) : FG_ENOMEM;
		fg_strbuf_release(&sb);
		if (!err)
			err = link_input(r, l, ldirs, &one, &k, libtool);
		fg_strvec_clear(&one);
		return err;
	}
	if (!strncmp(a, "-L", 2) && a[2]) {
		if (!(path = resolve(r->cwd, a + 2)))
			return FG_ENOMEM;
		if (!(err = fg_strvec_push(ldirs, path)))
			err = fg_strvec_pushf(&l->libs, "-L%s", path);
	} else if (!strncmp(a, "-l", 2) && a[2]) {
		err = link_archive(r, ldirs, a + 2, &idx) ? add_index(&l->archives, &l->narchives, idx) :
		      fg_strvec_push(&l->libs, a);
	} else if ((!strcmp(a, "-Xlinker") || !strcmp(a, "-u") || !strcmp(a, "-z")) && *i + 1 < w->n) {
		if (!(err = fg_strvec_push(&l->libs, a)))
			err = fg_strvec_push(&l->libs, w->v[++*i]);
	} else if (a[0] == '-') {
		if (fg_str_in_list(with_value, a))
			++*i;
		else if (kept_link_flag(a))
			err = fg_strvec_push(&l->libs, a);
	} else if (is_source(a)) {
		size_t unit;
		err = compile_source(r, w, a, NULL, libtool, &unit);
		if (!err && unit != (size_t)-1)
			err = add_index(&l->units, &l->nunits, unit);
	} else if (!(path = resolve(r->cwd, a))) {
		err = FG_ENOMEM;
	} else if (is_object(a) && (idx = object_unit(r, path)) != (size_t)-1) {
		err = add_index(&l->units, &l->nunits, idx);
	} else if (is_archive(a) && find_archive(r->st, path, &idx)) {
		err = add_index(&l->archives, &l->narchives, idx);
	} else if (is_object(a) || is_archive(a) || is_shared(a)) {
		err = fg_strvec_push(&l->libs, path);
	}
	free(path);
	return err;
}

static void link_release(fg_make_link *l)
{
	free(l->driver);
	free(l->units);
	free(l->archives);
	fg_strvec_clear(&l->libs);
	memset(l, 0, sizeof(*l));
}

/* The program's path in our build folder: as below the root. */
static char *exe_path(const fg_project *p, const char *orig)
{
	size_t n = strlen(p->loc.root);
	fg_strbuf sb = FG_STRBUF_INIT;

	if (!strncmp(orig, p->loc.root, n) && orig[n] == '/')
		fg_strbuf_addf(&sb, "%s/%s", p->build_dir, orig + n + 1);
	else
		fg_strbuf_addf(&sb, "%s/bin/%s", p->build_dir, fg_path_base(orig));
	return fg_strbuf_detach(&sb, NULL);
}

static int add_link_target(struct reader *r, const char *orig, fg_make_link *l)
{
	fg_project *p = r->p;
	char *exe = exe_path(p, orig);
	struct fg_target *t = NULL;
	fg_make_link *links;
	int err = 0;

	if (!exe)
		return FG_ENOMEM;
	for (size_t i = 0; i < p->ntargets; i++)
		if (!strcmp(p->targets[i].exe, exe)) {
			/* linked twice (make -B runs every rule): the last says;
			 * a goal's link of a program of the default goal (with
			 * the goal's target-specific flags) does not count */
			if (!r->goal || i >= r->before) {
				link_release(&r->st->links[i]);
				r->st->links[i] = *l;
				memset(l, 0, sizeof(*l));
			}
			free(exe);
			return 0;
		}
	const char *name = fg_path_base(orig);
	fg_target_kind kind = fg_kind_by_name(p, name, orig);
	if (r->goal)
		kind = r->kind == FG_TARGET_TEST && kind == FG_TARGET_BENCH ? kind : r->kind;
	if (!(t = fg_project_add_target(p, name, kind))) {
		free(exe);
		return FG_ENOMEM;
	}
	t->exe = exe;
	t->kind_guessed = true;
	t->unit = l->nunits ? l->units[0] : 0;
	if (!(t->build_name = fg_strdup(name)))
		return FG_ENOMEM;
	if (!(links = fg_realloc_array(r->st->links, p->ntargets, sizeof(*links))))
		return FG_ENOMEM;
	r->st->links = links;
	memset(&links[p->ntargets - 1], 0, sizeof(*links));
	r->st->nlinks = p->ntargets;
	links[p->ntargets - 1] = *l;
	memset(l, 0, sizeof(*l));
	return err;
}

static int link_command(struct reader *r, const fg_strvec *w, const char *out, bool libtool)
{
	fg_make_link l = { 0 };
	fg_strvec ldirs = FG_STRVEC_INIT;
	char *orig = resolve(r->cwd, out ? out : "a.out");
	bool shared = false;
	int err = orig ? 0 : FG_ENOMEM;

	for (size_t i = 1; i < w->n; i++)
		shared = shared || !strcmp(w->v[i], "-shared");
	if (!err && !(l.driver = fg_strdup(w->v[0])))
		err = FG_ENOMEM;
	for (size_t i = 1; !err && i < w->n; i++) {
		if (!strcmp(w->v[i], "-o")) {
			i++;
			continue;
		}
		if (!strncmp(w->v[i], "-o", 2) && w->v[i][2])
			continue;
		err = link_input(r, &l, &ldirs, w, &i, libtool);
	}
	if (err || shared || is_shared(orig))
		goto done;
	r->understood++;
	if (ends_with(orig, ".la") || ends_with(orig, ".a")) {
		/* a libtool library: an archive of its objects, for us */
		fg_make_archive *a = archive_of(r, orig);
		for (size_t i = 0; !err && a && i < l.nunits; i++)
			err = add_index(&a->units, &a->nunits, l.units[i]);
		err = a ? err : FG_ENOMEM;
		goto done;
	}
	err = add_link_target(r, orig, &l);
done:
	link_release(&l);
	fg_strvec_clear(&ldirs);
	free(orig);
	return err;
}

/* ---- generated headers -------------------------------------------------------- */

static bool is_header(const char *path)
{
	static const char *const exts[] = { "h", "hh", "hpp", "hxx", NULL };
	return fg_str_in_list(exts, fg_path_ext(path));
}

static void header_release(fg_make_header *h)
{
	free(h->orig);
	free(h->path);
	free(h->dir);
	fg_strvec_clear(&h->argv);
	fg_strvec_clear(&h->env);
}

/* Our copy of a generated header: <build>/gen/<its path below the root>. */
static char *our_header_path(const fg_project *p, const char *orig)
{
	size_t n = strlen(p->loc.root);
	const char *rel = !strncmp(orig, p->loc.root, n) && orig[n] == '/' ? orig + n + 1 : orig + 1;
	fg_strbuf sb = FG_STRBUF_INIT;

	fg_strbuf_addf(&sb, "%s/gen/%s", p->build_dir, rel);
	return fg_strbuf_detach(&sb, NULL);
}

/* A command whose output, and nothing else, goes to a header of the
 * project ("[NAME=VALUE...] cmd args > dir/config.h"): recorded. *taken
 * tells whether the command was one. */
static int header_command(struct reader *r, const fg_strvec *w, bool *taken)
{
	fg_make_header h = { 0 }, *grown;
	const char *target = NULL;
	size_t i = 0;
	int err = 0;

	*taken = false;
	for (size_t k = 0; k < w->n; k++) {
		const char *a = w->v[k];
		if (a[0] == '<' || strstr(a, ">>") || (a[0] == '2' && a[1] == '>'))
			return 0;
		if (!strcmp(a, ">") || !strcmp(a, "1>")) {
			if (target || k + 1 != w->n - 1)
				return 0;
			target = w->v[k + 1];
		} else if ((a[0] == '>' || (a[0] == '1' && a[1] == '>')) && !target && k == w->n - 1) {
			target = a + (a[0] == '>' ? 1 : 2);
		}
	}
	if (!target || !*target || !is_header(target))
		return 0;
	for (; i < w->n; i++) {
		const char *a = w->v[i], *eq = strchr(a, '=');
		if (!eq || eq == a || memchr(a, '/', (size_t)(eq - a)) || a[0] == '-')
			break;
		err = fg_strvec_push(&h.env, a);
	}
	for (; !err && i < w->n && w->v[i][0] != '>' && strcmp(w->v[i], "1>"); i++)
		err = fg_strvec_push(&h.argv, w->v[i]);
	if (!err && (!h.argv.n || is_compiler(h.argv.v[0]) || is_archiver(h.argv.v[0]))) {
		header_release(&h);
		return 0;
	}
	if (!err && (!(h.orig = resolve(r->cwd, target)) || !(h.path = our_header_path(r->p, h.orig)) ||
		     !(h.dir = fg_strdup(r->cwd))))
		err = FG_ENOMEM;
	for (size_t k = 0; !err && k < r->st->nheaders; k++)
		if (!strcmp(r->st->headers[k].orig, h.orig)) {
			/* written twice: the last says */
			header_release(&r->st->headers[k]);
			r->st->headers[k] = h;
			*taken = true;
			return 0;
		}
	if (!err && !(grown = fg_realloc_array(r->st->headers, r->st->nheaders + 1, sizeof(*grown))))
		err = FG_ENOMEM;
	if (err) {
		header_release(&h);
		return err;
	}
	r->st->headers = grown;
	r->st->headers[r->st->nheaders++] = h;
	*taken = true;
	return 0;
}

static int command(void *ctx, fg_strvec *w)
{
	struct reader *r = ctx;
	bool compile_only, header;
	enum lt_mode lt;
	const char *out;
	int err;

	if ((err = header_command(r, w, &header)) || header)
		return err;
	strip_wrappers(w, &lt);
	if (!w->n || lt == LT_OTHER)
		return 0;
	if (!strcmp(w->v[0], "cd") && w->n > 1) {
		char *dir = resolve(r->cwd, w->v[1]);
		if (!dir)
			return FG_ENOMEM;
		free(r->cwd);
		r->cwd = dir;
		return 0;
	}
	if (is_archiver(w->v[0]))
		return archive_command(r, w);
	if (!is_compiler(w->v[0]))
		return 0;
	output_of(w, &compile_only);
	/* libtool's compile mode compiles, whatever the command says */
	compile_only = lt == LT_COMPILE || (compile_only && lt != LT_LINK);
	if (lt != LT_NOT && (err = libtool_args(w, compile_only)))
		return err;
	out = output_of(w, NULL);
	return compile_only ? compile_command(r, w, out, lt != LT_NOT) :
			      link_command(r, w, out, lt != LT_NOT);
}

/* ---- lines ---------------------------------------------------------------- */

/* "make[1]: Entering directory '/x'" / "Leaving directory" */
static int directory_line(struct reader *r, const char *line)
{
	const char *enter = strstr(line, ": Entering directory "), *leave = strstr(line, ": Leaving directory ");
	const char *q, *e;

	if (leave) {
		if (r->ndirs > 1)
			free(r->dirs[--r->ndirs]);
		return 1;
	}
	if (!enter)
		return 0;
	q = enter + strlen(": Entering directory ");
	if (*q == '\'' || *q == '`')
		q++;
	e = strrchr(q, '\'');
	if (!e || e < q || r->ndirs == MAX_DIRS)
		return 1;
	char *dir = fg_strndup(q, (size_t)(e - q));
	if (!dir)
		return FG_ENOMEM;
	r->dirs[r->ndirs++] = dir;
	return 1;
}

static void state_free(void *data)
{
	fg_make_state *st = data;

	if (!st)
		return;
	for (size_t i = 0; i < st->narchives; i++) {
		free(st->archives[i].orig);
		free(st->archives[i].path);
		free(st->archives[i].units);
	}
	for (size_t i = 0; i < st->nlinks; i++)
		link_release(&st->links[i]);
	for (size_t i = 0; i < st->nheaders; i++)
		header_release(&st->headers[i]);
	free(st->headers);
	fg_strmap_release(&st->objects);
	fg_strmap_release(&st->seen);
	free(st->archives);
	free(st->links);
	free(st);
}

static int read_lines(struct reader *r, const char *text, size_t len)
{
	fg_strbuf line = FG_STRBUF_INIT;
	size_t pos = 0;
	int err = 0;

	while (!err && pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len, k = end;
		if (k > pos && text[k - 1] == '\r')
			k--;
		/* a continued line: joined, the backslash dropped */
		if (k > pos && text[k - 1] == '\\' && nl) {
			fg_strbuf_add(&line, text + pos, k - pos - 1);
			fg_strbuf_addch(&line, ' ');
			pos = end + 1;
			continue;
		}
		fg_strbuf_add(&line, text + pos, k - pos);
		pos = nl ? end + 1 : len;
		if ((err = fg_strbuf_check(&line)))
			break;
		int d = directory_line(r, line.buf);
		if (d < 0)
			err = d;
		else if (!d) {
			free(r->cwd);
			if (!(r->cwd = fg_strdup(r->dirs[r->ndirs - 1])))
				err = FG_ENOMEM;
			else
				err = fg_make_split_line(line.buf, command, r);
		}
		fg_strbuf_reset(&line);
	}
	fg_strbuf_release(&line);
	return err;
}

static int read_text(struct reader *r, const char *dir, const char *text, size_t len)
{
	fg_project *p = r->p;
	int err;

	if (!p->state) {
		if (!(p->state = fg_calloc(1, sizeof(fg_make_state))))
			return FG_ENOMEM;
		p->state_free = state_free;
	}
	r->st = p->state;
	if (!(r->dirs[0] = fg_strdup(dir)))
		return FG_ENOMEM;
	r->ndirs = 1;
	err = read_lines(r, text, len);
	r->st->ncommands += r->understood;
	for (size_t i = 0; i < r->ndirs; i++)
		free(r->dirs[i]);
	free(r->cwd);
	return err;
}

int fg_make_read_dryrun(fg_project *p, const char *dir, const char *text, size_t len)
{
	struct reader r = { .p = p };
	int err = read_text(&r, dir, text, len);

	if (!err && !p->ntargets)
		err = fg_error_set(FG_EPARSE, "the dry run of %s (make -nB) shows %s — flamegraph-build "
				   "cannot tell how its programs are built. Build it once under bear "
				   "(bear -- make) and point `opts.manifest_path` at the compile_commands.json "
				   "it writes", p->loc.file, r.understood ? "compile commands but no "
				   "command that links a program" : "no compiler command it understands");
	return err;
}

int fg_make_read_goal_dryrun(fg_project *p, const char *dir, fg_target_kind kind,
			     const char *text, size_t len)
{
	struct reader r = { .p = p, .goal = true, .kind = kind, .before = p->ntargets };

	return read_text(&r, dir, text, len);
}

/* ---- goals ------------------------------------------------------------------- */

static const char *const test_goals[] = { "check", "test", "tests", "test_programs",
					  "test-programs", "check_programs", NULL };
static const char *const bench_goals[] = { "bench", "benches", "benchmark", "benchmarks",
					   "bench_programs", NULL };

/* "NAME:" or "NAME::" starting a line of the database: a rule's target */
static bool rule_of(const char *line, size_t n, const char *name)
{
	size_t k = strlen(name);

	return n > k && !memcmp(line, name, k) && line[k] == ':' && (k + 1 == n || line[k + 1] != '=');
}

int fg_make_extra_goals(const char *db, size_t len, fg_strvec *tests, fg_strvec *benches)
{
	const char *const *lists[2] = { test_goals, bench_goals };
	fg_strvec *out[2] = { tests, benches };
	bool found[2][8] = { { false } }, files = false, not_target = false;
	size_t pos = 0;
	int err = 0;

	while (pos < len) {
		const char *line = db + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos;
		pos += n + (nl != NULL);
		if (!files) {
			files = n == 7 && !memcmp(line, "# Files", 7);
			continue;
		}
		for (int k = 0; k < 2 && !not_target; k++)
			for (size_t i = 0; lists[k][i]; i++)
				found[k][i] = found[k][i] || rule_of(line, n, lists[k][i]);
		not_target = n == 15 && !memcmp(line, "# Not a target:", 15);
	}
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; !err && lists[k][i]; i++)
			if (found[k][i])
				err = fg_strvec_push(out[k], lists[k][i]);
	return err;
}

/* ---- included makefiles ------------------------------------------------------ */

static bool include_directive(const char *line, size_t n, size_t *skip)
{
	static const char *const words[] = { "include", "-include", "sinclude" };
	for (size_t i = 0; i < 3; i++) {
		size_t k = strlen(words[i]);
		if (n > k && !memcmp(line, words[i], k) && (line[k] == ' ' || line[k] == '\t')) {
			*skip = k + 1;
			return true;
		}
	}
	return false;
}

int fg_make_included(const char *text, size_t len, fg_strvec *out)
{
	fg_makevars *mv = NULL;
	fg_strbuf line = FG_STRBUF_INIT;
	size_t pos = 0;
	int err = fg_makevars_parse(&mv, text, len);

	while (!err && pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len, skip;
		/* a continued line: joined */
		if (end > pos && text[end - 1] == '\\' && nl) {
			fg_strbuf_add(&line, text + pos, end - pos - 1);
			fg_strbuf_addch(&line, ' ');
			pos = end + 1;
			continue;
		}
		fg_strbuf_add(&line, text + pos, end - pos);
		pos = nl ? end + 1 : len;
		if (!line.buf) {
			err = FG_ENOMEM;
			break;
		}
		const char *l = line.buf;
		if (*l != '\t') {
			while (*l == ' ')
				l++;
			if (include_directive(l, strlen(l), &skip)) {
				char *words = fg_makevars_expand(mv, l + skip), *hash;
				if (!words)
					err = FG_ENOMEM;
				else {
					if ((hash = strchr(words, '#')))
						*hash = '\0';
					/* make's words: split at blanks, no quoting */
					for (char *w = words; !err && *w;) {
						size_t n = strcspn(w, " \t\r\n\f\v");
						if (n) {
							char *one = fg_strndup(w, n);
							err = one ? fg_strvec_push(out, one) : FG_ENOMEM;
							free(one);
						}
						w += n;
						w += strspn(w, " \t\r\n\f\v");
					}
				}
				free(words);
			}
		}
		fg_strbuf_reset(&line);
	}
	fg_strbuf_release(&line);
	fg_makevars_free(mv);
	return err;
}
