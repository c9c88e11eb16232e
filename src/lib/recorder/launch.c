/* The command, started held: stopped right after its exec where it may
 * be traced (the events are then opened on a process that already is
 * the program, and what it has mapped is read from /proc), else waiting
 * before its exec (the events are then opened off, to be turned on by
 * the exec itself). Either way nothing it runs is missed. */
#include "flamegraph/error.h"
#include "lib/recorder/internal.h"
#include "util/banned.h"

int rn_launch_spawn(const fg_recorder_opts *o, fg_child *child, bool *after_exec)
{
	fg_cmd cmd = FG_CMD_INIT;
	int err = 0;

	cmd.hold = true;
	cmd.stdout_fd = o->workload_stdout;
	if (o->nenv)
		err = fg_strvec_pushv(&cmd.env, o->env, o->nenv);
	if (!err && o->cwd)
		err = fg_cmd_set_cwd(&cmd, o->cwd);
	if (!err)
		err = fg_strvec_pushv(&cmd.argv, o->argv, o->argc);
	if (!err)
		err = fg_cmd_spawn(&cmd, child);
	fg_cmd_clear(&cmd);
	*after_exec = !err && child->traced;
	return err;
}
