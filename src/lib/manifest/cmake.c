/* CMake projects (SPEC 3b): configure into the flamegraph build directory
 * with the File API queried (codemodel-v2, cache-v2), read the replies and
 * `ctest --show-only=json-v1` with cJSON, and classify the executables. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "flamegraph/error.h"
#include "lib/manifest/project.h"
#include "util/input.h"
#include "util/suggest.h"
#include "util/banned.h"

#define STAMP_FILE "flamegraph-configure.txt"
#define DEFAULTS_FILE "flamegraph-features.txt"
#define ROSEGMENT_FILE "flamegraph-no-rosegment"

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

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static char *reply_dir(const fg_project *p)
{
	return fg_path_join(p->build_dir, ".cmake/api/v1/reply");
}

/* Reply files held in memory (fg_cmake_read_replies); NULL everywhere
 * else, where they are read from reply_dir(). */
struct replies {
	const fg_cmake_reply *files;
	size_t n;
};

static cJSON *mem_json(const struct replies *mem, const char *name)
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
static cJSON *reply_json(const fg_project *p, const struct replies *mem, const char *name)
{
	char *dir, *path;
	cJSON *j;

	if (mem)
		return mem_json(mem, name);
	dir = reply_dir(p);
	path = dir ? fg_path_join(dir, name) : NULL;
	j = path ? load_json(path) : NULL;
	free(path);
	free(dir);
	return j;
}

/* The newest index-*.json among the reply files in memory. */
static cJSON *mem_index(const struct replies *mem)
{
	const char *best = NULL;

	for (size_t i = 0; i < mem->n; i++) {
		const char *n = mem->files[i].name;
		if (!strncmp(n, "index-", 6) && fg_view_ends_with(fg_view_cstr(n), ".json") &&
		    (!best || strcmp(n, best) > 0))
			best = n;
	}
	return best ? mem_json(mem, best) : NULL;
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

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		return fg_error_set(FG_EIO, "cannot write %s", path);
	return 0;
}

static char *read_text(const char *path)
{
	char *data = NULL;
	size_t len;
	if (fg_read_file(path, &data, &len)) {
		fg_error_clear();
		return NULL;
	}
	return data;
}

static int write_queries(const fg_project *p)
{
	static const char *const kinds[] = { "codemodel-v2", "cache-v2" };
	char *dir = fg_path_join(p->build_dir, ".cmake/api/v1/query");
	int err = dir ? fg_mkdir_p(dir) : FG_ENOMEM;

	for (size_t i = 0; !err && i < 2; i++) {
		char *f = fg_path_join(dir, kinds[i]);
		if (!fg_path_is_file(f))
			err = write_text(f, "");
		free(f);
	}
	free(dir);
	return err;
}

static const char *user_define(const fg_project *p, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < p->opts.ndefines; i++) {
		const char *d = p->opts.defines[i];
		if (strncmp(d, name, n) || (d[n] != '=' && d[n] != ':'))
			continue;
		return strchr(d, '=') ? strchr(d, '=') + 1 : "";
	}
	return NULL;
}

static const char *cache_value(const cJSON *cache, const char *name)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(cache, "entries")) {
		const char *n = jstr(e, "name");
		if (n && !strcmp(n, name))
			return jstr(e, "value");
	}
	return NULL;
}

/* The C compiler the build uses: once configured, the one in the cache
 * (a later run without $CC must probe the same one, or its flags would
 * change and everything would be rebuilt); before, the one asked for. */
static const char *c_compiler(const fg_project *p, const cJSON *cache)
{
	const char *cc = cache ? cache_value(cache, "CMAKE_C_COMPILER") : NULL;

	if (!cc || !*cc)
		cc = user_define(p, "CMAKE_C_COMPILER");
	if (!cc || !*cc)
		cc = p->opts.cc;
	return cc && *cc ? cc : "cc";
}

/* Whether the compiler takes a flag: -mno-omit-leaf-frame-pointer (x86
 * and arm64 GCC/clang do, others reject it and the configure step would
 * fail), -grecord-command-line (clang only). */
