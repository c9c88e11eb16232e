/* Unit tests of the git stage against real repositories: each test makes
 * its own repository in a temp dir with the git command, then checks
 * provenance and exports against what git itself reports. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/error.h"
#include "flamegraph/git.h"
#include "util/process.h"
#include "util/strbuf.h"
#include "util/strvec.h"

static char root[PATH_MAX];   /* private temp dir, also $HOME */
static int serial;

/* ---- helpers ------------------------------------------------------- */

static void make_cmd(fg_cmd *cmd, const char *dir, va_list ap)
{
	const char *arg;

	fg_strvec_push(&cmd->argv, "git");
	fg_strvec_push(&cmd->argv, "-C");
	fg_strvec_push(&cmd->argv, dir);
	fg_strvec_push(&cmd->argv, "-c");
	fg_strvec_push(&cmd->argv, "user.name=Test Person");
	fg_strvec_push(&cmd->argv, "-c");
	fg_strvec_push(&cmd->argv, "user.email=test@example.com");
	fg_strvec_push(&cmd->argv, "-c");
	fg_strvec_push(&cmd->argv, "init.defaultBranch=main");
	fg_strvec_push(&cmd->argv, "-c");
	fg_strvec_push(&cmd->argv, "commit.gpgsign=false");
	fg_strvec_push(&cmd->argv, "-c");
	fg_strvec_push(&cmd->argv, "core.safecrlf=false");
	while ((arg = va_arg(ap, const char *)) != NULL)
		fg_strvec_push(&cmd->argv, arg);
}

/* Runs `git -C dir ARGS... NULL`; the test fails unless git exits 0. */
static void git(const char *dir, ...)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st;
	va_list ap;

	va_start(ap, dir);
	make_cmd(&cmd, dir, ap);
	va_end(ap);
	assert_int_equal(fg_cmd_run(&cmd, &st), 0);
	assert_int_equal(st.code, 0);
	fg_cmd_clear(&cmd);
}

/* Like git() but returns stdout, trailing newline removed (free() it). */
static char *git_out(const char *dir, ...)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_strbuf out = FG_STRBUF_INIT;
	fg_exit_status st;
	va_list ap;

	va_start(ap, dir);
	make_cmd(&cmd, dir, ap);
	va_end(ap);
	assert_int_equal(fg_cmd_capture(&cmd, &out, &st), 0);
	assert_int_equal(st.code, 0);
	fg_cmd_clear(&cmd);
	if (out.len && out.buf[out.len - 1] == '\n')
		fg_strbuf_setlen(&out, out.len - 1);
	return fg_strbuf_detach(&out, NULL);
}

static void path_join(char *out, const char *dir, const char *name)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", dir, name);
	assert_true(n > 0 && n < PATH_MAX);
}

/* git_out() with stdin read from `input` (a file below root). */
static char *git_out_stdin(const char *input, const char *dir, ...)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_strbuf out = FG_STRBUF_INIT;
	fg_exit_status st;
	char path[PATH_MAX];
	va_list ap;

	path_join(path, root, input);
	cmd.stdin_fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(cmd.stdin_fd >= 0);
	va_start(ap, dir);
	make_cmd(&cmd, dir, ap);
	va_end(ap);
	assert_int_equal(fg_cmd_capture(&cmd, &out, &st), 0);
	assert_int_equal(st.code, 0);
	close(cmd.stdin_fd);
	cmd.stdin_fd = -1;
	fg_cmd_clear(&cmd);
	if (out.len && out.buf[out.len - 1] == '\n')
		fg_strbuf_setlen(&out, out.len - 1);
	return fg_strbuf_detach(&out, NULL);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	path_join(path, dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Whole file (free() it) and its length, or NULL when it cannot be read. */
static char *read_file_n(const char *dir, const char *name, size_t *len)
{
	char path[PATH_MAX];
	fg_strbuf sb = FG_STRBUF_INIT;
	char chunk[4096];
	size_t n;
	FILE *f;

	path_join(path, dir, name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fg_strbuf_add(&sb, chunk, n);
	fclose(f);
	return fg_strbuf_detach(&sb, len);
}

static char *read_file(const char *dir, const char *name)
{
	return read_file_n(dir, name, NULL);
}

/* A symbolic link's target, or the file's content. */
static char *read_entry(const char *dir, const char *name)
{
	char path[PATH_MAX], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	path_join(path, dir, name);
	if (lstat(path, &st) != 0)
		return NULL;
	if (!S_ISLNK(st.st_mode))
		return read_file(dir, name);
	n = readlink(path, target, sizeof(target) - 1);
	assert_true(n > 0);
	return fg_strndup(target, (size_t)n);
}

static bool exists(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	path_join(path, dir, name);
	return lstat(path, &st) == 0;
}

static void remove_tree(const char *path)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st;

	fg_strvec_push(&cmd.argv, "rm");
	fg_strvec_push(&cmd.argv, "-rf");
	fg_strvec_push(&cmd.argv, "--");
	fg_strvec_push(&cmd.argv, path);
	fg_cmd_run(&cmd, &st);
	fg_cmd_clear(&cmd);
}

/* A new, empty directory below root. */
static void fresh_dir(char *out, const char *what)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%d", what, ++serial);
	path_join(out, root, name);
	assert_int_equal(mkdir(out, 0777), 0);
}

