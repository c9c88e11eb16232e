/* flamegraph-collapse-perf: see man/flamegraph-collapse-perf.1. */
#include "cli/common/collapse_cli.h"

int cmd_flamegraph_collapse_perf(int argc, char **argv)
{
	return fg_collapse_cli_run(argc, argv, "flamegraph-collapse-perf", FG_FORMAT_PERF);
}

int main(int argc, char **argv)
{
	return cmd_flamegraph_collapse_perf(argc, argv);
}
