/* The CMake File API as the reader sees it: the queries
 * (codemodel-v2, cache-v2) a configure answers, the reply files (from the
 * build folder or, for tests and fuzzing, from memory), and the cache's
 * BOOL options matched against --features. Running cmake is
 * configure.c's. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "flamegraph/error.h"
#include "lib/project/cmake/cmake.h"
#include "util/input.h"
#include "util/suggest.h"
#include "util/banned.h"

static cJSON *load_json(const char *path)
{
	char *data = NULL;
	size_t len = 0;
	cJSON *j;

	if (fg_read_file(path, &data, &len))
		return NULL;
	j = cJSON_ParseWithLength(data, len);
	free(data);
	if (!j)
		fg_error_set(FG_EPARSE, "%s: not valid JSON", path);
	return j;
}

static char *reply_dir(const fg_project *p)
{
	return fg_path_join(p->build_dir, ".cmake/api/v1/reply");
}

cJSON *fg_cmake_mem_json(const struct fg_cmake_replies *mem, const char *name)
{
	cJSON *j;

	for (size_t i = 0; i < mem->n; i++) {
		if (strcmp(mem->files[i].name, name))
			continue;
		if (!(j = cJSON_ParseWithLength(mem->files[i].data, mem->files[i].len)))
			fg_error_set(FG_EPARSE, "%s: not valid JSON", name);
		return j;
	}
	fg_error_set(FG_ENOTFOUND, "no reply file %s", name);
	return NULL;
}

/* A reply file by the name another reply gives it. */
cJSON *fg_cmake_reply_json(const fg_project *p, const struct fg_cmake_replies *mem, const char *name)
{
	char *dir, *path;
	cJSON *j;

	if (mem)
		return fg_cmake_mem_json(mem, name);
	dir = reply_dir(p);
	path = dir ? fg_path_join(dir, name) : NULL;
	j = path ? load_json(path) : NULL;
	free(path);
	free(dir);
	return j;
}

/* The newest index-*.json among the reply files in memory. */
static cJSON *mem_index(const struct fg_cmake_replies *mem)
{
	const char *best = NULL;

	for (size_t i = 0; i < mem->n; i++) {
		const char *n = mem->files[i].name;
		if (!strncmp(n, "index-", 6) && fg_view_ends_with(fg_view_cstr(n), ".json") &&
		    (!best || strcmp(n, best) > 0))
			best = n;
	}
	return best ? fg_cmake_mem_json(mem, best) : NULL;
}

/* The newest index-*.json of the reply folder (names sort by time). */
static char *newest_index(const fg_project *p)
{
	char *dir = reply_dir(p), *best = NULL, *path = NULL;
	struct dirent *e;
	DIR *d = dir ? opendir(dir) : NULL;

	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "index-", 6) || !fg_view_ends_with(fg_view_cstr(e->d_name), ".json"))
			continue;
		if (!best || strcmp(e->d_name, best) > 0) {
			free(best);
			best = fg_strdup(e->d_name);
		}
	}
	if (d)
		closedir(d);
	if (best)
		path = fg_path_join(dir, best);
	free(best);
	free(dir);
	return path;
}

int fg_cmake_write_queries(const fg_project *p)
{
	static const char *const kinds[] = { "codemodel-v2", "cache-v2" };
	char *dir = fg_path_join(p->build_dir, ".cmake/api/v1/query");
	int err = dir ? fg_mkdir_p(dir) : FG_ENOMEM;

	for (size_t i = 0; !err && i < 2; i++) {
		char *f = fg_path_join(dir, kinds[i]);
		FILE *q = f && !fg_path_is_file(f) ? fopen(f, "w") : NULL;
		if (!f)
			err = FG_ENOMEM;
		else if (!fg_path_is_file(f) && (!q || fclose(q) != 0))
			err = fg_error_set(FG_EIO, "cannot write %s", f);
		free(f);
	}
	free(dir);
	return err;
}

const char *fg_cmake_cache_value(const cJSON *cache, const char *name)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(cache, "entries")) {
		const char *n = jstr(e, "name");
		if (n && !strcmp(n, name))
			return jstr(e, "value");
	}
	return NULL;
}

static cJSON *reply_object(const fg_project *p, const struct fg_cmake_replies *mem, const cJSON *index,
			   const char *kind)
{
	const cJSON *objs = cJSON_GetObjectItemCaseSensitive(index, "objects"), *o;
	cJSON *j = NULL;

	cJSON_ArrayForEach(o, objs) {
		const char *k = jstr(o, "kind"), *file = jstr(o, "jsonFile");
		if (k && file && !strcmp(k, kind)) {
			j = fg_cmake_reply_json(p, mem, file);
			break;
		}
	}
	if (!j && !fg_error_last_code())
		fg_error_set(FG_EPARSE, "CMake wrote no %s reply in %s — is CMake older than 3.14?", kind,
			     p->build_dir);
	return j;
}

