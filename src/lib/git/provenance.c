/* Provenance: branch, commit and dirty flag of the repository holding a
 * path, and the subtitle text made from them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/git/internal.h"
#include "util/strbuf.h"
#include "util/banned.h"

/* Changes that make tracked content differ from HEAD. */
#define DIRTY_FLAGS (GIT_STATUS_INDEX_NEW | GIT_STATUS_INDEX_MODIFIED | \
	GIT_STATUS_INDEX_DELETED | GIT_STATUS_INDEX_RENAMED | \
	GIT_STATUS_INDEX_TYPECHANGE | GIT_STATUS_WT_MODIFIED | \
	GIT_STATUS_WT_DELETED | GIT_STATUS_WT_TYPECHANGE | \
	GIT_STATUS_WT_RENAMED | GIT_STATUS_CONFLICTED)

void fg_git_info_release(fg_git_info *info)
{
	fg_git_info empty = FG_GIT_INFO_INIT;

	if (!info)
		return;
	free(info->branch);
	free(info->workdir);
	*info = empty;
}

static int set_workdir(fg_git_info *info, git_repository *repo)
{
	const char *wd = git_repository_workdir(repo);
	size_t n = wd ? strlen(wd) : 0;

	/* libgit2 ends it with '/'; paths read better without, except "/". */
	if (n > 1 && wd[n - 1] == '/')
		n--;
	info->workdir = fg_strndup(wd ? wd : "", n);
	return info->workdir ? 0 : FG_ENOMEM;
}

/* A fresh `git init`: HEAD names a branch that has no commit yet. */
static int read_unborn(fg_git_info *info, git_repository *repo)
{
	git_reference *ref = NULL;
	const char *target = NULL;
	int err = 0, lg;

	info->unborn = true;
	lg = git_reference_lookup(&ref, repo, "HEAD");
	if (lg < 0)
		return fg_git__fail(lg, "cannot read HEAD");
	target = git_reference_symbolic_target(ref);
	if (!target)
		target = "HEAD";
	if (strncmp(target, "refs/heads/", 11) == 0)
		target += 11;
	info->branch = fg_strdup(target);
	if (!info->branch)
		err = FG_ENOMEM;
	git_reference_free(ref);
	return err;
}

static int read_head(fg_git_info *info, git_repository *repo)
{
	git_reference *head = NULL;
	git_commit *commit = NULL;
	fg_strbuf sb = FG_STRBUF_INIT;
	int err = 0, lg;

	lg = git_repository_head(&head, repo);
	if (lg == GIT_EUNBORNBRANCH || lg == GIT_ENOTFOUND)
		return read_unborn(info, repo);
	if (lg < 0)
		return fg_git__fail(lg, "cannot read HEAD");
	lg = git_commit_lookup(&commit, repo, git_reference_target(head));
	if (lg < 0) {
		err = fg_git__fail(lg, "cannot read the HEAD commit");
		goto done;
	}
	err = fg_git__ids(info->commit, info->short_id, commit);
	if (err)
		goto done;
	if (git_reference_is_branch(head)) {
		err = fg_strbuf_addstr(&sb, git_reference_shorthand(head));
	} else {
		info->detached = true;
		err = fg_strbuf_addf(&sb, "HEAD detached at %s", info->short_id);
	}
	if (err)
		goto done;
	if (!(info->branch = fg_strbuf_detach(&sb, NULL)))
		err = FG_ENOMEM;
done:
	fg_strbuf_release(&sb);
	git_commit_free(commit);
	git_reference_free(head);
	return err;
}

static int status_entry(const char *path, unsigned int flags, void *payload)
{
	fg_git_info *info = payload;

	if (flags & GIT_STATUS_WT_NEW)
		info->untracked = true;
	if (flags & DIRTY_FLAGS)
		info->dirty = true;
	/* Both answers known: stop walking a possibly large tree. */
	return info->dirty && info->untracked ? 1 : 0;
}

/* Submodules nested deeper than this are not looked into. */
#define MAX_SUBMODULE_DEPTH 8

static int tracked_changes(git_repository *repo, fg_git_info *info, int depth);

/* A submodule makes the tree dirty when `git describe --dirty` would say
 * so: the commit recorded in the index differs from HEAD's, the
 * submodule's checkout is at another commit, or its tracked content
 * changed; untracked files inside it do not count. libgit2's own
 * submodule status counts those, and in 1.5 leaks memory on every call
 * (in its .gitmodules parsing), so gitlinks are checked here from the
 * index, without reading .gitmodules. Not cloned means not dirty. */