static bool cc_accepts(const fg_project *p, const cJSON *cache, const char *flag)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 0, 0 };
	int null_fd = open("/dev/null", O_RDWR);
	bool ok;

	fg_strvec_push(&cmd.argv, c_compiler(p, cache));
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

/* The user's own value for a -D cache entry NAME (NAME=v or NAME:TYPE=v). */
static const char *cmake_build_type(const char *profile)
{
	if (!strcmp(profile, "release"))
		return "RelWithDebInfo";
	if (!strcmp(profile, "dev"))
		return "Debug";
	return profile;
}

/* The configure arguments other than the features: build type, flags with
 * frame pointers appended (those the compiler takes: the cache, when
 * there is one yet, names it), the user's -D entries. */
static int base_args(fg_project *p, const cJSON *cache, fg_strvec *args)
{
	fg_strbuf fl = FG_STRBUF_INIT;
	const char *user;
	char *marker = fg_path_join(p->build_dir, ROSEGMENT_FILE);
	int err = 0;

	if (marker && fg_path_is_file(marker))
		p->no_rosegment = true;
	free(marker);
	if (wants_lld(p))
		p->no_rosegment = true;
	fg_strvec_pushf(args, "-DCMAKE_BUILD_TYPE=%s", cmake_build_type(p->profile));
	user = user_define(p, "CMAKE_C_FLAGS");
	if (!user)
		user = p->opts.cflags;
	if (user && *user)
		fg_strbuf_addf(&fl, "%s ", user);
	/* -g too: Release and MinSizeRel build types have no debug info */
	fg_strbuf_addstr(&fl, "-g -fno-omit-frame-pointer");
	if (cc_accepts(p, cache, "-mno-omit-leaf-frame-pointer"))
		fg_strbuf_addstr(&fl, " -mno-omit-leaf-frame-pointer");
	/* clang then keeps its flags in the debug info, for the link check */
	if (cc_accepts(p, cache, "-grecord-command-line"))
		fg_strbuf_addstr(&fl, " -grecord-command-line");
	fg_strvec_pushf(args, "-DCMAKE_C_FLAGS=%s", fl.buf);
	fg_strvec_pushf(args, "-DCMAKE_CXX_FLAGS=%s", fl.buf);
	fg_strbuf_reset(&fl);
	user = user_define(p, "CMAKE_EXE_LINKER_FLAGS");
	if (!user)
		user = p->opts.ldflags;
	if (user && *user)
		fg_strbuf_addstr(&fl, user);
	if (p->no_rosegment)
		fg_strbuf_addf(&fl, "%s-Wl,--no-rosegment", fl.len ? " " : "");
	if (fl.len)
		fg_strvec_pushf(args, "-DCMAKE_EXE_LINKER_FLAGS=%s", fl.buf);
	for (size_t i = 0; i < p->opts.ndefines; i++) {
		const char *d = p->opts.defines[i];
		if (!strncmp(d, "CMAKE_C_FLAGS", 13) && (d[13] == '=' || d[13] == ':'))
			continue;
		if (!strncmp(d, "CMAKE_EXE_LINKER_FLAGS", 22) && (d[22] == '=' || d[22] == ':'))
			continue;
		err = fg_strvec_pushf(args, "-D%s", d);
	}
	fg_strbuf_release(&fl);
	return err;
}

static int run_configure(fg_project *p, const fg_strvec *args)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 0, 0 };
	int err;

	fg_strvec_push(&cmd.argv, "cmake");
	fg_strvec_push(&cmd.argv, "-S");
	fg_strvec_push(&cmd.argv, p->loc.root);
	fg_strvec_push(&cmd.argv, "-B");
	fg_strvec_push(&cmd.argv, p->build_dir);
	fg_strvec_push(&cmd.argv, "--no-warn-unused-cli");
	err = fg_strvec_pushv(&cmd.argv, (const char *const *)args->v, args->n);
	fg_project_note(p, "configuring %s (%s) in %s", p->name, p->profile, p->build_dir);
	if (!err)
		err = fg_run_checked(p, &cmd, true, &st);
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "cmake is not installed — install it "
				   "(Debian/Ubuntu: apt-get install cmake)");
	else if (!err && st.code != 0)
		err = fg_error_set(FG_EBUILD, "configuring %s with cmake failed (its message is above) — "
				   "fix the CMake error, or pass cache entries with -D NAME=VALUE",
				   p->loc.file);
	fg_cmd_clear(&cmd);
	return err;
}

