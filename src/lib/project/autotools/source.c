/* Where an autotools project is configured from. The user's tree serves
 * as it is when its configure script is current and it was not
 * configured in place (configure refuses to build out of tree from a
 * configured source folder). Otherwise -- no configure yet, configure.ac
 * or a Makefile.am newer than what was generated from them (as after
 * Debian's patches), or a tree configured in place -- the tree is copied
 * into the build folder (only files newer than the copy's, the in-place
 * build's products left out) and regenerated there with autoreconf -fi:
 * make's rules would otherwise regenerate the stale files inside the
 * user's tree. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "lib/project/autotools/autotools.h"
#include "util/input.h"
#include "util/banned.h"

#define MAX_DEPTH 12
#define INSTALL_HINT "(Debian/Ubuntu: apt-get install autoconf automake libtool)"

static long long mtime_or(const char *dir, const char *name, long long dflt)
{
	char *path = fg_path_join(dir, name);
	long long t = path ? fg_path_mtime(path) : -1;
	free(path);
	return t < 0 ? dflt : t;
}

/* Whether `dir` is or holds the build folder (never copied into itself). */
static bool holds_build(const fg_project *p, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(p->build_dir, dir, n) && (p->build_dir[n] == '/' || !p->build_dir[n]);
}

struct ages {
	long long newest_in;  /* configure.ac, m4 files, Makefile.am */
	long long oldest_out; /* configure, aclocal.m4, Makefile.in */
};

static void automake_ages(const fg_project *p, const char *dir, int depth, struct ages *a)
{
	DIR *d;
	struct dirent *e;
	long long am = mtime_or(dir, "Makefile.am", -1);

	if (am >= 0) {
		long long in = mtime_or(dir, "Makefile.in", 0);
		if (am > a->newest_in)
			a->newest_in = am;
		if (in < a->oldest_out)
			a->oldest_out = in;
	}
	if (depth >= MAX_DEPTH || !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "autom4te.cache"))
			continue;
		char *sub = fg_path_join(dir, e->d_name);
		if (sub && fg_path_is_dir(sub) && !holds_build(p, sub))
			automake_ages(p, sub, depth + 1, a);
		else if (sub && depth <= 1 && fg_view_ends_with(fg_view_cstr(e->d_name), ".m4") &&
			 strcmp(e->d_name, "aclocal.m4")) {
			long long t = fg_path_mtime(sub);
			if (t > a->newest_in)
				a->newest_in = t;
		}
		free(sub);
	}
	closedir(d);
}

/* Whether root's aclocal.m4 is aclocal's output (else the project's own
 * macros, written by hand: an input of configure, not an output). */
static bool by_aclocal(const char *root)
{
	char *path = fg_path_join(root, "aclocal.m4"), head[256] = { 0 };
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	ssize_t n = fd >= 0 ? read(fd, head, sizeof(head) - 1) : -1;

	if (fd >= 0)
		close(fd);
	free(path);
	return n > 0 && memmem(head, (size_t)n, "generated automatically by aclocal", 34);
}

/* Why the generated files of the tree at root need regenerating, or
 * NULL when they are current. */
static const char *stale(const fg_project *p, const char *root)
{
	struct ages a = { -1, (long long)1 << 62 };
	long long conf = mtime_or(root, "configure", -1);

	if (conf < 0)
		return "there is no configure script yet";
	a.oldest_out = conf;
	a.newest_in = mtime_or(root, "configure.ac", mtime_or(root, "configure.in", -1));
	if (by_aclocal(root)) {
		if (mtime_or(root, "aclocal.m4", conf) < a.oldest_out)
			a.oldest_out = mtime_or(root, "aclocal.m4", conf);
	} else if (mtime_or(root, "aclocal.m4", -1) > a.newest_in) {
		/* written by hand (no automake): an input of configure */
		a.newest_in = mtime_or(root, "aclocal.m4", -1);
	}
	automake_ages(p, root, 0, &a);
	return a.newest_in > a.oldest_out ? "configure.ac, a Makefile.am or an m4 file is newer than "
					   "what was generated from it" : NULL;
}

