/* Opening a project: a fresh model for the manifest found, then its build
 * system's steps in order (system.h): prepare, configure, read. Some
 * kinds are read from what a configure wrote (CMake's File API replies,
 * Meson's introspection files, autotools' generated Makefiles), so the
 * reading follows the tools, and this sequence lives with the builder
 * that runs them. */
#include "flamegraph/builder.h"
#include "flamegraph/error.h"
#include "lib/project/project.h"
#include "lib/project/system.h"
#include "util/version.h"
#include "util/banned.h"

int fg_project_open(fg_project **out, const fg_manifest_loc *loc, const fg_project_opts *opts)
{
	const struct fg_build_system *sys;
	fg_project *p = NULL;
	int err;

	*out = NULL;
	if ((err = fg_opts_version_check("fg_project_opts", opts->version,
					 FG_PROJECT_OPTS_VERSION)))
		return err;
	if ((err = fg_project_new(&p, loc, opts)))
		return err;
	sys = p->system;
	if ((sys->prepare && (err = sys->prepare(p))) ||
	    (sys->configure && (err = sys->configure(p))) || (err = sys->read(p))) {
		fg_project_free(p);
		return err;
	}
	*out = p;
	return 0;
}
