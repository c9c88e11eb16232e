/* Exports the tree of one commit into a fresh directory for --compare.
 *
 * The tree is walked and blobs are written directly instead of using
 * git_checkout_tree: checkout works against the repository's index and
 * HEAD, and keeping it from touching them relies on option combinations;
 * a walk never writes to the repository at all. Files are created with
 * O_EXCL|O_NOFOLLOW relative to directory descriptors, so a hostile tree
 * (a symlink followed by a path through it) cannot write outside dest. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2/sys/repository.h>

#include "lib/git/internal.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/banned.h"

/* Deeper trees than this are refused rather than exhausting descriptors. */
#define MAX_DEPTH 200

typedef struct export_ctx {
	git_repository *repo;    /* bare view of the object store, see below */
	git_oid commit_id;       /* attributes (.gitattributes) come from here */
	fg_git_export_result *res;
	fg_strbuf path;          /* path of the current entry, for filters/errors */
	fg_strbuf skipped;       /* submodule paths, ", "-separated */
} export_ctx;

void fg_git_export_result_release(fg_git_export_result *res)
{
	fg_git_export_result empty = FG_GIT_EXPORT_RESULT_INIT;

	if (!res)
		return;
	free(res->skipped_submodules);
	*res = empty;
}

static int io_error(const char *what, const char *path)
{
	return fg_error_set(FG_EIO, "cannot %s '%s': %s", what, path, strerror(errno));
}

static int mkdir_parents(const char *dir)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	size_t i;
	int err = fg_strbuf_addstr(&sb, dir);

	for (i = 1; !err && i <= sb.len; i++) {
		if (i < sb.len && sb.buf[i] != '/')
			continue;
		sb.buf[i] = '\0';
		if (mkdir(sb.buf, 0777) != 0 && errno != EEXIST)
			err = io_error("create directory", sb.buf);
		if (i < sb.len)
			sb.buf[i] = '/';
	}
	fg_strbuf_release(&sb);
	return err;
}

static int dir_is_empty(const char *dir, bool *empty)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return io_error("read directory", dir);
	*empty = true;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			*empty = false;
			break;
		}
	}
	closedir(d);
	return 0;
}

/* dest must be new or an empty directory: exporting over existing files
 * would mix two trees, and removing them is not ours to decide. */
static int prepare_dest(const char *dest)
{
	struct stat st;
	bool empty = true;
	int err;

	if (stat(dest, &st) != 0) {
		if (errno != ENOENT)
			return io_error("access", dest);
		return mkdir_parents(dest);
	}
	if (!S_ISDIR(st.st_mode))
		return fg_error_set(FG_EINVAL,
			"'%s' exists and is not a directory — remove it or choose another directory",
			dest);
	err = dir_is_empty(dest, &empty);
	if (!err && !empty)
		err = fg_error_set(FG_EINVAL,
			"'%s' exists and is not empty — remove it or choose another directory",
			dest);
	return err;
}

/* Names git itself would refuse to check out; anything else is a single
 * path component, so writes stay below the directory being filled. */
static bool safe_name(const char *name)
{
	return *name && strcmp(name, ".") && strcmp(name, "..") &&
	       strcasecmp(name, ".git") && !strchr(name, '/');
}

static int export_blob(export_ctx *ctx, int dirfd, const git_tree_entry *te, bool exec)
{
	git_blob_filter_options fo;
	git_blob *blob = NULL;
	git_buf buf = { 0 }; /* GIT_BUF_INIT is public from 1.4 on */
	int fd = -1, err = 0, lg;

	/* what GIT_BLOB_FILTER_OPTIONS_INIT gives, with no field left out */
	memset(&fo, 0, sizeof(fo));
	fo.version = GIT_BLOB_FILTER_OPTIONS_VERSION;
	fo.flags = GIT_BLOB_FILTER_CHECK_FOR_BINARY;
	lg = git_blob_lookup(&blob, ctx->repo, git_tree_entry_id(te));
	if (lg < 0)
		return fg_git__fail(lg, ctx->path.buf);
	/* The exported commit's .gitattributes decide eol/ident conversion,
	 * as a checkout of that commit would; never the work tree's. Before
	 * 1.2 libgit2 reads them from HEAD's tree at best. */
#if FG_LIBGIT2_AT_LEAST(1, 4)
	fo.flags |= GIT_BLOB_FILTER_ATTRIBUTES_FROM_COMMIT;
	git_oid_cpy(&fo.attr_commit_id, &ctx->commit_id);
#elif FG_LIBGIT2_AT_LEAST(1, 2)
	fo.flags |= GIT_BLOB_FILTER_ATTRIBUTES_FROM_COMMIT;
	fo.commit_id = &ctx->commit_id;
#else
	fo.flags |= GIT_BLOB_FILTER_ATTTRIBUTES_FROM_HEAD;
#endif
	lg = git_blob_filter(&buf, blob, ctx->path.buf, &fo);
	if (lg < 0) {
		err = fg_git__fail(lg, ctx->path.buf);
		goto done;
	}
	fd = openat(dirfd, git_tree_entry_name(te),
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    exec ? 0777 : 0666);
	if (fd < 0 || fg_write_all(fd, buf.ptr, buf.size) != 0) {
		err = io_error("write", ctx->path.buf);
		goto done;
	}
	ctx->res->files++;
done:
	if (fd >= 0 && close(fd) != 0 && !err)
		err = io_error("write", ctx->path.buf);
	git_buf_dispose(&buf);
	git_blob_free(blob);
	return err;
}

