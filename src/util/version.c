#include <stdio.h>
#include <string.h>

#include "flamegraph/error.h"
#include "util/error.h"
#include "util/version.h"

/* "1" or "1 to K": the versions a library of version K takes. */
static const char *known_range(char *buf, size_t size, unsigned known)
{
	if (known == 1)
		return "1";
	snprintf(buf, size, "1 to %u", known);
	return buf;
}

int fg_opts_version_known(const char *type, unsigned version, unsigned known)
{
	char range[32];

	if (version >= 1 && version <= known)
		return 0;
	return fg_error_set(FG_EINVAL, "%s version %u is not %s, the version%s of this library",
			    type, version, known_range(range, sizeof(range), known),
			    known == 1 ? "" : "s");
}

int fg_opts_version_check(const char *type, unsigned have, unsigned known)
{
	char range[32];

	if (have >= 1 && have <= known)
		return 0;
	return fg_error_set(FG_EINVAL, "%s version %u is not %s: set the options up with %s_init",
			    type, have, known_range(range, sizeof(range), known), type);
}

int fg_opts_version_embedded(const char *outer, unsigned outer_version, const char *type,
			     unsigned have, unsigned want)
{
	if (have == want)
		return 0;
	return fg_error_set(FG_EINVAL,
			    "%s version %u is not %u, the version %s version %u holds: set the "
			    "options up with %s_init",
			    type, have, want, outer, outer_version, type);
}

int fg_opts_init_as(const char *type, void *opts, unsigned version, const fg_opts_layout *layouts,
		    unsigned known)
{
	int err;

	if ((err = fg_opts_version_known(type, version, known)))
		return err;
	memcpy(opts, layouts[version - 1].defaults, layouts[version - 1].size);
	/* every options struct starts with its version */
	memcpy(opts, &version, sizeof(version));
	return 0;
}

int fg_opts_upgrade(const char *type, void *out, const void *in, const fg_opts_layout *layouts,
		    unsigned known)
{
	unsigned have;
	int err;

	memcpy(&have, in, sizeof(have));
	if ((err = fg_opts_version_check(type, have, known)))
		return err;
	memcpy(out, layouts[known - 1].defaults, layouts[known - 1].size);
	memcpy(out, in, layouts[have - 1].size);
	memcpy(out, &known, sizeof(known));
	return 0;
}
