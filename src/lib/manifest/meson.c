/* Meson projects (SPEC 3d): configure the flamegraph build folder with
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
#include "lib/manifest/meson.h"
#include "lib/manifest/project.h"
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

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static char *read_text(const char *path)
{
	char *data = NULL;
	size_t len;

	if (!path || !fg_path_is_file(path) || fg_read_file(path, &data, &len)) {
		fg_error_clear();
		return NULL;
	}
	return data;
}

static int write_text(const char *path, const char *text)
{
	FILE *f = path ? fopen(path, "w") : NULL;
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		return fg_error_set(FG_EIO, "cannot write %s", path ? path : "(null)");
	return 0;
}

static char *info_path(const char *dir, const char *name)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	fg_strbuf_addf(&sb, "%s/meson-info/%s", dir, name);
	return fg_strbuf_detach(&sb, NULL);
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
	path = info_path(src->dir, name);
	if (!path)
		return FG_ENOMEM;
	if (!(data = read_text(path))) {
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

static fg_meson_state *state_of(fg_project *p)
{
	if (!p->reader_data) {
		if (!(p->reader_data = fg_calloc(1, sizeof(fg_meson_state))))
			return NULL;
		p->reader_free = state_free;
	}
	return p->reader_data;
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
	const char *name = jstr(t, "name"), *type = jstr(t, "type"), *file = first_file(t);
	const cJSON *o;
	fg_strbuf sb = FG_STRBUF_INIT;
	size_t same = 0, blen = strlen(p->build_dir);
	int err;

	if (!name || !type)
		return 0;
	cJSON_ArrayForEach(o, targets) {
		const char *n = jstr(o, "name"), *ty = jstr(o, "type");
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
		const char *i = jstr(t, "id");
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
		const char *name = jstr(t, "name"), *type = jstr(t, "type"), *file = first_file(t);
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
	const char *name = jstr(run, "name"), *wd = jstr(run, "workdir");
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
static bool is_feature(const cJSON *o)
{
	const char *type = jstr(o, "type");
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
static bool is_switch(const cJSON *o)
{
	const char *section = jstr(o, "section"), *type = jstr(o, "type"), *name = jstr(o, "name");
	return section && type && name && !strcmp(section, "user") && !strchr(name, ':') &&
	       (!strcmp(type, "boolean") || is_feature(o));
}

static int read_switches(fg_project *p, const cJSON *options)
{
	const cJSON *o;

	fg_strvec_clear(&p->bool_options);
	cJSON_ArrayForEach(o, options)
		if (is_switch(o) && fg_strvec_push(&p->bool_options, jstr(o, "name")))
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
		if (jstr(s, "name"))
			fg_strbuf_addf(&list, ", %s", jstr(s, "name"));
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
		if (jstr(s, "name") && !strcmp(jstr(s, "name"), p->opts.package))
			return true;
	return false;
}

static int read_intro(fg_project *p, const struct intro_src *src)
{
	static const char *const runs[2] = { "intro-tests.json", "intro-benchmarks.json" };
	cJSON *targets = NULL, *info = NULL, *options = NULL, *list = NULL;
	fg_meson_state *st = state_of(p);
	size_t nexec;
	int err;

	if (!st)
		return FG_ENOMEM;
	if ((err = intro_json(src, "intro-projectinfo.json", false, &info)) ||
	    (err = intro_json(src, "intro-buildoptions.json", false, &options)) ||
	    (err = intro_json(src, "intro-targets.json", true, &targets)))
		goto done;
	if (jstr(info, "descriptive_name")) {
		free(p->name);
		if (!(p->name = fg_strdup(jstr(info, "descriptive_name")))) {
			err = FG_ENOMEM;
			goto done;
		}
	}
	if (p->opts.package && !known_package(p, info)) {
		err = package_error(p, info);
		goto done;
	}
	if ((err = read_switches(p, options)) || (err = add_executables(p, st, targets)))
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

/* ---- configure arguments -------------------------------------------------- */

/* The user's -D NAME=VALUE for NAME, or NULL. */
static const char *user_define(const fg_project *p, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < p->opts.ndefines; i++) {
		const char *d = p->opts.defines[i];
		if (!strncmp(d, name, n) && d[n] == '=')
			return d + n + 1;
	}
	return NULL;
}