/* A repository with one commit holding a.c. */
static void repo_with_commit(char *dir)
{
	fresh_dir(dir, "repo");
	git(dir, "init", "-q", NULL);
	write_file(dir, "a.c", "int main(void) { return 0; }\n");
	git(dir, "add", "a.c", NULL);
	git(dir, "commit", "-q", "-m", "first", NULL);
}

/* What `git describe --dirty` thinks, to hold the dirty flag against. */
static bool git_says_dirty(const char *dir)
{
	char *d = git_out(dir, "describe", "--always", "--dirty", NULL);
	size_t n = strlen(d);
	bool dirty = n >= 6 && strcmp(d + n - 6, "-dirty") == 0;

	free(d);
	return dirty;
}

static void check_error_mentions(const char *needle)
{
	if (!strstr(fg_error_last(), needle))
		fail_msg("error '%s' does not mention '%s'", fg_error_last(), needle);
}

/* ---- provenance ---------------------------------------------------- */

static void clean_repo(void **state)
{
	char dir[PATH_MAX], sub[PATH_MAX], text[256];
	fg_git_info info = FG_GIT_INFO_INIT;
	char *head;

	repo_with_commit(dir);
	assert_int_equal(fg_git_provenance(&info, dir), 0);
	head = git_out(dir, "rev-parse", "HEAD", NULL);
	assert_string_equal(info.commit, head);
	assert_true(strlen(info.short_id) >= FG_GIT_SHORT_MIN);
	assert_memory_equal(info.short_id, head, strlen(info.short_id));
	assert_string_equal(info.branch, "main");
	assert_string_equal(info.workdir, dir);
	assert_false(info.dirty);
	assert_false(info.untracked);
	assert_false(info.detached);
	assert_false(info.unborn);
	fg_git_info_format(text, sizeof(text), &info);
	assert_true(strncmp(text, "main @ ", 7) == 0);
	assert_string_equal(text + 7, info.short_id);
	fg_git_info_release(&info);

	/* A file deep inside the work tree finds the same repository. */
	path_join(sub, dir, "src");
	assert_int_equal(mkdir(sub, 0777), 0);
	write_file(sub, "b.c", "int b;\n");
	git(dir, "add", "src/b.c", NULL);
	git(dir, "commit", "-q", "-m", "second", NULL);
	path_join(sub, dir, "src/b.c");
	assert_int_equal(fg_git_provenance(&info, sub), 0);
	assert_string_equal(info.workdir, dir);
	assert_false(info.dirty);
	fg_git_info_release(&info);
	fg_git_info_release(&info); /* twice is harmless */
	free(head);
}

static void modified_tracked_file_is_dirty(void **state)
{
	char dir[PATH_MAX], text[256], want[256];
	fg_git_info info = FG_GIT_INFO_INIT;

	repo_with_commit(dir);
	write_file(dir, "a.c", "int main(void) { return 1; }\n");
	assert_int_equal(fg_git_provenance(&info, dir), 0);
	assert_true(info.dirty);
	assert_true(git_says_dirty(dir));
	assert_false(info.untracked);
	fg_git_info_format(text, sizeof(text), &info);
	snprintf(want, sizeof(want), "main @ %s (dirty)", info.short_id);
	assert_string_equal(text, want);
	fg_git_info_release(&info);
}

