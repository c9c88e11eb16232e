/* flamegraph.toml projects: the schema reader. It checks every
 * table against the keys it knows, so a typo is an error pointing at the
 * key (file:line:col) rather than a silently ignored setting, then
 * resolves features and the profile chain into the flags the build
 * (system.c, the compile engine) uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/project/toml/toml.h"
#include "lib/project/project.h"
#include "lib/project/toml/tomlproj.h"
#include "util/input.h"
#include "util/banned.h"

static const char *const top_keys[] = { "package", "build", "bin", "test", "bench", "example",
					"features", "profile", "cmake", NULL };
static const char *const package_keys[] = { "name", "version", "description", "authors",
					    "license", NULL };
static const char *const build_keys[] = { "system", "cc", "cflags", "ldflags", "include",
					  "defines", "libs", "command", NULL };
static const char *const target_keys[] = { "name", "sources", "path", "args", "cwd", "env",
					   "required-features", NULL };
static const char *const test_keys[] = { "name", "sources", "path", "args", "cwd", "env",
					 "required-features", "filter", NULL };
static const char *const cmake_keys[] = { "args", NULL };

static const char *const kind_tables[FG_TARGET_KIND_COUNT] = { "bin", "test", "bench", "example" };

/* Reading context: the document and the project being filled. */
struct rd {
	const fg_toml *doc;
	fg_project *p;
	struct fg_tomlproj *tp;
};

static int key_error(const struct rd *r, const fg_toml_value *table, size_t i, const char *fmt,
		     const char *key, const char *extra)
{
	unsigned line = 1, col = 1;

	fg_toml_table_key_pos(table, i, &line, &col);
	fg_strbuf sb = FG_STRBUF_INIT;
	fg_strbuf_addf(&sb, fmt, key);
	int err = fg_error_set(FG_EPARSE, "%s:%u:%u: %s%s", fg_toml_filename(r->doc), line, col,
			       sb.buf, extra ? extra : "");
	fg_strbuf_release(&sb);
	return err;
}

/* Every key of `table` must be in `valid`; the error lists them. */
static int check_keys(const struct rd *r, const fg_toml_value *table, const char *where,
		      const char *const *valid)
{
	const char *key;
	size_t i, k;

	for (i = 0; (key = fg_toml_table_key(table, i, NULL, NULL)); i++) {
		for (k = 0; valid[k] && strcmp(valid[k], key); k++)
			;
		if (valid[k])
			continue;
		fg_strbuf list = FG_STRBUF_INIT, msg = FG_STRBUF_INIT;
		for (k = 0; valid[k]; k++)
			fg_strbuf_addf(&list, "%s%s", k ? ", " : "", valid[k]);
		fg_strbuf_addf(&msg, "unknown key `%%s` in %s — valid keys: %s", where, list.buf);
		int err = key_error(r, table, i, msg.buf, key, NULL);
		fg_strbuf_release(&list);
		fg_strbuf_release(&msg);
		return err;
	}
	return 0;
}

static int want_table(const struct rd *r, const fg_toml_value *v, const char *what)
{
	if (v && fg_toml_type(v) != FG_TOML_TABLE)
		return fg_toml_error(r->doc, v, "%s must be a table, not a %s", what,
				     fg_toml_type_name(fg_toml_type(v)));
	return 0;
}

/* An optional string. */
static int get_str(const struct rd *r, const fg_toml_value *table, const char *key,
		   const char **out)
{
	const fg_toml_value *v = fg_toml_get(table, key);

	*out = NULL;
	if (!v)
		return 0;
	if (!(*out = fg_toml_string(v, NULL)))
		return fg_toml_error(r->doc, v, "`%s` must be a string, not a %s", key,
				     fg_toml_type_name(fg_toml_type(v)));
	return 0;
}

