#include "flamegraph/error.h"
#include "lib/manifest/project.h"
#include "util/banned.h"

int fg_tomlproj_open(fg_project *p)
{
	return fg_error_set(FG_EINVAL, "%s: flamegraph.toml projects are not supported yet", p->loc.file);
}
