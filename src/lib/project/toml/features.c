/* flamegraph.toml [features] and [profile.*]: which features are on and
 * which flags a profile means, following `enables` and `inherits`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/project/toml/tomlproj.h"
#include "util/suggest.h"
#include "util/banned.h"

static const char *const feature_keys[] = { "defines", "cflags", "include", "libs", "cmake",
					    "enables", NULL };
static const char *const profile_keys[] = { "inherits", "opt-level", "cflags", "ldflags", NULL };

static int unknown_key(const fg_toml *doc, const fg_toml_value *table, const char *where,
		       const char *const *valid)
{
	const char *key;
	unsigned line = 1, col = 1;
	size_t i, k;

	for (i = 0; (key = fg_toml_table_key(table, i, NULL, NULL)); i++) {
		for (k = 0; valid[k] && strcmp(valid[k], key); k++)
			;
		if (valid[k])
			continue;
		fg_strbuf list = FG_STRBUF_INIT;
		for (k = 0; valid[k]; k++)
			fg_strbuf_addf(&list, "%s%s", k ? ", " : "", valid[k]);
		fg_toml_table_key_pos(table, i, &line, &col);
		int err = fg_error_set(FG_EPARSE, "%s:%u:%u: unknown key `%s` in %s — valid keys: %s",
				       fg_toml_filename(doc), line, col, key, where, list.buf);
		fg_strbuf_release(&list);
		return err;
	}
	return 0;
}

/* Checks that v is an array of strings; 0 or FG_EPARSE. */
static int str_array(const fg_toml *doc, const fg_toml_value *v, const char *what)
{
	if (fg_toml_type(v) != FG_TOML_ARRAY)
		return fg_toml_error(doc, v, "%s must be an array of strings, not a %s", what,
				     fg_toml_type_name(fg_toml_type(v)));
	for (size_t i = 0; i < fg_toml_array_len(v); i++)
		if (!fg_toml_string(fg_toml_array_at(v, i), NULL))
			return fg_toml_error(doc, fg_toml_array_at(v, i), "%s must hold strings only",
					     what);
	return 0;
}

/* "did you mean 'x'? " for the table key (or built-in name) nearest to
 * word, else nothing. */
static void add_near_key(fg_strbuf *out, const char *word, const fg_toml_value *table,
			 const char *const *extra, size_t nextra)
{
	const char *names[128], *key, *near;
	size_t n = 0;

	for (size_t i = 0; i < nextra && n < 128; i++)
		names[n++] = extra[i];
	for (size_t i = 0; table && n < 128 && (key = fg_toml_table_key(table, i, NULL, NULL)); i++)
		if (strcmp(key, "default"))
			names[n++] = key;
	if ((near = fg_suggest(word, names, n)))
		fg_strbuf_addf(out, "did you mean '%s'? ", near);
}

static void feature_list(const fg_toml_value *feats, fg_strbuf *out)
{
	const char *key;
	size_t i, n = 0;

	for (i = 0; (key = fg_toml_table_key(feats, i, NULL, NULL)); i++)
		if (strcmp(key, "default"))
			fg_strbuf_addf(out, "%s%s", n++ ? ", " : "", key);
	if (!n)
		fg_strbuf_addstr(out, "(none declared)");
}

/* Every name in the string array v must be a declared feature. */
static int names_declared(const fg_toml *doc, const fg_toml_value *feats, const fg_toml_value *v,
			  const char *what)
{
	for (size_t i = 0; i < fg_toml_array_len(v); i++) {
		const fg_toml_value *e = fg_toml_array_at(v, i);
		const char *name = fg_toml_string(e, NULL);
		if (strcmp(name, "default") && fg_toml_get(feats, name))
			continue;
		fg_strbuf list = FG_STRBUF_INIT;
		feature_list(feats, &list);
		int err = fg_toml_error(doc, e, "%s names unknown feature \"%s\" — declared features: %s",
					what, name, list.buf);
		fg_strbuf_release(&list);
		return err;
	}
	return 0;
}

/* A feature asked for that [features] does not declare. */
static int unknown_feature(const fg_project *p, const char *f, const fg_toml_value *feats)
{
	fg_strvec names = FG_STRVEC_INIT;
	const char *key;
	int err = 0;

	for (size_t i = 0; !err && (key = fg_toml_table_key(feats, i, NULL, NULL)); i++)
		if (strcmp(key, "default"))
			err = fg_strvec_push(&names, key);
	if (!err)
		err = fg_feature_unknown(f, fg_suggest(f, (const char *const *)names.v, names.n), NULL,
					 &names, "the features of %s are", p->loc.file);
	fg_strvec_clear(&names);
	return err;
}

