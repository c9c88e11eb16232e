/* compile_commands.json projects (src/lib/project/compdb): the database
 * read into units (read.c), every unit compiled and its symbol table
 * read (link.c), a target named after each program (names.c) and linked
 * from the objects that define what its main needs. The plain-Make
 * reader adds the compiles of its dry run the same way. */
#ifndef FG_LIB_PROJECT_COMPDB_COMPDB_H
#define FG_LIB_PROJECT_COMPDB_COMPDB_H

#include "flamegraph/builder.h"
#include "lib/project/project.h"
#include "util/hashmap.h"

/* Renames the targets after the executables the project's own build made
 * in its tree (their old names stay as aliases); see names.c. */
int fg_compdb_real_names(fg_project *p);

/* One compile command as a unit, as a database entry would give it (for
 * the plain-Make reader): `dir` absolute, `argv` as run, `source`
 * absolute, `output` what its -o named or NULL; `seen` numbers the
 * objects of one source compiled twice. *index: the unit (an exact
 * duplicate: the one made before). FG_ENOMEM. */
int fg_compdb_add_command(fg_project *p, const char *dir, const fg_strvec *argv, const char *source,
			  const char *output, fg_strmap *seen, size_t *index);

/* Opening (system.c), in two steps around the compile: fg_compdb_load
 * reads the entries into p->units (and [build] libs and ldflags of a
 * flamegraph.toml beside it); fg_compdb_compile_all compiles every unit
 * and reads the objects' symbol tables: sets each unit's has_main, keeps
 * the tables for linking (p->state; errors as fg_units_compile,
 * FG_EIO for an object that is no ELF file); fg_compdb_add_targets, once
 * the units' has_main flags are known, names a target after each.
 * fg_compdb_build links a target from the objects its main needs. */
int fg_compdb_load(fg_project *p);
int fg_compdb_compile_all(fg_project *p);
int fg_compdb_add_targets(fg_project *p);
int fg_compdb_build(fg_project *p, const struct fg_target *t, fg_build_result *res);

/* For fuzzing and tests: reads compile_commands.json text (the contents
 * of p->loc.file; relative folders resolve against its folder) into
 * p->units, as fg_compdb_load does, running nothing. p needs loc.file,
 * loc.root and build_dir set. Errors as fg_compdb_load. */
int fg_compdb_parse_memory(fg_project *p, const char *data, size_t len);

#endif
