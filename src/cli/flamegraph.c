/* flamegraph: profile a command, running processes or a perf.data and
 * write a flame graph. The work is fg_profile_run (flamegraph/profile.h). */
#include <stdlib.h>
#include <string.h>

#include "cli/common/diag.h"
#include "cli/common/memory.h"
#include "cli/common/signals.h"
#include "cli/common/opts.h"
#include "cli/common/profile_opts.h"
#include "flamegraph/error.h"
#include "flamegraph/profile.h"

int cmd_flamegraph(int argc, char **argv)
{
	static fg_profile_cli pc = FG_PROFILE_CLI_INIT;
	static fg_strlist pid_args = FG_STRLIST_INIT, pids = FG_STRLIST_INIT;
	static const char *perfdata;
	static const fg_option options[] = {
		FG_OPT_GROUP("What to profile"),
		FG_OPT_LIST('p', "pid", &pid_args, "PID[,PID...]", "record running processes until they exit or Ctrl-C"),
		FG_OPT_STRING(0, "perfdata", &perfdata, "FILE", "render an existing perf.data (or perf script / DTrace text)"),
		FG_OPT_GROUP("Output"),
		FG_PROFILE_CLI_OUTPUT_ROWS(pc),
		FG_OPT_GROUP("Recording"),
		FG_PROFILE_CLI_RECORD_ROWS(pc),
		FG_OPT_GROUP("Graph"),
		FG_PROFILE_CLI_RENDER_ROWS(pc),
		FG_OPT_END(),
	};
	static const fg_cli cli = {
		"flamegraph", "[OPTIONS] [-o out.svg] [--] CMD ARGS... | --pid PID[,PID...] | --perfdata FILE",
		"Profiles CMD (or running processes, or an existing recording) with the\n"
		"kernel's perf events (or perf; DTrace on macOS/BSD) and writes an\n"
		"interactive flame graph; with --alloc, a graph of CMD's memory\n"
		"allocations (bytes, count, leaked or peak).",
		"Environment:\n"
		"  PERF, DTRACE   the recorder to run (default: perf / dtrace on PATH; PERF\n"
		"                 set: perf records)\n"
		"  BROWSER        the program --open uses (default: xdg-open / open)\n"
		"\n" FG_PROFILE_CLI_EXIT_HELP
		"\nExamples:\n"
		"  flamegraph -- ./myprog --input big.txt\n"
		"  flamegraph --call-graph fp -F 4999 -o fast.svg ./myprog\n"
		"  flamegraph --pid 1234 --folded stacks.folded\n"
		"  flamegraph --alloc=leaked -o leaks.svg -- ./myprog   (allocations, no perf)\n"
		"  flamegraph --perfdata perf.data --title 'last night'",
		options, true, true,
	};
	fg_profile_opts po = FG_PROFILE_OPTS_INIT;
	int npos = 0, dashdash = 0, code;

	fg_diag_init("flamegraph");
	fg_cli_signals_init();
	code = fg_opts_parse(&cli, argc, argv, &npos, &dashdash);
	if (code)
		return code == FG_OPTS_EXIT ? FG_EXIT_OK : FG_EXIT_USAGE;
	if ((code = fg_profile_cli_apply(&po, &pc)))
		goto done;
	if (fg_strlist_split_commas(&pids, &pid_args)) {
		code = fg_die_lib(FG_ENOMEM);
		goto done;
	}
	if ((npos > 0) + (pids.count > 0) + (perfdata != NULL) != 1) {
		fg_errorf("%s (see 'flamegraph --help')", npos || pids.count || perfdata ?
			  "give only one of a command, --pid or --perfdata" :
			  "nothing to profile — give a command (flamegraph -- ./prog args), "
			  "--pid PID or --perfdata FILE");
		code = FG_EXIT_USAGE;
		goto done;
	}
	po.argv = (const char *const *)argv;
	po.argc = (size_t)npos;
	po.pids = pids.items;
	po.npids = pids.count;
	po.perfdata = perfdata;
	code = fg_profile_cli_run(&po, &pc);
done:
	fg_strlist_release(&pids);
	fg_strlist_release(&pid_args);
	fg_profile_cli_release(&pc);
	return code;
}

int main(int argc, char **argv)
{
	fg_cli_tune_memory();
	return cmd_flamegraph(argc, argv);
}
