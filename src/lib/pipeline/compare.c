/* Comparing a target with itself at another git revision: export, build,
 * profile both sides, join the stacks in memory, write one graph. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/builder.h"
#include "flamegraph/error.h"
#include "flamegraph/pipeline.h"
#include "lib/pipeline/opts_v1.h"
#include "util/outfile.h"
#include "util/strbuf.h"
#include "util/version.h"
#include "util/banned.h"

typedef struct side {
	const fg_project *p;
	const fg_target *t;
	fg_strbuf label;    /* "main @ 1a2b3c4d", "working tree (dirty)" */
	fg_strbuf graph;    /* OUTPUT.before.svg with side outputs */
	char subtitle[512]; /* of its plain graph */
	fg_folded **runs;   /* one per run */
	size_t nruns;
	fg_folded *merged;  /* the runs added up (several runs only) */
} side;

typedef struct cmp {
	const fg_pipeline_opts *o;
	const fg_pipeline_compare_opts *c;
	const fg_profile_opts *po;
	fg_git_info gi;
	char id[FG_GIT_ID_SIZE];
	fg_strbuf base;     /* <build dir>; exports go to base/compare/ */
	fg_project *rp;     /* the project at REV */
	side before, after;
	const char *output;
	size_t repeat;      /* runs a side in a batch, at least 1 */
	size_t planned;     /* runs a side when the current batch ends */
	size_t cap;         /* room in each side's runs */
} cmp;

static void emitf(const cmp *c, fg_profile_event kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void emitf(const cmp *c, fg_profile_event kind, const char *fmt, ...)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	va_list ap;

	if (!c->po->on_event)
		return;
	va_start(ap, fmt);
	fg_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	c->po->on_event(c->po->event_ctx, kind, sb.buf, 0);
	fg_strbuf_release(&sb);
}

/* The export of REV under the build dir, reused when an earlier run made it. */
static int export_rev(cmp *c, fg_strbuf *dir, const char *root)
{
	fg_git_export_result er = FG_GIT_EXPORT_RESULT_INIT;
	char *path = NULL;
	bool reused = false;
	int err = fg_compare_export(&path, &reused, &er, c->base.buf, root, c->id);

	if (!err && reused)
		emitf(c, FG_PROFILE_NOTE, "reusing the export of %.12s in %s", c->id, path);
	else if (!err)
		emitf(c, FG_PROFILE_NOTE, "exported %.12s (%zu files) to %s", c->id, er.files, path);
	if (!err && er.skipped_submodules)
		emitf(c, FG_PROFILE_WARNING, "submodules are not exported (%s): the %.12s build "
		      "sees them empty", er.skipped_submodules, c->id);
	if (!err)
		fg_strbuf_addstr(dir, path);
	fg_git_export_result_release(&er);
	free(path);
	return err;
}

/* The project as it was at REV: the same manifest, relative to the
 * repository, in the export; built in its own build/flamegraph. */
static int open_rev_project(cmp *c, const char *exported)
{
	fg_manifest_loc rloc = FG_MANIFEST_LOC_INIT;
	fg_project_opts ropts = *c->c->project;
	fg_strbuf path = FG_STRBUF_INIT;
	const char *workdir = c->gi.workdir;
	char *real = realpath(c->c->loc->file, NULL);
	size_t n = strlen(workdir);
	int err;

	if (!real || strncmp(real, workdir, n) || real[n] != '/') {
		err = fg_error_set(FG_EINVAL, "%s is not inside the git work tree %s — a comparison "
				   "needs the project under git", c->c->loc->file, workdir);
		goto done;
	}
	fg_strbuf_addf(&path, "%s/%s", exported, real + n + 1);
	if (access(path.buf, F_OK) != 0) {
		err = fg_error_set(FG_ENOTFOUND, "%s does not exist at that revision — compare with a "
				   "revision that has it", real + n + 1);
		goto done;
	}
	ropts.build_dir = NULL;
	if (!(err = fg_manifest_find(&rloc, path.buf, true)))
		err = fg_project_open(&c->rp, &rloc, &ropts);
done:
	fg_manifest_loc_release(&rloc);
	fg_strbuf_release(&path);
	free(real);
	return err;
}

/* OUTPUT.before.svg / OUTPUT.after.svg next to the differential graph. */
static void side_output(fg_strbuf *out, const char *output, const char *name)
{
	size_t n = strlen(output);

	if (n > 4 && !strcmp(output + n - 4, ".svg"))
		n -= 4;
	fg_strbuf_addf(out, "%.*s.%s.svg", (int)n, output, name);
}

