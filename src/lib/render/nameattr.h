/* The renderer's --nameattr file (nameattr.c). */
#ifndef FG_LIB_RENDER_NAMEATTR_H
#define FG_LIB_RENDER_NAMEATTR_H

#include <stdbool.h>
#include <stddef.h>

#include "util/hashmap.h"
#include "util/strbuf.h"

/* Extra attributes for frames by name. */
struct fg_nameattr {
	fg_strmap names;    /* name -> index + 1 into sets */
	struct fg_nameattr_set {
		char *title;    /* replaces the tooltip */
		bool link;      /* an <a> (href given) instead of <g> */
		fg_strbuf attrs; /* ready to paste: ` k="v"` pairs, escaped */
	} *sets;
	size_t nsets;
};

/* Reads the file at path into na (zeroed before the first call). FG_EPARSE
 * with file:line for a malformed line, errors of fg_read_file. */
int fg_nameattr_load(struct fg_nameattr *na, const char *path);
void fg_nameattr_release(struct fg_nameattr *na);

#endif
