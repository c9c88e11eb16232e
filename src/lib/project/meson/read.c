/* Meson projects: configure the flamegraph build folder with
 * `meson setup`, then read Meson's introspection files (meson-info/) with
 * cJSON -- executables, tests, benchmarks, options -- into targets. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "flamegraph/error.h"
#include "lib/project/meson/meson.h"
#include "lib/project/project.h"
#include "util/input.h"
#include "util/suggest.h"
#include "util/banned.h"

#define STAMP_FILE "flamegraph-meson-setup.txt"
#define DEFAULTS_FILE "flamegraph-meson-defaults.txt"
#define ROSEGMENT_FILE "flamegraph-no-rosegment"
#define INSTALL_HINT "(Debian/Ubuntu: apt-get install meson ninja-build)"

/* Where the introspection files come from: memory, or dir/meson-info. */
struct intro_src {
	const fg_meson_file *files;
	size_t n;
	const char *dir;
};

const char *fg_meson_jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

char *fg_meson_read_text(const char *path)
{
	char *data = NULL;
	size_t len;

	if (!path || !fg_path_is_file(path) || fg_read_file(path, &data, &len)) {
		fg_error_clear();
		return NULL;
	}
	return data;
}

int fg_meson_write_text(const char *path, const char *text)
{
	FILE *f = path ? fopen(path, "w") : NULL;
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		return fg_error_set(FG_EIO, "cannot write %s", path ? path : "(null)");
	return 0;
}

char *fg_meson_info_path(const char *dir, const char *name)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	fg_strbuf_addf(&sb, "%s/meson-info/%s", dir, name);
	return fg_strbuf_detach(&sb, NULL);
}

cJSON *fg_meson_parse(const char *text)
{
	return text ? cJSON_Parse(text) : NULL;
}

/* One introspection file: *out NULL when it is missing (an error only
 * when `required`), FG_EPARSE when it is not JSON. */
static int intro_json(const struct intro_src *src, const char *name, bool required, cJSON **out)
{
	char *path = NULL, *data = NULL;
	size_t len = 0;

	*out = NULL;
	if (src->files) {
		for (size_t i = 0; i < src->n; i++) {
			if (strcmp(src->files[i].name, name))
				continue;
			if (!(*out = cJSON_ParseWithLength(src->files[i].data, src->files[i].len)))
				return fg_error_set(FG_EPARSE, "%s: not valid JSON", name);
			return 0;
		}
		return required ? fg_error_set(FG_EPARSE, "no %s", name) : 0;
	}
	path = fg_meson_info_path(src->dir, name);
	if (!path)
		return FG_ENOMEM;
	if (!(data = fg_meson_read_text(path))) {
		int err = required ? fg_error_set(FG_EPARSE, "Meson wrote no %s — is the build folder "
						  "configured (meson 0.50 or newer)?", path) : 0;
		free(path);
		return err;
	}
	len = strlen(data);
	if (!(*out = cJSON_ParseWithLength(data, len))) {
		fg_error_set(FG_EPARSE, "%s: not valid JSON", path);
		free(path);
		free(data);
		return FG_EPARSE;
	}
	free(path);
	free(data);
	return 0;
}

static void state_free(void *data)
{
	fg_meson_state *st = data;

	if (!st)
		return;
	for (size_t i = 0; i < st->ncompile; i++)
		fg_strvec_clear(&st->compile[i]);
	free(st->compile);
	free(st->user_build);
	fg_strvec_clear(&st->user_opts);
	free(st);
}

fg_meson_state *fg_meson_state_of(fg_project *p)
{
	if (!p->state) {
		if (!(p->state = fg_calloc(1, sizeof(fg_meson_state))))
			return NULL;
		p->state_free = state_free;
	}
	return p->state;
}

/* The compile list of target i, grown to cover it. */
static fg_strvec *compile_of(fg_meson_state *st, size_t i)
{
	if (i >= st->ncompile) {
		size_t n = i + 16;
		fg_strvec *v = fg_realloc_array(st->compile, n, sizeof(*v));
		if (!v)
			return NULL;
		memset(v + st->ncompile, 0, (n - st->ncompile) * sizeof(*v));
		st->compile = v;
		st->ncompile = n;
	}
	return &st->compile[i];
}