static const cJSON *find_option(const cJSON *options, const char *name)
{
	const cJSON *o;
	cJSON_ArrayForEach(o, options) {
		const char *n = jstr(o, "name");
		if (n && !strcmp(n, name))
			return o;
	}
	return NULL;
}

/* An option's value as -D takes it: true/false, a number, a string, or
 * a list (["a", "b"], which Meson reads as a literal). */
static void format_value(const cJSON *v, fg_strbuf *out)
{
	const cJSON *e;

	if (cJSON_IsBool(v))
		fg_strbuf_addstr(out, cJSON_IsTrue(v) ? "true" : "false");
	else if (cJSON_IsNumber(v))
		fg_strbuf_addf(out, "%lld", (long long)v->valuedouble);
	else if (cJSON_IsString(v))
		fg_strbuf_addstr(out, v->valuestring);
	else if (cJSON_IsArray(v)) {
		fg_strbuf_addch(out, '[');
		cJSON_ArrayForEach(e, v) {
			if (!cJSON_IsString(e))
				continue;
			if (out->buf[out->len - 1] != '[')
				fg_strbuf_addstr(out, ", ");
			fg_strbuf_addch(out, '\'');
			for (const char *s = e->valuestring; *s; s++) {
				if (*s == '\'' || *s == '\\')
					fg_strbuf_addch(out, '\\');
				fg_strbuf_addch(out, *s);
			}
			fg_strbuf_addch(out, '\'');
		}
		fg_strbuf_addch(out, ']');
	}
}

/* A compiler-argument option (c_args...) of the user's build folder as
 * one shell-quoted string, the way -Dc_args= takes it. */
static void array_words(const cJSON *v, fg_strbuf *out)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, v) {
		if (!cJSON_IsString(e))
			continue;
		if (out->len)
			fg_strbuf_addch(out, ' ');
		if (!strpbrk(e->valuestring, " \t'\"\\")) {
			fg_strbuf_addstr(out, e->valuestring);
			continue;
		}
		fg_strbuf_addch(out, '\'');
		for (const char *s = e->valuestring; *s; s++)
			fg_strbuf_addstr(out, *s == '\'' ? "'\\''" : (char[2]){ *s, 0 });
		fg_strbuf_addch(out, '\'');
	}
}

/* -Dc_args=... and the like: the user's own flags (their -D, else their
 * build folder's, else $CFLAGS/$LDFLAGS), then ours. */
static int flags_arg(const fg_project *p, const cJSON *user_options, const char *name,
		     const char *env_value, const char *ours, fg_strvec *args)
{
	const char *user = user_define(p, name);
	fg_strbuf sb = FG_STRBUF_INIT;
	int err = 0;

	if (user)
		fg_strbuf_addstr(&sb, user);
	else if (find_option(user_options, name))
		array_words(cJSON_GetObjectItemCaseSensitive(find_option(user_options, name), "value"), &sb);
	else if (env_value)
		fg_strbuf_addstr(&sb, env_value);
	if (ours && *ours)
		fg_strbuf_addf(&sb, "%s%s", sb.len ? " " : "", ours);
	if (sb.len)
		err = fg_strvec_pushf(args, "-D%s=%s", name, sb.buf);
	fg_strbuf_release(&sb);
	return err;
}

