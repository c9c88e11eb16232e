/* Building a target of a Meson project: `meson compile -C BUILD NAME:TYPE`
 * for the targets it needs (a test's or benchmark's dependencies as Meson
 * lists them), then the link-layout fix (-Wl,--no-rosegment) for lld and mold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/builder.h"
#include "flamegraph/error.h"
#include "lib/project/meson/meson.h"
#include "lib/project/project.h"
#include "lib/project/build.h"
#include "util/banned.h"


static const fg_strvec *needs(const fg_project *p, const struct fg_target *t)
{
	const fg_meson_state *st = p->state;
	size_t i = (size_t)(t - p->targets);

	return st && i < st->ncompile ? &st->compile[i] : NULL;
}

static int compile_once(fg_project *p, const struct fg_target *t, bool *failed)
{
	const fg_strvec *list = needs(p, t);
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 0, 0 };
	int err;

	fg_strvec_push(&cmd.argv, "meson");
	fg_strvec_push(&cmd.argv, "compile");
	fg_strvec_push(&cmd.argv, "-C");
	fg_strvec_push(&cmd.argv, p->build_dir);
	if (p->opts.jobs > 0)
		fg_strvec_pushf(&cmd.argv, "-j%d", p->opts.jobs);
	/* nothing listed (a test script that names no dependency): all, as
	 * `meson test` would build */
	err = list ? fg_strvec_pushv(&cmd.argv, (const char *const *)list->v, list->n) : 0;
	if (!err)
		err = fg_build_tool_run(p, &cmd, false, &st);
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "meson is not installed — install it "
				   "(Debian/Ubuntu: apt-get install meson ninja-build)");
	*failed = !err && st.code != 0;
	fg_cmd_clear(&cmd);
	return err;
}

static int compile(fg_project *p, const struct fg_target *t)
{
	bool failed = false;
	int err = compile_once(p, t, &failed);

	if (!err && failed)
		err = fg_error_set(FG_EBUILD, "building %s with meson failed (the compiler's output is "
				   "above) — fix the error and run again",
				   t->build_name ? t->build_name : t->name);
	return err;
}

/* lld and mold: remember -Wl,--no-rosegment in the build folder, so that
 * this and every later configure links with it, and build again. */
static int relink_no_rosegment(fg_project *p, const struct fg_target *t, fg_build_result *res)
{
	int err;

	fg_rosegment_mark(p);
	fg_project_note(p, "%s is linked by %s: adding -Wl,--no-rosegment to c_link_args so perf "
			"maps its code correctly", t->build_name, res->linker);
	unlink(t->exe);
	if ((err = fg_meson_configure(p)) || (err = compile(p, t)))
		return err;
	res->rebuilt = true;
	return 0;
}

int fg_meson_build(fg_project *p, const struct fg_target *t, fg_build_result *res)
{
	const char *exe = t->build_name ? t->exe : NULL;
	char *log = fg_path_join(p->build_dir, ".ninja_log");
	long long before = exe ? fg_path_mtime(exe) : -1, log_before = log ? fg_path_mtime(log) : -1;
	int err;

	if ((err = compile(p, t)))
		goto done;
	/* ninja writes its log only when it ran something */
	res->rebuilt = exe ? fg_path_mtime(exe) != before : log && fg_path_mtime(log) != log_before;
	if (!exe || fg_build_linker_of(exe, res->linker, sizeof(res->linker))) {
		fg_error_clear();
		goto done;
	}
	if ((!strcmp(res->linker, "LLD") || !strcmp(res->linker, "mold")) && !p->no_rosegment &&
	    (err = relink_no_rosegment(p, t, res)))
		goto done;
	if (p->no_rosegment && (!strcmp(res->linker, "LLD") || !strcmp(res->linker, "mold"))) {
		res->no_rosegment = true;
		if (res->rebuilt)
			fg_project_note(p, "linked with %s: -Wl,--no-rosegment added", res->linker);
	}
done:
	free(log);
	return err;
}
