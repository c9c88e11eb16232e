#include "flamegraph/error.h"
#include "lib/manifest/project.h"
#include "util/banned.h"

int fg_compdb_open(fg_project *p)
{
	return fg_error_set(FG_EINVAL, "%s: compile_commands.json projects are not supported yet", p->loc.file);
}