/* ---- targets ------------------------------------------------------------ */

static const char *first_file(const cJSON *t)
{
	const cJSON *f = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t, "filename"), 0);
	return cJSON_IsString(f) ? f->valuestring : NULL;
}

/* What `meson compile` is given for a target: NAME:TYPE, with the folder
 * of its output (relative to the build folder) in front when another
 * target of that type has the same name. */
static int compile_spec(const fg_project *p, const cJSON *targets, const cJSON *t, fg_strvec *out)
{
	const char *name = fg_meson_jstr(t, "name"), *type = fg_meson_jstr(t, "type"), *file = first_file(t);
	const cJSON *o;
	fg_strbuf sb = FG_STRBUF_INIT;
	size_t same = 0, blen = strlen(p->build_dir);
	int err;

	if (!name || !type)
		return 0;
	cJSON_ArrayForEach(o, targets) {
		const char *n = fg_meson_jstr(o, "name"), *ty = fg_meson_jstr(o, "type");
		if (n && ty && !strcmp(n, name) && !strcmp(ty, type))
			same++;
	}
	if (same > 1 && file && !strncmp(file, p->build_dir, blen) && file[blen] == '/') {
		const char *rel = file + blen + 1, *slash = strrchr(rel, '/');
		fg_strbuf_addf(&sb, "%.*s/", slash ? (int)(slash - rel) : 1, slash ? rel : ".");
	}
	fg_strbuf_addstr(&sb, name);
	fg_strbuf_addch(&sb, ':');
	for (const char *s = type; *s; s++)
		fg_strbuf_addch(&sb, *s == ' ' ? '_' : *s);
	err = fg_strvec_push(out, sb.buf);
	fg_strbuf_release(&sb);
	return err;
}

static const cJSON *target_by_id(const cJSON *targets, const char *id)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, targets) {
		const char *i = fg_meson_jstr(t, "id");
		if (i && !strcmp(i, id))
			return t;
	}
	return NULL;
}

/* -p NAME: the main project (by its name) or a subproject. */
static bool in_package(const fg_project *p, const char *subproject)
{
	const char *want = p->opts.package;

	if (!want)
		return true;
	if (subproject)
		return !strcmp(subproject, want);
	return !strcmp(p->name, want);
}

/* A test's project: its first suite up to ':' ("wayland", "fribidi:unit"). */
static bool suite_in_package(const fg_project *p, const cJSON *run)
{
	const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(run, "suite"), 0);
	const char *want = p->opts.package;
	size_t n;

	if (!want)
		return true;
	if (!cJSON_IsString(s0))
		return false;
	/* Meson writes the project's name with '_' for ' ' and ':' there */
	n = strcspn(s0->valuestring, ":");
	if (strlen(want) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s0->valuestring[i] != (want[i] == ' ' || want[i] == ':' ? '_' : want[i]))
			return false;
	return true;
}

static int add_executables(fg_project *p, fg_meson_state *st, const cJSON *targets)
{
	const cJSON *t;

	cJSON_ArrayForEach(t, targets) {
		const char *name = fg_meson_jstr(t, "name"), *type = fg_meson_jstr(t, "type"), *file = first_file(t);
		const cJSON *sub = cJSON_GetObjectItemCaseSensitive(t, "subproject");
		struct fg_target *x;
		fg_strvec *cl;

		if (!name || !type || !file || strcmp(type, "executable"))
			continue;
		if (!in_package(p, cJSON_IsString(sub) ? sub->valuestring : NULL))
			continue;
		if (!(x = fg_project_add_target(p, name, FG_TARGET_BIN)) || !(x->exe = fg_strdup(file)) ||
		    !(x->build_name = fg_strdup(name)) || !(cl = compile_of(st, p->ntargets - 1)))
			return FG_ENOMEM;
		if (compile_spec(p, targets, t, cl))
			return FG_ENOMEM;
	}
	return 0;
}

