/* fg_outfile: writes an output file atomically. Data goes to a temporary
 * file beside the target, which replaces the target only on commit, so a
 * failed run never leaves a half-written or clobbered file. "-" writes to
 * stdout directly. */
#ifndef FG_UTIL_OUTFILE_H
#define FG_UTIL_OUTFILE_H

#include <stdio.h>

typedef struct fg_outfile fg_outfile;

/* Opens path for writing. Errors (FG_EINVAL for a directory, FG_EIO for an
 * unwritable folder) name the path. */
int fg_outfile_open(fg_outfile **out, const char *path);
/* The stream to write to. */
FILE *fg_outfile_stream(fg_outfile *f);
/* Flushes and renames into place; frees f. FG_EIO on a write error (then
 * the target is left untouched). */
int fg_outfile_commit(fg_outfile *f);
/* Discards what was written; frees f. NULL is a no-op. */
void fg_outfile_abort(fg_outfile *f);

#endif