static cJSON *reply_object(const fg_project *p, const struct replies *mem, const cJSON *index,
			   const char *kind)
{
	const cJSON *objs = cJSON_GetObjectItemCaseSensitive(index, "objects"), *o;
	cJSON *j = NULL;

	cJSON_ArrayForEach(o, objs) {
		const char *k = jstr(o, "kind"), *file = jstr(o, "jsonFile");
		if (k && file && !strcmp(k, kind)) {
			j = reply_json(p, mem, file);
			break;
		}
	}
	if (!j && !fg_error_last_code())
		fg_error_set(FG_EPARSE, "CMake wrote no %s reply in %s — is CMake older than 3.14?", kind,
			     p->build_dir);
	return j;
}

static cJSON *load_reply(const fg_project *p, const struct replies *mem, const char *kind)
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

/* Resolves the requested features against the cache's BOOL options into
 * one -DNAME=ON/OFF per feature-like option, so a run without --features
 * restores the defaults recorded at the first configure. */
static int feature_args(fg_project *p, const cJSON *cache, const char *defaults, fg_strvec *args)
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
			fg_strbuf list = FG_STRBUF_INIT;
			for (size_t k = 0; k < p->bool_options.n; k++)
				fg_strbuf_addf(&list, "%s%s", k ? ", " : "", p->bool_options.v[k]);
			const char *near = fg_suggest(f, (const char *const *)p->bool_options.v,
						      p->bool_options.n);
			err = fg_error_set(FG_EINVAL, "unknown feature '%s' — %s%s%s%s's BOOL options are: %s",
					   f, near ? "did you mean '" : "", near ? near : "",
					   near ? "'? " : "", p->name, list.len ? list.buf : "(none)");
			fg_strbuf_release(&list);
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

static char *defaults_text(const cJSON *cache)
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
static bool features_in_cache(const cJSON *cache, const fg_strvec *args, size_t from)
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

static char *join_lines(const fg_strvec *v)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	for (size_t i = 0; i < v->n; i++)
		fg_strbuf_addf(&sb, "%s\n", v->v[i]);
	return fg_strbuf_detach(&sb, NULL);
}

/* Configures when needed: the first time, and whenever the arguments
 * differ from the last configure's (kept in STAMP_FILE). */
int fg_cmake_configure(fg_project *p)
{
	fg_strvec args = FG_STRVEC_INIT;
	char *stamp_path = fg_path_join(p->build_dir, STAMP_FILE);
	char *defaults_path = fg_path_join(p->build_dir, DEFAULTS_FILE);
	char *stamp = NULL, *defaults = NULL, *want = NULL, *index = NULL;
	cJSON *cache = NULL;
	size_t nbase;
	bool fresh = false;
	int err;

	if ((err = fg_mkdir_p(p->build_dir)) || (err = write_queries(p)))
		goto done;
	defaults = read_text(defaults_path);
	index = newest_index(p);
	if (defaults && index && !(cache = load_reply(p, NULL, "cache"))) {
		err = fg_error_last_code();
		goto done;
	}
	if ((err = base_args(p, cache, &args)))
		goto done;
	if (!defaults || !index) {
		if ((err = run_configure(p, &args)))
			goto done;
		fresh = true;
		if (!(cache = load_reply(p, NULL, "cache"))) {
			err = fg_error_last_code();
			goto done;
		}
		free(defaults);
		defaults = defaults_text(cache);
		if ((err = write_text(defaults_path, defaults)))
			goto done;
		fg_strvec_clear(&args);
		if ((err = base_args(p, cache, &args)))
			goto done;
	}
	nbase = args.n;
	if ((err = feature_args(p, cache, defaults, &args)))
		goto done;
	want = join_lines(&args);
	stamp = read_text(stamp_path);
	/* right after the first configure the feature switches are usually
	 * the values CMake just chose: configuring again would change nothing */
	if (fresh && features_in_cache(cache, &args, nbase))
		err = write_text(stamp_path, want);
	else if (!stamp || strcmp(stamp, want)) {
		if ((err = run_configure(p, &args)))
			goto done;
		err = write_text(stamp_path, want);
	}
done:
	cJSON_Delete(cache);
	fg_strvec_clear(&args);
	free(stamp_path);
	free(defaults_path);
	free(stamp);
	free(defaults);
	free(want);
	free(index);
	return err;
}

