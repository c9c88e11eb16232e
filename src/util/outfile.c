#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "util/cleanup.h"
#include "util/outfile.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/banned.h"

/* What a path leads to. */
enum kind {
	NEW,     /* nothing yet: made */
	REGULAR, /* a regular file: replaced */
	DIRECT,  /* a device, FIFO or terminal: written in place */
	FOLDER,
};

struct target {
	enum kind kind;
	struct stat st;  /* of the target, unless NEW */
	fg_strbuf real;  /* the file to write: links followed */
};

struct fg_outfile {
	FILE *fp;
	bool is_stdout;
	bool direct;
	struct stat old; /* the replaced file's, when replaced is set */
	bool replaced;
	fg_strbuf path, tmp;
	fg_strbuf target; /* what the temporary becomes: path's links followed */
};

/* The length of p's folder part, its '/' included (0: the current folder). */
static size_t folder_len(const char *p)
{
	const char *slash = strrchr(p, '/');

	return slash ? (size_t)(slash - p) + 1 : 0;
}

/* Follows the links from path to a name that is not one (a dangling
 * link's target, which will be made). */
static int follow_links(fg_strbuf *out, const char *path)
{
	char link[PATH_MAX];
	struct stat st;
	int hops = 0;
	ssize_t n;

	fg_strbuf_addstr(out, path);
	while (lstat(out->buf, &st) == 0 && S_ISLNK(st.st_mode)) {
		if (++hops > 40 || (n = readlink(out->buf, link, sizeof(link) - 1)) < 0)
			return fg_error_set(FG_EINVAL, "cannot write %s: %s — give the file itself",
					    path, hops > 40 ? "too many symbolic links" : strerror(errno));
		link[n] = '\0';
		if (link[0] == '/')
			fg_strbuf_reset(out);
		else
			fg_strbuf_setlen(out, folder_len(out->buf));
		fg_strbuf_addstr(out, link);
	}
	return fg_strbuf_check(out);
}

/* Where path leads (t->real to be released by the caller). */
static int locate(struct target *t, const char *path)
{
	char *real;
	int err;

	fg_strbuf_init(&t->real, 0);
	if (stat(path, &t->st) == 0) {
		t->kind = S_ISDIR(t->st.st_mode) ? FOLDER : S_ISREG(t->st.st_mode) ? REGULAR : DIRECT;
		/* a device or FIFO is opened by its own name: /dev/stdout's
		 * links lead to names that are no paths */
		if (t->kind == DIRECT || !(real = realpath(path, NULL)))
			return fg_strbuf_addstr(&t->real, path);
		err = fg_strbuf_addstr(&t->real, real);
		free(real);
		return err;
	}
	if (errno != ENOENT)
		return fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
	t->kind = NEW;
	if ((err = follow_links(&t->real, path)))
		return err;
	{
		size_t len = folder_len(t->real.buf);
		fg_strbuf dir = FG_STRBUF_INIT;
		struct stat ds;

		fg_strbuf_add(&dir, t->real.buf, len > 1 ? len - 1 : len);
		if (!len)
			fg_strbuf_addstr(&dir, ".");
		if (!(err = fg_strbuf_check(&dir)) && (stat(dir.buf, &ds) != 0 || !S_ISDIR(ds.st_mode)))
			err = fg_error_set(FG_EINVAL, "cannot write %s: its folder %s does not exist — "
					   "create the folder first or give another path", path, dir.buf);
		fg_strbuf_release(&dir);
	}
	return err;
}

static int check_kind(const struct target *t, const char *path, bool is_dir)
{
	if (!is_dir && t->kind == FOLDER)
		return fg_error_set(FG_EINVAL, "%s is a directory — give a file name for the output", path);
	if (is_dir && (t->kind == DIRECT || t->kind == REGULAR))
		return fg_error_set(FG_EINVAL, "%s is a file — give a new name or a folder for the "
				    "recordings", path);
	return 0;
}

/* Where path leads, refused when it is the wrong kind (t->real to be
 * released by the caller, also on error). */
