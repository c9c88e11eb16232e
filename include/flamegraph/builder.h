/* Building a target of a project (see flamegraph/manifest.h) with debug
 * info and frame pointers into the flamegraph build directory, never the
 * user's own build trees. A re-run with nothing changed rebuilds nothing
 * and says so through the project's note callback. */
#ifndef FLAMEGRAPH_BUILDER_H
#define FLAMEGRAPH_BUILDER_H

#include <stdbool.h>

#include "flamegraph/elfcheck.h"
#include "flamegraph/manifest.h"

#include "flamegraph/api.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

typedef struct fg_build_result {
	bool rebuilt;        /* something was compiled or linked */
	bool no_rosegment;   /* -Wl,--no-rosegment was added (lld or mold link) */
	char linker[32];     /* "LLD", "mold", "GNU ld" or "" when unknown */
} fg_build_result;
#define FG_BUILD_RESULT_INIT { .rebuilt = false, .no_rosegment = false, .linker = "" }

/* Reads the manifest at loc and lists its targets. For CMake this
 * configures the project into the flamegraph build directory (the File API
 * needs a configured tree), for a compile database it compiles every
 * entry there (main is found in the objects' symbol tables); the user's
 * own build trees are never touched (src/lib/project/open.c).
 * Errors: FG_EPARSE (file:line:col), FG_EBUILD (configure failed; CMake's
 * own message went to stderr), FG_EINVAL (unknown feature, listing the
 * known ones), FG_ENOTFOUND. */
int fg_project_open(fg_project **out, const fg_manifest_loc *loc,
		    const fg_project_opts *opts);

/* Builds target t of p (only what it needs). The compiler's output goes to
 * the inherited stderr. Errors: FG_EBUILD (the build failed: the tools
 * already showed why), FG_ENOTFOUND (a tool or source is missing). */
int fg_project_build(fg_project *p, const fg_target *t, fg_build_result *res);

/* How advice to change the link of p's programs is worded: for CMake
 * (CMAKE_EXE_LINKER_FLAGS), flamegraph.toml ([build] ldflags) or any
 * other build (compiler and linker flags). */
fg_fix_style fg_project_fix_style(const fg_project *p);

/* Reads the linker named in the ELF file's .comment section into buf
 * ("LLD", "mold", "GNU ld" or ""). 0, or FG_EIO when it is no ELF file. */
int fg_build_linker_of(const char *elf_path, char *buf, size_t size);

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