/* ---- the copy ----------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
	return fg_view_ends_with(fg_view_cstr(s), suffix);
}

static bool is_elf(const char *path)
{
	char magic[4] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool elf = fd >= 0 && read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);

	if (fd >= 0)
		close(fd);
	return elf;
}

/* What an in-place configure and build made: left out of the copy (a
 * config.status makes configure refuse; objects found through VPATH
 * would stand for ours). */
static bool build_product(const char *dir, const char *name, const char *path, bool configured)
{
	static const char *const names[] = { "config.status", "config.log", "config.cache",
					     "stamp-h1", "libtool", NULL };
	if (!configured)
		return false;
	for (const char *const *n = names; *n; n++)
		if (!strcmp(name, *n))
			return true;
	if (ends_with(name, ".o") || ends_with(name, ".lo") || ends_with(name, ".la") ||
	    ends_with(name, ".a") || !strcmp(name, ".deps") || !strcmp(name, ".libs"))
		return true;
	if (!strcmp(name, "Makefile") || !strcmp(name, "config.h")) {
		fg_strbuf in = FG_STRBUF_INIT;
		fg_strbuf_addf(&in, "%s/%s.in", dir, name);
		bool generated = in.buf && fg_path_is_file(in.buf);
		fg_strbuf_release(&in);
		return generated;
	}
	return is_elf(path);
}

/* Byte for byte (fg_read_file would unpack a .gz), with its mode and
 * times. */
static int copy_file(const char *from, const char *to, const struct stat *st)
{
	struct timespec times[2] = { st->st_atim, st->st_mtim };
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, err = 0;
	ssize_t n;

	if (in < 0)
		return 0; /* unreadable: configure will say if it mattered */
	unlink(to);
	if ((out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st->st_mode & 0777)) < 0)
		err = fg_error_set(FG_EIO, "cannot write %s: %s", to, strerror(errno));
	while (!err && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(out, buf, (size_t)n) != n)
			err = fg_error_set(FG_EIO, "cannot copy %s to %s: %s", from, to, strerror(errno));
	}
	if (out >= 0) {
		fchmod(out, st->st_mode & 0777);
		futimens(out, times);
		close(out);
	}
	close(in);
	return err;
}

static int copy_link(const char *from, const char *to)
{
	char target[4096];
	ssize_t n = readlink(from, target, sizeof(target) - 1);

	if (n < 0)
		return 0;
	target[n] = '\0';
	unlink(to);
	if (symlink(target, to))
		return fg_error_set(FG_EIO, "cannot write %s: %s", to, strerror(errno));
	return 0;
}

static int copy_tree(const fg_project *p, const char *from, const char *to, int depth,
		     bool configured, size_t *copied)
{
	DIR *d = opendir(from);
	struct dirent *e;
	int err = 0;

	if (!d)
		return fg_error_set(FG_EIO, "cannot read %s: %s", from, strerror(errno));
	if ((err = fg_mkdir_p(to)))
		goto done;
	while (!err && (e = readdir(d))) {
		const char *n = e->d_name;
		struct stat sf, sd;
		if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, ".git") ||
		    !strcmp(n, "autom4te.cache"))
			continue;
		char *src = fg_path_join(from, n), *dst = fg_path_join(to, n);
		if (!src || !dst)
			err = FG_ENOMEM;
		else if (lstat(src, &sf) || holds_build(p, src) || build_product(from, n, src, configured))
			;
		else if (S_ISDIR(sf.st_mode)) {
			if (depth < MAX_DEPTH)
				err = copy_tree(p, src, dst, depth + 1, configured, copied);
		} else if (lstat(dst, &sd) == 0 && (S_ISLNK(sf.st_mode) || sd.st_mtime >= sf.st_mtime))
			; /* the copy is as new: kept (autoreconf's outputs too) */
		else if (S_ISLNK(sf.st_mode)) {
			err = copy_link(src, dst);
			++*copied;
		} else if (S_ISREG(sf.st_mode)) {
			err = copy_file(src, dst, &sf);
			++*copied;
		}
		free(src);
		free(dst);
	}