static void deleted_tracked_file_is_dirty(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX];
	fg_git_info info = FG_GIT_INFO_INIT;

	repo_with_commit(dir);
	path_join(path, dir, "a.c");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(fg_git_provenance(&info, dir), 0);
	assert_true(info.dirty);
	fg_git_info_release(&info);
}

static void staged_change_is_dirty(void **state)
{
	char dir[PATH_MAX];
	fg_git_info info = FG_GIT_INFO_INIT;

	repo_with_commit(dir);
	write_file(dir, "new.c", "int n;\n");
	git(dir, "add", "new.c", NULL);
	assert_int_equal(fg_git_provenance(&info, dir), 0);
	assert_true(info.dirty);
	assert_true(git_says_dirty(dir));
	assert_false(info.untracked);
	fg_git_info_release(&info);

	/* A staged edit whose work-tree copy matches the index still differs
	 * from HEAD. */
	repo_with_commit(dir);
	write_file(dir, "a.c", "int main(void) { return 2; }\n");
	git(dir, "add", "a.c", NULL);
	assert_int_equal(fg_git_provenance(&info, dir), 0);
	assert_true(info.dirty);
	fg_git_info_release(&info);
}

static void untracked_file_is_not_dirty(void **state)
{
	char dir[PATH_MAX], text[256];
	fg_git_info info = FG_GIT_INFO_INIT;
	char *porcelain;

	repo_with_commit(dir);
	write_file(dir, "scratch.txt", "notes\n");
	porcelain = git_out(dir, "status", "--porcelain", NULL);
	assert_string_equal(porcelain, "?? scratch.txt");
	assert_int_equal(fg_git_provenance(&info, dir), 0);
	assert_false(info.dirty);
	assert_false(git_says_dirty(dir));
	assert_true(info.untracked);
	fg_git_info_format(text, sizeof(text), &info);
	assert_null(strstr(text, "dirty"));
	fg_git_info_release(&info);

	/* Ignored files are neither dirty nor untracked. */
	repo_with_commit(dir);
	write_file(dir, ".git/info/exclude", "*.o\n");
	write_file(dir, "a.o", "obj\n");
	assert_int_equal(fg_git_provenance(&info, dir), 0);
	assert_false(info.dirty);
	assert_false(info.untracked);
	fg_git_info_release(&info);
	free(porcelain);
}

static void detached_head(void **state)
{
	char dir[PATH_MAX], text[256], want[256];
	fg_git_info info = FG_GIT_INFO_INIT;
	char *first;

	repo_with_commit(dir);
	write_file(dir, "a.c", "int main(void) { return 3; }\n");
	git(dir, "commit", "-q", "-am", "second", NULL);
	first = git_out(dir, "rev-parse", "HEAD~1", NULL);
	git(dir, "checkout", "-q", "--detach", "HEAD~1", NULL);

	assert_int_equal(fg_git_provenance(&info, dir), 0);
	assert_true(info.detached);
	assert_false(info.dirty);
	assert_string_equal(info.commit, first);
	snprintf(want, sizeof(want), "HEAD detached at %s", info.short_id);
	assert_string_equal(info.branch, want);
	fg_git_info_format(text, sizeof(text), &info);
	assert_string_equal(text, want);
	fg_git_info_release(&info);
	free(first);
}

