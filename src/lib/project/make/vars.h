/* Reading the variables of a Makefile (vars.c): the
 * assignments of a generated automake Makefile (bin_PROGRAMS,
 * gzip_DEPENDENCIES, BUILT_SOURCES...) and their expansion. This is not
 * make: rules, conditionals and functions are not evaluated (a function
 * call expands to nothing), which is all a generated Makefile's
 * variables need. Used by the autotools reader. */
#ifndef FG_LIB_PROJECT_MAKE_VARS_H
#define FG_LIB_PROJECT_MAKE_VARS_H

#include <stddef.h>

#include "util/process.h"

typedef struct fg_makevars fg_makevars;

/* Reads the assignments of a Makefile's text: NAME = value, :=, ::=, ?=,
 * +=, with "override"/"export" before them; backslash-newline joins
 * lines, '#' starts a comment (not "\#"), recipe lines (a leading tab)
 * and define...endef blocks are skipped. ":=" values are expanded at
 * once, others when read. FG_ENOMEM. */
int fg_makevars_parse(fg_makevars **out, const char *text, size_t len);
void fg_makevars_free(fg_makevars *mv);

/* The value of NAME as written (NULL: not set). */
const char *fg_makevars_raw(const fg_makevars *mv, const char *name);

/* `text` with every $(NAME), ${NAME}, $X and $(NAME:a=b) expanded and
 * "$$" made "$"; a function call or a reference nested deeper than 32
 * levels (a variable defined through itself) expands to nothing, and
 * the result is capped at 1 MB. malloc'd; NULL when out of memory. */
char *fg_makevars_expand(const fg_makevars *mv, const char *text);

/* The expanded value of NAME split at blanks, appended to out (nothing
 * when NAME is not set). FG_ENOMEM. */
int fg_makevars_words(const fg_makevars *mv, const char *name, fg_strvec *out);

#endif
