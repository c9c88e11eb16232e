/* File-system path helpers shared by every layer (the manifest readers,
 * the builder, the orchestration). */
#ifndef FG_UTIL_PATH_H
#define FG_UTIL_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* a/b, or b alone when it is absolute or a is NULL or empty (malloc'd;
 * NULL when out of memory). */
char *fg_path_join(const char *a, const char *b);
/* Creates path and its missing parents (mode 0777 before the umask).
 * FG_EIO naming the folder that could not be made, FG_ENOMEM. */
int fg_mkdir_p(const char *path);
bool fg_path_is_dir(const char *path);
bool fg_path_is_file(const char *path);
/* Writes all n bytes of p to fd, through short writes and EINTR.
 * Returns 0, or -1 with errno set. */
int fg_write_all(int fd, const void *p, size_t n);
/* Modification time in nanoseconds, or -1 when the file does not exist. */
long long fg_path_mtime(const char *path);
/* The part after the last '/' (a pointer into path). */
const char *fg_path_base(const char *path);
/* The extension of the base name without its dot ("c" for "src/a.c"), ""
 * when it has none (a leading dot is no extension); a pointer into path. */
const char *fg_path_ext(const char *path);

/* The number a small file holds (a kernel setting under /proc or /sys:
 * "2\n"), or dflt when it cannot be read or holds no number. */
long long fg_read_number_file(const char *path, long long dflt);

#endif