/* The features feature `v` turns on too: its array, or its `enables`. */
static const fg_toml_value *enables_of(const fg_toml_value *v)
{
	return fg_toml_type(v) == FG_TOML_ARRAY ? v : fg_toml_get(v, "enables");
}

static int check_features(const fg_toml *doc, const fg_toml_value *feats)
{
	const fg_toml_value *v;
	const char *key;
	int err = 0;

	for (size_t i = 0; !err && (key = fg_toml_table_key(feats, i, &v, NULL)); i++) {
		fg_strbuf where = FG_STRBUF_INIT;
		fg_strbuf_addf(&where, "feature `%s`", key);
		if (!strcmp(key, "default") || fg_toml_type(v) == FG_TOML_ARRAY) {
			if (!(err = str_array(doc, v, where.buf)))
				err = names_declared(doc, feats, v, where.buf);
		} else if (fg_toml_type(v) != FG_TOML_TABLE) {
			err = fg_toml_error(doc, v, "%s must be a table such as { defines = [\"X\"] } "
					    "or a list of features, not a %s", where.buf,
					    fg_toml_type_name(fg_toml_type(v)));
		} else if (!(err = unknown_key(doc, v, where.buf, feature_keys))) {
			static const char *const arrays[] = { "defines", "cflags", "include", "libs",
							      "enables" };
			for (size_t k = 0; !err && k < 5; k++)
				if (fg_toml_get(v, arrays[k]))
					err = str_array(doc, fg_toml_get(v, arrays[k]), arrays[k]);
			if (!err && fg_toml_get(v, "enables"))
				err = names_declared(doc, feats, fg_toml_get(v, "enables"), where.buf);
			if (!err && fg_toml_get(v, "cmake") && !fg_toml_string(fg_toml_get(v, "cmake"), NULL))
				err = fg_toml_error(doc, fg_toml_get(v, "cmake"), "`cmake` must be the "
						    "name of a CMake option (a string)");
		}
		fg_strbuf_release(&where);
	}
	return err;
}

/* Marks `name` and everything it enables. */
static void enable(const fg_toml_value *feats, const char *name, bool *on)
{
	const fg_toml_value *v = NULL, *en;
	const char *key;
	size_t i;

	for (i = 0; (key = fg_toml_table_key(feats, i, &v, NULL)); i++)
		if (!strcmp(key, name))
			break;
	if (!key || on[i])
		return;
	on[i] = true;
	if ((en = enables_of(v)))
		for (size_t k = 0; k < fg_toml_array_len(en); k++)
			enable(feats, fg_toml_string(fg_toml_array_at(en, k), NULL), on);
}

static int push_all(fg_strvec *out, const fg_toml_value *arr, const char *prefix, const char *root)
{
	int err = 0;

	for (size_t i = 0; !err && i < fg_toml_array_len(arr); i++) {
		const char *s = fg_toml_string(fg_toml_array_at(arr, i), NULL);
		if (root && s[0] != '/')
			err = fg_strvec_pushf(out, "%s%s/%s", prefix, root, s);
		else
			err = fg_strvec_pushf(out, "%s%s", prefix, s);
	}
	return err;
}

static int apply_feature(const fg_project *p, const char *name, const fg_toml_value *v, bool on,
			 struct fg_tomlproj *tp)
{
	const char *opt = fg_toml_string(fg_toml_get(v, "cmake"), NULL);
	int err = 0;

	if (opt)
		err = fg_strvec_pushf(&tp->cmake_options, "-D%s=%s", opt, on ? "ON" : "OFF");
	if (!on || err)
		return err;
	if ((err = fg_strvec_push(&tp->features, name)))
		return err;
	if (fg_toml_type(v) != FG_TOML_TABLE)
		return 0;
	if ((err = push_all(&tp->build.cppflags, fg_toml_get(v, "defines"), "-D", NULL)) ||
	    (err = push_all(&tp->build.cppflags, fg_toml_get(v, "include"), "-I", p->loc.root)) ||
	    (err = push_all(&tp->build.cflags, fg_toml_get(v, "cflags"), "", NULL)))
		return err;
	return push_all(&tp->build.libs, fg_toml_get(v, "libs"), "", NULL);
}