static int export_link(export_ctx *ctx, int dirfd, const git_tree_entry *te)
{
	git_blob *blob = NULL;
	char *target = NULL;
	size_t n;
	int err = 0, lg;

	lg = git_blob_lookup(&blob, ctx->repo, git_tree_entry_id(te));
	if (lg < 0)
		return fg_git__fail(lg, ctx->path.buf);
	n = (size_t)git_blob_rawsize(blob);
	target = fg_strndup(git_blob_rawcontent(blob), n);
	if (!target) {
		err = FG_ENOMEM;
		goto done;
	}
	if (n == 0 || strlen(target) != n) {
		err = fg_error_set(FG_EPARSE, "symbolic link '%s' has an invalid target "
				   "— the commit is damaged", ctx->path.buf);
		goto done;
	}
	if (symlinkat(target, dirfd, git_tree_entry_name(te)) != 0) {
		err = io_error("create symbolic link", ctx->path.buf);
		goto done;
	}
	ctx->res->symlinks++;
done:
	free(target);
	git_blob_free(blob);
	return err;
}

static int export_tree(export_ctx *ctx, const git_tree *tree, int dirfd, int depth);

/* Creates name in dirfd and returns a descriptor for it (-1 on error). */
static int make_dir(export_ctx *ctx, int dirfd, const char *name, int *fd)
{
	if (mkdirat(dirfd, name, 0777) != 0)
		return io_error("create directory", ctx->path.buf);
	*fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0)
		return io_error("open directory", ctx->path.buf);
	ctx->res->dirs++;
	return 0;
}

static int export_subtree(export_ctx *ctx, int dirfd, const git_tree_entry *te, int depth)
{
	git_tree *sub = NULL;
	int fd = -1, err, lg;

	if (depth >= MAX_DEPTH)
		return fg_error_set(FG_ELIMIT, "'%s' is nested more than %d directories "
				    "deep — export refused", ctx->path.buf, MAX_DEPTH);
	lg = git_tree_lookup(&sub, ctx->repo, git_tree_entry_id(te));
	if (lg < 0)
		return fg_git__fail(lg, ctx->path.buf);
	err = make_dir(ctx, dirfd, git_tree_entry_name(te), &fd);
	if (!err)
		err = export_tree(ctx, sub, fd, depth + 1);
	if (fd >= 0)
		close(fd);
	git_tree_free(sub);
	return err;
}

/* A gitlink: the submodule's commit lives in another repository, which
 * may not even be cloned. Leave an empty directory, as `git clone`
 * without --recurse-submodules does, and remember the path. */
static int skip_submodule(export_ctx *ctx, int dirfd, const git_tree_entry *te)
{
	int fd = -1;
	int err = make_dir(ctx, dirfd, git_tree_entry_name(te), &fd);

	if (fd >= 0)
		close(fd);
	if (err)
		return err;
	ctx->res->dirs--;
	ctx->res->submodules_skipped++;
	if (ctx->skipped.len)
		err = fg_strbuf_addstr(&ctx->skipped, ", ");
	return err ? err : fg_strbuf_addstr(&ctx->skipped, ctx->path.buf);
}

static int export_entry(export_ctx *ctx, int dirfd, const git_tree_entry *te, int depth)
{
	switch (git_tree_entry_filemode(te)) {
	case GIT_FILEMODE_TREE:
		return export_subtree(ctx, dirfd, te, depth);
	case GIT_FILEMODE_BLOB:
		return export_blob(ctx, dirfd, te, false);
	case GIT_FILEMODE_BLOB_EXECUTABLE:
		return export_blob(ctx, dirfd, te, true);
	case GIT_FILEMODE_LINK:
		return export_link(ctx, dirfd, te);
	case GIT_FILEMODE_COMMIT:
		return skip_submodule(ctx, dirfd, te);
	default:
		return fg_error_set(FG_EPARSE, "'%s' has an unknown file mode %06o "
				    "— the commit is damaged", ctx->path.buf,
				    (unsigned)git_tree_entry_filemode(te));
	}
}