static bool flags_option(const char *name)
{
	static const char *const names[] = { "c_args", "cpp_args", "c_link_args", "cpp_link_args" };
	for (size_t i = 0; i < 4; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* release: -O2 -g (debugoptimized); dev: -O0 -g (debug); a Meson build
 * type by name, with debug info kept. */
static int profile_args(const fg_project *p, fg_strvec *args)
{
	static const char *const types[] = { "debug", "debugoptimized", "minsize", "plain" };
	const char *prof = p->profile;

	if (!strcmp(prof, "release"))
		return fg_strvec_push(args, "-Dbuildtype=debugoptimized");
	if (!strcmp(prof, "dev"))
		return fg_strvec_push(args, "-Dbuildtype=debug");
	for (size_t i = 0; i < 4; i++) {
		if (strcmp(prof, types[i]))
			continue;
		fg_strvec_pushf(args, "-Dbuildtype=%s", prof);
		return fg_strvec_push(args, "-Ddebug=true");
	}
	const char *near = fg_suggest(prof, types, 4);
	return fg_error_set(FG_EINVAL, "no profile '%s' for a Meson project — %s%s%suse release "
			    "(debugoptimized, the default), dev (debug), or a Meson build type: debug, "
			    "debugoptimized, minsize, plain", prof, near ? "did you mean '" : "",
			    near ? near : "", near ? "'? Otherwise " : "");
}

/* The options of the user's build folder: the project's own (and its
 * subprojects'), and the default library kind. */
static int carried_options(const cJSON *user_options, fg_strvec *args)
{
	const cJSON *o;
	fg_strbuf sb = FG_STRBUF_INIT;
	int err = 0;

	cJSON_ArrayForEach(o, user_options) {
		const char *n = jstr(o, "name"), *sec = jstr(o, "section");
		if (!n || !sec || (strcmp(sec, "user") && strcmp(n, "default_library")))
			continue;
		fg_strbuf_reset(&sb);
		fg_strbuf_addf(&sb, "-D%s=", n);
		format_value(cJSON_GetObjectItemCaseSensitive(o, "value"), &sb);
		if ((err = fg_strvec_push(args, sb.buf)))
			break;
	}
	fg_strbuf_release(&sb);
	return err;
}

static bool same_word(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int x = a[i] == '-' ? '_' : tolower((unsigned char)a[i]);
		int y = b[i] == '-' ? '_' : tolower((unsigned char)b[i]);
		if (x != y)
			return false;
	}
	return true;
}

/* --features X names the option X, or one that differs only in case and
 * '-'/'_', or one with an enable_/with_/use_/<project>_ prefix. */
static bool feature_matches(const char *option, const char *feature, const char *project)
{
	static const char *const pre[] = { "enable_", "with_", "use_" };
	size_t fl = strlen(feature), ol = strlen(option), pl;

	if (ol == fl && same_word(option, feature, fl))
		return true;
	for (size_t i = 0; i < 3; i++) {
		pl = strlen(pre[i]);
		if (ol == pl + fl && same_word(option, pre[i], pl) && same_word(option + pl, feature, fl))
			return true;
	}
	pl = strlen(project);
	return pl && ol == pl + 1 + fl && same_word(option, project, pl) &&
	       (option[pl] == '_' || option[pl] == '-') && same_word(option + pl + 1, feature, fl);
}

static const char *default_of(const char *defaults, const char *name, fg_strbuf *tmp)
{
	const char *s;
	size_t n = strlen(name);

	for (s = defaults; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
		if (!strncmp(s, name, n) && s[n] == '=') {
			fg_strbuf_reset(tmp);
			fg_strbuf_add(tmp, s + n + 1, strcspn(s + n + 1, "\n"));
			return tmp->buf;
		}
	}
	return NULL;
}

static int unknown_feature(const fg_project *p, const char *f)
{
	fg_strbuf list = FG_STRBUF_INIT;
	const char *near = fg_suggest(f, (const char *const *)p->bool_options.v, p->bool_options.n);
	int err;

	for (size_t k = 0; k < p->bool_options.n; k++)
		fg_strbuf_addf(&list, "%s%s", k ? ", " : "", p->bool_options.v[k]);
	err = fg_error_set(FG_EINVAL, "unknown feature '%s' — %s%s%s%s's boolean and feature options "
			   "are: %s", f, near ? "did you mean '" : "", near ? near : "", near ? "'? " : "",
			   p->name, list.len ? list.buf : "(none)");
	fg_strbuf_release(&list);
	return err;
}

/* One -D per boolean or feature option of the project: on when asked
 * for (or --all-features), off with --no-default-features, else its
 * value at the first configure, so that dropping --features restores it. */
static int feature_args(fg_project *p, const cJSON *options, const char *defaults, fg_strvec *args)
{
	fg_strbuf tmp = FG_STRBUF_INIT;
	const cJSON *o;
	bool *asked = NULL;
	int err = 0;

	if ((err = read_switches(p, options)))
		return err;
	if (!(asked = fg_calloc(p->bool_options.n + 1, sizeof(*asked))))
		return FG_ENOMEM;
	for (size_t i = 0; i < p->opts.nfeatures && !err; i++) {
		const char *f = p->opts.features[i];
		size_t k, hit = p->bool_options.n;
		for (k = 0; k < p->bool_options.n && hit == p->bool_options.n; k++)
			if (!strcmp(p->bool_options.v[k], f))
				hit = k;
		for (k = 0; k < p->bool_options.n && hit == p->bool_options.n; k++)
			if (feature_matches(p->bool_options.v[k], f, p->name))
				hit = k;
		if (hit == p->bool_options.n)
			err = unknown_feature(p, f);
		else
			asked[hit] = true;
	}
	for (size_t k = 0; k < p->bool_options.n && !err; k++) {
		const char *n = p->bool_options.v[k], *v;
		bool feature;
		o = find_option(options, n);
		feature = o && is_feature(o);
		if (asked[k] || p->opts.all_features)
			v = feature ? "enabled" : "true";
		else if (p->opts.no_default_features)
			v = feature ? "disabled" : "false";
		else if (!(v = default_of(defaults, n, &tmp)))
			continue;
		err = fg_strvec_pushf(args, "-D%s=%s", n, v);
	}
	free(asked);
	fg_strbuf_release(&tmp);
	return err;
}

/* Everything but the feature switches (base) and the user's -D (last,
 * so they win). */
static int split_args(fg_project *p, const char *fp_flags, const cJSON *user_options,
		      const cJSON *options, const char *defaults, fg_strvec *base,
		      fg_strvec *feats, fg_strvec *user)
{
	fg_strbuf link = FG_STRBUF_INIT;
	int err;

	if ((err = profile_args(p, base)))
		return err;
	if (p->no_rosegment)
		fg_strbuf_addstr(&link, "-Wl,--no-rosegment");
	if ((err = flags_arg(p, user_options, "c_args", p->opts.cflags, fp_flags, base)) ||
	    (err = flags_arg(p, user_options, "cpp_args", NULL, fp_flags, base)) ||
	    (err = flags_arg(p, user_options, "c_link_args", p->opts.ldflags, link.buf, base)) ||
	    (err = flags_arg(p, user_options, "cpp_link_args", NULL, link.buf, base)) ||
	    (err = carried_options(user_options, base)))
		goto done;
	if (options && (err = feature_args(p, options, defaults, feats)))
		goto done;
	for (size_t i = 0; i < p->opts.ndefines && !err; i++) {
		const char *d = p->opts.defines[i], *eq = strchr(d, '=');
		fg_strbuf name = FG_STRBUF_INIT;
		if (!eq || eq == d) {
			err = fg_error_set(FG_EINVAL, "-D %s: a Meson option is set as -D NAME=VALUE", d);
			break;
		}
		fg_strbuf_add(&name, d, (size_t)(eq - d));
		if (!flags_option(name.buf))
			err = fg_strvec_pushf(user, "-D%s", d);
		fg_strbuf_release(&name);
	}
done:
	fg_strbuf_release(&link);
	return err;
}

static cJSON *parse_or_null(const char *text)
{
	return text ? cJSON_Parse(text) : NULL;
}

int fg_meson_setup_args(fg_project *p, const char *fp_flags, const char *user_options,
			const char *options, const char *defaults, fg_strvec *args)
{
	fg_strvec feats = FG_STRVEC_INIT, user = FG_STRVEC_INIT;
	cJSON *uo = parse_or_null(user_options), *o = parse_or_null(options);
	int err = split_args(p, fp_flags, uo, o, defaults, args, &feats, &user);

	if (!err)
		err = fg_strvec_pushv(args, (const char *const *)feats.v, feats.n);
	if (!err)
		err = fg_strvec_pushv(args, (const char *const *)user.v, user.n);
	fg_strvec_clear(&feats);
	fg_strvec_clear(&user);
	cJSON_Delete(uo);
	cJSON_Delete(o);
	return err;
}

/* ---- configure ------------------------------------------------------------ */

static bool cc_accepts(const fg_project *p, const char *flag)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 0, 0 };
	int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	bool ok;

	fg_strvec_push(&cmd.argv, p->opts.cc && *p->opts.cc ? p->opts.cc : "cc");
	fg_strvec_push(&cmd.argv, flag);
	fg_strvec_split(&cmd.argv, "-x c -c -o /dev/null /dev/null");
	cmd.stdout_fd = cmd.stderr_fd = null_fd;
	ok = fg_cmd_run(&cmd, &st) == 0 && st.code == 0;
	fg_cmd_clear(&cmd);
	if (null_fd >= 0)
		close(null_fd);
	fg_error_clear();
	return ok;
}

