/* CMake projects: the targets of a configured build folder,
 * from the File API's codemodel-v2 reply (executables, classified by
 * name and folder) and `ctest --show-only=json-v1` (tests, with their
 * exact command, folder and environment). The configure itself is
 * configure.c's; see reply.c for the replies. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "flamegraph/error.h"
#include "lib/project/cmake/cmake.h"
#include "util/input.h"
#include "util/banned.h"

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
	/* expat's runtests, in tests/, run by CTest through a script */
	if (matches_word(name, "test") && matches_word(srcdir, "test"))
		return FG_TARGET_TEST;
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

static int add_ctests(fg_project *p, const struct fg_cmake_replies *mem, size_t nexec, const char *pkg_dir)
{
	cJSON *j = mem ? fg_cmake_mem_json(mem, "ctest.json") : load_ctest(p);
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
			/* a program its tests run is a test, unless installed */
			if (!exe->installed)
				p->targets[exe - p->targets].kind = FG_TARGET_TEST;
			ct->build_name = fg_strdup(exe->build_name);
		}
	}
	cJSON_Delete(j);
	return err;
}

static int add_executables(fg_project *p, const struct fg_cmake_replies *mem, const cJSON *model,
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
		cJSON *tj = file ? fg_cmake_reply_json(p, mem, file) : NULL;
		const char *type = jstr(tj, "type"), *name = jstr(tj, "name");
		const cJSON *art = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(tj, "artifacts"), 0);
		const char *apath = jstr(art, "path");
		const cJSON *src0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(tj, "sources"), 0);
		const char *src = jstr(src0, "path");

		if (type && name && apath && !strcmp(type, "EXECUTABLE")) {
			/* a program the project installs is a bin (libwebp's
			 * cwebp lives in examples/); the others' kinds are
			 * guesses from the folder of their first source, not
			 * the file name (lz4's CLI starts with programs/bench.c) */
			const cJSON *inst = cJSON_GetObjectItemCaseSensitive(tj, "install");
			bool installed = cJSON_GetArraySize(
				cJSON_GetObjectItemCaseSensitive(inst, "destinations")) > 0;
			char *srcdir = fg_strndup(src ? src : "", src && strrchr(src, '/') ? (size_t)(strrchr(src, '/') - src) : 0);
			struct fg_target *x = fg_project_add_target(p, name, installed ? FG_TARGET_BIN :
								    classify(name, srcdir ? srcdir : ""));
			free(srcdir);
			if (!x || !(x->exe = fg_path_join(p->build_dir, apath)) ||
			    !(x->build_name = fg_strdup(name)))
				err = FG_ENOMEM;
			else {
				x->installed = installed;
				x->kind_guessed = !installed;
			}
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

int fg_cmake_read(fg_project *p)
{
	cJSON *model = NULL;
	char *pkg_dir = NULL;
	int err;

	if (!(model = fg_cmake_load_reply(p, NULL, "codemodel")))
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
	struct fg_cmake_replies mem = { files, n };
	fg_strvec args = FG_STRVEC_INIT;
	cJSON *cache = NULL, *model = NULL;
	char *defaults = NULL, *pkg_dir = NULL;
	int err;

	if (!(cache = fg_cmake_load_reply(p, &mem, "cache")) || !(model = fg_cmake_load_reply(p, &mem, "codemodel"))) {
		err = fg_error_last_code() ? fg_error_last_code() : FG_EPARSE;
		goto done;
	}
	if (!(defaults = fg_cmake_cache_defaults(cache))) {
		err = FG_ENOMEM;
		goto done;
	}
	if ((err = fg_cmake_feature_args(p, cache, defaults, &args)))
		goto done;
	(void)fg_cmake_features_in_cache(cache, &args, 0);
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
