/* flamegraph-collapse-dtrace: see man/flamegraph-collapse-dtrace.1. */
#include "cli/common/collapse_cli.h"

int cmd_flamegraph_collapse_dtrace(int argc, char **argv)
{
	return fg_collapse_cli_run(argc, argv, "flamegraph-collapse-dtrace", FG_FORMAT_DTRACE);
}

int main(int argc, char **argv)
{
	return cmd_flamegraph_collapse_dtrace(argc, argv);
}