/* REV exported, opened and built. */
static int prepare_rev(cmp *c, const fg_project *p, const fg_target *t)
{
	fg_strbuf dir = FG_STRBUF_INIT;
	fg_build_result br = FG_BUILD_RESULT_INIT;
	int err;

	if (fg_git_provenance(&c->gi, fg_project_root(p)) || !c->gi.workdir || !*c->gi.workdir)
		return fg_error_set(FG_EINVAL, "`opts.compare.rev` needs a git repository, and %s is not in "
				    "one — run 'git init' and commit, or drop `opts.compare.rev`",
				    fg_project_root(p));
	if ((err = fg_git_resolve(c->id, fg_project_root(p), c->c->rev)))
		return err;
	if (c->c->build_dir)
		fg_strbuf_addstr(&c->base, c->c->build_dir);
	else
		fg_strbuf_addf(&c->base, "%s/build/flamegraph", fg_project_root(p));
	if ((err = fg_strbuf_check(&c->base)))
		return err;
	if (!(err = export_rev(c, &dir, fg_project_root(p))) && !(err = open_rev_project(c, dir.buf))) {
		emitf(c, FG_PROFILE_NOTE, "building %s at %s", fg_target_name(t), c->c->rev);
		if (!(err = fg_pipeline_select(&c->before.t, c->rp, &c->o->target)))
			err = fg_project_build(c->rp, c->before.t, &br);
	}
	c->before.p = c->rp;
	fg_strbuf_release(&dir);
	return err;
}

/* "main @ 1a2b3c4d" (just the id when REV was one), and the working tree's
 * label. 0 or FG_ENOMEM. */
static int make_labels(cmp *c)
{
	char label[512];
	int err;

	snprintf(label, sizeof(label), "%.8s", c->id);
	if (!strncmp(c->id, c->c->rev, strlen(c->c->rev)))
		fg_strbuf_addstr(&c->before.label, label);
	else
		fg_strbuf_addf(&c->before.label, "%s @ %s", c->c->rev, label);
	snprintf(c->before.subtitle, sizeof(c->before.subtitle), "%s", c->before.label.buf);
	fg_git_info_format(c->after.subtitle, sizeof(c->after.subtitle), &c->gi);
	fg_strbuf_addstr(&c->after.label, c->gi.dirty ? "working tree (dirty)" :
			 c->after.subtitle);
	if (c->c->side_outputs) {
		side_output(&c->before.graph, c->output, "before");
		side_output(&c->after.graph, c->output, "after");
	}
	if ((err = fg_strbuf_check(&c->before.label)) || (err = fg_strbuf_check(&c->after.label)) ||
	    (err = fg_strbuf_check(&c->before.graph)))
		return err;
	return fg_strbuf_check(&c->after.graph);
}

/* Run `run` of one side: its plain graph only with side outputs (of the
 * last run), its stacks kept for the join and the gate; the recording is
 * kept (--perfdata-out) for the working tree's last run only. */
static int profile_side(cmp *c, side *s, bool working_tree, size_t run)
{
	fg_pipeline_job job = FG_PIPELINE_JOB_INIT;
	fg_profile_result res = FG_PROFILE_RESULT_INIT;
	fg_pipeline_opts o = *c->o;
	fg_profile_opts *po = &o.profile;
	bool last = run + 1 == c->planned;
	char of[64] = "";
	int err, stop;

	po->format = c->c->side_outputs && last ? FG_OUTPUT_SVG : FG_OUTPUT_NONE;
	po->output = c->c->side_outputs && last ? s->graph.buf : NULL;
	po->folded_out = NULL;
	po->render.subtitle = s->subtitle;
	po->stacks_out = &s->runs[run];
	if (!working_tree || !last)
		po->perfdata_out = NULL;
	if (c->planned > 1)
		snprintf(of, sizeof(of), " (run %zu of %zu)", run + 1, c->planned);
	if (working_tree)
		emitf(c, FG_PROFILE_NOTE, "profiling %s in the working tree%s", fg_target_name(s->t), of);
	else
		emitf(c, FG_PROFILE_NOTE, "profiling %s at %s%s", fg_target_name(s->t), s->label.buf, of);
	if ((err = fg_pipeline_job_init(&job, &o, s->p, s->t)))
		goto done;
	if (c->c->before_run)
		c->c->before_run(c->c->run_ctx, &job.profile);
	err = fg_profile_run(&job.profile, &res);
	if (c->c->after_run && (stop = c->c->after_run(c->c->run_ctx, &job.profile, &res, err)))
		err = stop;
	if (!err)
		s->nruns = run + 1;
done:
	fg_pipeline_job_release(&job);
	return err;
}