static int add_env(struct fg_target *x, const cJSON *env)
{
	const cJSON *e;
	int err = 0;

	cJSON_ArrayForEach(e, env) {
		if (e->string && cJSON_IsString(e))
			err = fg_strvec_pushf(&x->env, "%s=%s", e->string, e->valuestring);
		if (err)
			break;
	}
	return err;
}

/* Whether the executable writing `file` is installed: a program of the
 * project, which stays a bin even when a test runs it. */
static bool installed(const cJSON *targets, const char *file)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, targets) {
		const char *f = first_file(t);
		if (f && !strcmp(f, file))
			return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "installed"));
	}
	return false;
}

/* A test or benchmark: its exact command, environment and folder (the
 * build folder unless it names one, as `meson test` runs it). The
 * executable it runs becomes a target of its kind unless it is installed. */
static int add_run(fg_project *p, fg_meson_state *st, const cJSON *targets, size_t nexec,
		   const cJSON *run, fg_target_kind kind)
{
	const char *name = fg_meson_jstr(run, "name"), *wd = fg_meson_jstr(run, "workdir");
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(run, "cmd"), *a;
	struct fg_target *x;
	size_t idx;
	fg_strvec *cl;
	int err = 0;

	if (!name || !cJSON_IsString(cJSON_GetArrayItem(cmd, 0)) || !suite_in_package(p, run))
		return 0;
	if (!(x = fg_project_add_target(p, name, kind)))
		return FG_ENOMEM;
	idx = p->ntargets - 1;
	x->ctest = true;
	cJSON_ArrayForEach(a, cmd)
		if (cJSON_IsString(a) && (err = fg_strvec_push(&x->argv, a->valuestring)))
			return err;
	if ((err = add_env(x, cJSON_GetObjectItemCaseSensitive(run, "env"))))
		return err;
	if (!(x->cwd = fg_strdup(wd ? wd : p->build_dir)) || !(x->exe = fg_strdup(x->argv.v[0])) ||
	    !(cl = compile_of(st, idx)))
		return FG_ENOMEM;
	for (size_t i = 0; i < nexec; i++) {
		struct fg_target *e = &p->targets[i];
		if (strcmp(e->exe, x->argv.v[0]))
			continue;
		if (!(x->build_name = fg_strdup(e->build_name)))
			return FG_ENOMEM;
		if ((kind == FG_TARGET_TEST || e->kind == FG_TARGET_BIN) && !installed(targets, e->exe))
			e->kind = kind;
		break;
	}
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(run, "depends")) {
		const cJSON *t = cJSON_IsString(a) ? target_by_id(targets, a->valuestring) : NULL;
		if (t && (err = compile_spec(p, targets, t, cl)))
			return err;
	}
	/* Meson older than 0.56 lists no dependencies: build the program */
	for (size_t i = 0; !cl->n && x->build_name && i < nexec; i++)
		if (!strcmp(p->targets[i].exe, x->exe) && (err = fg_strvec_pushv(cl,
				(const char *const *)st->compile[i].v, st->compile[i].n)))
			return err;
	return 0;
}

/* A feature option (enabled/disabled/auto): Meson's introspection calls
 * it a combo of those three choices. */
bool fg_meson_is_feature(const cJSON *o)
{
	const char *type = fg_meson_jstr(o, "type");
	const cJSON *c;
	size_t n = 0;

	if (!type || !strcmp(type, "feature"))
		return type != NULL;
	if (strcmp(type, "combo"))
		return false;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(o, "choices")) {
		if (!cJSON_IsString(c) || (strcmp(c->valuestring, "enabled") &&
					   strcmp(c->valuestring, "disabled") && strcmp(c->valuestring, "auto")))
			return false;
		n++;
	}
	return n == 3;
}

/* A project option --features can turn on: a boolean or a feature. */
bool fg_meson_is_switch(const cJSON *o)
{
	const char *section = fg_meson_jstr(o, "section"), *type = fg_meson_jstr(o, "type"), *name = fg_meson_jstr(o, "name");
	return section && type && name && !strcmp(section, "user") && !strchr(name, ':') &&
	       (!strcmp(type, "boolean") || fg_meson_is_feature(o));
}