static bool matches_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	for (; *s; s++)
		if (!strncasecmp(s, word, n))
			return true;
	return false;
}

static fg_target_kind classify(const char *name, const char *srcdir)
{
	if (matches_word(name, "bench") || matches_word(srcdir, "bench"))
		return FG_TARGET_BENCH;
	if (matches_word(name, "example") || matches_word(srcdir, "example"))
		return FG_TARGET_EXAMPLE;
	return FG_TARGET_BIN;
}

static const char *prop_value(const cJSON *test, const char *name, const cJSON **arr)
{
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(test, "properties"), *pr;
	cJSON_ArrayForEach(pr, props) {
		const char *n = jstr(pr, "name");
		if (!n || strcmp(n, name))
			continue;
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(pr, "value");
		if (arr)
			*arr = v;
		return cJSON_IsString(v) ? v->valuestring : NULL;
	}
	return NULL;
}

static cJSON *load_ctest(fg_project *p)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_strbuf out = FG_STRBUF_INIT;
	fg_exit_status st = { 0, 0 };
	cJSON *j = NULL;

	fg_strvec_split(&cmd.argv, "ctest --show-only=json-v1");
	fg_cmd_set_cwd(&cmd, p->build_dir);
	if (fg_cmd_capture(&cmd, &out, &st) == 0 && st.code == 0)
		j = cJSON_ParseWithLength(out.buf, out.len);
	fg_cmd_clear(&cmd);
	fg_strbuf_release(&out);
	fg_error_clear();
	return j;
}

/* The executable a test command runs, when it is one of ours. */
static const struct fg_target *test_target(const fg_project *p, size_t nexec, const char *prog)
{
	for (size_t i = 0; i < nexec; i++)
		if (!strcmp(p->targets[i].exe, prog))
			return &p->targets[i];
	for (size_t i = 0; i < nexec; i++)
		if (!strcmp(fg_path_base(p->targets[i].exe), fg_path_base(prog)))
			return &p->targets[i];
	return NULL;
}

/* One argument of a generated CTestTestfile.cmake command: "quoted" (with
 * backslash escapes), [=[bracket]=] or bare. Returns the end, or NULL. */
static const char *cmake_arg(const char *s, fg_strbuf *out)
{
	fg_strbuf_reset(out);
	if (*s == '"') {
		for (s++; *s && *s != '"'; s++) {
			if (*s == '\\' && s[1])
				s++;
			fg_strbuf_addch(out, *s);
		}
		return *s ? s + 1 : NULL;
	}
	if (s[0] == '[' && (s[1] == '[' || s[1] == '=')) {
		size_t eq = 0;
		const char *b = s + 1;
		while (*b == '=')
			b++, eq++;
		if (*b != '[')
			return NULL;
		for (const char *e = b + 1; *e; e++) {
			size_t k = 0;
			if (*e != ']')
				continue;
			while (e[1 + k] == '=')
				k++;
			if (k == eq && e[1 + k] == ']') {
				fg_strbuf_add(out, b + 1, (size_t)(e - b - 1));
				return e + k + 2;
			}
		}
		return NULL;
	}
	while (*s && *s != ' ' && *s != ')' && *s != '\n')
		fg_strbuf_addch(out, *s++);
	return s;
}

