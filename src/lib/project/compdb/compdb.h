/* compile_commands.json projects: internals of the reader
 * (src/lib/manifest/compdb*.c). */
#ifndef FG_LIB_MANIFEST_COMPDB_IMPL_H
#define FG_LIB_MANIFEST_COMPDB_IMPL_H

#include "lib/project/project.h"
#include "util/hashmap.h"

/* Renames the targets after the executables the project's own build made
 * in its tree (their old names stay as aliases); see compdb_names.c. */
int fg_compdb_real_names(fg_project *p);

/* One compile command as a unit, as a database entry would give it (for
 * the plain-Make reader): `dir` absolute, `argv` as run, `source`
 * absolute, `output` what its -o named or NULL; `seen` numbers the
 * objects of one source compiled twice. *index: the unit (an exact
 * duplicate: the one made before). FG_ENOMEM. */
int fg_compdb_add_command(fg_project *p, const char *dir, const fg_strvec *argv, const char *source,
			  const char *output, fg_strmap *seen, size_t *index);

#endif