int fg_meson_read_switches(fg_project *p, const cJSON *options)
{
	const cJSON *o;

	fg_strvec_clear(&p->bool_options);
	cJSON_ArrayForEach(o, options)
		if (fg_meson_is_switch(o) && fg_strvec_push(&p->bool_options, fg_meson_jstr(o, "name")))
			return FG_ENOMEM;
	return 0;
}

static int package_error(const fg_project *p, const cJSON *info)
{
	const cJSON *s;
	fg_strbuf list = FG_STRBUF_INIT;
	int err;

	fg_strbuf_addstr(&list, p->name);
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(info, "subprojects"))
		if (fg_meson_jstr(s, "name"))
			fg_strbuf_addf(&list, ", %s", fg_meson_jstr(s, "name"));
	err = fg_error_set(FG_ENOTFOUND, "no package '%s' in %s — its packages (the project and its "
			   "subprojects) are: %s", p->opts.package, p->loc.file, list.buf);
	fg_strbuf_release(&list);
	return err;
}

static bool known_package(const fg_project *p, const cJSON *info)
{
	const cJSON *s;

	if (!strcmp(p->opts.package, p->name))
		return true;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(info, "subprojects"))
		if (fg_meson_jstr(s, "name") && !strcmp(fg_meson_jstr(s, "name"), p->opts.package))
			return true;
	return false;
}

static int read_intro(fg_project *p, const struct intro_src *src)
{
	static const char *const runs[2] = { "intro-tests.json", "intro-benchmarks.json" };
	cJSON *targets = NULL, *info = NULL, *options = NULL, *list = NULL;
	fg_meson_state *st = fg_meson_state_of(p);
	size_t nexec;
	int err;

	if (!st)
		return FG_ENOMEM;
	if ((err = intro_json(src, "intro-projectinfo.json", false, &info)) ||
	    (err = intro_json(src, "intro-buildoptions.json", false, &options)) ||
	    (err = intro_json(src, "intro-targets.json", true, &targets)))
		goto done;
	if (fg_meson_jstr(info, "descriptive_name")) {
		free(p->name);
		if (!(p->name = fg_strdup(fg_meson_jstr(info, "descriptive_name")))) {
			err = FG_ENOMEM;
			goto done;
		}
	}
	if (p->opts.package && !known_package(p, info)) {
		err = package_error(p, info);
		goto done;
	}
	if ((err = fg_meson_read_switches(p, options)) || (err = add_executables(p, st, targets)))
		goto done;
	nexec = p->ntargets;
	for (size_t k = 0; k < 2 && !err; k++) {
		const cJSON *run;
		if ((err = intro_json(src, runs[k], false, &list)))
			break;
		cJSON_ArrayForEach(run, list)
			if ((err = add_run(p, st, targets, nexec, run, k ? FG_TARGET_BENCH : FG_TARGET_TEST)))
				break;
		cJSON_Delete(list);
		list = NULL;
	}
done:
	cJSON_Delete(targets);
	cJSON_Delete(info);
	cJSON_Delete(options);
	cJSON_Delete(list);
	return err;
}

int fg_meson_read_intro(fg_project *p, const fg_meson_file *files, size_t n)
{
	struct intro_src src = { files, n, NULL };
	return read_intro(p, &src);
}

/* ---- discovery and opening -------------------------------------------------- */

bool fg_meson_is_build_dir(const char *dir)
{
	char *path = fg_meson_info_path(dir, "meson-info.json");
	bool ok = path && fg_path_is_file(path);
	free(path);
	return ok;
}

char *fg_meson_source_of(const char *build_dir)
{
	char *path = fg_meson_info_path(build_dir, "meson-info.json"), *text = fg_meson_read_text(path), *src = NULL;
	cJSON *j = fg_meson_parse(text);
	const char *s = fg_meson_jstr(cJSON_GetObjectItemCaseSensitive(j, "directories"), "source");

	if (s)
		src = fg_strdup(s);
	cJSON_Delete(j);
	free(text);
	free(path);
	return src;
}

/* The first statement of dir's meson.build when it is project(...):
 * returns where its arguments start, or NULL. */
