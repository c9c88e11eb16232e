/* Plain Make projects, as the rest of the library sees them: a
 * GNUmakefile, makefile or Makefile (GNU make's own order of preference),
 * read from make's dry run. It declares no kinds: they are guessed from
 * the programs' names, and any program answers to its name. */
#include <string.h>

#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "lib/project/make/make.h"
#include "lib/project/system.h"
#include "util/banned.h"

static const char *const manifests[] = { "GNUmakefile", "makefile", "Makefile" };

static int detect(fg_manifest_loc *out, const char *dir, bool climb)
{
	(void)climb;
	return fg_manifest_detect_names(out, FG_MANIFEST_MAKE, dir, manifests,
					sizeof(manifests) / sizeof(manifests[0]));
}

static int detect_file(fg_manifest_loc *out, const char *dir, const char *base)
{
	return fg_manifest_detect_base(out, FG_MANIFEST_MAKE, dir, base, manifests,
				       sizeof(manifests) / sizeof(manifests[0]));
}

const struct fg_build_system fg_system_make = {
	.type = FG_MANIFEST_MAKE,
	.name = "make",
	.manifest = "Makefile",
	.detect = detect,
	.detect_file = detect_file,
	.read = fg_make_open,
	.build = fg_make_build,
	.fix_style = FG_FIX_GENERIC,
	.kinds_guessed = true,
};
