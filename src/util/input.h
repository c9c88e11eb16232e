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

/* Maps a whole regular, uncompressed file of at least min_len bytes for
 * reading, with the kernel asked to read all of it ahead, or, with
 * FG_INPUT_MAP_SEQUENTIAL, to read ahead of a reader going through it once:
 * 1 with *data and *len set (fg_input_unmap them), 0 when it is not such a
 * file (stdin, a pipe, gzip, under 2 or min_len bytes: read it with
 * fg_input_open), FG_ENOTFOUND/FG_EIO when it cannot be opened, or
 * FG_ENOMEM.
 *
 * A file cut short while it is mapped (truncated by whatever writes it)
 * does not end the process with SIGBUS, as it would for a plain reader of
 * mapped files: the first mapping installs a SIGBUS handler (for the whole
 * process; a handler there before is called for any other SIGBUS), which
 * turns the pages lost, and all after them, into zeros and marks the
 * mapping cut. The bytes are then no longer the file's: whoever reads the
 * mapping asks fg_input_map_check after each block and before its result
 * is used, and reports the error it returns. */
#define FG_INPUT_MAP_SEQUENTIAL 1u
int fg_input_map(const char *path, size_t min_len, unsigned flags, const char **data,
		 size_t *len);
/* 0 while the mapping data (from fg_input_map) holds the file's bytes;
 * FG_EIO, naming the file and how far it shrank, once it was cut short. */
int fg_input_map_check(const char *data);
/* fg_input_map_check over every mapping not unmapped yet: for a program,
 * before it hands on a result made from mapped files. */
int fg_input_maps_check(void);
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