int fg_tomlproj_features(const fg_project *p, const fg_toml *doc, struct fg_tomlproj *tp)
{
	const fg_toml_value *feats = fg_toml_get(fg_toml_root(doc), "features"), *v;
	const fg_project_opts *o = &p->opts;
	size_t n = fg_toml_table_size(feats), i;
	bool *on = NULL;
	const char *key;
	int err = 0;

	if (feats && fg_toml_type(feats) != FG_TOML_TABLE)
		return fg_toml_error(doc, feats, "[features] must be a table");
	if ((err = check_features(doc, feats)))
		return err;
	for (i = 0; i < o->nfeatures; i++) {
		if (strcmp(o->features[i], "default") && fg_toml_get(feats, o->features[i]))
			continue;
		/* beside CMake, other names are matched against its BOOL options */
		if (tp->augment) {
			if ((err = fg_strvec_push(&tp->cmake_features, o->features[i])))
				return err;
			continue;
		}
		return unknown_feature(p, o->features[i], feats);
	}
	if (!n)
		return 0;
	if (!(on = fg_calloc(n, sizeof(*on))))
		return FG_ENOMEM;
	if (!o->no_default_features && (v = fg_toml_get(feats, "default")))
		for (i = 0; i < fg_toml_array_len(v); i++)
			enable(feats, fg_toml_string(fg_toml_array_at(v, i), NULL), on);
	for (i = 0; i < o->nfeatures; i++)
		if (fg_toml_get(feats, o->features[i]))
			enable(feats, o->features[i], on);
	for (i = 0; !err && (key = fg_toml_table_key(feats, i, &v, NULL)); i++)
		if (strcmp(key, "default"))
			err = apply_feature(p, key, v, on[i] || o->all_features, tp);
	free(on);
	return err;
}

/* ---- profiles ------------------------------------------------------------ */

static bool builtin_profile(const char *name)
{
	return !strcmp(name, "release") || !strcmp(name, "dev");
}

static void profile_list(const fg_toml_value *profiles, fg_strbuf *out)
{
	const char *key;

	fg_strbuf_addstr(out, "release, dev");
	for (size_t i = 0; (key = fg_toml_table_key(profiles, i, NULL, NULL)); i++)
		if (!builtin_profile(key))
			fg_strbuf_addf(out, ", %s", key);
}

static int check_profile(const fg_toml *doc, const fg_toml_value *profiles, const char *name,
			 const fg_toml_value *v)
{
	fg_strbuf where = FG_STRBUF_INIT;
	const fg_toml_value *ol = fg_toml_get(v, "opt-level"), *inh = fg_toml_get(v, "inherits");
	int64_t level;
	const char *s;
	int err;

	fg_strbuf_addf(&where, "[profile.%s]", name);
	if (fg_toml_type(v) != FG_TOML_TABLE)
		err = fg_toml_error(doc, v, "%s must be a table", where.buf);
	else
		err = unknown_key(doc, v, where.buf, profile_keys);
	if (!err && fg_toml_get(v, "cflags"))
		err = str_array(doc, fg_toml_get(v, "cflags"), "`cflags`");
	if (!err && fg_toml_get(v, "ldflags"))
		err = str_array(doc, fg_toml_get(v, "ldflags"), "`ldflags`");
	if (!err && ol && !(fg_toml_int(ol, &level) && level >= 0 && level <= 3) &&
	    !((s = fg_toml_string(ol, NULL)) && strlen(s) == 1 && strchr("0123sgz", s[0])))
		err = fg_toml_error(doc, ol, "opt-level must be 0, 1, 2, 3, \"s\", \"z\" or \"g\"");
	if (!err && inh && !(s = fg_toml_string(inh, NULL)))
		err = fg_toml_error(doc, inh, "`inherits` must be a profile name (a string)");
	else if (!err && inh && builtin_profile(name))
		err = fg_toml_error(doc, inh, "the built-in profile '%s' cannot inherit — only custom "
				    "profiles take `inherits`", name);
	else if (!err && inh && !builtin_profile(s) && !fg_toml_get(profiles, s)) {
		fg_strbuf list = FG_STRBUF_INIT;
		profile_list(profiles, &list);
		err = fg_toml_error(doc, inh, "profile '%s' inherits unknown profile '%s' — known "
				    "profiles: %s", name, s, list.buf);
		fg_strbuf_release(&list);
	}
	fg_strbuf_release(&where);
	return err;
}

