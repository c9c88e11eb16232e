/* fg_outfile: the one writer of every file the programs write (graphs,
 * folded stacks, speedscope, pprof, reports, palette maps, kept
 * recordings).
 *
 * Where a path leads decides how it is written:
 * - "-": stdout, directly.
 * - a symbolic link: followed (through a chain, dangling or not) to the
 *   file it names, which is written as below; the link stays a link.
 * - a regular file, or no file yet: atomically. The data goes to a
 *   temporary file in the target's folder, renamed over the target only on
 *   commit, so a failed run never leaves a half-written or clobbered file.
 *   A new file gets mode 0666 & ~umask (a kept recording: 0600, as perf
 *   makes it); a replaced file keeps its mode and, where the writer may
 *   set it, its owner and group.
 * - a device (/dev/null), FIFO or terminal: written in place, never
 *   replaced, its mode and owner untouched.
 * - a folder, or a name in a folder that does not exist: refused (FG_EINVAL). */
#ifndef FG_UTIL_OUTFILE_H
#define FG_UTIL_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "util/strbuf.h"

typedef struct fg_outfile fg_outfile;

/* Opens path for writing. Errors (FG_EINVAL for a folder or a missing
 * folder, FG_EIO for an unwritable one) name the path. */
int fg_outfile_open(fg_outfile **out, const char *path);
/* The stream to write to. */
FILE *fg_outfile_stream(fg_outfile *f);
/* Flushes and renames into place; frees f. FG_EIO on a write error (then
 * the target is left untouched). */
int fg_outfile_commit(fg_outfile *f);
/* Discards what was written; frees f. NULL is a no-op. */
void fg_outfile_abort(fg_outfile *f);

/* Checks path as an output without writing anything: the errors
 * fg_outfile_open would give for a folder or a missing folder. With
 * is_dir, path is to be a folder (a folder of recordings): an existing
 * folder is accepted, a device or FIFO refused. */
int fg_outfile_check(const char *path, bool is_dir);
/* Sets *in_place when path leads to a device, FIFO or terminal, which is
 * written in place (so names made from path do not belong beside it);
 * else to false. Errors as fg_outfile_check. */
int fg_outfile_in_place(bool *in_place, const char *path);
/* Appends to dir the folder (with its '/', or nothing for the current
 * folder) where a temporary file for path belongs, so that
 * fg_outfile_install renames it into place; sets *beside to false (and
 * appends nothing) when path leads to a device or FIFO, which is written
 * in place: its temporary belongs in the temporary folder. Errors as
 * fg_outfile_check. */
int fg_outfile_temp_folder(fg_strbuf *dir, bool *beside, const char *path, bool is_dir);
/* Puts the finished file (with is_dir, the folder of files) tmp in place
 * as path, written as fg_outfile_open says: renamed when it is on the
 * target's file system, else copied to a temporary beside the target and
 * renamed; copied in place into a device or FIFO. An existing folder is
 * replaced only when empty. tmp is gone afterwards, unless an error is
 * returned (FG_EINVAL, FG_EIO, naming path); then the target is
 * untouched and tmp, with all its files, kept. */
int fg_outfile_install(const char *path, const char *tmp, bool is_dir);

/* Refuses (FG_EINVAL, naming both) an output that is one of the n inputs
 * ("-", or none at all: stdin, compared with fstat(0)), compared by device
 * and inode. A character device (/dev/null, a terminal) may be both. */
int fg_outfile_check_inputs(const char *output, const char *const *inputs, size_t n);

#endif
