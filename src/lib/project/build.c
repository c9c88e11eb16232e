/* Building the chosen target: the build system the manifest reader chose
 * (p->system), then the link-layout fix (rosegment.c). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/project/build.h"
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

static int cmake_build_once(fg_project *p, const struct fg_target *t, bool *failed)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 0, 0 };
	long jobs = p->opts.jobs > 0 ? p->opts.jobs : sysconf(_SC_NPROCESSORS_ONLN);
	int err;

	fg_strvec_push(&cmd.argv, "cmake");
	fg_strvec_push(&cmd.argv, "--build");
	fg_strvec_push(&cmd.argv, p->build_dir);
	if (t->build_name) {
		fg_strvec_push(&cmd.argv, "--target");
		fg_strvec_push(&cmd.argv, t->build_name);
	}
	fg_strvec_push(&cmd.argv, "--parallel");
	err = fg_strvec_pushf(&cmd.argv, "%ld", jobs > 0 ? jobs : 1);
	if (!err)
		err = fg_build_tool_run(p, &cmd, false, &st);
	*failed = !err && st.code != 0;
	fg_cmd_clear(&cmd);
	return err;
}

int fg_cmake_build(fg_project *p, const struct fg_target *t, fg_build_result *res)
{
	const char *exe = t->build_name ? t->exe : NULL;
	long long before = exe ? fg_path_mtime(exe) : -1;
	bool failed = false, relink;
	int err;

	if ((err = cmake_build_once(p, t, &failed)))
		return err;
	if (failed)
		return fg_error_set(FG_EBUILD, "building %s failed (the compiler's output is above) — "
				    "fix the error and run again", t->build_name ? t->build_name : p->name);
	res->rebuilt = !exe || fg_path_mtime(exe) != before;
	if (!exe)
		return 0;
	fg_rosegment_after_link(p, exe, t->build_name, " to CMAKE_EXE_LINKER_FLAGS", res, &relink);
	if (relink) {
		/* configure again: the flag joins CMAKE_EXE_LINKER_FLAGS */
		unlink(exe);
		if ((err = fg_cmake_configure(p)) || (err = cmake_build_once(p, t, &failed)))
			return err;
		if (failed)
			return fg_error_set(FG_EBUILD, "building %s failed — fix the error and run again",
					    t->build_name);
		res->rebuilt = true;
		res->no_rosegment = true;
	}
	if (res->no_rosegment && res->rebuilt)
		fg_project_note(p, "linked with %s: -Wl,--no-rosegment added", res->linker);
	return 0;
}

int fg_project_build(fg_project *p, const fg_target *t, fg_build_result *res)
{
	fg_build_result empty = FG_BUILD_RESULT_INIT;
	int err;

	*res = empty;
	switch (p->system) {
	case FG_BUILD_CMAKE:
		err = fg_cmake_build(p, t, res);
		break;
	case FG_BUILD_CC:
		err = fg_cc_build(p, t, res);
		break;
	case FG_BUILD_COMMAND:
		err = fg_command_build(p, t, res);
		break;
	case FG_BUILD_COMPDB:
		err = fg_compdb_build(p, t, res);
		break;
	case FG_BUILD_MESON:
		err = fg_meson_build(p, t, res);
		break;
	case FG_BUILD_AUTOTOOLS:
		err = fg_autotools_build(p, t, res);
		break;
	case FG_BUILD_MAKE:
		err = fg_make_build(p, t, res);
		break;
	default:
		err = fg_error_set(FG_EINVAL, "%s: no way to build target '%s'", p->loc.file, t->name);
		break;
	}
	if (!err && !res->rebuilt)
		fg_project_note(p, "%s is up to date", t->build_name ? t->build_name : t->name);
	return err;
}