static void unborn_branch(void **state)
{
	char dir[PATH_MAX], text[256];
	fg_git_info info = FG_GIT_INFO_INIT;

	fresh_dir(dir, "unborn");
	git(dir, "init", "-q", "-b", "trunk", NULL);
	assert_int_equal(fg_git_provenance(&info, dir), 0);
	assert_true(info.unborn);
	assert_false(info.detached);
	assert_false(info.dirty);
	assert_string_equal(info.branch, "trunk");
	assert_string_equal(info.commit, "");
	assert_string_equal(info.short_id, "");
	assert_string_equal(info.workdir, dir);
	fg_git_info_format(text, sizeof(text), &info);
	assert_string_equal(text, "trunk (no commits yet)");
	fg_git_info_release(&info);

	/* Staging the first file makes it dirty: there is no commit to match. */
	write_file(dir, "a.c", "int a;\n");
	git(dir, "add", "a.c", NULL);
	assert_int_equal(fg_git_provenance(&info, dir), 0);
	assert_true(info.unborn);
	assert_true(info.dirty);
	fg_git_info_format(text, sizeof(text), &info);
	assert_string_equal(text, "trunk (no commits yet) (dirty)");
	fg_git_info_release(&info);
}

static void not_a_repository(void **state)
{
	char dir[PATH_MAX], missing[PATH_MAX];
	fg_git_info info = FG_GIT_INFO_INIT;

	fresh_dir(dir, "plain");
	assert_int_equal(fg_git_provenance(&info, dir), FG_ENOTFOUND);
	check_error_mentions("not inside a git repository");
	assert_null(info.branch);
	assert_null(info.workdir);
	assert_string_equal(info.commit, "");

	path_join(missing, dir, "no/such/file");
	assert_int_equal(fg_git_provenance(&info, missing), FG_ENOTFOUND);
	assert_null(info.branch);
}

static void format_reports_needed_length(void **state)
{
	fg_git_info info = FG_GIT_INFO_INIT;
	char small[8];
	char big[64];
	size_t n;

	info.branch = "feature/x";
	memcpy(info.short_id, "0123abcd", 9);
	info.dirty = true;
	n = fg_git_info_format(big, sizeof(big), &info);
	assert_string_equal(big, "feature/x @ 0123abcd (dirty)");
	assert_int_equal(n, strlen(big));
	assert_int_equal(fg_git_info_format(small, sizeof(small), &info), n);
	assert_string_equal(small, "feature");
	/* not released: the strings here are not owned */
}

/* A real, checked-out submodule: dirty exactly when git describe says so. */
static void submodule_state_and_dirty_flag(void **state)
{
	char dir[PATH_MAX], lib[PATH_MAX], sub[PATH_MAX];
	fg_git_info info = FG_GIT_INFO_INIT;
	bool git_counts_untracked = false;
	size_t i;

	repo_with_commit(lib);
	repo_with_commit(dir);
	git(dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q",
	    lib, "lib", NULL);
	git(dir, "commit", "-q", "-m", "add lib", NULL);
	path_join(sub, dir, "lib");

	static const bool want_dirty[] = { false, false, true, true, true, false };
	for (i = 0; i < sizeof(want_dirty) / sizeof(want_dirty[0]); i++) {
		if (i == 1)  /* untracked file inside the submodule */
			write_file(sub, "scratch.txt", "x\n");
		if (i == 2)  /* tracked file modified inside the submodule */
			write_file(sub, "a.c", "changed\n");
		if (i == 3)  /* the submodule moves to a new commit */
			git(sub, "commit", "-q", "-am", "in lib", NULL);
		if (i == 4)  /* ... which is staged in the superproject */
			git(dir, "add", "lib", NULL);
		if (i == 5)  /* ... and committed */
			git(dir, "commit", "-q", "-m", "bump lib", NULL);
		assert_int_equal(fg_git_provenance(&info, dir), 0);
		/* git 2.30 (Debian 11) counts an untracked file inside a
		 * submodule as dirty too; the git of later releases does not,
		 * and neither does the provenance: while that file is there
		 * and nothing else differs, only the provenance's rule is asked */
		if (i == 1)
			git_counts_untracked = git_says_dirty(dir);
		if ((!(git_counts_untracked && !want_dirty[i]) && info.dirty != git_says_dirty(dir)) ||
		    info.dirty != want_dirty[i])
			fail_msg("step %zu: dirty=%d, git describe %s", i, info.dirty,
				 git_says_dirty(dir) ? "dirty" : "clean");
		assert_string_equal(info.workdir, dir);
		fg_git_info_release(&info);
	}
	write_file(sub, "a.c", "changed again\n");

	/* Inside the submodule, provenance is the submodule's own. */
	assert_int_equal(fg_git_provenance(&info, sub), 0);
	assert_string_equal(info.workdir, sub);
	assert_true(info.dirty);
	assert_true(info.untracked);
	fg_git_info_release(&info);
}

