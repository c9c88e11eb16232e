/* flamegraph-collapse-sample: see man/flamegraph-collapse-sample.1. */
#include "cli/common/collapse_cli.h"
#include "cli/common/memory.h"

int cmd_flamegraph_collapse_sample(int argc, char **argv)
{
	return fg_collapse_cli_run(argc, argv, "flamegraph-collapse-sample", FG_FORMAT_SAMPLE);
}

int main(int argc, char **argv)
{
	fg_cli_tune_memory();
	return cmd_flamegraph_collapse_sample(argc, argv);
}
