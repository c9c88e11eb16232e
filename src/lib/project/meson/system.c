/* Meson projects, as the rest of the library sees them: a meson.build
 * (the top one: a meson.build below it cannot be configured alone, so
 * the project is the top one even when a lower one is named) or a Meson
 * build folder. It is configured (meson setup) into the flamegraph build
 * folder before its introspection files are read. */
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "lib/project/meson/meson.h"
#include "lib/project/system.h"
#include "util/banned.h"

/* A Meson build folder: the project is its source tree, the manifest its
 * meson-info.json (which tells the reader whose options to carry over). */
static int build_dir_loc(fg_manifest_loc *out, const char *dir)
{
	char *src = fg_meson_source_of(dir);

	if (!src)
		return fg_error_set(FG_EPARSE, "%s/meson-info/meson-info.json names no source folder — "
				    "point `opts.manifest_path` at the project's meson.build", dir);
	out->type = FG_MANIFEST_MESON;
	out->root = src;
	out->file = fg_path_join(dir, "meson-info/meson-info.json");
	return out->file ? 0 : FG_ENOMEM;
}

static int top_loc(fg_manifest_loc *out, const char *dir)
{
	char *top = fg_manifest_top(dir, "meson.build", fg_meson_calls_project);
	int err = top ? fg_manifest_loc_set(out, FG_MANIFEST_MESON, top, "meson.build") : FG_ENOMEM;

	free(top);
	return err ? err : 1;
}

static int detect(fg_manifest_loc *out, const char *dir, bool climb)
{
	(void)climb;
	if (fg_dir_has_file(dir, "meson.build"))
		return top_loc(out, dir);
	if (fg_meson_is_build_dir(dir)) {
		int err = build_dir_loc(out, dir);
		return err ? err : 1;
	}
	return 0;
}

static int detect_file(fg_manifest_loc *out, const char *dir, const char *base)
{
	if (!strcmp(base, "meson.build"))
		return top_loc(out, dir);
	if (strcmp(base, "meson-info.json") || strcmp(fg_path_base(dir), "meson-info"))
		return 0;
	char *build = fg_dir_parent(dir);
	int err = build ? build_dir_loc(out, build) : FG_ENOMEM;
	free(build);
	return err ? err : 1;
}

const struct fg_build_system fg_system_meson = {
	.type = FG_MANIFEST_MESON,
	.name = "meson",
	.manifest = "meson.build",
	.detect = detect,
	.detect_file = detect_file,
	.prepare = fg_meson_prepare,
	.configure = fg_meson_configure,
	.read = fg_meson_read,
	.build = fg_meson_build,
	.listed_test = " (meson test)",
	.listed_bench = " (meson benchmark)",
	.runs_test = "Meson test",
	.runs_bench = "Meson benchmark",
	.runner = "meson",
	.fix_style = FG_FIX_GENERIC,
};