/* ---- resolving and exporting -------------------------------------- */

/* Two commits: the first has a.c "one", an executable script, a symlink
 * and dir/b.c; the second changes a.c, deletes dir/b.c, adds c.c. */
static void two_commit_repo(char *dir)
{
	char path[PATH_MAX];

	fresh_dir(dir, "hist");
	git(dir, "init", "-q", NULL);
	write_file(dir, "a.c", "one\n");
	write_file(dir, "run.sh", "#!/bin/sh\necho run\n");
	path_join(path, dir, "run.sh");
	assert_int_equal(chmod(path, 0755), 0);
	path_join(path, dir, "link.c");
	assert_int_equal(symlink("a.c", path), 0);
	path_join(path, dir, "dir");
	assert_int_equal(mkdir(path, 0777), 0);
	write_file(dir, "dir/b.c", "bee\n");
	git(dir, "add", ".", NULL);
	git(dir, "commit", "-q", "-m", "first", NULL);
	git(dir, "tag", "-a", "-m", "release one", "v1", NULL);
	write_file(dir, "a.c", "two\n");
	write_file(dir, "c.c", "sea\n");
	git(dir, "rm", "-q", "dir/b.c", NULL);
	git(dir, "add", "a.c", "c.c", NULL);
	git(dir, "commit", "-q", "-m", "second", NULL);
}

/* Every file of `rev` per `git ls-tree` matches `git show rev:path`. */
static void check_export_matches(const char *repo, const char *rev, const char *dest)
{
	char *list = git_out(repo, "ls-tree", "-r", "--name-only", rev, NULL);
	char *line = list, *nl;
	char spec[PATH_MAX + 64];

	while (line && *line) {
		char *want, *got;

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		snprintf(spec, sizeof(spec), "%s:%s", rev, line);
		want = git_out(repo, "show", spec, NULL);
		got = read_entry(dest, line);
		if (!got)
			fail_msg("'%s' missing from the export", line);
		/* git_out dropped one trailing newline; compare likewise */
		if (*got && got[strlen(got) - 1] == '\n')
			got[strlen(got) - 1] = '\0';
		assert_string_equal(got, want);
		free(want);
		free(got);
		line = nl ? nl + 1 : NULL;
	}
	free(list);
}

static void export_previous_commit_leaves_work_tree_alone(void **state)
{
	char dir[PATH_MAX], dest[PATH_MAX], path[PATH_MAX], target[64];
	fg_git_export_result res = FG_GIT_EXPORT_RESULT_INIT;
	char *status_before, *status_after, *index_before, *index_after;
	char *head_before, *head_after, *want, *text;
	size_t index_len_before, index_len_after;
	struct stat st;
	ssize_t n;

	two_commit_repo(dir);
	/* The user's uncommitted work: an edit and a staged change. */
	write_file(dir, "a.c", "three, not committed\n");
	write_file(dir, "c.c", "sea, staged\n");
	git(dir, "add", "c.c", NULL);
	status_before = git_out(dir, "status", "--porcelain", NULL);
	index_before = read_file_n(dir, ".git/index", &index_len_before);
	head_before = read_file(dir, ".git/HEAD");
	want = git_out(dir, "rev-parse", "HEAD~1", NULL);

	path_join(dest, root, "exports/prev"); /* parents are created */
	assert_int_equal(fg_git_export(&res, dir, "HEAD~1", dest), 0);
	assert_string_equal(res.commit, want);
	assert_memory_equal(res.short_id, want, strlen(res.short_id));
	assert_int_equal(res.files, 3);
	assert_int_equal(res.symlinks, 1);
	assert_int_equal(res.dirs, 1);
	assert_int_equal(res.submodules_skipped, 0);
	assert_null(res.skipped_submodules);

	check_export_matches(dir, "HEAD~1", dest);
	text = read_file(dest, "a.c");
	assert_string_equal(text, "one\n");
	free(text);
	assert_false(exists(dest, "c.c"));
	assert_false(exists(dest, ".git"));
	path_join(path, dest, "run.sh");
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_mode & S_IXUSR);
	path_join(path, dest, "a.c");
	assert_int_equal(stat(path, &st), 0);
	assert_false(st.st_mode & S_IXUSR);
	path_join(path, dest, "link.c");
	n = readlink(path, target, sizeof(target) - 1);
	assert_int_equal(n, 3);
	target[n] = '\0';
	assert_string_equal(target, "a.c");

	/* The user's repository is exactly as it was. */
	text = read_file(dir, "a.c");
	assert_string_equal(text, "three, not committed\n");
	free(text);
	status_after = git_out(dir, "status", "--porcelain", NULL);
	assert_string_equal(status_after, status_before);
	index_after = read_file_n(dir, ".git/index", &index_len_after);
	assert_int_equal(index_len_after, index_len_before);
	assert_memory_equal(index_after, index_before, index_len_before);
	head_after = read_file(dir, ".git/HEAD");
	assert_string_equal(head_after, head_before);

	fg_git_export_result_release(&res);
	free(status_before);
	free(status_after);
	free(index_before);
	free(index_after);
	free(head_before);
	free(head_after);
	free(want);
}

