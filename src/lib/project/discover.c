/* Manifest discovery: flamegraph.toml, then CMakeLists.txt (the
 * outermost one of the chain that calls project()), then meson.build (the
 * same) or a Meson build folder, then autotools (configure, configure.ac,
 * configure.in), then a plain GNUmakefile/makefile/Makefile, then
 * compile_commands.json, also in build/. Meson comes before
 * compile_commands.json because a Meson project has one in each of its
 * build folders; a Makefile before it because the Makefile knows the
 * link lines a compile database lacks (`bear -- make` makes one from
 * the Makefile: --manifest-path still picks it). */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/project/meson/meson.h"
#include "lib/project/project.h"
#include "util/input.h"
#include "util/banned.h"

void fg_manifest_loc_release(fg_manifest_loc *loc)
{
	free(loc->file);
	free(loc->root);
	free(loc->toml);
	loc->file = loc->root = loc->toml = NULL;
}

/* Whether the CMakeLists.txt in dir calls project() -- a scan for the
 * command name outside comments, enough to tell a top-level project from
 * an add_subdirectory() part. */
static bool calls_project(const char *dir)
{
	char *path = fg_path_join(dir, "CMakeLists.txt"), *data = NULL;
	size_t len = 0, i;
	bool found = false, comment = false, word_start = true;

	if (!path || fg_read_file(path, &data, &len)) {
		free(path);
		return false;
	}
	for (i = 0; i < len && !found; i++) {
		char c = data[i];
		if (c == '\n')
			comment = false;
		else if (c == '#')
			comment = true;
		if (!comment && word_start && i + 7 <= len && !strncasecmp(data + i, "project", 7)) {
			size_t j = i + 7;
			while (j < len && (data[j] == ' ' || data[j] == '\t'))
				j++;
			found = j < len && data[j] == '(';
		}
		word_start = !(isalnum((unsigned char)c) || c == '_');
	}
	free(data);
	free(path);
	fg_error_clear();
	return found;
}

static int set_loc(fg_manifest_loc *out, fg_manifest_type type, const char *dir, const char *file)
{
	out->type = type;
	out->root = fg_strdup(dir);
	out->file = fg_path_join(dir, file);
	if (!out->root || !out->file)
		return FG_ENOMEM;
	if (type == FG_MANIFEST_CMAKE) {
		char *toml = fg_path_join(dir, "flamegraph.toml");
		if (toml && fg_path_is_file(toml))
			out->toml = toml;
		else
			free(toml);
	}
	return 0;
}

static char *parent_of(const char *dir)
{
	const char *s = strrchr(dir, '/');
	if (!s || s == dir)
		return s && dir[1] ? fg_strdup("/") : NULL;
	return fg_strndup(dir, (size_t)(s - dir));
}

/* The outermost directory of the chain of `file`s (CMakeLists.txt,
 * meson.build) above dir whose file calls project() (a subdirectory's
 * does not), or dir. */
static char *top_project(const char *dir, const char *file, bool (*calls)(const char *dir))
{
	char *best = fg_strdup(dir), *cur = fg_strdup(dir);

	while (cur) {
		char *path = fg_path_join(cur, file);
		bool has = path && fg_path_is_file(path);
		free(path);
		if (!has)
			break;
		if (calls(cur)) {
			free(best);
			best = fg_strdup(cur);
		}
		char *up = parent_of(cur);
		free(cur);
		cur = up;
	}
	free(cur);
	return best;
}

static char *cmake_top(const char *dir)
{
	return top_project(dir, "CMakeLists.txt", calls_project);
}

static char *meson_top(const char *dir)
{
	return top_project(dir, "meson.build", fg_meson_calls_project);
}

/* A Meson build folder: the project is its source tree, the manifest its
 * meson-info.json (which tells the reader whose options to carry over). */
static int meson_build_loc(fg_manifest_loc *out, const char *dir)
{
	char *src = fg_meson_source_of(dir);
	int err;

	if (!src)
		return fg_error_set(FG_EPARSE, "%s/meson-info/meson-info.json names no source folder — "
				    "point `opts.manifest_path` at the project's meson.build", dir);
	out->type = FG_MANIFEST_MESON;
	out->root = src;
	out->file = fg_path_join(dir, "meson-info/meson-info.json");
	err = out->file ? 0 : FG_ENOMEM;
	return err;
}

