/* compile_commands.json projects (SPEC 3c): internals of the reader
 * (src/lib/manifest/compdb*.c). */
#ifndef FG_LIB_MANIFEST_COMPDB_IMPL_H
#define FG_LIB_MANIFEST_COMPDB_IMPL_H

#include "lib/manifest/project.h"

/* Renames the targets after the executables the project's own build made
 * in its tree (their old names stay as aliases); see compdb_names.c. */
int fg_compdb_real_names(fg_project *p);

#endif