static void export_by_tag_short_id_and_into_empty_dir(void **state)
{
	char dir[PATH_MAX], dest[PATH_MAX], id[FG_GIT_ID_SIZE];
	char shortrev[16];
	char *want;

	two_commit_repo(dir);
	want = git_out(dir, "rev-parse", "v1^{commit}", NULL);

	fresh_dir(dest, "empty"); /* exists, empty: accepted */
	assert_int_equal(fg_git_export_rev(dir, "v1", dest, id), 0);
	assert_string_equal(id, want);
	check_export_matches(dir, "v1", dest);

	memcpy(shortrev, want, 10);
	shortrev[10] = '\0';
	path_join(dest, root, "by-short-id");
	assert_int_equal(fg_git_export_rev(dir, shortrev, dest, NULL), 0);
	check_export_matches(dir, want, dest);

	path_join(dest, root, "by-branch");
	assert_int_equal(fg_git_export_rev(dir, "main", dest, id), 0);
	free(want);
	want = git_out(dir, "rev-parse", "main", NULL);
	assert_string_equal(id, want);
	check_export_matches(dir, "main", dest);
	free(want);
}

static void resolve_revisions(void **state)
{
	char dir[PATH_MAX], id[FG_GIT_ID_SIZE];
	char *want;

	two_commit_repo(dir);
	want = git_out(dir, "rev-parse", "HEAD~1", NULL);
	assert_int_equal(fg_git_resolve(id, dir, "HEAD~1"), 0);
	assert_string_equal(id, want);
	free(want);
	want = git_out(dir, "rev-parse", "HEAD", NULL);
	assert_int_equal(fg_git_resolve(id, dir, "HEAD"), 0);
	assert_string_equal(id, want);
	free(want);

	assert_int_equal(fg_git_resolve(id, dir, "HEAD:a.c"), FG_EINVAL);
	check_error_mentions("not a commit");
	assert_int_equal(fg_git_resolve(id, dir, ""), FG_EINVAL);
	assert_int_equal(fg_git_resolve(id, dir, "HEAD~5"), FG_ENOTFOUND);
	check_error_mentions("unknown revision 'HEAD~5'");
}

static void unknown_revision(void **state)
{
	char dir[PATH_MAX], dest[PATH_MAX], plain[PATH_MAX];

	repo_with_commit(dir);
	path_join(dest, root, "never-created");
	assert_int_equal(fg_git_export_rev(dir, "no-such-branch", dest, NULL), FG_ENOTFOUND);
	assert_string_equal(fg_error_last(),
		"unknown revision 'no-such-branch' — try a branch, tag or commit id");
	assert_false(exists(dest, ""));

	fresh_dir(plain, "plain");
	assert_int_equal(fg_git_export_rev(plain, "HEAD", dest, NULL), FG_ENOTFOUND);
	check_error_mentions("not inside a git repository");
	assert_false(exists(dest, ""));

	/* A branch with no commits has nothing to export. */
	fresh_dir(plain, "unborn");
	git(plain, "init", "-q", NULL);
	assert_int_equal(fg_git_export_rev(plain, "HEAD", dest, NULL), FG_ENOTFOUND);
	check_error_mentions("unknown revision 'HEAD'");
}

