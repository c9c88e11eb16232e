/* flamegraph.toml projects, as the rest of the library sees them: a
 * flamegraph.toml with no CMakeLists.txt beside it (beside one, it adds
 * to the CMake project: cmake/with_toml.c). Its programs are built by
 * the compile engine (system = "cc") or by the command it gives
 * (system = "command"). */
#include <string.h>

#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "lib/project/system.h"
#include "lib/project/toml/tomlproj.h"
#include "util/banned.h"

static int detect(fg_manifest_loc *out, const char *dir, bool climb)
{
	(void)climb;
	if (!fg_dir_has_file(dir, "flamegraph.toml") || fg_dir_has_file(dir, "CMakeLists.txt"))
		return 0;
	return fg_manifest_loc_set(out, FG_MANIFEST_TOML, dir, "flamegraph.toml") ? FG_ENOMEM : 1;
}

static int detect_file(fg_manifest_loc *out, const char *dir, const char *base)
{
	return strcmp(base, "flamegraph.toml") ? 0 : detect(out, dir, false);
}

static int build(fg_project *p, const struct fg_target *t, fg_build_result *res)
{
	const struct fg_tomlproj *tp = p->state;

	if (tp->system == FG_TOMLPROJ_COMMAND)
		return fg_command_build(p, t, res);
	return fg_cc_build(p, t, res);
}

const struct fg_build_system fg_system_toml = {
	.type = FG_MANIFEST_TOML,
	.name = "toml",
	.manifest = "flamegraph.toml",
	.detect = detect,
	.detect_file = detect_file,
	.read = fg_tomlproj_open,
	.build = build,
	.fix_style = FG_FIX_TOML,
	.filters_declared = true,
};