static bool wants_lld(const fg_project *p)
{
	const char *s[2] = { p->opts.cflags, p->opts.ldflags };
	for (size_t i = 0; i < 2; i++)
		if (s[i] && (strstr(s[i], "-fuse-ld=lld") || strstr(s[i], "-fuse-ld=mold")))
			return true;
	for (size_t i = 0; i < p->opts.ndefines; i++)
		if (strstr(p->opts.defines[i], "-fuse-ld=lld") || strstr(p->opts.defines[i], "-fuse-ld=mold"))
			return true;
	return false;
}

/* Meson reports errors on stdout: keep its ERROR lines (or its last
 * lines) for the message. */
static void meson_message(const fg_strbuf *out, fg_strbuf *msg)
{
	const char *s = out->buf ? strstr(out->buf, "ERROR:") : NULL;
	size_t lines = 0;

	if (s) {
		while (s > out->buf && s[-1] != '\n')
			s--;
	} else if (out->len) {
		for (s = out->buf + out->len - 1; s > out->buf && lines < 12; s--)
			if (*s == '\n')
				lines++;
	}
	if (s)
		fg_strbuf_add(msg, s, strlen(s));
	while (msg->len && strchr(" \t\r\n", msg->buf[msg->len - 1]))
		fg_strbuf_setlen(msg, msg->len - 1);
}

