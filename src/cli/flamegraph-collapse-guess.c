/* flamegraph-collapse-guess: see man/flamegraph-collapse-guess.1. */
#include "cli/common/collapse_cli.h"

int cmd_flamegraph_collapse_guess(int argc, char **argv)
{
	return fg_collapse_cli_run(argc, argv, "flamegraph-collapse-guess", FG_FORMAT_UNKNOWN);
}

int main(int argc, char **argv)
{
	return cmd_flamegraph_collapse_guess(argc, argv);
}