static int gitlink_changes(git_repository *repo, const git_index_entry *e,
			   const git_tree *head_tree, fg_git_info *info, int depth)
{
	git_tree_entry *te = NULL;
	git_repository *sub = NULL;
	fg_strbuf path = FG_STRBUF_INIT;
	git_oid sub_head;
	int err = 0;

	if (!head_tree || git_tree_entry_bypath(&te, head_tree, e->path) < 0 ||
	    !git_oid_equal(git_tree_entry_id(te), &e->id)) {
		info->dirty = true; /* staged: added or moved to another commit */
		goto done;
	}
	err = fg_strbuf_addf(&path, "%s/%s", git_repository_workdir(repo), e->path);
	if (err || git_repository_open_ext(&sub, path.buf,
					   GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		goto done;
	if (git_reference_name_to_id(&sub_head, sub, "HEAD") < 0 ||
	    !git_oid_equal(&sub_head, &e->id))
		info->dirty = true;
	else if (depth < MAX_SUBMODULE_DEPTH)
		err = tracked_changes(sub, info, depth + 1);
done:
	git_error_clear();
	git_repository_free(sub);
	git_tree_entry_free(te);
	fg_strbuf_release(&path);
	return err;
}

static int head_tree_of(git_tree **out, git_repository *repo)
{
	git_object *obj = NULL;
	int lg;

	*out = NULL;
	lg = git_revparse_single(&obj, repo, "HEAD^{tree}");
	if (lg == GIT_ENOTFOUND || lg == GIT_EUNBORNBRANCH) {
		git_error_clear();
		return 0;
	}
	if (lg < 0)
		return fg_git__fail(lg, "cannot read HEAD's tree");
	*out = (git_tree *)obj;
	return 0;
}

static int gitlinks_changes(git_repository *repo, fg_git_info *info, int depth)
{
	git_index *index = NULL;
	git_tree *head_tree = NULL;
	size_t i, n;
	int err, lg;

	lg = git_repository_index(&index, repo);
	if (lg < 0)
		return fg_git__fail(lg, "cannot read the index");
	err = head_tree_of(&head_tree, repo);
	n = git_index_entrycount(index);
	for (i = 0; i < n && !err && !info->dirty; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);

		if (e->mode == GIT_FILEMODE_COMMIT)
			err = gitlink_changes(repo, e, head_tree, info, depth);
	}
	git_tree_free(head_tree);
	git_index_free(index);
	return err;
}

/* Status walk of one repository. The top level also notes untracked
 * files; inside submodules only tracked changes matter. */
static int tracked_changes(git_repository *repo, fg_git_info *info, int depth)
{
	git_status_options so;
	fg_git_info scratch = FG_GIT_INFO_INIT;
	fg_git_info *into = depth ? &scratch : info;
	int lg;

	git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
	so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	/* Untracked directories are reported as one entry, not walked:
	 * existence is all we need. Ignored files are not looked at. */
	so.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	if (!depth)
		so.flags |= GIT_STATUS_OPT_INCLUDE_UNTRACKED;
	else
		scratch.untracked = true; /* so the walk stops at the first change */
	lg = git_status_foreach_ext(repo, &so, status_entry, into);
	if (lg < 0 && !(into->dirty && into->untracked))
		return fg_git__fail(lg, "cannot read the repository status");
	if (scratch.dirty)
		info->dirty = true;
	return info->dirty ? 0 : gitlinks_changes(repo, info, depth);
}

static int read_status(fg_git_info *info, git_repository *repo)
{
	if (git_repository_is_bare(repo))
		return 0;
	return tracked_changes(repo, info, 0);
}

int fg_git_provenance(fg_git_info *out, const char *path)
{
	git_repository *repo = NULL;
	fg_git_info info = FG_GIT_INFO_INIT;
	int err;

	fg_git__begin();
	err = fg_git__open(&repo, path);
	if (err)
		goto done;
	err = set_workdir(&info, repo);
	if (!err)
		err = read_head(&info, repo);
	if (!err)
		err = read_status(&info, repo);
	if (err)
		goto done;
	*out = info;
	memset(&info, 0, sizeof(info));
done:
	fg_git_info_release(&info);
	git_repository_free(repo);
	fg_git__end();
	return err;
}

size_t fg_git_info_format(char *buf, size_t size, const fg_git_info *info)
{
	const char *branch = info->branch ? info->branch : "HEAD";
	const char *dirty = info->dirty ? " (dirty)" : "";
	int n;

	if (info->unborn)
		n = snprintf(buf, size, "%s (no commits yet)%s", branch, dirty);
	else if (info->detached)
		n = snprintf(buf, size, "%s%s", branch, dirty);
	else
		n = snprintf(buf, size, "%s @ %s%s", branch, info->short_id, dirty);
	return n < 0 ? 0 : (size_t)n;
}