static int run_setup(fg_project *p, const fg_strvec *args, const char *mode)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 0, 0 };
	fg_strbuf out = FG_STRBUF_INIT, msg = FG_STRBUF_INIT, shown = FG_STRBUF_INIT;
	int err;

	fg_strvec_push(&cmd.argv, "meson");
	fg_strvec_push(&cmd.argv, "setup");
	if (mode)
		fg_strvec_push(&cmd.argv, mode);
	fg_strvec_push(&cmd.argv, p->build_dir);
	fg_strvec_push(&cmd.argv, p->loc.root);
	err = fg_strvec_pushv(&cmd.argv, (const char *const *)args->v, args->n);
	fg_project_note(p, "configuring %s (%s) with meson in %s", p->name, p->profile, p->build_dir);
	if (p->opts.verbose) {
		fg_strvec_join_quoted(&cmd.argv, &shown);
		fg_project_note(p, "running %s", shown.buf);
	}
	if (!err)
		err = fg_cmd_capture(&cmd, &out, &st);
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "meson is not installed — install it " INSTALL_HINT);
	else if (!err && st.code != 0) {
		meson_message(&out, &msg);
		err = fg_error_set(FG_EBUILD, "configuring %s with meson failed:\n%s\n— fix that in the "
				   "project or its options (-D NAME=VALUE, --features)", p->loc.file,
				   msg.len ? msg.buf : "(meson said nothing)");
	}
	fg_strbuf_release(&out);
	fg_strbuf_release(&msg);
	fg_strbuf_release(&shown);
	fg_cmd_clear(&cmd);
	return err;
}

/* NAME=VALUE of each boolean and feature option, as configured. */
static char *defaults_text(const cJSON *options)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	const cJSON *o;

	cJSON_ArrayForEach(o, options) {
		if (!is_switch(o))
			continue;
		fg_strbuf_addf(&sb, "%s=", jstr(o, "name"));
		format_value(cJSON_GetObjectItemCaseSensitive(o, "value"), &sb);
		fg_strbuf_addch(&sb, '\n');
	}
	return fg_strbuf_detach(&sb, NULL);
}

/* Whether every -DNAME=VALUE of args is NAME's configured value. */
static bool options_are(const cJSON *options, const fg_strvec *args)
{
	fg_strbuf v = FG_STRBUF_INIT;
	bool same = true;

	for (size_t i = 0; i < args->n && same; i++) {
		const char *d = args->v[i] + 2, *eq = strchr(d, '=');
		fg_strbuf name = FG_STRBUF_INIT;
		const cJSON *o;
		fg_strbuf_add(&name, d, eq ? (size_t)(eq - d) : 0);
		o = eq ? find_option(options, name.buf) : NULL;
		fg_strbuf_reset(&v);
		if (o)
			format_value(cJSON_GetObjectItemCaseSensitive(o, "value"), &v);
		same = o && v.buf && !strcmp(v.buf, eq + 1);
		fg_strbuf_release(&name);
	}
	fg_strbuf_release(&v);
	return same;
}

