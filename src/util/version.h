/* The versions of the versioned options structs (docs/ARCHITECTURE.md,
 * "The public API"): the checks, worded once, and the _init functions.
 *
 * A library of version K of a struct takes every version from 1 to K: a
 * program compiled against an older header hands in a smaller struct,
 * of which the library reads only the fields of that version. A version
 * adds its fields at the end, so the fields of an older version are a
 * prefix of the current struct; its size is the offset of the first
 * field the next version added. */
#ifndef FG_UTIL_VERSION_H
#define FG_UTIL_VERSION_H

#include <stddef.h>

/* Version v of an options struct as a program compiled with it has it:
 * the bytes of that version (no more: the caller's struct may end there)
 * and its defaults laid out as that version lays them out. */
typedef struct fg_opts_layout {
	size_t size;
	const void *defaults;
} fg_opts_layout;

/* For TYPE_init(opts, version): 0 for a version from 1 to known, else
 * FG_EINVAL ("TYPE version V is not 1 to K, the versions of this
 * library"). */
int fg_opts_version_known(const char *type, unsigned version, unsigned known);

/* For a function handed a TYPE: 0 when opts->version (have) is from 1 to
 * known, else FG_EINVAL saying to set the options up with TYPE_init. */
int fg_opts_version_check(const char *type, unsigned have, unsigned known);

/* For a TYPE embedded in an OUTER of version outer_version, which holds
 * TYPE at version want: 0 when have is want, else FG_EINVAL saying to set
 * the TYPE up with TYPE_init. */
int fg_opts_version_embedded(const char *outer, unsigned outer_version, const char *type,
			     unsigned have, unsigned want);

/* The body of TYPE_init: for a version from 1 to known, writes
 * layouts[version - 1] (its size in bytes, from its defaults) to opts,
 * with that version in its first field, and returns 0; else FG_EINVAL
 * and opts untouched. */
int fg_opts_init_as(const char *type, void *opts, unsigned version, const fg_opts_layout *layouts,
		    unsigned known);

/* For a function handed a TYPE whose every version is a prefix of the
 * current one (known, layouts[known - 1] its whole size): checks the
 * version of in (fg_opts_version_check), then sets *out, a struct of the
 * current version, to the defaults with the bytes of in's version copied
 * over them; out's version is then known. Nothing past in's version is
 * read. */
int fg_opts_upgrade(const char *type, void *out, const void *in, const fg_opts_layout *layouts,
		    unsigned known);

/* Writes TYPE_init(TYPE *opts, unsigned version) for a struct that has
 * one version (VERSION, 1), its defaults INIT (the header's macro), and
 * TYPE_defaults and TYPE_layouts for the file's own use. */
#define FG_OPTS_INIT_FUNCTION(TYPE, VERSION, INIT)                    \
	static const TYPE TYPE##_defaults = INIT;                       \
	static const fg_opts_layout TYPE##_layouts[] = {                \
		{ sizeof(TYPE), &TYPE##_defaults },                     \
	};                                                              \
	FG_OPTS_INIT_FUNCTION_OF(TYPE, VERSION, TYPE##_layouts)

/* Writes TYPE_init for a struct with a layout per version in LAYOUTS,
 * version 1 first: a struct raised to version 2 without one does not
 * compile. */
#define FG_OPTS_INIT_FUNCTION_OF(TYPE, VERSION, LAYOUTS)                             \
	_Static_assert(sizeof(LAYOUTS) / sizeof((LAYOUTS)[0]) == (VERSION),            \
		       #TYPE ": one layout for each version from 1 to " #VERSION);     \
	int TYPE##_init(TYPE *opts, unsigned version)                                  \
	{                                                                              \
		return fg_opts_init_as(#TYPE, opts, version, LAYOUTS, VERSION);        \
	}

#endif