/* An optional array of strings, appended to out (prefix prepended). */
static int get_strs(const struct rd *r, const fg_toml_value *table, const char *key,
		    const char *prefix, fg_strvec *out)
{
	const fg_toml_value *v = fg_toml_get(table, key);
	size_t i;
	int err = 0;

	if (!v)
		return 0;
	if (fg_toml_type(v) != FG_TOML_ARRAY)
		return fg_toml_error(r->doc, v, "`%s` must be an array of strings, not a %s — "
				     "write %s = [\"...\"]", key, fg_toml_type_name(fg_toml_type(v)), key);
	for (i = 0; !err && i < fg_toml_array_len(v); i++) {
		const fg_toml_value *e = fg_toml_array_at(v, i);
		const char *s = fg_toml_string(e, NULL);
		if (!s)
			return fg_toml_error(r->doc, e, "`%s` must hold strings only, not a %s", key,
					     fg_toml_type_name(fg_toml_type(e)));
		err = fg_strvec_pushf(out, "%s%s", prefix, s);
	}
	return err;
}

static int get_paths(const struct rd *r, const fg_toml_value *table, const char *key,
		     const char *prefix, fg_strvec *out)
{
	fg_strvec rel = FG_STRVEC_INIT;
	size_t i;
	int err = get_strs(r, table, key, "", &rel);

	for (i = 0; !err && i < rel.n; i++) {
		char *abs = fg_path_join(r->p->loc.root, rel.v[i]);
		err = abs ? fg_strvec_pushf(out, "%s%s", prefix, abs) : FG_ENOMEM;
		free(abs);
	}
	fg_strvec_clear(&rel);
	return err;
}

static int read_package(struct rd *r, const fg_toml_value *root)
{
	const fg_toml_value *pkg = fg_toml_get(root, "package");
	const char *name;
	int err;

	if (!pkg)
		return fg_toml_error(r->doc, NULL, "no [package] table — add [package] with "
				     "name = \"...\"");
	if ((err = want_table(r, pkg, "[package]")) || (err = check_keys(r, pkg, "[package]", package_keys)) ||
	    (err = get_str(r, pkg, "name", &name)))
		return err;
	if (!name || !*name)
		return fg_toml_error(r->doc, pkg, "[package] has no `name` — add name = \"...\"");
	free(r->p->name);
	return (r->p->name = fg_strdup(name)) ? 0 : FG_ENOMEM;
}

static int read_build(struct rd *r, const fg_toml_value *root)
{
	const fg_toml_value *b = fg_toml_get(root, "build");
	struct fg_tomlproj *tp = r->tp;
	const char *system = NULL, *cc = NULL, *command = NULL;
	int err;

	if ((err = want_table(r, b, "[build]")) || (b && (err = check_keys(r, b, "[build]", build_keys))) ||
	    (err = get_str(r, b, "system", &system)) || (err = get_str(r, b, "cc", &cc)) ||
	    (err = get_str(r, b, "command", &command)) ||
	    (err = get_strs(r, b, "cflags", "", &tp->build.cflags)) ||
	    (err = get_strs(r, b, "ldflags", "", &tp->build.ldflags)) ||
	    (err = get_paths(r, b, "include", "-I", &tp->build.cppflags)) ||
	    (err = get_strs(r, b, "defines", "-D", &tp->build.cppflags)) ||
	    (err = get_strs(r, b, "libs", "", &tp->build.libs)))
		return err;
	if (tp->augment && system && strcmp(system, "cmake"))
		return fg_toml_error(r->doc, fg_toml_get(b, "system"), "beside a CMakeLists.txt the "
				     "build system is cmake — remove `system` or set it to \"cmake\"");
	if (!system)
		tp->system = tp->augment ? FG_TOMLPROJ_CMAKE : FG_TOMLPROJ_CC;
	else if (!strcmp(system, "cc"))
		tp->system = FG_TOMLPROJ_CC;
	else if (!strcmp(system, "command"))
		tp->system = FG_TOMLPROJ_COMMAND;
	else if (!strcmp(system, "cmake"))
		tp->system = FG_TOMLPROJ_CMAKE;
	else
		return fg_toml_error(r->doc, fg_toml_get(b, "system"), "unknown build system \"%s\" — "
				     "use \"cc\", \"command\" or \"cmake\"", system);
	if (tp->system == FG_TOMLPROJ_COMMAND && !command)
		return fg_toml_error(r->doc, b, "system = \"command\" needs `command` "
				     "(e.g. command = \"make -j{jobs}\")");
	if ((cc && !(tp->build.cc = fg_strdup(cc))) || (command && !(tp->build.command = fg_strdup(command))))
		return FG_ENOMEM;
	return 0;
}