static void non_empty_destination(void **state)
{
	char dir[PATH_MAX], dest[PATH_MAX], file[PATH_MAX];
	char *text;

	repo_with_commit(dir);
	fresh_dir(dest, "busy");
	write_file(dest, "keep.txt", "mine\n");
	assert_int_equal(fg_git_export_rev(dir, "HEAD", dest, NULL), FG_EINVAL);
	check_error_mentions("exists and is not empty — remove it or choose another directory");
	text = read_file(dest, "keep.txt");
	assert_string_equal(text, "mine\n");
	free(text);
	assert_false(exists(dest, "a.c"));

	path_join(file, dest, "keep.txt");
	assert_int_equal(fg_git_export_rev(dir, "HEAD", file, NULL), FG_EINVAL);
	check_error_mentions("is not a directory");
	text = read_file(dest, "keep.txt");
	assert_string_equal(text, "mine\n");
	free(text);

	/* The user's own work tree is never a valid destination. */
	assert_int_equal(fg_git_export_rev(dir, "HEAD", dir, NULL), FG_EINVAL);
}

static void submodules_are_skipped(void **state)
{
	char dir[PATH_MAX], dest[PATH_MAX], spec[128], path[PATH_MAX];
	fg_git_export_result res = FG_GIT_EXPORT_RESULT_INIT;
	char *head;
	struct stat st;

	repo_with_commit(dir);
	head = git_out(dir, "rev-parse", "HEAD", NULL);
	/* A gitlink entry whose repository was never cloned. */
	snprintf(spec, sizeof(spec), "160000,%s,vendor/lib", head);
	git(dir, "update-index", "--add", "--cacheinfo", spec, NULL);
	git(dir, "commit", "-q", "-m", "add submodule", NULL);

	path_join(dest, root, "with-submodule");
	assert_int_equal(fg_git_export(&res, dir, "HEAD", dest), 0);
	assert_int_equal(res.submodules_skipped, 1);
	assert_string_equal(res.skipped_submodules, "vendor/lib");
	assert_int_equal(res.files, 1);
	path_join(path, dest, "vendor/lib");
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	fg_git_export_result_release(&res);
	assert_null(res.skipped_submodules);
	free(head);
}

static void attributes_of_the_exported_commit_apply(void **state)
{
	char dir[PATH_MAX], dest[PATH_MAX];
	char *text;

	repo_with_commit(dir);
	write_file(dir, ".gitattributes", "*.txt text eol=crlf\n");
	write_file(dir, "t.txt", "a\nb\n");
	git(dir, "add", ".gitattributes", "t.txt", NULL);
	git(dir, "commit", "-q", "-m", "crlf text", NULL);
	/* The work tree's attributes must not leak into the export. */
	write_file(dir, ".gitattributes", "*.txt -text\n");

	path_join(dest, root, "crlf");
	assert_int_equal(fg_git_export_rev(dir, "HEAD", dest, NULL), 0);
	text = read_file(dest, "t.txt");
	assert_string_equal(text, "a\r\nb\r\n");
	free(text);
	text = read_file(dest, "a.c");
	assert_string_equal(text, "int main(void) { return 0; }\n");
	free(text);

	/* Nor the index's, when the change is staged. */
	git(dir, "add", ".gitattributes", NULL);
	path_join(dest, root, "crlf-staged");
	assert_int_equal(fg_git_export_rev(dir, "HEAD", dest, NULL), 0);
	text = read_file(dest, "t.txt");
	assert_string_equal(text, "a\r\nb\r\n");
	free(text);
}

/* A linked worktree (`git worktree add`) has its own HEAD and branch:
 * provenance and revisions there must follow it, not the main one. */
