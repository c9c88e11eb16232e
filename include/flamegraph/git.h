/* Git provenance and read-only exports of other revisions (libgit2).
 *
 * Provenance answers "which code is this graph of?": the branch, commit id
 * and dirty flag that go into the SVG subtitle and the JSON metadata.
 * Exports serve `--compare REV`: the tree of REV is written into a fresh
 * directory so it can be built and profiled next to the working tree,
 * without touching the user's working tree, index, HEAD or refs.
 *
 * Every function initialises libgit2 on entry and releases it on return
 * (libgit2 counts these calls), so callers never deal with
 * git_libgit2_init()/git_libgit2_shutdown() and may call from any thread. */
#ifndef FLAMEGRAPH_GIT_H
#define FLAMEGRAPH_GIT_H

#include <stdbool.h>
#include <stddef.h>

#include "flamegraph/api.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

/* Size of a buffer holding a full hexadecimal commit id plus its NUL. */
#define FG_GIT_ID_SIZE 41
/* Shortest abbreviated id we print (longer when needed to stay unique). */
#define FG_GIT_SHORT_MIN 8

/* Where the code came from. Strings are owned by the struct; release with
 * fg_git_info_release(). */
typedef struct fg_git_info {
	/* "main"; "HEAD detached at 1a2b3c4d" when HEAD is not on a branch;
	 * on an unborn branch (fresh `git init`) the branch HEAD names. */
	char *branch;
	/* Absolute path of the work-tree root, no trailing slash ("" for a
	 * bare repository). */
	char *workdir;
	char commit[FG_GIT_ID_SIZE];   /* full id of HEAD; "" when unborn */
	char short_id[FG_GIT_ID_SIZE]; /* unique abbreviation; "" when unborn */
	bool detached;  /* HEAD points at a commit, not a branch */
	bool unborn;    /* the branch has no commits yet */
	/* Tracked content differs from HEAD: a tracked file modified, deleted
	 * or renamed in the work tree, or any change staged in the index
	 * (on an unborn branch: anything staged). Untracked files do NOT make
	 * a tree dirty, as with `git describe --dirty`: build outputs and
	 * scratch files are common and say nothing about the profiled code.
	 * A checked-out submodule whose commit or content differs counts as
	 * modified, again as with `git describe --dirty` (untracked files
	 * inside it do not; a submodule that is not cloned is clean). */
	bool dirty;
	/* At least one untracked, not ignored file exists (reported
	 * separately so callers can mention it; never part of `dirty`). */
	bool untracked;
} fg_git_info;

#define FG_GIT_INFO_INIT { .branch = NULL, .workdir = NULL, .commit = "", .short_id = "", \
	.detached = false, .unborn = false, .dirty = false, .untracked = false }

/* Fills *out for the repository containing `path` (a file or directory;
 * parent directories are searched, as git does).
 *
 * Returns 0; FG_ENOTFOUND when `path` is not inside a git repository (or
 * one libgit2 refuses to open, e.g. owned by another user) -- not an error
 * worth printing, callers just leave provenance out; FG_ENOMEM; FG_EIO when
 * the repository is unreadable. On failure *out holds no allocations.
 * `out` must be FG_GIT_INFO_INIT or released. */
int fg_git_provenance(fg_git_info *out, const char *path);

/* Frees the strings of *info and resets it to FG_GIT_INFO_INIT. NULL and
 * already-released structs are fine. */
void fg_git_info_release(fg_git_info *info);

/* Writes the one-line subtitle for *info into buf (always NUL-terminated
 * when size > 0), like snprintf:
 *     main @ 1a2b3c4d
 *     main @ 1a2b3c4d (dirty)
 *     HEAD detached at 1a2b3c4d (dirty)
 *     main (no commits yet)
 * Returns the length the full text needs, not counting the NUL. */
size_t fg_git_info_format(char *buf, size_t size, const fg_git_info *info);

/* Resolves `rev` (any revspec: branch, tag, HEAD~1, a short or full id)
 * in the repository containing `repo_path` to a commit, writing its full
 * hex id into id_out (FG_GIT_ID_SIZE bytes).
 *
 * Errors: FG_ENOTFOUND for no repository or an unknown revision ("unknown
 * revision 'X' — try a branch, tag or commit id"); FG_EAMBIGUOUS for a
 * short id matching several objects; FG_EINVAL when `rev` names something
 * that is not a commit (e.g. a blob). */
int fg_git_resolve(char *id_out, const char *repo_path, const char *rev);

/* What an export wrote. Release with fg_git_export_result_release(). */
typedef struct fg_git_export_result {
	char commit[FG_GIT_ID_SIZE];   /* full id REV resolved to */
	char short_id[FG_GIT_ID_SIZE]; /* unique abbreviation of it */
	size_t files;       /* regular files written (executable bit kept) */
	size_t symlinks;    /* symbolic links created */
	size_t dirs;        /* directories created below dest_dir */
	/* Submodules are not fetched or checked out: each gets an empty
	 * directory. skipped_submodules lists their paths separated by ", "
	 * (NULL when there were none) so callers can say they were skipped. */
	size_t submodules_skipped;
	char *skipped_submodules;
} fg_git_export_result;

#define FG_GIT_EXPORT_RESULT_INIT { .commit = "", .short_id = "", .files = 0, .symlinks = 0, \
	.dirs = 0, .submodules_skipped = 0, .skipped_submodules = NULL }

/* Writes the tree of commit `rev` of the repository containing `repo_path`
 * into `dest_dir`, which must not exist (it is created, with parents) or
 * be an empty directory. Content is what `git checkout` would produce:
 * the repository's attributes and filters (eol conversion, ident) apply;
 * file modes 644/755 and symbolic links are kept. Nothing in the
 * repository is modified: not the working tree, the index, HEAD or refs.
 *
 * Errors: those of fg_git_resolve(); FG_EINVAL when dest_dir exists and is
 * not an empty directory ("... exists and is not empty — remove it or
 * choose another directory"); FG_EPARSE for a tree entry whose name is not
 * a safe file name (".", "..", ".git", containing '/'); FG_EIO for a write
 * failure. After a failure dest_dir may hold a partial export; removing it
 * is the caller's job (it chose the place). *out is filled on success and
 * must be FG_GIT_EXPORT_RESULT_INIT or released before the call. */
int fg_git_export(fg_git_export_result *out, const char *repo_path,
		  const char *rev, const char *dest_dir);

/* Frees the strings of *res and resets it. NULL is fine. */
void fg_git_export_result_release(fg_git_export_result *res);

/* Shorthand for fg_git_export() when only the commit id matters:
 * resolved_id_out (FG_GIT_ID_SIZE bytes, or NULL) receives the full id. */
int fg_git_export_rev(const char *repo_path, const char *rev,
		      const char *dest_dir, char *resolved_id_out);

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
