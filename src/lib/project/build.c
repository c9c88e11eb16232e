/* Building the chosen target, by its build system (system.h), and the
 * running of the build tools that every kind shares. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "lib/project/system.h"
#include "util/banned.h"

int fg_build_tool_run(const fg_project *p, fg_cmd *cmd, bool quiet, fg_exit_status *st)
{
	fg_strbuf shown = FG_STRBUF_INIT;
	int err, null_fd = -1, out_fd = cmd->stdout_fd;

	if (p->opts.verbose) {
		fg_strvec_join_quoted(&cmd->argv, &shown);
		fg_project_note(p, "running %s", shown.buf);
		fg_strbuf_release(&shown);
	}
	/* chatter on stdout is dropped (else it goes to stderr, as for every
	 * child); the tools report failures on stderr, which stays the user's */
	if (quiet && !p->opts.verbose && (null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) >= 0)
		cmd->stdout_fd = null_fd;
	err = fg_cmd_run(cmd, st);
	if (null_fd >= 0) {
		close(null_fd);
		cmd->stdout_fd = out_fd;
	}
	return err;
}

int fg_project_build(fg_project *p, const fg_target *t, fg_build_result *res)
{
	fg_build_result empty = FG_BUILD_RESULT_INIT;
	int err;

	*res = empty;
	err = p->system->build(p, t, res);
	if (!err && !res->rebuilt)
		fg_project_note(p, "%s is up to date", t->build_name ? t->build_name : t->name);
	return err;
}