/* ctest leaves out the command of a test whose executable is not built
 * yet; the generated CTestTestfile.cmake (and its subdirs()) has it. */
static int ctestfile_command(const char *dir, const char *name, fg_strvec *argv, int depth)
{
	char *path = fg_path_join(dir, "CTestTestfile.cmake"), *data = NULL;
	fg_strbuf arg = FG_STRBUF_INIT;
	size_t len;
	int found = 0;

	if (!path || depth > 32 || fg_read_file(path, &data, &len)) {
		fg_error_clear();
		free(path);
		return 0;
	}
	for (const char *line = data; line && *line && !found; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *s;
		if (!strncmp(line, "add_test(", 9)) {
			if (!(s = cmake_arg(line + 9, &arg)) || strcmp(arg.buf, name))
				continue;
			while (s && *s == ' ' && s[1] != ')') {
				if ((s = cmake_arg(s + 1, &arg)))
					fg_strvec_push(argv, arg.buf);
			}
			found = argv->n > 0;
		} else if (!strncmp(line, "subdirs(", 8) && cmake_arg(line + 8, &arg)) {
			char *sub = fg_path_join(dir, arg.buf);
			found = sub ? ctestfile_command(sub, name, argv, depth + 1) : 0;
			free(sub);
		}
	}
	fg_strbuf_release(&arg);
	free(data);
	free(path);
	return found;
}

/* -p NAME: the CMake project (a project() call, usually of an
 * add_subdirectory) called NAME, or whose folder is NAME relative to the
 * top source folder. Fills keep[] with it and the projects below it, and
 * *dir with its absolute source folder. */
static int find_package(fg_project *p, const cJSON *conf, const char *top, bool *keep,
			size_t nproj, char **dir)
{
	const cJSON *projects = cJSON_GetObjectItemCaseSensitive(conf, "projects");
	const cJSON *dirs = cJSON_GetObjectItemCaseSensitive(conf, "directories");
	const char *want = p->opts.package;
	size_t wlen = strlen(want);
	int hit = -1;

	/* "./sub/" and "sub" name the same folder */
	while (wlen > 1 && want[wlen - 1] == '/')
		wlen--;
	if (!strncmp(want, "./", 2) && wlen > 2)
		want += 2, wlen -= 2;
	for (size_t k = 0; k < nproj && hit < 0; k++) {
		const char *n = jstr(cJSON_GetArrayItem(projects, (int)k), "name");
		if (n && strlen(n) == wlen && !strncmp(n, want, wlen))
			hit = (int)k;
	}
	for (size_t k = 0; k < nproj && hit < 0; k++) {
		const cJSON *pj = cJSON_GetArrayItem(projects, (int)k);
		const cJSON *d0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(pj, "directoryIndexes"), 0);
		const char *src = cJSON_IsNumber(d0) ? jstr(cJSON_GetArrayItem(dirs, d0->valueint), "source") : NULL;
		char *abs = src ? fg_path_join(top, src) : NULL;
		if (src && ((strlen(src) == wlen && !strncmp(src, want, wlen)) ||
			    (abs && strlen(abs) == wlen && !strncmp(abs, want, wlen))))
			hit = (int)k;
		free(abs);
	}
	if (hit < 0) {
		fg_strbuf list = FG_STRBUF_INIT;
		const cJSON *pj;
		cJSON_ArrayForEach(pj, projects)
			fg_strbuf_addf(&list, "%s%s", list.len ? ", " : "", jstr(pj, "name") ? jstr(pj, "name") : "?");
		int err = fg_error_set(FG_ENOTFOUND, "no package '%s' in %s — its packages (CMake "
				       "projects) are: %s", p->opts.package, p->loc.file, list.buf);
		fg_strbuf_release(&list);
		return err;
	}
	/* the projects below it: parentIndex chains lead to hit */
	for (size_t k = 0; k < nproj; k++) {
		int at = (int)k;
		for (size_t depth = 0; at >= 0 && depth <= nproj && !keep[k]; depth++) {
			const cJSON *pi;
			if (at == hit)
				keep[k] = true;
			pi = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(projects, at), "parentIndex");
			at = cJSON_IsNumber(pi) ? pi->valueint : -1;
		}
	}
	const cJSON *hp = cJSON_GetArrayItem(projects, hit);
	const cJSON *d0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(hp, "directoryIndexes"), 0);
	const char *src = cJSON_IsNumber(d0) ? jstr(cJSON_GetArrayItem(dirs, d0->valueint), "source") : ".";
	*dir = !src || !strcmp(src, ".") ? fg_strdup(top) : fg_path_join(top, src);
	free(p->name);
	/* found by its folder, a project without a name is called as asked */
	p->name = fg_strdup(jstr(hp, "name") ? jstr(hp, "name") : p->opts.package);
	return *dir && p->name ? 0 : FG_ENOMEM;
}