static int add_stack(void *ctx, const char *stack, size_t len, fg_count count, fg_count before)
{
	(void)before;
	return fg_folded_add_count(ctx, stack, len, count);
}

/* The runs of a side added up, for the differential graph. */
static const fg_folded *all_runs(side *s)
{
	if (s->nruns == 1)
		return s->runs[0];
	if (fg_folded_new(&s->merged))
		return NULL;
	for (size_t i = 0; i < s->nruns; i++)
		if (fg_folded_foreach(s->runs[i], add_stack, s->merged))
			return NULL;
	return s->merged;
}

/* before, after, before, after...: drift of the machine weighs on both */
static int profile_batch(cmp *c, size_t from)
{
	int err = 0;

	for (size_t i = from; !err && i < c->planned; i++)
		if (!(err = profile_side(c, &c->before, false, i)))
			err = profile_side(c, &c->after, true, i);
	return err;
}

/* A batch of runs, then more batches while the gate cannot tell yet
 * (undecided_cb) and max_repeat allows. */
static int profile_runs(cmp *c)
{
	size_t most = c->c->max_repeat > c->repeat ? c->c->max_repeat : c->repeat;
	char what[256];
	size_t from;
	int err, open;

	c->cap = c->c->undecided_cb ? most : c->repeat;
	if (!(c->before.runs = fg_calloc(c->cap, sizeof(fg_folded *))) ||
	    !(c->after.runs = fg_calloc(c->cap, sizeof(fg_folded *))))
		return FG_ENOMEM;
	c->planned = c->repeat;
	err = profile_batch(c, 0);
	while (!err && c->planned < c->cap) {
		what[0] = 0;
		open = c->c->undecided_cb(c->c->undecided_ctx, c->before.runs, c->after.runs,
					  c->planned, what, sizeof(what));
		if (open < 0)
			return open;
		if (!open)
			break;
		from = c->planned;
		c->planned = from + c->repeat < c->cap ? from + c->repeat : c->cap;
		emitf(c, FG_PROFILE_NOTE, "%zu runs a side cannot tell %s from noise yet: "
		      "%zu more a side", from, what, c->planned - from);
		err = profile_batch(c, from);
	}
	return err;
}

static int write_diff(cmp *c)
{
	fg_compare_opts co = FG_COMPARE_OPTS_INIT;
	fg_strbuf sub = FG_STRBUF_INIT, title = FG_STRBUF_INIT;
	int err;

	fg_strbuf_addf(&sub, "%s → %s", c->before.label.buf, c->after.label.buf);
	co.render = c->po->render;
	if (!co.render.title && c->po->alloc) {
		fg_strbuf_addf(&title, "Differential Allocation Flame Graph — %s",
			       fg_alloc_view_name(c->po->alloc));
		co.render.title = title.buf;
	}
	if (!co.render.count_name && c->po->alloc)
		co.render.count_name = fg_alloc_view_unit(c->po->alloc);
	if (!co.render.title)
		co.render.title = "Differential Flame Graph";
	if (!co.render.subtitle)
		co.render.subtitle = sub.buf;
	co.format = c->po->format;
	co.folded_out = c->po->folded_out;
	const fg_folded *b = all_runs(&c->before), *a = b ? all_runs(&c->after) : NULL;

	err = a ? fg_compare_write_stacks(b, a, c->output, &co) :
		  fg_error_set(FG_ENOMEM, "out of memory adding the runs up");
	if (!err && strcmp(c->output, "-"))
		emitf(c, FG_PROFILE_NOTE, "wrote %s: %s (red: grew, blue: shrank)", c->output, sub.buf);
	fg_strbuf_release(&sub);
	fg_strbuf_release(&title);
	return err;
}

/* The plain graphs are named after the output, beside it: stdout and a
 * device or FIFO (/dev/null: /dev/null.before.svg) have no such names. */
static int side_outputs_refused(const cmp *c, bool std_out)
{
	return fg_error_set(FG_EINVAL, "`opts.compare.side_outputs` writes the plain graphs beside "
			    "the output file, named after it, and %s%s — give `opts.output` a file "
			    "name, or drop `opts.compare.side_outputs`",
			    std_out ? "the output is stdout" : c->output,
			    std_out ? "" : " is a device or FIFO");
}

/* The graphs are written last: a path they cannot have fails before the
 * work. */
