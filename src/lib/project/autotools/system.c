/* Autotools projects, as the rest of the library sees them: configure,
 * configure.ac or configure.in. The project is configured (from the
 * user's tree or a regenerated copy) before its Makefiles can be read. */
#include <string.h>

#include "flamegraph/error.h"
#include "lib/project/autotools/autotools.h"
#include "lib/project/build.h"
#include "lib/project/system.h"
#include "util/banned.h"

static const char *const manifests[] = { "configure", "configure.ac", "configure.in" };

static int detect(fg_manifest_loc *out, const char *dir, bool climb)
{
	(void)climb;
	return fg_manifest_detect_names(out, FG_MANIFEST_AUTOTOOLS, dir, manifests,
					sizeof(manifests) / sizeof(manifests[0]));
}

static int detect_file(fg_manifest_loc *out, const char *dir, const char *base)
{
	return fg_manifest_detect_base(out, FG_MANIFEST_AUTOTOOLS, dir, base, manifests,
				       sizeof(manifests) / sizeof(manifests[0]));
}

/* an unknown profile is refused before any copy or autoreconf */
static int prepare(fg_project *p)
{
	int err = fg_autotools_check_profile(p);

	return err ? err : fg_autotools_source(p);
}

/* a Makefile.in written by hand: its link rules name the programs */
static int read(fg_project *p)
{
	int err = fg_autotools_read(p);

	return err ? err : fg_autotools_dryrun(p);
}

const struct fg_build_system fg_system_autotools = {
	.type = FG_MANIFEST_AUTOTOOLS,
	.name = "autotools",
	.manifest = "configure",
	.detect = detect,
	.detect_file = detect_file,
	.prepare = prepare,
	.configure = fg_autotools_configure,
	.read = read,
	.build = fg_autotools_build,
	.fix_style = FG_FIX_GENERIC,
};
