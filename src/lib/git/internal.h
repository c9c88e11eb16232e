/* Shared plumbing of the git stage: libgit2 set-up, error mapping,
 * repository discovery and revision lookup. Not part of the public API. */
#ifndef FG_LIB_GIT_INTERNAL_H
#define FG_LIB_GIT_INTERNAL_H

#include <git2.h>

/* libgit2 1.1 (Debian 11, Ubuntu 22.04) to 1.9 (Debian 13) are supported;
 * where the API moved between them, the version decides. */
#define FG_LIBGIT2_AT_LEAST(major, minor) \
	(LIBGIT2_VER_MAJOR > (major) || \
	 (LIBGIT2_VER_MAJOR == (major) && LIBGIT2_VER_MINOR >= (minor)))
/* 1.8 moved the calls that set and clear the thread's error here */
#if FG_LIBGIT2_AT_LEAST(1, 8)
#include <git2/sys/errors.h>
#endif

#include "flamegraph/error.h"
#include "flamegraph/git.h"

/* Every public entry point brackets its work with these; libgit2 counts
 * init calls, so nesting and concurrent callers are fine and nothing is
 * left allocated once the last caller returns. */
void fg_git__begin(void);
void fg_git__end(void);

/* Maps a negative libgit2 result to an FG_E* code and records the detail
 * ("<what>: <libgit2's message>"). */
int fg_git__fail(int lg_error, const char *what);

/* Opens the repository containing `path` (a file or directory), searching
 * parent directories. FG_ENOTFOUND when there is none. */
int fg_git__open(git_repository **out, const char *path);

/* Resolves a revspec to a commit (tags and the like are peeled). */
int fg_git__resolve_commit(git_commit **out, git_repository *repo, const char *rev);

/* Writes the commit's full id and its unique abbreviation (at least
 * FG_GIT_SHORT_MIN characters) into FG_GIT_ID_SIZE-byte buffers. */
int fg_git__ids(char *full, char *abbrev, const git_commit *commit);

#endif
