/* Compile databases, as the rest of the library sees them: a
 * compile_commands.json (also in build/, or any .json named by path).
 * Which translation unit defines main is read from the objects' symbol
 * tables, not guessed from the source text (macros, #ifdef'd mains and
 * generated code make text scans wrong), so every entry is compiled
 * between reading the database and naming the targets. The objects and
 * their .cmd/.d stamps are the cache: a re-run recompiles nothing and
 * only reads the symbol tables again, and every object is needed anyway,
 * as a target's link picks the objects that define its undefined
 * symbols. A database declares no kinds: they are guessed from names. */
#include <string.h>

#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "lib/project/compdb/compdb.h"
#include "lib/project/system.h"
#include "util/strbuf.h"
#include "util/banned.h"

static const char *const manifests[] = { "compile_commands.json", "build/compile_commands.json" };

static int detect(fg_manifest_loc *out, const char *dir, bool climb)
{
	(void)climb;
	return fg_manifest_detect_names(out, FG_MANIFEST_COMPDB, dir, manifests,
					sizeof(manifests) / sizeof(manifests[0]));
}

static int detect_file(fg_manifest_loc *out, const char *dir, const char *base)
{
	if (!fg_view_ends_with(fg_view_cstr(base), ".json"))
		return 0;
	return fg_manifest_loc_set(out, FG_MANIFEST_COMPDB, dir, base) ? FG_ENOMEM : 1;
}

static int read(fg_project *p)
{
	int err;

	if ((err = fg_compdb_load(p)) || (err = fg_compdb_compile_all(p)))
		return err;
	return fg_compdb_add_targets(p);
}

const struct fg_build_system fg_system_compdb = {
	.type = FG_MANIFEST_COMPDB,
	.name = "compdb",
	.manifest = "compile_commands.json",
	.detect = detect,
	.detect_file = detect_file,
	.read = read,
	.build = fg_compdb_build,
	.fix_style = FG_FIX_GENERIC,
	.kinds_guessed = true,
	.shares_build_dir = true,
};
