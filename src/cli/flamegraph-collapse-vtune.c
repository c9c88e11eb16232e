/* flamegraph-collapse-vtune: see man/flamegraph-collapse-vtune.1. */
#include "cli/common/collapse_cli.h"
#include "cli/common/memory.h"

int cmd_flamegraph_collapse_vtune(int argc, char **argv)
{
	return fg_collapse_cli_run(argc, argv, "flamegraph-collapse-vtune", FG_FORMAT_VTUNE);
}

int main(int argc, char **argv)
{
	fg_cli_tune_memory();
	return cmd_flamegraph_collapse_vtune(argc, argv);
}