static int locate_checked(struct target *t, const char *path, bool is_dir)
{
	int err = locate(t, path);

	return err ? err : check_kind(t, path, is_dir);
}

int fg_outfile_check(const char *path, bool is_dir)
{
	struct target t;
	int err = locate_checked(&t, path, is_dir);

	fg_strbuf_release(&t.real);
	return err;
}

int fg_outfile_in_place(bool *in_place, const char *path)
{
	struct target t;
	int err = locate_checked(&t, path, false);

	*in_place = !err && t.kind == DIRECT;
	fg_strbuf_release(&t.real);
	return err;
}

int fg_outfile_temp_folder(fg_strbuf *dir, bool *beside, const char *path, bool is_dir)
{
	struct target t;
	int err = locate_checked(&t, path, is_dir);

	*beside = false;
	if (!err && t.kind != DIRECT) {
		*beside = true;
		err = fg_strbuf_add(dir, t.real.buf, folder_len(t.real.buf));
	}
	fg_strbuf_release(&t.real);
	return err;
}

/* A temporary file beside target (path's name), registered for removal
 * by a signal handler; its name in tmp, its descriptor in *fd. */
static int make_temp(int *fd, fg_strbuf *tmp, const char *target, const char *path)
{
	sigset_t all, old;
	size_t len = folder_len(target);
	int err;

	fg_strbuf_add(tmp, target, len);
	fg_strbuf_addf(tmp, ".%s.tmpXXXXXX", target + len);
	if ((err = fg_strbuf_check(tmp)))
		return err;
	/* signals wait until it is registered, or one arriving right after
	 * mkstemp would leave the file behind (a full table only loses
	 * that) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	*fd = mkstemp(tmp->buf);
	if (*fd >= 0 && fg_cleanup_add_path(tmp->buf, false))
		fg_error_clear();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (*fd < 0)
		return fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
	return 0;
}

static void drop_temp(const fg_strbuf *tmp)
{
	unlink(tmp->buf);
	fg_cleanup_remove_path(tmp->buf);
}

/* A replaced file keeps its mode and, where we may set them, its owner
 * and group (the owner first: changing it clears set-id bits). */
static void keep_mode(int fd, const struct stat *old)
{
	if (old->st_uid != geteuid() || old->st_gid != getegid())
		if (fchown(fd, old->st_uid, old->st_gid) != 0) {
			/* not ours to give: the file is ours then */
		}
	fchmod(fd, old->st_mode & 07777);
}

int fg_outfile_open(fg_outfile **out, const char *path)
{
	fg_outfile *f;
	struct target t;
	int fd = -1, err;

	*out = NULL;
	if (!(f = fg_calloc(1, sizeof(*f))))
		return FG_ENOMEM;
	fg_strbuf_init(&f->path, 0);
	fg_strbuf_init(&f->tmp, 0);
	if (!strcmp(path, "-")) {
		f->is_stdout = true;
		f->fp = stdout;
		*out = f;
		return 0;
	}
	if ((err = locate_checked(&t, path, false)) || (err = fg_strbuf_addstr(&f->path, path)))
		goto fail;
	if (t.kind == DIRECT) {
		/* never O_CREAT: a name that stopped being a device stays
		 * as it is */
		f->direct = true;
		if ((fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)) < 0) {
			err = fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
			goto fail;
		}
	} else {
		f->replaced = t.kind == REGULAR;
		f->old = t.st;
		if ((err = make_temp(&fd, &f->tmp, t.real.buf, path)))
			goto fail;
		f->target = t.real;
		fg_strbuf_init(&t.real, 0);
	}
	if (!(f->fp = fdopen(fd, "w"))) {
		close(fd);
		if (!f->direct)
			drop_temp(&f->tmp);
		err = fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
		goto fail;
	}
	fg_strbuf_release(&t.real);
	*out = f;
	return 0;
fail:
	fg_strbuf_release(&t.real);
	fg_strbuf_release(&f->path);
	fg_strbuf_release(&f->tmp);
	fg_strbuf_release(&f->target);
	free(f);
	return err;
}

FILE *fg_outfile_stream(fg_outfile *f)
{
	return f->fp;
}