/* A checkout of a commit must read .gitattributes from that commit only.
 * libgit2 ranks the work tree's and the index's copies above the commit's,
 * so the blobs are read through a second, bare handle on the same object
 * store with an empty in-memory index. Neither is ever written back. */
static int open_isolated(git_repository **out, git_repository *repo)
{
	git_index *index = NULL;
	int lg;

	lg = git_repository_open_bare(out, git_repository_commondir(repo));
	if (lg >= 0)
		lg = git_index_new(&index);
	if (lg >= 0)
		lg = git_repository_set_index(*out, index);
	git_index_free(index);
	return lg < 0 ? fg_git__fail(lg, "cannot open the object store") : 0;
}

static int export_tree(export_ctx *ctx, const git_tree *tree, int dirfd, int depth)
{
	size_t i, n = git_tree_entrycount(tree);
	size_t base = ctx->path.len;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		const git_tree_entry *te = git_tree_entry_byindex(tree, i);
		const char *name = git_tree_entry_name(te);

		if (base)
			err = fg_strbuf_addch(&ctx->path, '/');
		if (!err)
			err = fg_strbuf_addstr(&ctx->path, name);
		if (!err && !safe_name(name))
			err = fg_error_set(FG_EPARSE, "the commit holds an unsafe path "
					   "'%s' — refusing to export it", ctx->path.buf);
		if (!err)
			err = export_entry(ctx, dirfd, te, depth);
		fg_strbuf_setlen(&ctx->path, base);
	}
	return err;
}

int fg_git_export(fg_git_export_result *out, const char *repo_path,
		  const char *rev, const char *dest_dir)
{
	fg_git_export_result res = FG_GIT_EXPORT_RESULT_INIT;
	export_ctx ctx = { NULL, { { 0 } }, &res, FG_STRBUF_INIT, FG_STRBUF_INIT };
	git_repository *user_repo = NULL;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	int dirfd = -1, err, lg;

	fg_git__begin();
	if (!dest_dir || !*dest_dir) {
		err = fg_error_set(FG_EINVAL, "no destination directory given for the export");
		goto done;
	}
	/* Revisions resolve in the user's repository (its HEAD, which in a
	 * linked worktree is not the main one's); objects come from the
	 * isolated view. */
	err = fg_git__open(&user_repo, repo_path);
	if (!err)
		err = fg_git__resolve_commit(&commit, user_repo, rev);
	if (!err)
		err = open_isolated(&ctx.repo, user_repo);
	if (!err)
		err = fg_git__ids(res.commit, res.short_id, commit);
	if (err)
		goto done;
	git_oid_cpy(&ctx.commit_id, git_commit_id(commit));
	lg = git_commit_tree(&tree, commit);
	if (lg < 0) {
		err = fg_git__fail(lg, "cannot read the commit's tree");
		goto done;
	}
	err = prepare_dest(dest_dir);
	if (err)
		goto done;
	dirfd = open(dest_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		err = io_error("open directory", dest_dir);
		goto done;
	}
	err = export_tree(&ctx, tree, dirfd, 0);
	if (err)
		goto done;
	if (ctx.skipped.len && !(res.skipped_submodules = fg_strbuf_detach(&ctx.skipped, NULL))) {
		err = FG_ENOMEM;
		goto done;
	}
	*out = res;
	memset(&res, 0, sizeof(res));
done:
	if (dirfd >= 0)
		close(dirfd);
	fg_git_export_result_release(&res);
	fg_strbuf_release(&ctx.path);
	fg_strbuf_release(&ctx.skipped);
	git_tree_free(tree);
	git_commit_free(commit);
	git_repository_free(ctx.repo);
	git_repository_free(user_repo);
	fg_git__end();
	return err;
}

int fg_git_export_rev(const char *repo_path, const char *rev,
		      const char *dest_dir, char *resolved_id_out)
{
	fg_git_export_result res = FG_GIT_EXPORT_RESULT_INIT;
	int err = fg_git_export(&res, repo_path, rev, dest_dir);

	if (!err && resolved_id_out)
		memcpy(resolved_id_out, res.commit, FG_GIT_ID_SIZE);
	fg_git_export_result_release(&res);
	return err;
}