static char *join_lines(const fg_strvec *v)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	for (size_t i = 0; i < v->n; i++)
		fg_strbuf_addf(&sb, "%s\n", v->v[i]);
	return fg_strbuf_detach(&sb, NULL);
}

/* An option set by the last configure and given no value now keeps its
 * old value in Meson's build folder: only a fresh configure resets it. */
static bool option_dropped(const char *stamp, const char *want)
{
	for (const char *s = stamp; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
		size_t n = strcspn(s, "=\n");
		bool found = false;
		for (const char *w = want; w && *w && !found; w = strchr(w, '\n') ? strchr(w, '\n') + 1 : NULL)
			found = strcspn(w, "=\n") == n && !strncmp(s, w, n);
		if (!found)
			return true;
	}
	return false;
}

static char *fp_flags(const fg_project *p)
{
	fg_strbuf fl = FG_STRBUF_INIT;

	fg_strbuf_addstr(&fl, "-fno-omit-frame-pointer");
	if (cc_accepts(p, "-mno-omit-leaf-frame-pointer"))
		fg_strbuf_addstr(&fl, " -mno-omit-leaf-frame-pointer");
	return fg_strbuf_detach(&fl, NULL);
}

static char *build_file(const fg_project *p, const char *name)
{
	return fg_path_join(p->build_dir, name);
}

/* Whether a meson.build (or options file) changed since build.ninja was
 * written: the introspection files are then out of date until Meson
 * regenerates, which `meson compile` would do only after they are read. */
static bool intro_stale(const fg_project *p, const char *ninja_file)
{
	char *path = info_path(p->build_dir, "intro-buildsystem_files.json"), *text = read_text(path);
	cJSON *files = parse_or_null(text);
	const cJSON *f;
	long long built = fg_path_mtime(ninja_file);
	bool stale = false;

	cJSON_ArrayForEach(f, files)
		if (cJSON_IsString(f) && fg_path_mtime(f->valuestring) > built)
			stale = true;
	cJSON_Delete(files);
	free(text);
	free(path);
	return stale;
}

