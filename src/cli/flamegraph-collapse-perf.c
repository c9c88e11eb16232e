/* flamegraph-collapse-perf: see man/flamegraph-collapse-perf.1. */
#include "cli/common/collapse_cli.h"
#include "cli/common/memory.h"

int cmd_flamegraph_collapse_perf(int argc, char **argv)
{
	return fg_collapse_cli_run(argc, argv, "flamegraph-collapse-perf", FG_FORMAT_PERF);
}

int main(int argc, char **argv)
{
	fg_cli_tune_memory();
	return cmd_flamegraph_collapse_perf(argc, argv);
}
