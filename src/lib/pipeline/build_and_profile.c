/* flamegraph-build's job in one call (fg_build_and_profile, pipeline.h):
 * manifest -> project -> target -> build -> one profiling run, or a
 * comparison and its gate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/builder.h"
#include "flamegraph/error.h"
#include "flamegraph/manifest.h"
#include "flamegraph/pipeline.h"
#include "flamegraph/regress.h"
#include "lib/pipeline/internal.h"
#include "lib/pipeline/opts_v1.h"
#include "util/outfile.h"
#include "util/version.h"

static const fg_build_and_profile_opts build_and_profile_defaults = FG_BUILD_AND_PROFILE_OPTS_INIT;
static const fg_build_and_profile_opts_v1 build_and_profile_v1_defaults =
	FG_BUILD_AND_PROFILE_OPTS_V1_INIT;
static const fg_opts_layout build_and_profile_layouts[] = {
	{ sizeof(fg_build_and_profile_opts_v1), &build_and_profile_v1_defaults },
	{ sizeof(fg_build_and_profile_opts), &build_and_profile_defaults },
};

FG_OPTS_INIT_FUNCTION_OF(fg_build_and_profile_opts, FG_BUILD_AND_PROFILE_OPTS_VERSION,
			 build_and_profile_layouts)

/* The structs o embeds are at the versions its version (caller_version)
 * holds: checked before a build or a run rather than where each is
 * first used (the gate's after both sides ran). */
static int check_embedded(const fg_build_and_profile_opts *o, unsigned caller_version)
{
	static const char outer[] = "fg_build_and_profile_opts";
	unsigned v = caller_version;
	int err;

	if ((err = fg_opts_version_embedded(outer, v, "fg_project_opts", o->project.version,
					    FG_PROJECT_OPTS_VERSION)) ||
	    (err = fg_opts_version_embedded(outer, v, "fg_pipeline_opts", o->run.version,
					    FG_PIPELINE_OPTS_VERSION)) ||
	    (err = fg_opts_version_embedded(outer, v, "fg_pipeline_compare_opts",
					    o->compare.version, FG_PIPELINE_COMPARE_OPTS_VERSION)) ||
	    (err = fg_opts_version_embedded(outer, v, "fg_regress_opts", o->gate_opts.version,
					    FG_REGRESS_OPTS_VERSION)))
		return err;
	return fg_opts_version_embedded(outer, v, "fg_profile_opts", o->run.profile.version,
					FG_PROFILE_OPTS_VERSION);
}

/* *out from a caller's version 1: its fields one by one (those after
 * compare lie elsewhere in version 2), its compare brought up to date. */
static int from_v1(fg_build_and_profile_opts *out, const fg_build_and_profile_opts_v1 *in)
{
	int err;

	if ((err = fg_opts_version_embedded("fg_build_and_profile_opts", 1,
					    "fg_pipeline_compare_opts", in->compare.version, 1)))
		return err;
	*out = build_and_profile_defaults;
	out->manifest_path = in->manifest_path;
	out->project = in->project;
	out->run = in->run;
	out->list = in->list;
	out->on_text = in->on_text;
	out->text_ctx = in->text_ctx;
	out->before_run = in->before_run;
	out->after_run = in->after_run;
	out->run_ctx = in->run_ctx;
	if ((err = fg_pipeline_compare_opts_upgrade(&out->compare,
						    (const fg_pipeline_compare_opts *)&in->compare)))
		return err;
	out->gate = in->gate;
	out->gate_opts = in->gate_opts;
	out->report_format = in->report_format;
	out->report_top = in->report_top;
	out->report_out = in->report_out;
	out->report_stream = in->report_stream;
	return 0;
}

int fg_build_and_profile_opts_current(fg_build_and_profile_opts *out,
				      const fg_build_and_profile_opts *in)
{
	unsigned v = in->version;
	int err;

	if ((err = fg_opts_version_check("fg_build_and_profile_opts", v,
					 FG_BUILD_AND_PROFILE_OPTS_VERSION)))
		return err;
	if (v == 1)
		err = from_v1(out, (const fg_build_and_profile_opts_v1 *)in);
	else
		*out = *in;
	return err ? err : check_embedded(out, v);
}

bool fg_pipeline_weights_are_ns(const fg_profile_opts *po)
{
	return !po->alloc && (po->record.recorder == FG_RECORDER_PERF ||
			     po->record.recorder == FG_RECORDER_NATIVE) && !po->record.custom &&
	       po->record.mode == FG_RECORD_ON_CPU;
}

static int one_run(const fg_build_and_profile_opts *o, const fg_profile_opts *po)
{
	fg_profile_result res = FG_PROFILE_RESULT_INIT;
	int err;

	if (o->before_run)
		o->before_run(o->run_ctx, po);
	err = fg_profile_run(po, &res);
	return o->after_run ? o->after_run(o->run_ctx, po, &res, err) : err;
}

static int profile(const fg_build_and_profile_opts *o, const fg_project *p, const fg_target *t)
{
	fg_pipeline_job job = FG_PIPELINE_JOB_INIT;
	int err = fg_pipeline_job_init(&job, &o->run, p, t);

	if (!err)
		err = one_run(o, &job.profile);
	fg_pipeline_job_release(&job);
	return err;
}

