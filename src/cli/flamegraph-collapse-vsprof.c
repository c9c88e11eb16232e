/* flamegraph-collapse-vsprof: see man/flamegraph-collapse-vsprof.1. */
#include "cli/common/collapse_cli.h"
#include "cli/common/memory.h"

int cmd_flamegraph_collapse_vsprof(int argc, char **argv)
{
	return fg_collapse_cli_run(argc, argv, "flamegraph-collapse-vsprof", FG_FORMAT_VSPROF);
}

int main(int argc, char **argv)
{
	fg_cli_tune_memory();
	return cmd_flamegraph_collapse_vsprof(argc, argv);
}