/* The parent of profile `name`: its inherits, or release for a custom
 * profile without one, or NULL for the built-ins. */
static const char *parent_of(const fg_toml_value *profiles, const char *name)
{
	const char *s = fg_toml_string(fg_toml_get(fg_toml_get(profiles, name), "inherits"), NULL);
	return s ? s : builtin_profile(name) ? NULL : "release";
}

static int check_cycles(const fg_toml *doc, const fg_toml_value *profiles)
{
	size_t n = fg_toml_table_size(profiles);
	const char *key;

	for (size_t i = 0; (key = fg_toml_table_key(profiles, i, NULL, NULL)); i++) {
		const char *cur = key;
		size_t steps = 0;
		while ((cur = parent_of(profiles, cur)) && steps <= n + 2) {
			if (!strcmp(cur, key))
				return fg_toml_error(doc, fg_toml_get(fg_toml_get(profiles, key), "inherits"),
						     "profile '%s' inherits itself through `inherits` — "
						     "end the chain at release or dev", key);
			steps++;
		}
	}
	return 0;
}

static int opt_flag(const fg_toml_value *ol, fg_strvec *out)
{
	int64_t level;

	if (fg_toml_int(ol, &level))
		return fg_strvec_pushf(out, "-O%d", (int)level);
	return fg_strvec_pushf(out, "-O%s", fg_toml_string(ol, NULL));
}

int fg_tomlproj_profile(const char *name, const fg_toml *doc, struct fg_tomlproj *tp)
{
	const fg_toml_value *profiles = fg_toml_get(fg_toml_root(doc), "profile"), *v, *ol = NULL;
	const char *chain[64], *key;
	size_t n = 0, i;
	int err = 0;

	if (profiles && fg_toml_type(profiles) != FG_TOML_TABLE)
		return fg_toml_error(doc, profiles, "`profile` must hold tables: [profile.NAME]");
	for (i = 0; !err && (key = fg_toml_table_key(profiles, i, &v, NULL)); i++)
		err = check_profile(doc, profiles, key, v);
	if (err || (err = check_cycles(doc, profiles)))
		return err;
	if (!builtin_profile(name) && !fg_toml_get(profiles, name)) {
		static const char *const builtins[] = { "release", "dev" };
		fg_strbuf list = FG_STRBUF_INIT, near = FG_STRBUF_INIT;
		profile_list(profiles, &list);
		add_near_key(&near, name, profiles, builtins, 2);
		err = fg_error_set(FG_EINVAL, "unknown profile '%s' — %s%s declares: %s (add "
				   "[profile.%s] with inherits = \"release\" to make one)", name,
				   near.len ? near.buf : "", fg_toml_filename(doc), list.buf, name);
		fg_strbuf_release(&near);
		fg_strbuf_release(&list);
		return err;
	}
	for (const char *cur = name; cur && n < 64; cur = parent_of(profiles, cur))
		chain[n++] = cur;
	/* the nearest opt-level wins over what its ancestors say, in cflags
	 * too; the root built-in gives the default */
	for (i = 0; i < n && !ol; i++)
		ol = fg_toml_get(fg_toml_get(profiles, chain[i]), "opt-level");
	size_t ol_at = ol ? i - 1 : n; /* chain index of the profile that set it */
	if (!ol)
		err = fg_strvec_push(&tp->build.profile_cflags, !strcmp(chain[n - 1], "dev") ? "-O0" : "-O2");
	/* flags accumulate from the root down, so a child's -O3 comes later and
	 * wins; the opt-level goes after the flags of the profiles above the one
	 * that sets it */
	for (i = n; !err && i-- > 0;) {
		v = fg_toml_get(profiles, chain[i]);
		if (i == ol_at)
			err = opt_flag(ol, &tp->build.profile_cflags);
		if (!err && fg_toml_get(v, "cflags"))
			err = push_all(&tp->build.profile_cflags, fg_toml_get(v, "cflags"), "", NULL);
		if (!err && fg_toml_get(v, "ldflags"))
			err = push_all(&tp->build.profile_ldflags, fg_toml_get(v, "ldflags"), "", NULL);
	}
	return err;
}