static void release(fg_outfile *f)
{
	if (f->tmp.len)
		fg_cleanup_remove_path(f->tmp.buf);
	fg_strbuf_release(&f->path);
	fg_strbuf_release(&f->tmp);
	fg_strbuf_release(&f->target);
	free(f);
}

static mode_t umask_now(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return mask;
}

int fg_outfile_commit(fg_outfile *f)
{
	int err = 0;

	if (f->is_stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			err = fg_error_set(FG_EIO, "writing to stdout: %s", strerror(errno));
		release(f);
		return err;
	}
	if (f->direct) {
		if (ferror(f->fp) | fclose(f->fp))
			err = fg_error_set(FG_EIO, "cannot write %s: %s", f->path.buf, strerror(errno));
		release(f);
		return err;
	}
	/* mkstemp makes 0600 files */
	if (f->replaced)
		keep_mode(fileno(f->fp), &f->old);
	else
		fchmod(fileno(f->fp), 0666 & ~umask_now());
	if (ferror(f->fp) | fclose(f->fp))
		err = fg_error_set(FG_EIO, "cannot write %s: %s", f->path.buf, strerror(errno));
	else if (rename(f->tmp.buf, f->target.buf) != 0)
		err = fg_error_set(FG_EIO, "cannot write %s: %s", f->path.buf, strerror(errno));
	if (err)
		unlink(f->tmp.buf);
	release(f);
	return err;
}

void fg_outfile_abort(fg_outfile *f)
{
	if (!f)
		return;
	if (!f->is_stdout) {
		fclose(f->fp);
		if (!f->direct)
			unlink(f->tmp.buf);
	}
	release(f);
}

/* Copies the file from into the open file descriptor to. */
static int copy_fd(const char *from, int to, const char *path)
{
	char buf[1 << 16];
	ssize_t n = 0;
	int in = open(from, O_RDONLY | O_CLOEXEC);

	if (in < 0)
		return fg_error_set(FG_EIO, "cannot read %s: %s", from, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (fg_write_all(to, buf, (size_t)n)) {
			close(in);
			return fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
		}
	}
	close(in);
	if (n < 0)
		return fg_error_set(FG_EIO, "cannot read %s: %s", from, strerror(errno));
	return 0;
}

/* A file copied into a device or FIFO, in place. */
static int install_direct(const char *path, const char *tmp)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC), err;

	if (fd < 0)
		return fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
	err = copy_fd(tmp, fd, path);
	if (close(fd) != 0 && !err)
		err = fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
	if (!err)
		unlink(tmp);
	return err;
}

/* A file copied from another file system: to a temporary beside the
 * target, then renamed. */
static int install_copy(const struct target *t, const char *path, const char *tmp)
{
	fg_strbuf near = FG_STRBUF_INIT;
	struct stat st;
	int fd, err = make_temp(&fd, &near, t->real.buf, path);

	if (err) {
		fg_strbuf_release(&near);
		return err;
	}
	err = copy_fd(tmp, fd, path);
	if (!err && t->kind == REGULAR)
		keep_mode(fd, &t->st);
	else if (!err && stat(tmp, &st) == 0)
		fchmod(fd, st.st_mode & 07777);
	if (close(fd) != 0 && !err)
		err = fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
	if (!err && rename(near.buf, t->real.buf) != 0)
		err = fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
	if (err)
		unlink(near.buf);
	else
		unlink(tmp);
	fg_cleanup_remove_path(near.buf);
	fg_strbuf_release(&near);
	return err;
}

/* A copy of the file from as the new file to (in a folder of our own),
 * with from's mode. */
static int copy_file(const char *to, const char *from, const char *path)
{
	struct stat st;
	int fd, err;

	if (stat(from, &st) != 0)
		return fg_error_set(FG_EIO, "cannot read %s: %s", from, strerror(errno));
	if ((fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
		return fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
	err = copy_fd(from, fd, path);
	fchmod(fd, st.st_mode & 07777);
	if (close(fd) != 0 && !err)
		err = fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
	return err;
}

/* The files of the flat folder dir removed (dir itself stays). */
static void remove_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	fg_strbuf p = FG_STRBUF_INIT;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			fg_strbuf_reset(&p);
			if (!fg_strbuf_addf(&p, "%s/%s", dir, e->d_name))
				unlink(p.buf);
		}
	if (d)
		closedir(d);
	fg_strbuf_release(&p);
}

