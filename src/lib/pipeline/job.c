/* One run of a built target: the profile options derived from the target,
 * its project and the caller's template. */
#include <stdio.h>
#include <string.h>

#include "flamegraph/builder.h"
#include "flamegraph/error.h"
#include "flamegraph/pipeline.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/version.h"
#include "util/banned.h"

static void note(const fg_profile_opts *po, const char *msg)
{
	if (po->on_event)
		po->on_event(po->event_ctx, FG_PROFILE_NOTE, msg, 0);
}

/* "profiling CTest test NAME: CMD (in DIR; ...)" (or a Meson test or
 * benchmark): a test run by a script or in its own folder is not
 * obviously what the graph shows. */
static void note_ctest(const fg_pipeline_job *job, const fg_project *p, const fg_target *t)
{
	const char *what = fg_target_runner_kind(p, t);
	fg_strvec argv = { .v = job->spec.argv, .n = job->spec.argc, .alloc = job->spec.argc };
	fg_strbuf shown = FG_STRBUF_INIT, msg = FG_STRBUF_INIT;

	fg_strvec_join_quoted(&argv, &shown);
	fg_strbuf_addf(&msg, "profiling %s %s: %s (in %s; perf follows its child processes)",
		       what, fg_target_name(t), shown.buf, job->spec.cwd ? job->spec.cwd : ".");
	note(&job->profile, msg.buf);
	fg_strbuf_release(&shown);
	fg_strbuf_release(&msg);
}

int fg_pipeline_select(const fg_target **out, const fg_project *p, const fg_pipeline_target *sel)
{
	if (sel->unit_test)
		return fg_project_select_unit(out, p, sel->name);
	if (sel->unit_bench)
		return fg_project_select_unit_bench(out, p, sel->name);
	return fg_project_select(out, p, sel->kind, sel->name);
}

FG_OPTS_INIT_FUNCTION(fg_pipeline_opts, FG_PIPELINE_OPTS_VERSION, FG_PIPELINE_OPTS_INIT)

int fg_pipeline_job_init(fg_pipeline_job *job, const fg_pipeline_opts *opts,
			 const fg_project *p, const fg_target *t)
{
	fg_profile_opts *po = &job->profile;
	int err;

	/* a flamegraph.toml test says how it takes a filter; guessing would
	 * hand it an argument it may reject or misread */
	bool unit = opts->target.unit_test || opts->target.unit_bench;

	if ((err = fg_opts_version_check("fg_pipeline_opts", opts->version,
					 FG_PIPELINE_OPTS_VERSION)))
		return err;
	if (unit && opts->nargs && !fg_target_filter(t) && fg_project_declares_filters(p))
		return fg_error_set(FG_EINVAL, "%s '%s' declares no filter — add filter = "
				    "\"--filter={}\" (its own syntax) to its [[%s]] entry in "
				    "flamegraph.toml, or run it without one",
				    opts->target.unit_bench ? "bench" : "test", fg_target_name(t),
				    opts->target.unit_bench ? "bench" : "test");
	*po = opts->profile;
	err = fg_target_run_spec(&job->spec, t, opts->args, opts->nargs, unit);
	if (err)
		return err;
	po->argv = (const char *const *)job->spec.argv;
	po->argc = job->spec.argc;
	po->env = (const char *const *)job->spec.env;
	po->nenv = job->spec.nenv;
	po->cwd = job->spec.cwd;
	po->pids = NULL;
	po->npids = 0;
	po->perfdata = NULL;
	/* a test run by a script or interpreter: the ELF checks would judge
	 * /usr/bin/sh, not the project's code */
	if (fg_target_is_ctest(t) && !fg_target_build_name(t))
		po->check_elf = false;
	po->fix_style = fg_project_fix_style(p);
	if (fg_git_provenance(&job->git, fg_project_root(p)) == 0) {
		po->git = &job->git;
		if (!po->render.subtitle) {
			fg_git_info_format(job->subtitle, sizeof(job->subtitle), &job->git);
			po->render.subtitle = job->subtitle;
		}
	}
	fg_error_clear();
	if (fg_target_is_ctest(t))
		note_ctest(job, p, t);
	return 0;
}

void fg_pipeline_job_release(fg_pipeline_job *job)
{
	fg_git_info_release(&job->git);
	fg_run_spec_release(&job->spec);
}
