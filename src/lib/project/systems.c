/* The build systems, in the order discovery tries them in a folder:
 * flamegraph.toml first (beside a CMakeLists.txt it is CMake's), then
 * CMake, Meson, autotools, plain Make, and compile_commands.json last.
 * Meson comes before compile_commands.json because a Meson project has
 * one in each of its build folders; a Makefile before it because the
 * Makefile knows the link lines a compile database lacks (`bear -- make`
 * makes one from the Makefile: --manifest-path still picks it). */
#include <stddef.h>

#include "lib/project/system.h"
#include "util/strbuf.h"
#include "util/banned.h"

const struct fg_build_system *const fg_build_systems[] = {
	&fg_system_toml, &fg_system_cmake, &fg_system_meson, &fg_system_autotools,
	&fg_system_make, &fg_system_compdb, NULL,
};

const struct fg_build_system *fg_build_system_of(fg_manifest_type type)
{
	for (size_t i = 0; fg_build_systems[i]; i++)
		if (fg_build_systems[i]->type == type)
			return fg_build_systems[i];
	return NULL;
}

void fg_build_systems_manifests(struct fg_strbuf *sb)
{
	for (size_t i = 0; fg_build_systems[i]; i++)
		fg_strbuf_addf(sb, "%s%s", i == 0 ? "" : fg_build_systems[i + 1] ? ", " : " or ",
			       fg_build_systems[i]->manifest);
}
