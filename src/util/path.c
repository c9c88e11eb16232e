#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/banned.h"

char *fg_path_join(const char *a, const char *b)
{
	fg_strbuf sb = FG_STRBUF_INIT;

	if (b[0] == '/' || !a || !*a)
		fg_strbuf_addstr(&sb, b);
	else if (a[strlen(a) - 1] == '/')
		fg_strbuf_addf(&sb, "%s%s", a, b);
	else
		fg_strbuf_addf(&sb, "%s/%s", a, b);
	return fg_strbuf_detach(&sb, NULL);
}

int fg_mkdir_p(const char *path)
{
	char *copy = fg_strdup(path), *s;
	int err = 0;

	if (!copy)
		return FG_ENOMEM;
	for (s = copy + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
			err = fg_error_set(FG_EIO, "cannot create folder %s: %s", copy, strerror(errno));
			break;
		}
		if (!(*s = c))
			break;
	}
	free(copy);
	return err;
}

bool fg_path_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool fg_path_is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int fg_write_all(int fd, const void *p, size_t n)
{
	const char *at = p;

	while (n > 0) {
		ssize_t w = write(fd, at, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		at += w;
		n -= (size_t)w;
	}
	return 0;
}

long long fg_path_mtime(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	return (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

const char *fg_path_base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

const char *fg_path_ext(const char *path)
{
	const char *base = fg_path_base(path), *dot = strrchr(base, '.');
	return dot && dot != base ? dot + 1 : "";
}

long long fg_read_number_file(const char *path, long long dflt)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	long long v;

	if (fd < 0)
		return dflt;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return dflt;
	buf[n] = '\0';
	return fg_parse_i64(fg_view_trim(fg_view_cstr(buf)), &v) ? dflt : v;
}