static void linked_worktree(void **state)
{
	char dir[PATH_MAX], wt[PATH_MAX], dest[PATH_MAX], id[FG_GIT_ID_SIZE];
	fg_git_info info = FG_GIT_INFO_INIT;
	char *want, *text;

	two_commit_repo(dir);
	path_join(wt, root, "linked-wt");
	git(dir, "worktree", "add", "-q", "-b", "old", wt, "HEAD~1", NULL);
	write_file(wt, "a.c", "edited in the linked worktree\n");

	assert_int_equal(fg_git_provenance(&info, wt), 0);
	assert_string_equal(info.branch, "old");
	assert_string_equal(info.workdir, wt);
	assert_true(info.dirty);
	want = git_out(wt, "rev-parse", "HEAD", NULL);
	assert_string_equal(info.commit, want);
	fg_git_info_release(&info);

	/* The main work tree is clean: the linked one's edit is not its. */
	assert_int_equal(fg_git_provenance(&info, dir), 0);
	assert_string_equal(info.branch, "main");
	assert_false(info.dirty);
	fg_git_info_release(&info);

	path_join(dest, root, "from-linked");
	assert_int_equal(fg_git_export_rev(wt, "HEAD", dest, id), 0);
	assert_string_equal(id, want);
	text = read_file(dest, "a.c");
	assert_string_equal(text, "one\n");
	free(text);
	text = read_file(wt, "a.c");
	assert_string_equal(text, "edited in the linked worktree\n");
	free(text);
	free(want);
}

/* Trees git's own tools can be made to write but checkout would refuse:
 * the export must refuse them too, without writing outside dest. */
static void unsafe_tree_entries_are_refused(void **state)
{
	static const char *const names[] = { ".git", ".GIT", ".." };
	char dir[PATH_MAX], dest[PATH_MAX], line[256];
	char *blob, *tree, *commit;
	size_t i;

	repo_with_commit(dir);
	blob = git_out(dir, "rev-parse", "HEAD:a.c", NULL);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(line, sizeof(line), "100644 blob %s\t%s\n", blob, names[i]);
		write_file(root, "mktree.in", line);
		tree = git_out_stdin("mktree.in", dir, "mktree", NULL);
		commit = git_out(dir, "commit-tree", "-m", "hostile", tree, NULL);
		path_join(dest, root, "hostile");
		assert_int_equal(fg_git_export_rev(dir, commit, dest, NULL), FG_EPARSE);
		check_error_mentions("unsafe path");
		assert_false(exists(dest, names[i][1] == '.' ? "../a.c" : names[i]));
		free(tree);
		free(commit);
		remove_tree(dest);
	}
	free(blob);
}

/* ---- setup --------------------------------------------------------- */

static int make_root(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char tmpl[PATH_MAX];

	snprintf(tmpl, sizeof(tmpl), "%s/fg-test-git-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl) || !realpath(tmpl, root))
		return -1;
	/* Keep the machine's git configuration out of both git and libgit2. */
	setenv("HOME", root, 1);
	setenv("XDG_CONFIG_HOME", root, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_INDEX_FILE");
	return 0;
}

static int remove_root(void **state)
{
	if (!getenv("FG_KEEP_TEMP"))
		remove_tree(root);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clean_repo),
		cmocka_unit_test(modified_tracked_file_is_dirty),
		cmocka_unit_test(deleted_tracked_file_is_dirty),
		cmocka_unit_test(staged_change_is_dirty),
		cmocka_unit_test(untracked_file_is_not_dirty),
		cmocka_unit_test(detached_head),
		cmocka_unit_test(unborn_branch),
		cmocka_unit_test(not_a_repository),
		cmocka_unit_test(submodule_state_and_dirty_flag),
		cmocka_unit_test(format_reports_needed_length),
		cmocka_unit_test(export_previous_commit_leaves_work_tree_alone),
		cmocka_unit_test(export_by_tag_short_id_and_into_empty_dir),
		cmocka_unit_test(resolve_revisions),
		cmocka_unit_test(unknown_revision),
		cmocka_unit_test(non_empty_destination),
		cmocka_unit_test(submodules_are_skipped),
		cmocka_unit_test(attributes_of_the_exported_commit_apply),
		cmocka_unit_test(linked_worktree),
		cmocka_unit_test(unsafe_tree_entries_are_refused),
	};
	return cmocka_run_group_tests(tests, make_root, remove_root);
}
