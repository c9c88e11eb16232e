/* flamegraph-collapse-ghcprof: see man/flamegraph-collapse-ghcprof.1. */
#include "cli/common/collapse_cli.h"
#include "cli/common/memory.h"

int cmd_flamegraph_collapse_ghcprof(int argc, char **argv)
{
	return fg_collapse_cli_run(argc, argv, "flamegraph-collapse-ghcprof", FG_FORMAT_GHCPROF);
}

int main(int argc, char **argv)
{
	fg_cli_tune_memory();
	return cmd_flamegraph_collapse_ghcprof(argc, argv);
}