int fg_pipeline_gate_report(const fg_build_and_profile_opts *o, const fg_regress *r)
{
	fg_outfile *of = NULL;
	int err;

	if (!o->report_out)
		return o->report_stream ? fg_regress_report(r, o->report_format, o->report_top,
							    o->report_stream) : 0;
	if ((err = fg_outfile_open(&of, o->report_out)) ||
	    (err = fg_regress_report(r, o->report_format, o->report_top, fg_outfile_stream(of)))) {
		fg_outfile_abort(of);
		return err;
	}
	return fg_outfile_commit(of);
}

/* The gate's options as the runs need them: milliseconds for a cost in
 * nanoseconds. */
static fg_regress_opts gate_opts(const fg_build_and_profile_opts *o)
{
	fg_regress_opts ro = o->gate_opts;

	if (fg_pipeline_weights_are_ns(&o->run.profile)) {
		ro.unit_name = "ms";
		ro.unit_scale = 1e-6;
	}
	return ro;
}

/* The first look of a gate that may run the program again: a change
 * over the threshold whose p-value is not yet under the strict level
 * asks for more runs (fg_regress_undecided). */
static int undecided(void *ctx, fg_folded *const *before, fg_folded *const *after, size_t n,
		     char *what, size_t what_size)
{
	const fg_build_and_profile_opts *o = ctx;
	fg_regress_opts ro = gate_opts(o);
	fg_regress *r = NULL;
	bool open;
	int err;

	if ((err = fg_regress_compare_runs(&r, (const fg_folded *const *)before, n,
					   (const fg_folded *const *)after, n, &ro)))
		return err;
	open = fg_regress_undecided(r, what, what_size);
	fg_regress_free(r);
	return open;
}

int fg_pipeline_compare_judged(const fg_build_and_profile_opts *o, const fg_manifest_loc *loc,
				const fg_project *p, const fg_target *t, fg_regress **judged)
{
	fg_pipeline_compare_opts c = o->compare;
	fg_folded **before = NULL, **after = NULL;
	size_t runs = 0;
	int err;

	*judged = NULL;
	c.loc = loc;
	c.project = &o->project;
	if (!c.build_dir)
		c.build_dir = o->project.build_dir;
	c.before_run = o->before_run;
	c.after_run = o->after_run;
	c.run_ctx = o->run_ctx;
	if (o->gate) {
		c.before_out = &before;
		c.after_out = &after;
		c.runs_out = &runs;
		if (c.max_repeat > c.repeat) {
			c.undecided_cb = undecided;
			c.undecided_ctx = (void *)o;
		}
	}
	err = fg_pipeline_compare(&o->run, &c, p, t);
	/* the gate judges the runs once the graph is written */
	if (!err && before && after) {
		fg_regress_opts ro = gate_opts(o);
		err = fg_regress_compare_runs(judged, (const fg_folded *const *)before, runs,
					      (const fg_folded *const *)after, runs, &ro);
	}
	fg_pipeline_runs_free(before, runs);
	fg_pipeline_runs_free(after, runs);
	return err;
}

static int compare(const fg_build_and_profile_opts *o, const fg_manifest_loc *loc,
		   const fg_project *p, const fg_target *t, fg_build_and_profile_result *res)
{
	fg_regress *r = NULL;
	int err;

	/* the table is written last: a path it cannot have fails now */
	if (o->report_out && strcmp(o->report_out, "-") &&
	    (err = fg_outfile_check(o->report_out, false)))
		return err;
	if (!(err = fg_pipeline_compare_judged(o, loc, p, t, &r)) && r &&
	    !(err = fg_pipeline_gate_report(o, r))) {
		res->gate_failures = fg_regress_failures(r);
		res->gate_failed = res->gate_failures > 0;
	}
	fg_regress_free(r);
	return err;
}

int fg_build_and_profile(const fg_build_and_profile_opts *caller, fg_build_and_profile_result *res)
{
	fg_build_and_profile_opts cur;
	const fg_build_and_profile_opts *o = &cur;
	fg_build_and_profile_result none;
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;
	fg_build_result br = FG_BUILD_RESULT_INIT;
	fg_project *p = NULL;
	const fg_target *t = NULL;
	unsigned long nomem = fg_error_nomem_count();
	int err;

	if (!res)
		res = &none;
	memset(res, 0, sizeof(*res));
	if (!caller)
		return fg_error_set(FG_EINVAL, "no fg_build_and_profile_opts: set them up with "
				    "fg_build_and_profile_opts_init");
	if ((err = fg_build_and_profile_opts_current(&cur, caller)))
		return err;
	/* a kept recording: its graph, with no project */
	if (o->run.profile.perfdata)
		return one_run(o, &o->run.profile);
	if ((err = fg_manifest_find(&loc, o->manifest_path ? o->manifest_path : ".",
				    o->manifest_path != NULL)) ||
	    (err = fg_project_open(&p, &loc, &o->project)))
		goto done;
	if (o->list) {
		char *text = *o->list ? fg_project_names(p, o->list) : fg_project_describe(p);
		/* a list made while an allocation failed may lack a target */
		if (!text || fg_error_nomem_count() != nomem)
			err = fg_error_set(FG_ENOMEM, "out of memory");
		else if (o->on_text)
			o->on_text(o->text_ctx, text);
		free(text);
		goto done;
	}
	if ((err = fg_pipeline_select(&t, p, &o->run.target)) || (err = fg_project_build(p, t, &br)))
		goto done;
	err = o->compare.rev ? compare(o, &loc, p, t, res) : profile(o, p, t);
done:
	fg_project_free(p);
	fg_manifest_loc_release(&loc);
	return err;
}