static int read_env(struct rd *r, const fg_toml_value *t, struct fg_target *tg)
{
	const fg_toml_value *env = fg_toml_get(t, "env"), *v;
	const char *key;
	size_t i;
	int err = 0;

	if (!env)
		return 0;
	if (fg_toml_type(env) != FG_TOML_TABLE)
		return fg_toml_error(r->doc, env, "`env` must be a table of strings, e.g. "
				     "env = { LC_ALL = \"C\" }");
	for (i = 0; !err && (key = fg_toml_table_key(env, i, &v, NULL)); i++) {
		const char *s = fg_toml_string(v, NULL);
		if (!s)
			return fg_toml_error(r->doc, v, "env `%s` must be a string, not a %s", key,
					     fg_toml_type_name(fg_toml_type(v)));
		err = fg_strvec_pushf(&tg->env, "%s=%s", key, s);
	}
	return err;
}

/* required-features = ["simd"]: as in cargo, the target can only be
 * chosen when they are all enabled; the ones that are not are kept. */
static int read_required_features(struct rd *r, const fg_toml_value *t, struct fg_target *tg)
{
	const fg_toml_value *req = fg_toml_get(t, "required-features"), *v;
	const fg_toml_value *feats = fg_toml_get(fg_toml_root(r->doc), "features");
	int err = 0;

	if (!req)
		return 0;
	if (fg_toml_type(req) != FG_TOML_ARRAY)
		return fg_toml_error(r->doc, req, "`required-features` must be an array of feature "
				     "names, e.g. required-features = [\"simd\"]");
	for (size_t i = 0; !err && i < fg_toml_array_len(req); i++) {
		const char *name = fg_toml_string(v = fg_toml_array_at(req, i), NULL);
		bool on = false;
		if (!name)
			return fg_toml_error(r->doc, v, "required-features must list strings, not a %s",
					     fg_toml_type_name(fg_toml_type(v)));
		if (!strcmp(name, "default") || !fg_toml_get(feats, name))
			return fg_toml_error(r->doc, v, "required feature \"%s\" is not declared in "
					     "[features] — declare it or fix the name", name);
		for (size_t f = 0; f < r->tp->features.n; f++)
			on = on || !strcmp(r->tp->features.v[f], name);
		if (!on)
			err = fg_strvec_push(&tg->missing_features, name);
	}
	return err;
}

static const char *const exe_dirs[FG_TARGET_KIND_COUNT] = { "bin", "tests", "benches", "examples" };