cJSON *fg_cmake_load_reply(const fg_project *p, const struct fg_cmake_replies *mem, const char *kind)
{
	char *path = mem ? NULL : newest_index(p);
	cJSON *index = mem ? mem_index(mem) : path ? load_json(path) : NULL, *r = NULL;

	fg_error_clear();
	if (index)
		r = reply_object(p, mem, index, kind);
	else
		fg_error_set(FG_EPARSE, "CMake wrote no File API reply in %s", p->build_dir);
	cJSON_Delete(index);
	free(path);
	return r;
}

static bool entry_is(const cJSON *e, const char *prop)
{
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(e, "properties"), *pr;
	cJSON_ArrayForEach(pr, props) {
		const char *n = jstr(pr, "name"), *v = jstr(pr, "value");
		if (n && !strcmp(n, prop))
			return !v || strcmp(v, "0");
	}
	return false;
}

static bool is_on(const char *v)
{
	static const char *const on[] = { "1", "ON", "YES", "TRUE", "Y" };
	for (size_t i = 0; i < 5; i++)
		if (!strcasecmp(v, on[i]))
			return true;
	return false;
}

/* A switch cargo users would call a feature: ENABLE_/WITH_/USE_/<PROJECT>_. */
static bool feature_like(const char *name, const char *project)
{
	static const char *const pre[] = { "ENABLE_", "WITH_", "USE_" };
	size_t n = strlen(project);
	for (size_t i = 0; i < 3; i++)
		if (!strncasecmp(name, pre[i], strlen(pre[i])))
			return true;
	return n && !strncasecmp(name, project, n) && name[n] == '_';
}

static bool feature_matches(const char *option, const char *feature, const char *project)
{
	static const char *const pre[] = { "ENABLE_", "WITH_", "USE_", NULL };
	fg_strbuf want = FG_STRBUF_INIT;
	bool m = false;

	for (size_t i = 0; i < 4 && !m; i++) {
		const char *prefix = pre[i];
		fg_strbuf_reset(&want);
		if (prefix)
			fg_strbuf_addstr(&want, prefix);
		else if (*project)
			fg_strbuf_addf(&want, "%s_", project);
		else
			break;
		for (const char *s = feature; *s; s++)
			fg_strbuf_addch(&want, *s == '-' ? '_' : *s);
		m = !strcasecmp(option, want.buf);
	}
	fg_strbuf_release(&want);
	return m;
}

/* An option as a feature is spelt: ENABLE_FAST_HASH -> fast-hash (the
 * prefix feature_matches takes off, lower case, '-' for '_'). */
static void feature_spelling(const char *option, const char *project, fg_strbuf *out)
{
	static const char *const pre[] = { "ENABLE_", "WITH_", "USE_" };
	size_t n = strlen(project), skip = 0;

	for (size_t i = 0; i < 3 && !skip; i++)
		if (!strncasecmp(option, pre[i], strlen(pre[i])))
			skip = strlen(pre[i]);
	if (!skip && n && !strncasecmp(option, project, n) && option[n] == '_')
		skip = n + 1;
	for (const char *s = option + skip; *s; s++)
		fg_strbuf_addch(out, *s == '_' ? '-' : (char)tolower((unsigned char)*s));
}

/* "unknown feature": the nearest option, by its name or by its feature
 * spelling (fast-hsh -> ENABLE_FAST_HASH), then all of them. */
static int unknown_feature(const fg_project *p, const char *f, const char *project)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	fg_strvec spelt = FG_STRVEC_INIT;
	const char *near = NULL, *as = NULL;
	int err;

	for (size_t k = 0; k < p->bool_options.n; k++) {
		fg_strbuf_reset(&sb);
		feature_spelling(p->bool_options.v[k], project, &sb);
		fg_strvec_push(&spelt, sb.buf);
	}
	near = fg_suggest(f, (const char *const *)p->bool_options.v, p->bool_options.n);
	if (!near && spelt.n == p->bool_options.n &&
	    (as = fg_suggest(f, (const char *const *)spelt.v, spelt.n))) {
		for (size_t k = 0; k < spelt.n && !near; k++)
			if (spelt.v[k] == as)
				near = p->bool_options.v[k];
	}
	err = fg_feature_unknown(f, near, as, &p->bool_options, "%s's BOOL options are", p->name);
	fg_strvec_clear(&spelt);
	fg_strbuf_release(&sb);
	return err;
}

