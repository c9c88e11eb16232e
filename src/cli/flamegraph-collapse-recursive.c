/* flamegraph-collapse-recursive: see man/flamegraph-collapse-recursive.1. */
#include "cli/common/collapse_cli.h"
#include "cli/common/memory.h"

int cmd_flamegraph_collapse_recursive(int argc, char **argv)
{
	return fg_collapse_cli_run(argc, argv, "flamegraph-collapse-recursive", FG_FORMAT_RECURSIVE);
}

int main(int argc, char **argv)
{
	fg_cli_tune_memory();
	return cmd_flamegraph_collapse_recursive(argc, argv);
}