int fg_meson_configure(fg_project *p)
{
	fg_meson_state *st = state_of(p);
	fg_strvec base = FG_STRVEC_INIT, feats = FG_STRVEC_INIT, user = FG_STRVEC_INIT;
	char *stamp_path = build_file(p, STAMP_FILE), *defaults_path = build_file(p, DEFAULTS_FILE);
	char *marker = build_file(p, ROSEGMENT_FILE), *ninja_file = build_file(p, "build.ninja");
	char *fp = NULL, *uo_path = NULL, *uo_text = NULL, *opt_path = NULL, *opt_text = NULL;
	char *defaults = NULL, *stamp = NULL, *want = NULL, *meson = fg_which("meson"), *ninja = NULL;
	cJSON *uo = NULL, *options = NULL;
	bool configured, fresh = false;
	int err = 0;

	if (!st || !stamp_path || !defaults_path || !marker || !ninja_file) {
		err = FG_ENOMEM;
		goto done;
	}
	if (!meson || !((ninja = fg_which("ninja")) || (ninja = fg_which("samu")))) {
		err = fg_error_set(FG_ENOTFOUND, "%s is not installed — flamegraph-build builds Meson "
				   "projects with meson and ninja: install them " INSTALL_HINT,
				   meson ? "ninja" : "meson");
		goto done;
	}
	if ((err = fg_mkdir_p(p->build_dir)))
		goto done;
	p->no_rosegment = fg_path_is_file(marker) || wants_lld(p);
	fp = fp_flags(p);
	if (st->user_build && (uo_path = info_path(st->user_build, "intro-buildoptions.json")))
		uo = parse_or_null(uo_text = read_text(uo_path));
	opt_path = info_path(p->build_dir, "intro-buildoptions.json");
	configured = fg_meson_is_build_dir(p->build_dir) && fg_path_is_file(ninja_file);
	defaults = read_text(defaults_path);
	if (!configured || !defaults) {
		if ((err = split_args(p, fp, uo, NULL, NULL, &base, &feats, &user)) ||
		    (err = fg_strvec_pushv(&base, (const char *const *)user.v, user.n)) ||
		    (err = run_setup(p, &base, configured ? "--wipe" : NULL)))
			goto done;
		fresh = true;
		free(defaults);
		options = parse_or_null(opt_text = read_text(opt_path));
		if (!(defaults = defaults_text(options)) || (err = write_text(defaults_path, defaults)))
			goto done;
		fg_strvec_clear(&base);
		fg_strvec_clear(&user);
	} else
		options = parse_or_null(opt_text = read_text(opt_path));
	if (!options) {
		err = fg_error_set(FG_EPARSE, "Meson wrote no readable %s", opt_path);
		goto done;
	}
	if ((err = split_args(p, fp, uo, options, defaults, &base, &feats, &user)) ||
	    (err = fg_strvec_pushv(&base, (const char *const *)feats.v, feats.n)) ||
	    (err = fg_strvec_pushv(&base, (const char *const *)user.v, user.n)))
		goto done;
	want = join_lines(&base);
	stamp = read_text(stamp_path);
	if (fresh && options_are(options, &feats))
		err = write_text(stamp_path, want);
	else if (!stamp || strcmp(stamp, want)) {
		if ((err = run_setup(p, &base, stamp && option_dropped(stamp, want) ? "--wipe" : "--reconfigure")))
			goto done;
		err = write_text(stamp_path, want);
	} else if (intro_stale(p, ninja_file))
		err = run_setup(p, &base, "--reconfigure");
done:
	cJSON_Delete(uo);
	cJSON_Delete(options);
	fg_strvec_clear(&base);
	fg_strvec_clear(&feats);
	fg_strvec_clear(&user);
	free(stamp_path);
	free(defaults_path);
	free(marker);
	free(ninja_file);
	free(fp);
	free(uo_path);
	free(uo_text);
	free(opt_path);
	free(opt_text);
	free(defaults);
	free(stamp);
	free(want);
	free(meson);
	free(ninja);
	return err;
}

/* ---- discovery and opening -------------------------------------------------- */

bool fg_meson_is_build_dir(const char *dir)
{
	char *path = info_path(dir, "meson-info.json");
	bool ok = path && fg_path_is_file(path);
	free(path);
	return ok;
}

char *fg_meson_source_of(const char *build_dir)
{
	char *path = info_path(build_dir, "meson-info.json"), *text = read_text(path), *src = NULL;
	cJSON *j = parse_or_null(text);
	const char *s = jstr(cJSON_GetObjectItemCaseSensitive(j, "directories"), "source");

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
	char *path = fg_path_join(dir, "meson.build"), *text = read_text(path);
	bool found = project_call(text) != NULL;

	free(text);
	free(path);
	return found;
}

/* project('NAME', ...): the name, for the messages before the first
 * configure has run. */
static char *declared_name(const char *root)
{
	char *path = fg_path_join(root, "meson.build"), *text = read_text(path), *name = NULL;
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
	char *path = info_path(p->build_dir, "intro-projectinfo.json"), *text = read_text(path);
	cJSON *j = parse_or_null(text);
	const char *name = jstr(j, "descriptive_name");
	char *copy = name ? fg_strdup(name) : declared_name(p->loc.root);

	if (copy) {
		free(p->name);
		p->name = copy;
	}
	cJSON_Delete(j);
	free(text);
	free(path);
}

int fg_meson_open(fg_project *p)
{
	fg_meson_state *st = state_of(p);
	struct intro_src src = { NULL, 0, p->build_dir };
	int err;

	if (!st)
		return FG_ENOMEM;
	p->build_hook = fg_meson_build;
	if ((st->user_build = user_build_of(p)) && fg_same_path(st->user_build, p->build_dir)) {
		free(st->user_build);
		st->user_build = NULL;
	}
	project_name(p);
	if (st->user_build)
		fg_project_note(p, "taking the options of the build folder %s", st->user_build);
	if ((err = fg_meson_configure(p)))
		return err;
	return read_intro(p, &src);
}
