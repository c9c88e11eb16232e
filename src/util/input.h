/* fg_input: reads a file, a gzip file (detected by its magic bytes, not its
 * name) or stdin in large chunks, for the streaming parsers. */
#ifndef FG_UTIL_INPUT_H
#define FG_UTIL_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct fg_input fg_input;

/* Opens path ("-" or NULL: stdin). FG_ENOTFOUND/FG_EIO name the file. */
int fg_input_open(fg_input **out, const char *path);
/* Reads up to cap bytes; returns the count (0 at end) or a negative FG_E*. */
ssize_t fg_input_read(fg_input *in, void *buf, size_t cap);
/* The name used in messages ("<stdin>" for stdin). */
const char *fg_input_name(const fg_input *in);
void fg_input_close(fg_input *in);

/* Maps a whole regular, uncompressed file for reading, with the kernel
 * asked to read ahead: 1 with *data and *len set (fg_input_unmap them),
 * 0 when it is not such a file (stdin, a pipe, gzip, under 2 bytes: read
 * it with fg_input_open), or FG_ENOTFOUND/FG_EIO when it cannot be opened.
 * The bytes are the file's: a file truncated while mapped ends the
 * process with SIGBUS, as for any reader of mapped files. */
int fg_input_map(const char *path, const char **data, size_t *len);
void fg_input_unmap(const char *data, size_t len);
/* Maps the pages of data[0..len) of a mapping of fg_input_map into the
 * process in one call, instead of a page fault every few pages as they are
 * first read (len > 0). */
void fg_input_prefault(const char *data, size_t len);
/* Drops the whole pages inside data[0..len) of a mapping from the
 * resident set (they are read again if touched): for parts already
 * parsed whose bytes nothing points into. */
void fg_input_release(const char *data, size_t len);

/* Reads a whole file into memory (NUL-terminated); for small inputs such as
 * manifests and palette maps. */
int fg_read_file(const char *path, char **data, size_t *len);

/* Whether two paths name the same existing file (same device and inode),
 * so a program can refuse to write its output over one of its inputs. */
bool fg_same_file(const char *a, const char *b);

/* fg_same_file, or, for files that do not exist yet, the same name in the
 * same folder: two outputs that would land on one file. */
bool fg_same_path(const char *a, const char *b);

#endif
