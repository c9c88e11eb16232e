/* Unit tests of manifest discovery: which file wins, the
 * outermost CMake project, build/compile_commands.json, and the message
 * when nothing is found. */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/error.h"
#include "flamegraph/manifest.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0777);
		*s = '/';
	}
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static const char *at(const char *rel)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return path;
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "%s/fgmanXXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(root) ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* the scratch tree goes with the tests */
static int teardown(void **state)
{
	return root[0] ? nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS) : 0;
}

static void toml_wins_over_cmake_and_augments_it(void **state)
{
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;

	put("a/CMakeLists.txt", "project(a C)\n");
	put("a/flamegraph.toml", "[package]\nname = \"a\"\n");
	put("a/src/x.c", "");
	assert_int_equal(fg_manifest_find(&loc, at("a/src"), false), 0);
	assert_int_equal(loc.type, FG_MANIFEST_CMAKE);
	assert_non_null(loc.toml);
	assert_string_equal(loc.toml, at("a/flamegraph.toml"));
	fg_manifest_loc_release(&loc);

	put("t/flamegraph.toml", "[package]\nname = \"t\"\n");
	assert_int_equal(fg_manifest_find(&loc, at("t"), false), 0);
	assert_int_equal(loc.type, FG_MANIFEST_TOML);
	assert_string_equal(loc.file, at("t/flamegraph.toml"));
	fg_manifest_loc_release(&loc);
}

static void outermost_cmake_project(void **state)
{
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;

	put("top/CMakeLists.txt", "# project(no) in a comment\nProject (top C)\nadd_subdirectory(lib)\n");
	put("top/lib/CMakeLists.txt", "add_library(l l.c)\n");
	put("top/lib/inner/CMakeLists.txt", "project(inner C)\n");
	assert_int_equal(fg_manifest_find(&loc, at("top/lib/inner"), false), 0);
	assert_int_equal(loc.type, FG_MANIFEST_CMAKE);
	assert_string_equal(loc.root, at("top"));
	assert_null(loc.toml);
	fg_manifest_loc_release(&loc);

	/* --manifest-path names the project itself: no climbing */
	assert_int_equal(fg_manifest_find(&loc, at("top/lib/inner"), true), 0);
	assert_string_equal(loc.root, at("top/lib/inner"));
	fg_manifest_loc_release(&loc);
	assert_int_equal(fg_manifest_find(&loc, at("top/lib/inner/CMakeLists.txt"), true), 0);
	assert_string_equal(loc.root, at("top/lib/inner"));
	fg_manifest_loc_release(&loc);
}

static void compile_commands_in_build(void **state)
{
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;

	put("mk/build/compile_commands.json", "[]\n");
	assert_int_equal(fg_manifest_find(&loc, at("mk"), true), 0);
	assert_int_equal(loc.type, FG_MANIFEST_COMPDB);
	assert_string_equal(loc.file, at("mk/build/compile_commands.json"));
	assert_string_equal(loc.root, at("mk"));
	fg_manifest_loc_release(&loc);
}

static void nothing_found_says_where(void **state)
{
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;

	put("none/x.txt", "");
	assert_int_equal(fg_manifest_find(&loc, at("none"), true), FG_ENOTFOUND);
	assert_non_null(strstr(fg_error_last(), at("none")));
	assert_non_null(strstr(fg_error_last(), "`opts.manifest_path`"));
	assert_int_equal(fg_manifest_find(&loc, at("missing"), true), FG_ENOTFOUND);
	assert_int_equal(fg_manifest_find(&loc, at("none/x.txt"), true), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "not a manifest"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(toml_wins_over_cmake_and_augments_it),
		cmocka_unit_test(outermost_cmake_project),
		cmocka_unit_test(compile_commands_in_build),
		cmocka_unit_test(nothing_found_says_where),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