/* The files of folder tmp (a flat folder of recordings) copied into
 * the folder dir; tmp is kept until the copy is in place. */
static int copy_files(const char *dir, const char *tmp, const char *path)
{
	DIR *d = opendir(tmp);
	struct dirent *e;
	fg_strbuf from = FG_STRBUF_INIT, to = FG_STRBUF_INIT;
	int err = 0;

	if (!d)
		return fg_error_set(FG_EIO, "cannot read %s: %s", tmp, strerror(errno));
	while (!err && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		fg_strbuf_reset(&from);
		fg_strbuf_reset(&to);
		fg_strbuf_addf(&from, "%s/%s", tmp, e->d_name);
		fg_strbuf_addf(&to, "%s/%s", dir, e->d_name);
		if (!(err = fg_strbuf_check(&from)) && !(err = fg_strbuf_check(&to)))
			err = copy_file(to.buf, from.buf, path);
	}
	closedir(d);
	fg_strbuf_release(&from);
	fg_strbuf_release(&to);
	return err;
}

/* A folder from another file system: its files copied into a new
 * folder beside the target, which is then renamed; the files of tmp are
 * removed only once it is (a target that cannot be replaced, such as a
 * folder that holds files, keeps them all). */
static int install_folder_copy(const struct target *t, const char *path, const char *tmp)
{
	fg_strbuf near = FG_STRBUF_INIT;
	size_t len = folder_len(t->real.buf);
	struct stat st;
	int err;

	fg_strbuf_add(&near, t->real.buf, len);
	fg_strbuf_addf(&near, ".%s.tmpXXXXXX", t->real.buf + len);
	if ((err = fg_strbuf_check(&near)))
		goto done;
	if (!mkdtemp(near.buf)) {
		err = fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
		goto done;
	}
	fg_cleanup_add_path(near.buf, true);
	if (stat(tmp, &st) == 0)
		chmod(near.buf, st.st_mode & 07777);
	if (!(err = copy_files(near.buf, tmp, path)) && rename(near.buf, t->real.buf) != 0)
		err = fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
	if (err) {
		remove_files(near.buf);
		rmdir(near.buf);
	} else {
		remove_files(tmp);
		rmdir(tmp);
	}
	fg_cleanup_remove_path(near.buf);
done:
	fg_strbuf_release(&near);
	return err;
}

int fg_outfile_install(const char *path, const char *tmp, bool is_dir)
{
	struct target t;
	int err;

	if ((err = locate_checked(&t, path, is_dir)))
		goto done;
	if (t.kind == DIRECT) {
		err = install_direct(path, tmp);
		goto done;
	}
	if (!is_dir && t.kind == REGULAR)
		chmod(tmp, t.st.st_mode & 07777);
	if (rename(tmp, t.real.buf) == 0)
		goto done;
	if (errno != EXDEV)
		err = fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
	else
		err = is_dir ? install_folder_copy(&t, path, tmp) : install_copy(&t, path, tmp);
done:
	fg_strbuf_release(&t.real);
	return err;
}

int fg_outfile_check_inputs(const char *output, const char *const *inputs, size_t n)
{
	struct stat out, in;

	if (!output || !strcmp(output, "-") || stat(output, &out) != 0 || S_ISCHR(out.st_mode))
		return 0;
	for (size_t i = 0; i < (n ? n : 1); i++) {
		bool std_in = !n || !strcmp(inputs[i], "-");
		if ((std_in ? fstat(STDIN_FILENO, &in) : stat(inputs[i], &in)) != 0)
			continue;
		if (in.st_dev == out.st_dev && in.st_ino == out.st_ino)
			return fg_error_set(FG_EINVAL, "%s is also an input (%s); writing it would "
					    "destroy the input — give another output file", output,
					    std_in ? "stdin" : inputs[i]);
	}
	return 0;
}
