/* Opening a project: the manifest reader, and for two kinds a build step
 * before or between its reads. A CMake project's targets come from the
 * File API replies of a configured build folder, so it is configured
 * first (a Meson project's introspection files likewise); which translation unit of a compile database defines main is
 * read from the objects' symbol tables, not guessed from the source text
 * (macros, #ifdef'd mains and generated code make text scans wrong), so
 * every entry is compiled between reading the database and naming the
 * targets. The objects and their .cmd/.d stamps are the cache: a re-run
 * recompiles nothing and only reads the symbol tables again, and every
 * object is needed anyway, as a target's link picks the objects that
 * define its undefined symbols.
 *
 * This sequence lives in the builder because the builder runs the tools;
 * the readers (src/lib/manifest) only read, so the dependency goes one
 * way: builder -> manifest. */
#include "flamegraph/builder.h"
#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "lib/project/autotools/autotools.h"
#include "lib/project/meson/meson.h"
#include "util/version.h"
#include "util/banned.h"

static int open_cmake(fg_project *p)
{
	int err;

	/* a flamegraph.toml beside it augments the CMake project */
	if (p->loc.toml && (err = fg_tomlproj_cmake_pre(p)))
		return err;
	if ((err = fg_cmake_configure(p)) || (err = fg_cmake_read(p)))
		return err;
	return p->loc.toml ? fg_tomlproj_cmake_post(p) : 0;
}

/* A Meson project is configured (meson setup) before its introspection
 * files can be read. */
static int open_meson(fg_project *p)
{
	int err;

	if ((err = fg_meson_prepare(p)) || (err = fg_meson_configure(p)))
		return err;
	return fg_meson_read(p);
}

/* An autotools project is configured (from the user's tree or a
 * regenerated copy) before its Makefiles can be read. */
static int open_autotools(fg_project *p)
{
	int err;

	p->system = FG_BUILD_AUTOTOOLS;
	/* an unknown profile is refused before any copy or autoreconf */
	if ((err = fg_autotools_check_profile(p)) || (err = fg_autotools_source(p)) ||
	    (err = fg_autotools_configure(p)) || (err = fg_autotools_read(p)))
		return err;
	/* a Makefile.in written by hand: its link rules name the programs */
	return fg_autotools_dryrun(p);
}

static int open_compdb(fg_project *p)
{
	int err;

	if ((err = fg_compdb_load(p)) || (err = fg_compdb_compile_all(p)))
		return err;
	return fg_compdb_add_targets(p);
}

int fg_project_open(fg_project **out, const fg_manifest_loc *loc, const fg_project_opts *opts)
{
	fg_project *p = NULL;
	int err;

	*out = NULL;
	if ((err = fg_opts_version_check("fg_project_opts", opts->version,
					 FG_PROJECT_OPTS_VERSION)))
		return err;
	if ((err = fg_project_new(&p, loc, opts)))
		return err;
	switch (loc->type) {
	case FG_MANIFEST_CMAKE:
		err = open_cmake(p);
		break;
	case FG_MANIFEST_COMPDB:
		err = open_compdb(p);
		break;
	case FG_MANIFEST_MESON:
		err = open_meson(p);
		break;
	case FG_MANIFEST_AUTOTOOLS:
		err = open_autotools(p);
		break;
	case FG_MANIFEST_MAKE:
		err = fg_make_open(p);
		break;
	default:
		err = fg_tomlproj_open(p);
		break;
	}
	if (err) {
		fg_project_free(p);
		return err;
	}
	*out = p;
	return 0;
}