/* The CMakeLists.txt that registered a CTest test (from its backtrace). */
static const char *test_origin(const cJSON *ctest, const cJSON *test)
{
	const cJSON *graph = cJSON_GetObjectItemCaseSensitive(ctest, "backtraceGraph");
	const cJSON *bt = cJSON_GetObjectItemCaseSensitive(test, "backtrace");
	const cJSON *node, *file;

	if (!cJSON_IsNumber(bt))
		return NULL;
	node = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(graph, "nodes"), bt->valueint);
	file = cJSON_GetObjectItemCaseSensitive(node, "file");
	if (!cJSON_IsNumber(file))
		return NULL;
	file = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(graph, "files"), file->valueint);
	return cJSON_IsString(file) ? file->valuestring : NULL;
}

static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return path && !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

static int add_ctests(fg_project *p, const struct replies *mem, size_t nexec, const char *pkg_dir)
{
	cJSON *j = mem ? mem_json(mem, "ctest.json") : load_ctest(p);
	/* no tests is no error: a project need not use CTest */
	if (!j)
		fg_error_clear();
	const cJSON *tests = cJSON_GetObjectItemCaseSensitive(j, "tests"), *t;
	int err = 0;

	cJSON_ArrayForEach(t, tests) {
		const cJSON *cmdv = cJSON_GetObjectItemCaseSensitive(t, "command"), *a, *envv = NULL;
		const char *name = jstr(t, "name"), *wd = prop_value(t, "WORKING_DIRECTORY", NULL);
		struct fg_target *ct;
		const struct fg_target *exe;

		if (!name)
			continue;
		/* -p: its tests are those defined in its folders */
		if (pkg_dir && !path_under(test_origin(j, t), pkg_dir))
			continue;
		if (!(ct = fg_project_add_target(p, name, FG_TARGET_TEST)))
			return FG_ENOMEM;
		ct->ctest = true;
		cJSON_ArrayForEach(a, cmdv)
			if (cJSON_IsString(a))
				fg_strvec_push(&ct->argv, a->valuestring);
		if (!ct->argv.n && !ctestfile_command(p->build_dir, name, &ct->argv, 0)) {
			p->ntargets--;
			free(ct->name);
			continue;
		}
		prop_value(t, "ENVIRONMENT", &envv);
		cJSON_ArrayForEach(a, envv)
			if (cJSON_IsString(a))
				fg_strvec_push(&ct->env, a->valuestring);
		ct->cwd = fg_strdup(wd ? wd : p->build_dir);
		ct->exe = fg_strdup(ct->argv.v[0]);
		exe = test_target(p, nexec, ct->argv.v[0]);
		if (exe) {
			p->targets[exe - p->targets].kind = FG_TARGET_TEST;
			ct->build_name = fg_strdup(exe->build_name);
		}
	}
	cJSON_Delete(j);
	return err;
}

