/* Building a target of a CMake project: cmake --build in the configured
 * folder, then the link-layout fix, which for CMake means configuring
 * again with the flag in CMAKE_EXE_LINKER_FLAGS. */
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "lib/project/cmake/cmake.h"
#include "util/banned.h"

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