static int read_target(struct rd *r, const fg_toml_value *t, fg_target_kind kind)
{
	struct fg_tomlproj *tp = r->tp;
	const char *name, *path, *cwd, *filter = NULL;
	struct fg_target *tg;
	fg_strbuf where = FG_STRBUF_INIT;
	int err;

	fg_strbuf_addf(&where, "[[%s]]", kind_tables[kind]);
	err = want_table(r, t, where.buf);
	if (!err)
		err = check_keys(r, t, where.buf, kind == FG_TARGET_TEST || kind == FG_TARGET_BENCH ?
				 test_keys : target_keys);
	fg_strbuf_release(&where);
	if (err || (err = get_str(r, t, "name", &name)) || (err = get_str(r, t, "path", &path)) ||
	    (err = get_str(r, t, "cwd", &cwd)) ||
	    ((kind == FG_TARGET_TEST || kind == FG_TARGET_BENCH) &&
	     (err = get_str(r, t, "filter", &filter))))
		return err;
	if (!name || !*name)
		return fg_toml_error(r->doc, t, "this [[%s]] has no `name` — add name = \"...\"",
				     kind_tables[kind]);
	for (size_t i = 0; i < r->p->ntargets; i++)
		if (r->p->targets[i].kind == kind && !strcmp(r->p->targets[i].name, name))
			return fg_toml_error(r->doc, fg_toml_get(t, "name"), "a second %s named '%s' — "
					     "target names must be unique", kind_tables[kind], name);
	if (!(tg = fg_project_add_target(r->p, name, kind)))
		return FG_ENOMEM;
	if ((err = get_paths(r, t, "sources", "", &tg->sources)) ||
	    (err = get_strs(r, t, "args", "", &tg->argv)) || (err = read_env(r, t, tg)) ||
	    (err = read_required_features(r, t, tg)))
		return err;
	if (tp->system == FG_TOMLPROJ_CC && !tg->sources.n)
		return fg_toml_error(r->doc, t, "%s '%s' has no sources — add sources = [\"src/%s.c\"] "
				     "(the cc build system compiles them)", kind_tables[kind], name, name);
	if (tp->system == FG_TOMLPROJ_COMMAND && !path)
		return fg_toml_error(r->doc, t, "%s '%s' has no `path` — with system = \"command\", "
				     "say where the command writes it: path = \"...\"", kind_tables[kind], name);
	if (path)
		tg->exe = fg_path_join(r->p->loc.root, path);
	else {
		fg_strbuf sb = FG_STRBUF_INIT;
		fg_strbuf_addf(&sb, "%s/%s/%s", r->p->build_dir, exe_dirs[kind], name);
		tg->exe = fg_strbuf_detach(&sb, NULL);
	}
	tg->build_name = fg_strdup(name);
	if ((cwd && !(tg->cwd = fg_path_join(r->p->loc.root, cwd))) ||
	    (filter && !(tg->filter = fg_strdup(filter))) || !tg->exe || !tg->build_name)
		return FG_ENOMEM;
	if (filter && !strstr(filter, "{}"))
		return fg_toml_error(r->doc, fg_toml_get(t, "filter"), "filter \"%s\" has no {} — write "
				     "where the filter goes, e.g. filter = \"--filter={}\"", filter);
	return 0;
}

static int read_targets(struct rd *r, const fg_toml_value *root)
{
	int k, err = 0;

	for (k = 0; k < FG_TARGET_KIND_COUNT && !err; k++) {
		const fg_toml_value *list = fg_toml_get(root, kind_tables[k]);
		if (!list)
			continue;
		if (fg_toml_type(list) != FG_TOML_ARRAY)
			return fg_toml_error(r->doc, list, "`%s` must be an array of tables — write "
					     "[[%s]] (two brackets) for each target", kind_tables[k],
					     kind_tables[k]);
		for (size_t i = 0; !err && i < fg_toml_array_len(list); i++)
			err = read_target(r, fg_toml_array_at(list, i), (fg_target_kind)k);
	}
	return err;
}

static int read_cmake(struct rd *r, const fg_toml_value *root)
{
	const fg_toml_value *c = fg_toml_get(root, "cmake");
	int err;

	if (!c)
		return 0;
	if ((err = want_table(r, c, "[cmake]")) || (err = check_keys(r, c, "[cmake]", cmake_keys)))
		return err;
	return get_strs(r, c, "args", "", &r->tp->cmake_args);
}

/* ---- the reader --------------------------------------------------------- */

static void tomlproj_free(void *data)
{
	struct fg_tomlproj *tp = data;

	if (!tp)
		return;
	fg_build_recipe_release(&tp->build);
	fg_strvec_clear(&tp->cmake_args);
	fg_strvec_clear(&tp->features);
	fg_strvec_clear(&tp->cmake_options);
	if (tp->overrides) {
		/* borrowed strings: only the targets are the scratch project's own */
		tp->overrides->loc.root = NULL;
		tp->overrides->build_dir = NULL;
		fg_project_free(tp->overrides);
	}
	fg_strvec_clear(&tp->defines);
	fg_strvec_clear(&tp->cmake_features);
	free(tp->define_ptrs);
	free(tp->feature_ptrs);
	free(tp);
}

