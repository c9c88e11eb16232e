/* flamegraph-collapse-xctrace: see man/flamegraph-collapse-xctrace.1. */
#include "cli/common/collapse_cli.h"
#include "cli/common/memory.h"

int cmd_flamegraph_collapse_xctrace(int argc, char **argv)
{
	return fg_collapse_cli_run(argc, argv, "flamegraph-collapse-xctrace", FG_FORMAT_XCTRACE);
}

int main(int argc, char **argv)
{
	fg_cli_tune_memory();
	return cmd_flamegraph_collapse_xctrace(argc, argv);
}
