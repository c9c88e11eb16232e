/* libgit2 set-up, error mapping, repository discovery, revision lookup. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/git/internal.h"
#include "util/strbuf.h"
#include "util/banned.h"

void fg_git__begin(void)
{
	git_libgit2_init();
}

void fg_git__end(void)
{
	git_libgit2_shutdown();
}

int fg_git__fail(int lg_error, const char *what)
{
	const git_error *e = git_error_last();
	const char *msg = (e && e->message) ? e->message : "unknown libgit2 error";
	int code;

	switch (lg_error) {
	case GIT_ENOTFOUND:
	case GIT_EUNBORNBRANCH:
		code = FG_ENOTFOUND;
		break;
	case GIT_EAMBIGUOUS:
		code = FG_EAMBIGUOUS;
		break;
	case GIT_EINVALIDSPEC:
	case GIT_EINVALID:
		code = FG_EINVAL;
		break;
	default:
		code = FG_EIO;
		break;
	}
	return fg_error_set(code, "%s: %s", what, msg);
}

/* libgit2 wants a directory to start the upward search from; a file's
 * repository is its directory's. */
static int start_dir(char **out, const char *path)
{
	struct stat st;
	const char *slash;

	if (stat(path, &st) != 0)
		return fg_error_set(FG_ENOTFOUND, "'%s': %s — check the path",
				    path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		*out = fg_strdup(path);
	} else {
		slash = strrchr(path, '/');
		if (!slash)
			*out = fg_strdup(".");
		else if (slash == path)
			*out = fg_strdup("/");
		else
			*out = fg_strndup(path, (size_t)(slash - path));
	}
	return *out ? 0 : FG_ENOMEM;
}

int fg_git__open(git_repository **out, const char *path)
{
	char *dir = NULL;
	int err, lg;

	*out = NULL;
	if (!path || !*path)
		path = ".";
	err = start_dir(&dir, path);
	if (err)
		goto done;
	/* flags 0: search upwards, stop at file-system boundaries (as git
	 * does by default); the environment (GIT_DIR...) is not consulted. */
	lg = git_repository_open_ext(out, dir, 0, NULL);
	if (lg == GIT_ENOTFOUND) {
		err = fg_error_set(FG_ENOTFOUND, "'%s' is not inside a git repository",
				   path);
#if FG_LIBGIT2_AT_LEAST(1, 5)
	/* the ownership check (git's safe.directory) came with 1.4.3 and 1.5 */
	} else if (lg == GIT_EOWNER) {
		err = fg_error_set(FG_ENOTFOUND,
			"the git repository at '%s' is owned by another user — "
			"add it to git's safe.directory to use it", path);
#endif
	} else if (lg < 0) {
		err = fg_git__fail(lg, "cannot open the git repository");
	}
done:
	free(dir);
	return err;
}

int fg_git__resolve_commit(git_commit **out, git_repository *repo, const char *rev)
{
	git_object *obj = NULL;
	git_object *peeled = NULL;
	int err = 0, lg;

	*out = NULL;
	if (!rev || !*rev)
		return fg_error_set(FG_EINVAL,
			"empty revision — try a branch, tag or commit id");
	lg = git_revparse_single(&obj, repo, rev);
	if (lg == GIT_ENOTFOUND || lg == GIT_EINVALIDSPEC || lg == GIT_EUNBORNBRANCH) {
		err = fg_error_set(FG_ENOTFOUND,
			"unknown revision '%s' — try a branch, tag or commit id", rev);
		goto done;
	}
	if (lg == GIT_EAMBIGUOUS) {
		err = fg_error_set(FG_EAMBIGUOUS,
			"revision '%s' is ambiguous — give more characters of the commit id",
			rev);
		goto done;
	}
	if (lg < 0) {
		err = fg_git__fail(lg, "cannot resolve the revision");
		goto done;
	}
	lg = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	if (lg < 0) {
		err = fg_error_set(FG_EINVAL,
			"revision '%s' is a %s, not a commit — name a branch, tag or commit",
			rev, git_object_type2string(git_object_type(obj)));
		goto done;
	}
	*out = (git_commit *)peeled;
	peeled = NULL;
done:
	git_object_free(peeled);
	git_object_free(obj);
	return err;
}

int fg_git__ids(char *full, char *abbrev, const git_commit *commit)
{
	git_buf buf = { 0 }; /* GIT_BUF_INIT is public from 1.4 on */
	size_t n;
	int lg;

	git_oid_tostr(full, FG_GIT_ID_SIZE, git_commit_id(commit));
	lg = git_object_short_id(&buf, (const git_object *)commit);
	if (lg < 0)
		return fg_git__fail(lg, "cannot abbreviate the commit id");
	/* Any prefix longer than the shortest unique one is unique too. */
	n = buf.size < FG_GIT_SHORT_MIN ? FG_GIT_SHORT_MIN : buf.size;
	if (n > FG_GIT_ID_SIZE - 1)
		n = FG_GIT_ID_SIZE - 1;
	memcpy(abbrev, full, n);
	abbrev[n] = '\0';
	git_buf_dispose(&buf);
	return 0;
}

int fg_git_resolve(char *id_out, const char *repo_path, const char *rev)
{
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	int err;

	fg_git__begin();
	err = fg_git__open(&repo, repo_path);
	if (err)
		goto done;
	err = fg_git__resolve_commit(&commit, repo, rev);
	if (err)
		goto done;
	git_oid_tostr(id_out, FG_GIT_ID_SIZE, git_commit_id(commit));
done:
	git_commit_free(commit);
	git_repository_free(repo);
	fg_git__end();
	return err;
}