/* The feature and profile names the file declares, for --list-names. */
static int list_names(fg_project *p, const fg_toml_value *root)
{
	const fg_toml_value *feats = fg_toml_get(root, "features"), *profiles, *v;
	const fg_toml_value *profile_root = fg_toml_get(root, "profile");
	const char *key;
	int err = 0;

	for (size_t i = 0; !err && feats && (key = fg_toml_table_key(feats, i, &v, NULL)); i++)
		if (strcmp(key, "default"))
			err = fg_strvec_push(&p->feature_names, key);
	profiles = profile_root;
	for (size_t i = 0; !err && profiles && (key = fg_toml_table_key(profiles, i, &v, NULL)); i++)
		err = fg_strvec_push(&p->profile_names, key);
	return err;
}

int fg_tomlproj_read(fg_project *p, const char *file, bool augment, struct fg_tomlproj **out)
{
	struct fg_tomlproj *tp = fg_calloc(1, sizeof(*tp));
	fg_toml *doc = NULL;
	char *text = NULL;
	size_t len = 0;
	struct rd r;
	int err;

	*out = NULL;
	if (!tp)
		return FG_ENOMEM;
	tp->augment = augment;
	if ((err = fg_read_file(file, &text, &len)) || (err = fg_toml_parse(&doc, text, len, file)))
		goto done;
	r.doc = doc;
	r.p = p;
	r.tp = tp;
	const fg_toml_value *root = fg_toml_root(doc);
	if ((err = list_names(p, root)))
		goto done;
	if ((err = check_keys(&r, root, "flamegraph.toml", top_keys)) || (err = read_package(&r, root)) ||
	    (err = read_build(&r, root)) || (err = read_cmake(&r, root)) ||
	    (err = fg_tomlproj_features(p, doc, tp)) ||
	    (!augment && (err = fg_tomlproj_profile(p->profile, doc, tp))))
		goto done;
	if (augment) {
		/* the target tables are overrides, read into a scratch project
		 * and applied to CMake's targets by fg_tomlproj_cmake_post */
		if (!(tp->overrides = fg_calloc(1, sizeof(*tp->overrides)))) {
			err = FG_ENOMEM;
			goto done;
		}
		tp->overrides->loc.root = p->loc.root;
		tp->overrides->build_dir = p->build_dir;
		r.p = tp->overrides;
		err = read_targets(&r, root);
	} else if (tp->system != FG_TOMLPROJ_CMAKE)
		err = read_targets(&r, root);
done:
	fg_toml_free(doc);
	free(text);
	if (err)
		tomlproj_free(tp);
	else
		*out = tp;
	return err;
}

void fg_tomlproj_free(struct fg_tomlproj *tp)
{
	tomlproj_free(tp);
}

int fg_tomlproj_open(fg_project *p)
{
	struct fg_tomlproj *tp = NULL;
	int err = fg_tomlproj_read(p, p->loc.file, false, &tp);

	if (err)
		return err;
	p->state = tp;
	p->state_free = tomlproj_free;
	if (tp->system == FG_TOMLPROJ_CMAKE)
		return fg_error_set(FG_EINVAL, "%s says system = \"cmake\" but there is no "
				    "CMakeLists.txt beside it — put flamegraph.toml in the CMake "
				    "project's top folder", p->loc.file);
	if (p->opts.package && strcmp(p->opts.package, p->name))
		return fg_error_set(FG_ENOTFOUND, "no package '%s' here: %s holds the single package "
				    "'%s'", p->opts.package, p->loc.file, p->name);
	/* what the builder needs, handed over */
	p->recipe = tp->build;
	memset(&tp->build, 0, sizeof(tp->build));
	return 0;
}
