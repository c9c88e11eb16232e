/* The version checks of the versioned options structs (docs/
 * ARCHITECTURE.md, "The public API"), worded once. */
#ifndef FG_UTIL_VERSION_H
#define FG_UTIL_VERSION_H

/* For TYPE_init(opts, version): 0 when version is known, else FG_EINVAL
 * ("TYPE version V is not K, the version of this library"). */
int fg_opts_version_known(const char *type, unsigned version, unsigned known);

/* For a function handed a TYPE: 0 when opts->version (have) is known,
 * else FG_EINVAL saying to set the options up with TYPE_init. */
int fg_opts_version_check(const char *type, unsigned have, unsigned known);

/* Writes TYPE_init(TYPE *opts, unsigned version): *opts set to INIT (the
 * header's defaults) and 0 for a version this library knows (VERSION),
 * else FG_EINVAL and *opts untouched. */
#define FG_OPTS_INIT_FUNCTION(TYPE, VERSION, INIT)                   \
	int TYPE##_init(TYPE *opts, unsigned version)                \
	{                                                            \
		static const TYPE defaults = INIT;                   \
		if (fg_opts_version_known(#TYPE, version, VERSION)) \
			return FG_EINVAL;                            \
		*opts = defaults;                                    \
		return 0;                                            \
	}

#endif