/* Resolves the requested features against the cache's BOOL options into
 * one -DNAME=ON/OFF per feature-like option, so a run without --features
 * restores the defaults recorded at the first configure. */
int fg_cmake_feature_args(fg_project *p, const cJSON *cache, const char *defaults, fg_strvec *args)
{
	const cJSON *entries = cJSON_GetObjectItemCaseSensitive(cache, "entries"), *e;
	const char *project = "";
	int err = 0;

	cJSON_ArrayForEach(e, entries) {
		const char *n = jstr(e, "name"), *v = jstr(e, "value");
		if (n && v && !strcmp(n, "CMAKE_PROJECT_NAME"))
			project = v;
	}
	fg_strvec_clear(&p->bool_options);
	cJSON_ArrayForEach(e, entries) {
		const char *n = jstr(e, "name"), *t = jstr(e, "type");
		if (n && t && !strcmp(t, "BOOL") && strncmp(n, "CMAKE_", 6) && !entry_is(e, "ADVANCED"))
			fg_strvec_push(&p->bool_options, n);
	}
	for (size_t i = 0; i < p->opts.nfeatures && !err; i++) {
		const char *f = p->opts.features[i];
		const char *hit = NULL;
		for (size_t k = 0; k < p->bool_options.n && !hit; k++)
			if (!strcmp(p->bool_options.v[k], f))
				hit = p->bool_options.v[k];
		for (size_t k = 0; k < p->bool_options.n && !hit; k++)
			if (feature_matches(p->bool_options.v[k], f, project))
				hit = p->bool_options.v[k];
		if (!hit) {
			err = unknown_feature(p, f, project);
			break;
		}
		fg_strvec_pushf(args, "-D%s=ON", hit);
	}
	for (size_t k = 0; k < p->bool_options.n && !err; k++) {
		const char *n = p->bool_options.v[k];
		bool chosen = false, on;
		for (size_t i = 0; i < args->n; i++)
			if (!strncmp(args->v[i] + 2, n, strlen(n)) && args->v[i][2 + strlen(n)] == '=')
				chosen = true;
		if (chosen || !feature_like(n, project))
			continue;
		/* the default is what the first configure chose by itself */
		fg_strbuf key = FG_STRBUF_INIT;
		fg_strbuf_addf(&key, "\n%s=ON\n", n);
		on = defaults && strstr(defaults, key.buf) != NULL;
		fg_strbuf_release(&key);
		if (p->opts.all_features)
			on = true;
		else if (p->opts.no_default_features)
			on = false;
		fg_strvec_pushf(args, "-D%s=%s", n, on ? "ON" : "OFF");
	}
	return err;
}

char *fg_cmake_cache_defaults(const cJSON *cache)
{
	const cJSON *entries = cJSON_GetObjectItemCaseSensitive(cache, "entries"), *e;
	fg_strbuf sb = FG_STRBUF_INIT;

	fg_strbuf_addch(&sb, '\n');
	cJSON_ArrayForEach(e, entries) {
		const char *n = jstr(e, "name"), *t = jstr(e, "type"), *v = jstr(e, "value");
		if (n && t && v && !strcmp(t, "BOOL"))
			fg_strbuf_addf(&sb, "%s=%s\n", n, is_on(v) ? "ON" : "OFF");
	}
	return fg_strbuf_detach(&sb, NULL);
}

/* Whether every "-DNAME=VALUE" of args[from..] is already NAME's value in
 * the cache (BOOLs compared as booleans). */
bool fg_cmake_features_in_cache(const cJSON *cache, const fg_strvec *args, size_t from)
{
	const cJSON *entries = cJSON_GetObjectItemCaseSensitive(cache, "entries"), *e;

	for (size_t i = from; i < args->n; i++) {
		const char *d = args->v[i] + 2, *eq = strchr(d, '=');
		bool same = false;
		if (strncmp(args->v[i], "-D", 2) || !eq)
			return false;
		cJSON_ArrayForEach(e, entries) {
			const char *n = jstr(e, "name"), *v = jstr(e, "value");
			if (n && v && strlen(n) == (size_t)(eq - d) && !strncmp(n, d, (size_t)(eq - d))) {
				same = is_on(v) == is_on(eq + 1) || !strcmp(v, eq + 1);
				break;
			}
		}
		if (!same)
			return false;
	}
	return true;
}

bool fg_cmake_has_reply(const fg_project *p)
{
	char *index = newest_index(p);
	bool yes = index != NULL;

	free(index);
	return yes;
}

cJSON *fg_cmake_load_cache(const fg_project *p)
{
	return fg_cmake_load_reply(p, NULL, "cache");
}
