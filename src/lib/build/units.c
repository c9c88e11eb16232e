/* Builds compile-db and cc-system targets from their compile units. */
#include "flamegraph/error.h"
#include "lib/manifest/project.h"
#include "util/banned.h"

int fg_units_build(fg_project *p, const struct fg_target *t, fg_build_result *res)
{
	(void)p;
	(void)res;
	return fg_error_set(FG_EINVAL, "building %s: not supported yet", t->name);
}