static int add_executables(fg_project *p, const struct replies *mem, const cJSON *model,
			   char **pkg_dir)
{
	const cJSON *conf = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(model, "configurations"), 0);
	const cJSON *targets = cJSON_GetObjectItemCaseSensitive(conf, "targets"), *t;
	const cJSON *projects = cJSON_GetObjectItemCaseSensitive(conf, "projects");
	const char *top = jstr(cJSON_GetObjectItemCaseSensitive(model, "paths"), "source");
	size_t nproj = (size_t)cJSON_GetArraySize(projects);
	bool *keep = NULL;
	const char *pname = jstr(cJSON_GetArrayItem(projects, 0), "name");
	int err = 0;

	if (pname) {
		free(p->name);
		p->name = fg_strdup(pname);
	}
	if (p->opts.package) {
		if (!(keep = fg_calloc(nproj + 1, sizeof(*keep))))
			err = FG_ENOMEM;
		else
			err = find_package(p, conf, top ? top : p->loc.root, keep, nproj, pkg_dir);
		if (err)
			goto done;
	}
	cJSON_ArrayForEach(t, targets) {
		const cJSON *pi = cJSON_GetObjectItemCaseSensitive(t, "projectIndex");
		if (keep && (!cJSON_IsNumber(pi) || pi->valueint < 0 || (size_t)pi->valueint >= nproj ||
			     !keep[pi->valueint]))
			continue;
		const char *file = jstr(t, "jsonFile");
		cJSON *tj = file ? reply_json(p, mem, file) : NULL;
		const char *type = jstr(tj, "type"), *name = jstr(tj, "name");
		const cJSON *art = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(tj, "artifacts"), 0);
		const char *apath = jstr(art, "path");
		const cJSON *src0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(tj, "sources"), 0);
		const char *src = jstr(src0, "path");

		if (type && name && apath && !strcmp(type, "EXECUTABLE")) {
			/* the folder of its first source, not the file name:
			 * lz4's CLI starts with programs/bench.c */
			char *srcdir = fg_strndup(src ? src : "", src && strrchr(src, '/') ? (size_t)(strrchr(src, '/') - src) : 0);
			struct fg_target *x = fg_project_add_target(p, name, classify(name, srcdir ? srcdir : ""));
			free(srcdir);
			if (!x || !(x->exe = fg_path_join(p->build_dir, apath)) ||
			    !(x->build_name = fg_strdup(name)))
				err = FG_ENOMEM;
		}
		cJSON_Delete(tj);
		if (err)
			break;
	}
	fg_error_clear();
done:
	free(keep);
	return err;
}

int fg_cmake_open(fg_project *p)
{
	cJSON *model = NULL;
	char *pkg_dir = NULL;
	int err;

	if ((err = fg_cmake_configure(p)))
		return err;
	if (!(model = load_reply(p, NULL, "codemodel")))
		return fg_error_last_code() ? fg_error_last_code() : FG_EPARSE;
	err = add_executables(p, NULL, model, &pkg_dir);
	cJSON_Delete(model);
	if (!err)
		err = add_ctests(p, NULL, p->ntargets, pkg_dir);
	free(pkg_dir);
	return err;
}

int fg_cmake_read_replies(fg_project *p, const fg_cmake_reply *files, size_t n)
{
	struct replies mem = { files, n };
	fg_strvec args = FG_STRVEC_INIT;
	cJSON *cache = NULL, *model = NULL;
	char *defaults = NULL, *pkg_dir = NULL;
	int err;

	if (!(cache = load_reply(p, &mem, "cache")) || !(model = load_reply(p, &mem, "codemodel"))) {
		err = fg_error_last_code() ? fg_error_last_code() : FG_EPARSE;
		goto done;
	}
	if (!(defaults = defaults_text(cache))) {
		err = FG_ENOMEM;
		goto done;
	}
	if ((err = feature_args(p, cache, defaults, &args)))
		goto done;
	(void)features_in_cache(cache, &args, 0);
	if (!(err = add_executables(p, &mem, model, &pkg_dir)))
		err = add_ctests(p, &mem, p->ntargets, pkg_dir);
done:
	cJSON_Delete(cache);
	cJSON_Delete(model);
	fg_strvec_clear(&args);
	free(defaults);
	free(pkg_dir);
	return err;
}