static const char *project_call(const char *text)
{
	for (const char *s = text; s && *s;) {
		s += strspn(s, " \t\r\n");
		if (*s == '#') {
			s = strchr(s, '\n');
			continue;
		}
		if (strncmp(s, "project", 7))
			return NULL;
		s += 7;
		s += strspn(s, " \t");
		return *s == '(' ? s + 1 : NULL;
	}
	return NULL;
}

/* A meson.build that calls project(): its first statement must. */
bool fg_meson_calls_project(const char *dir)
{
	char *path = fg_path_join(dir, "meson.build"), *text = fg_meson_read_text(path);
	bool found = project_call(text) != NULL;

	free(text);
	free(path);
	return found;
}

/* project('NAME', ...): the name, for the messages before the first
 * configure has run. */
static char *declared_name(const char *root)
{
	char *path = fg_path_join(root, "meson.build"), *text = fg_meson_read_text(path), *name = NULL;
	const char *s = project_call(text);

	if (s) {
		s += strspn(s, " \t\r\n");
		if (*s == '\'' && strchr(s + 1, '\'') && strchr(s + 1, '\'') > s + 1)
			name = fg_strndup(s + 1, (size_t)(strchr(s + 1, '\'') - s - 1));
	}
	free(text);
	free(path);
	return name;
}

/* A build folder of the user's for this source tree: build/, builddir/,
 * _build/, then any other folder just below the root (the first by
 * name); never the flamegraph build folder. */
static char *find_user_build(const fg_project *p)
{
	static const char *const usual[] = { "build", "builddir", "_build" };
	char *found = NULL;
	struct dirent **names = NULL;
	int n;

	for (size_t i = 0; i < 3 && !found; i++) {
		char *d = fg_path_join(p->loc.root, usual[i]);
		char *src = d && fg_meson_is_build_dir(d) ? fg_meson_source_of(d) : NULL;
		if (src && fg_same_path(src, p->loc.root) && !fg_same_path(d, p->build_dir))
			found = d, d = NULL;
		free(src);
		free(d);
	}
	n = found ? 0 : scandir(p->loc.root, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char *d = names[i]->d_name[0] != '.' ? fg_path_join(p->loc.root, names[i]->d_name) : NULL;
		char *src = !found && d && fg_meson_is_build_dir(d) ? fg_meson_source_of(d) : NULL;
		if (src && fg_same_path(src, p->loc.root) && !fg_same_path(d, p->build_dir))
			found = d, d = NULL;
		free(src);
		free(d);
		free(names[i]);
	}
	free(names);
	return found;
}

static char *user_build_of(const fg_project *p)
{
	static const char suffix[] = "/meson-info/meson-info.json";
	size_t n = strlen(p->loc.file), k = sizeof(suffix) - 1;

	if (n > k && !strcmp(p->loc.file + n - k, suffix))
		return fg_strndup(p->loc.file, n - k);
	return find_user_build(p);
}

/* The name an earlier configure found, for the messages before this one's. */
static void project_name(fg_project *p)
{
	char *path = fg_meson_info_path(p->build_dir, "intro-projectinfo.json"), *text = fg_meson_read_text(path);
	cJSON *j = fg_meson_parse(text);
	const char *name = fg_meson_jstr(j, "descriptive_name");
	char *copy = name ? fg_strdup(name) : declared_name(p->loc.root);

	if (copy) {
		free(p->name);
		p->name = copy;
	}
	cJSON_Delete(j);
	free(text);
	free(path);
}

int fg_meson_prepare(fg_project *p)
{
	fg_meson_state *st = fg_meson_state_of(p);

	if (!st)
		return FG_ENOMEM;
	if ((st->user_build = user_build_of(p)) && fg_same_path(st->user_build, p->build_dir)) {
		free(st->user_build);
		st->user_build = NULL;
	}
	project_name(p);
	if (st->user_build)
		fg_project_note(p, "taking the options of the build folder %s", st->user_build);
	return 0;
}

int fg_meson_read(fg_project *p)
{
	struct intro_src src = { NULL, 0, p->build_dir };

	return read_intro(p, &src);
}