/* Tries the manifests in dir, in order. 1 when found. */
static int try_dir(fg_manifest_loc *out, const char *dir, bool climb, fg_strbuf *looked)
{
	static const char *const names[] = { "flamegraph.toml", "CMakeLists.txt",
					     "compile_commands.json", "build/compile_commands.json" };
	static const char *const autotools[] = { "configure", "configure.ac", "configure.in" };
	/* GNU make's own order of preference */
	static const char *const makefiles[] = { "GNUmakefile", "makefile", "Makefile" };
	size_t i;

	for (i = 0; i < 2; i++) {
		char *path = fg_path_join(dir, names[i]);
		bool ok = path && fg_path_is_file(path);
		free(path);
		if (!ok)
			continue;
		if (i == 0) {
			/* a flamegraph.toml beside a CMakeLists.txt augments it */
			char *cm = fg_path_join(dir, "CMakeLists.txt");
			bool cmake = cm && fg_path_is_file(cm);
			free(cm);
			if (cmake && set_loc(out, FG_MANIFEST_CMAKE, dir, "CMakeLists.txt") == 0)
				return 1;
			fg_manifest_loc_release(out);
			return set_loc(out, FG_MANIFEST_TOML, dir, names[0]) ? FG_ENOMEM : 1;
		}
		char *top = climb ? cmake_top(dir) : fg_strdup(dir);
		int err = top ? set_loc(out, FG_MANIFEST_CMAKE, top, "CMakeLists.txt") : FG_ENOMEM;
		free(top);
		return err ? err : 1;
	}
	{
		/* a meson.build below the top one cannot be configured alone:
		 * the project is the top one even with --manifest-path */
		char *mb = fg_path_join(dir, "meson.build");
		bool meson = mb && fg_path_is_file(mb);
		free(mb);
		if (meson) {
			char *top = meson_top(dir);
			int err = top ? set_loc(out, FG_MANIFEST_MESON, top, "meson.build") : FG_ENOMEM;
			free(top);
			return err ? err : 1;
		}
		if (fg_meson_is_build_dir(dir)) {
			int err = meson_build_loc(out, dir);
			return err ? err : 1;
		}
	}
	for (i = 0; i < sizeof(autotools) / sizeof(autotools[0]); i++) {
		char *path = fg_path_join(dir, autotools[i]);
		bool ok = path && fg_path_is_file(path);
		free(path);
		if (ok)
			return set_loc(out, FG_MANIFEST_AUTOTOOLS, dir, autotools[i]) ? FG_ENOMEM : 1;
	}
	for (i = 0; i < sizeof(makefiles) / sizeof(makefiles[0]); i++) {
		char *path = fg_path_join(dir, makefiles[i]);
		bool ok = path && fg_path_is_file(path);
		free(path);
		if (ok)
			return set_loc(out, FG_MANIFEST_MAKE, dir, makefiles[i]) ? FG_ENOMEM : 1;
	}
	for (i = 2; i < 4; i++) {
		char *path = fg_path_join(dir, names[i]);
		bool ok = path && fg_path_is_file(path);
		free(path);
		if (!ok)
			continue;
		return set_loc(out, FG_MANIFEST_COMPDB, dir, names[i]) ? FG_ENOMEM : 1;
	}
	fg_strbuf_addf(looked, "\n  %s", dir);
	return 0;
}

static int from_file(fg_manifest_loc *out, const char *path)
{
	const char *base = fg_path_base(path);
	char *dir = parent_of(path);
	int err;

	if (!dir)
		return FG_ENOMEM;
	if (!strcmp(base, "flamegraph.toml") || !strcmp(base, "CMakeLists.txt")) {
		fg_strbuf looked = FG_STRBUF_INIT;
		if (!strcmp(base, "CMakeLists.txt"))
			err = set_loc(out, FG_MANIFEST_CMAKE, dir, base);
		else
			err = try_dir(out, dir, false, &looked) == 1 ? 0 : FG_ENOMEM;
		fg_strbuf_release(&looked);
	} else if (!strcmp(base, "meson.build")) {
		char *top = meson_top(dir);
		err = top ? set_loc(out, FG_MANIFEST_MESON, top, base) : FG_ENOMEM;
		free(top);
	} else if (!strcmp(base, "meson-info.json") && !strcmp(fg_path_base(dir), "meson-info")) {
		char *build = parent_of(dir);
		err = build ? meson_build_loc(out, build) : FG_ENOMEM;
		free(build);
	} else if (!strcmp(base, "configure") || !strcmp(base, "configure.ac") ||
		   !strcmp(base, "configure.in")) {
		err = set_loc(out, FG_MANIFEST_AUTOTOOLS, dir, base);
	} else if (!strcmp(base, "Makefile") || !strcmp(base, "makefile") ||
		   !strcmp(base, "GNUmakefile")) {
		err = set_loc(out, FG_MANIFEST_MAKE, dir, base);
	} else if (!strcmp(base, "compile_commands.json") || fg_view_ends_with(fg_view_cstr(base), ".json")) {
		err = set_loc(out, FG_MANIFEST_COMPDB, dir, base);
	} else {
		err = fg_error_set(FG_EINVAL, "%s is not a manifest — `opts.manifest_path` takes a "
				   "flamegraph.toml, CMakeLists.txt, meson.build, configure (or configure.ac), "
				   "Makefile or compile_commands.json, or a folder holding one (a Meson build "
				   "folder too)", path);
	}
	free(dir);
	return err;
}

int fg_manifest_first_in(const char *dir, fg_manifest_type *type)
{
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;
	fg_strbuf looked = FG_STRBUF_INIT;
	int r = try_dir(&loc, dir, false, &looked);

	if (r == 1)
		*type = loc.type;
	fg_manifest_loc_release(&loc);
	fg_strbuf_release(&looked);
	return r;
}

int fg_manifest_find(fg_manifest_loc *out, const char *path, bool explicit_path)
{
	fg_strbuf looked = FG_STRBUF_INIT;
	char *dir = NULL;
	int r = 0;

	memset(out, 0, sizeof(*out));
	dir = realpath(path && *path ? path : ".", NULL);
	if (!dir) {
		r = fg_error_set(FG_ENOTFOUND, "%s does not exist — check the `opts.manifest_path`", path);
		goto done;
	}
	if (explicit_path && fg_path_is_file(dir)) {
		r = from_file(out, dir);
		goto done;
	}
	while (dir) {
		if ((r = try_dir(out, dir, !explicit_path, &looked)) != 0)
			break;
		char *up = explicit_path ? NULL : parent_of(dir);
		free(dir);
		dir = up;
	}
	if (r == 1)
		r = 0;
	else if (!r)
		r = fg_error_set(FG_ENOTFOUND, "no flamegraph.toml, CMakeLists.txt, meson.build, "
				 "configure, Makefile or compile_commands.json found; looked in:%s\n— run it "
				 "inside a C project or point `opts.manifest_path` at one", looked.buf);
done:
	if (r)
		fg_manifest_loc_release(out);
	free(dir);
	fg_strbuf_release(&looked);
	return r;
}
