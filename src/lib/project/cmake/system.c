/* CMake projects, as the rest of the library sees them: a CMakeLists.txt
 * (the outermost one of the chain that calls project()), maybe with a
 * flamegraph.toml beside it that adds features, profiles and targets.
 * Its targets come from the File API replies of a configured build
 * folder, so it is configured before it is read. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/project/cmake/cmake.h"
#include "lib/project/system.h"
#include "util/input.h"
#include "util/banned.h"

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

/* The project at dir, with the flamegraph.toml beside it if any. */
static int set_loc(fg_manifest_loc *out, const char *dir)
{
	int err = fg_manifest_loc_set(out, FG_MANIFEST_CMAKE, dir, "CMakeLists.txt");

	if (!err && fg_dir_has_file(dir, "flamegraph.toml") &&
	    !(out->toml = fg_path_join(dir, "flamegraph.toml")))
		err = FG_ENOMEM;
	return err;
}

/* A flamegraph.toml beside a CMakeLists.txt names the project in its
 * own folder; a CMakeLists.txt alone may be a part of the one above. */
static int detect(fg_manifest_loc *out, const char *dir, bool climb)
{
	int err;

	if (!fg_dir_has_file(dir, "CMakeLists.txt"))
		return 0;
	if (fg_dir_has_file(dir, "flamegraph.toml"))
		climb = false;
	char *top = climb ? fg_manifest_top(dir, "CMakeLists.txt", calls_project) : fg_strdup(dir);
	err = top ? set_loc(out, top) : FG_ENOMEM;
	free(top);
	return err ? err : 1;
}

static int detect_file(fg_manifest_loc *out, const char *dir, const char *base)
{
	if (strcmp(base, "CMakeLists.txt") &&
	    (strcmp(base, "flamegraph.toml") || !fg_dir_has_file(dir, "CMakeLists.txt")))
		return 0;
	int err = set_loc(out, dir);
	return err ? err : 1;
}

/* a flamegraph.toml beside it turns into -D entries before the configure */
static int prepare(fg_project *p)
{
	return p->loc.toml ? fg_tomlproj_cmake_pre(p) : 0;
}

/* ...and its tables apply to the targets read */
static int read(fg_project *p)
{
	int err = fg_cmake_read(p);

	if (!err && p->loc.toml)
		err = fg_tomlproj_cmake_post(p);
	return err;
}

const struct fg_build_system fg_system_cmake = {
	.type = FG_MANIFEST_CMAKE,
	.name = "cmake",
	.manifest = "CMakeLists.txt",
	.detect = detect,
	.detect_file = detect_file,
	.prepare = prepare,
	.configure = fg_cmake_configure,
	.read = read,
	.build = fg_cmake_build,
	.listed_test = " (ctest)",
	.listed_bench = " (ctest)",
	.runs_test = "CTest test",
	.runs_bench = "CTest test",
	.runner = "ctest",
	.fix_style = FG_FIX_CMAKE,
};