done:
	closedir(d);
	return err;
}

/* ---- autoreconf --------------------------------------------------------------- */

static bool mentions(const char *root, const char *word)
{
	char *data = NULL;
	size_t len = 0;
	bool found = false;

	for (int i = 0; i < 2 && !found; i++) {
		char *path = fg_path_join(root, i ? "configure.in" : "configure.ac");
		if (path && !fg_read_file(path, &data, &len))
			found = memmem(data, len, word, strlen(word)) != NULL;
		free(path);
		free(data);
		data = NULL;
	}
	fg_error_clear();
	return found;
}

/* The tools autoreconf will call, checked first so that a missing one is
 * named with its package. */
static int check_tools(const fg_project *p, const char *root)
{
	static const struct { const char *prog, *pkg, *needs; } tools[] = {
		{ "autoreconf", "autoconf", NULL },
		{ "autoconf", "autoconf", NULL },
		{ "automake", "automake", "AM_INIT_AUTOMAKE" },
		{ "libtoolize", "libtool", "LT_INIT" },
		{ "libtoolize", "libtool", "AC_PROG_LIBTOOL" },
		{ "autopoint", "autopoint", "AM_GNU_GETTEXT" },
	};
	(void)p;
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char *path;
		if (tools[i].needs && !mentions(root, tools[i].needs))
			continue;
		if ((path = fg_which(tools[i].prog))) {
			free(path);
			continue;
		}
		return fg_error_set(FG_ENOTFOUND, "%s is not installed, and %s needs it to generate "
				    "its configure script — install it (Debian/Ubuntu: apt-get install %s; "
				    "autotools projects want autoconf automake libtool)", tools[i].prog,
				    p->name, tools[i].pkg);
	}
	return 0;
}

static int autoreconf(const fg_project *p, const char *copy)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 0, 0 };
	int err;

	if ((err = check_tools(p, copy)))
		return err;
	fg_strvec_push(&cmd.argv, "autoreconf");
	fg_strvec_push(&cmd.argv, "-fi");
	if (!(err = fg_cmd_set_cwd(&cmd, copy)))
		err = fg_build_tool_run(p, &cmd, false, &st);
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "autoreconf is not installed — install it " INSTALL_HINT);
	else if (!err && st.code != 0)
		err = fg_error_set(FG_EBUILD, "autoreconf -fi failed in %s (its output is above) — "
				   "the project's configure.ac needs a tool or macro that is missing here",
				   copy);
	fg_cmd_clear(&cmd);
	return err;
}

int fg_autotools_source(fg_project *p)
{
	fg_autotools_state *st = fg_autotools_state_of(p);
	const char *why = stale(p, p->loc.root);
	char *status = fg_path_join(p->loc.root, "config.status"), *copy = NULL;
	bool configured = status && fg_path_is_file(status);
	size_t copied = 0;
	int err = 0;

	free(status);
	if (!st)
		return FG_ENOMEM;
	free(st->srcdir);
	st->srcdir = NULL;
	if (!why && !configured) {
		st->copied = false;
		return (st->srcdir = fg_strdup(p->loc.root)) ? 0 : FG_ENOMEM;
	}
	if (!(copy = fg_path_join(p->build_dir, FG_AUTOTOOLS_COPY)))
		return FG_ENOMEM;
	if ((err = copy_tree(p, p->loc.root, copy, 0, configured, &copied)))
		goto done;
	if (copied && !why && configured)
		fg_project_note(p, "%s is configured in place: configuring a copy of it (%s) instead",
				p->loc.root, copy);
	if ((why = stale(p, copy))) {
		fg_project_note(p, "%s: running autoreconf -fi in a copy of the project (%s); your "
				"tree is not touched", why, copy);
		if ((err = autoreconf(p, copy)))
			goto done;
	}
	st->copied = true;
	st->srcdir = copy;
	copy = NULL;
done:
	free(copy);
	return err;
}
