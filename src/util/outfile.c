#include <errno.h>
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
#include "util/strbuf.h"
#include "util/banned.h"

struct fg_outfile {
	FILE *fp;
	bool is_stdout;
	bool direct;  /* a device or FIFO: written in place, never renamed over */
	fg_strbuf path, tmp;
};

int fg_outfile_open(fg_outfile **out, const char *path)
{
	fg_outfile *f;
	struct stat st;
	const char *slash;
	sigset_t all, old;
	int fd, err = 0;

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
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		err = fg_error_set(FG_EINVAL, "%s is a directory; give a file name for the output", path);
		goto fail;
	}
	fg_strbuf_addstr(&f->path, path);
	/* renaming a temp file over /dev/null (or a FIFO) would replace the
	 * device with a regular file: write such targets directly */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (!(f->fp = fopen(path, "w"))) {
			err = fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
			goto fail;
		}
		f->direct = true;
		*out = f;
		return 0;
	}
	slash = strrchr(path, '/');
	if (slash)
		fg_strbuf_add(&f->tmp, path, (size_t)(slash - path) + 1);
	fg_strbuf_addf(&f->tmp, ".%s.tmpXXXXXX", slash ? slash + 1 : path);
	/* a signal handler removes it if the program is killed (best effort:
	 * a full table only loses that); signals wait until it is registered,
	 * or one arriving right after mkstemp would leave the file behind */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	fd = mkstemp(f->tmp.buf);
	if (fd >= 0 && fg_cleanup_add_path(f->tmp.buf, false))
		fg_error_clear();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		err = fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
		goto fail;
	}
	if (!(f->fp = fdopen(fd, "w"))) {
		close(fd);
		unlink(f->tmp.buf);
		fg_cleanup_remove_path(f->tmp.buf);
		err = fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
		goto fail;
	}
	*out = f;
	return 0;
fail:
	fg_strbuf_release(&f->path);
	fg_strbuf_release(&f->tmp);
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
	free(f);
}

int fg_outfile_commit(fg_outfile *f)
{
	mode_t mask;
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
	/* mkstemp makes 0600 files; give the output the usual 0666 & ~umask */
	mask = umask(0);
	umask(mask);
	fchmod(fileno(f->fp), 0666 & ~mask);
	if (ferror(f->fp) | fclose(f->fp)) {
		err = fg_error_set(FG_EIO, "cannot write %s: %s", f->path.buf, strerror(errno));
		unlink(f->tmp.buf);
	} else if (rename(f->tmp.buf, f->path.buf) != 0) {
		err = fg_error_set(FG_EIO, "cannot write %s: %s", f->path.buf, strerror(errno));
		unlink(f->tmp.buf);
	}
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