static int check_outputs(const cmp *c)
{
	bool in_place = false;
	int err;

	if (c->po->folded_out && strcmp(c->po->folded_out, "-") &&
	    (err = fg_outfile_check(c->po->folded_out, false)))
		return err;
	if (!strcmp(c->output, "-"))
		return c->c->side_outputs ? side_outputs_refused(c, true) : 0;
	if ((err = fg_outfile_in_place(&in_place, c->output)))
		return err;
	if (c->c->side_outputs && in_place)
		return side_outputs_refused(c, false);
	for (int i = 0; c->c->side_outputs && !err && i < 2; i++) {
		fg_strbuf name = FG_STRBUF_INIT;

		side_output(&name, c->output, i ? "after" : "before");
		if (!(err = fg_strbuf_check(&name)))
			err = fg_outfile_check(name.buf, false);
		fg_strbuf_release(&name);
	}
	return err;
}

/* Before anything is exported, built or run. */
static int check(const cmp *c)
{
	if (c->po->format == FG_OUTPUT_JSON || c->po->format == FG_OUTPUT_PPROF ||
	    c->po->format == FG_OUTPUT_NONE)
		return fg_error_set(FG_EINVAL, "a differential graph has no %s form — use "
				    "`opts.format=svg` or `opts.format=folded` with `opts.compare.rev`",
				    c->po->format == FG_OUTPUT_PPROF ? "pprof" : "speedscope");
	if ((c->po->format == FG_OUTPUT_SVG || c->po->format == FG_OUTPUT_HTML) &&
	    fg_render_opts_check(&c->po->render))
		return FG_EINVAL;
	return check_outputs(c);
}

void fg_pipeline_runs_free(fg_folded **runs, size_t n)
{
	if (!runs)
		return;
	for (size_t i = 0; i < n; i++)
		fg_folded_free(runs[i]);
	free(runs);
}

static void side_release(side *s, size_t repeat)
{
	fg_strbuf_release(&s->label);
	fg_strbuf_release(&s->graph);
	fg_pipeline_runs_free(s->runs, repeat);
	fg_folded_free(s->merged);
}

static const fg_pipeline_compare_opts compare_defaults = FG_PIPELINE_COMPARE_OPTS_INIT;
/* version 1 ends where runs_out, the first field of version 2, begins */
static const fg_opts_layout compare_layouts[] = {
	{ offsetof(fg_pipeline_compare_opts, runs_out), &compare_defaults },
	{ sizeof(fg_pipeline_compare_opts), &compare_defaults },
};

FG_OPTS_INIT_FUNCTION_OF(fg_pipeline_compare_opts, FG_PIPELINE_COMPARE_OPTS_VERSION, compare_layouts)

int fg_pipeline_compare_opts_upgrade(fg_pipeline_compare_opts *out,
				     const fg_pipeline_compare_opts *in)
{
	return fg_opts_upgrade("fg_pipeline_compare_opts", out, in, compare_layouts,
			       FG_PIPELINE_COMPARE_OPTS_VERSION);
}

int fg_pipeline_compare(const fg_pipeline_opts *opts, const fg_pipeline_compare_opts *copts,
			const fg_project *p, const fg_target *t)
{
	cmp c;
	fg_git_info gi = FG_GIT_INFO_INIT;
	fg_pipeline_compare_opts cur;
	int err;

	if ((err = fg_opts_version_check("fg_pipeline_opts", opts->version,
					 FG_PIPELINE_OPTS_VERSION)) ||
	    (err = fg_pipeline_compare_opts_upgrade(&cur, copts)))
		return err;
	copts = &cur;
	memset(&c, 0, sizeof(c));
	fg_strbuf_init(&c.before.label, 0);
	fg_strbuf_init(&c.before.graph, 0);
	fg_strbuf_init(&c.after.label, 0);
	fg_strbuf_init(&c.after.graph, 0);
	c.o = opts;
	c.c = copts;
	c.po = &opts->profile;
	c.gi = gi;
	c.after.p = p;
	c.after.t = t;
	c.output = c.po->output ? c.po->output : fg_output_default_name(c.po->format);
	c.repeat = copts->repeat ? copts->repeat : 1;
	fg_strbuf_init(&c.base, 0);
	if (!(err = check(&c)) && !(err = prepare_rev(&c, p, t))) {
		if (!(err = make_labels(&c)) && !(err = profile_runs(&c)))
			err = write_diff(&c);
		if (!err && copts->before_out && copts->after_out) {
			*copts->before_out = c.before.runs;
			*copts->after_out = c.after.runs;
			if (copts->runs_out)
				*copts->runs_out = c.planned;
			c.before.runs = c.after.runs = NULL;
		}
	}
	fg_project_free(c.rp);
	fg_git_info_release(&c.gi);
	fg_strbuf_release(&c.base);
	side_release(&c.before, c.cap);
	side_release(&c.after, c.cap);
	return err;
}
