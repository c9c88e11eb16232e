/* flamegraph-build's suite mode (fg_build_and_profile_suite, pipeline.h):
 * every test (or bench) of a project whose name matches, each built once
 * and profiled in turn (one at a time: profiles of tests run side by
 * side disturb each other) into one folder: a graph and folded stacks
 * per test, the merged graph with a root frame per test, the index and
 * the summary (suite_index.c). A failing test is recorded, not fatal;
 * an interrupt ends the suite with the index of the tests done. */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flamegraph/builder.h"
#include "flamegraph/error.h"
#include "flamegraph/folded.h"
#include "flamegraph/manifest.h"
#include "flamegraph/pipeline.h"
#include "flamegraph/regress.h"
#include "flamegraph/render.h"
#include "lib/pipeline/internal.h"
#include "lib/pipeline/suite.h"
#include "util/hashmap.h"
#include "util/interrupt.h"
#include "util/outfile.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/version.h"
#include "util/banned.h"

FG_OPTS_INIT_FUNCTION(fg_suite_opts, FG_SUITE_OPTS_VERSION, FG_SUITE_OPTS_INIT)

#define DEFAULT_DIR "flamegraph-tests"
#define MERGED "all"

/* The suite's state: the selected targets and their records. */
struct suite {
	const fg_build_and_profile_opts *o;
	const fg_suite_opts *s;
	const fg_project *p;
	const char *dir;
	const fg_target **targets;
	struct fg_suite_entry *tests;
	size_t n;
	fg_strvec owned;    /* strings the records point into */
	fg_strvec built;    /* build names built so far ("" for the whole) */
	fg_folded *merged;  /* every test's stacks under a root of its name */
	int interrupt_signal; /* of the run that was interrupted */
	/* a comparison: where the project was found, each test's judgment,
	 * and the runs of the test being compared */
	const fg_manifest_loc *loc;
	fg_regress **judged;
	struct fg_suite_entry *current;
	size_t current_runs;
};

static const char *kind_word(fg_target_kind k)
{
	return k == FG_TARGET_BENCH ? "bench" : "test";
}

/* Keeps a copy of s for the records; NULL without memory. */
static const char *keep(struct suite *st, const char *s)
{
	if (!s || fg_strvec_push(&st->owned, s))
		return NULL;
	return st->owned.v[st->owned.n - 1];
}

/* Where the build system's test runner runs a program (CTest's
 * add_test, Meson's test()), that program listed on its own is the
 * runner's test without its arguments, folder and environment: the
 * suite runs it as the runner does, once. */
static void drop_runners_programs(struct suite *st)
{
	size_t kept = 0;

	for (size_t i = 0; i < st->n; i++) {
		const fg_target *t = st->targets[i];
		const char *bn = fg_target_build_name(t);
		bool run_by_runner = false;
		for (size_t j = 0; bn && !fg_target_is_ctest(t) && j < st->n && !run_by_runner; j++) {
			const char *rb = fg_target_build_name(st->targets[j]);
			run_by_runner = fg_target_is_ctest(st->targets[j]) && rb && !strcmp(rb, bn);
		}
		if (!run_by_runner)
			st->targets[kept++] = t;
	}
	st->n = kept;
}

/* The targets of the suite's kind whose names match its pattern, in the
 * project's order. */
static int select_targets(struct suite *st)
{
	const fg_suite_opts *s = st->s;
	size_t count = fg_project_target_count(st->p);
	regex_t re;
	int err = 0;

	if (s->pattern && *s->pattern) {
		int rc = regcomp(&re, s->pattern, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char why[128];
			regerror(rc, &re, why, sizeof(why));
			return fg_error_set(FG_EINVAL, "`opts.suite.pattern` '%s' is not a regular "
					    "expression: %s", s->pattern, why);
		}
	}
	if (!(st->targets = fg_calloc(count ? count : 1, sizeof(*st->targets))))
		err = FG_ENOMEM;
	for (size_t i = 0; !err && i < count; i++) {
		const fg_target *t = fg_project_target(st->p, i);
		if (fg_target_kind_of(t) != s->kind)
			continue;
		if (s->pattern && *s->pattern && regexec(&re, fg_target_name(t), 0, NULL, 0))
			continue;
		st->targets[st->n++] = t;
	}
	if (s->pattern && *s->pattern)
		regfree(&re);
	if (!err)
		drop_runners_programs(st);
	if (!err && !st->n) {
		char *names = fg_project_names(st->p, kind_word(s->kind));
		fg_strbuf line = FG_STRBUF_INIT;
		/* one a line there; an error is one line: "a, b, c" */
		for (const char *c = names; c && *c; c++)
			if (*c != '\n')
				fg_strbuf_addch(&line, *c);
			else if (c[1])
				fg_strbuf_addstr(&line, ", ");
		err = fg_error_set(FG_ENOTFOUND, "no %s of %s%s%s%s — its %s: %s", kind_word(s->kind),
				   fg_project_name(st->p), s->pattern ? " matches '" : "",
				   s->pattern ? s->pattern : "", s->pattern ? "'" : "",
				   s->kind == FG_TARGET_BENCH ? "benches" : "tests", line.len ? line.buf : "(none)");
		fg_strbuf_release(&line);
		free(names);
	}
	return err;
}

/* The stem of a test's files: its name with every byte but letters,
 * digits, '.', '_' and '-' made '_', not starting with '.', and unique
 * in the folder (the merged graph's name included). */
static int file_stem(struct suite *st, size_t i, const char *name)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	int err = 0;

	for (const char *c = name; *c; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			  (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' || (*c == '.' && c != name);
		fg_strbuf_addch(&sb, ok ? *c : '_');
	}
	if (!sb.len)
		fg_strbuf_addch(&sb, '_');
	size_t base = sb.len;
	for (unsigned k = 2; !err; k++) {
		bool taken = !strcmp(sb.buf ? sb.buf : "", MERGED) ||
			     !strcmp(sb.buf ? sb.buf : "", "index") ||
			     !strcmp(sb.buf ? sb.buf : "", "summary");
		for (size_t j = 0; j < i && !taken; j++)
			taken = !strcmp(st->tests[j].file, sb.buf);
		if (!taken)
			break;
		fg_strbuf_setlen(&sb, base);
		fg_strbuf_addf(&sb, "-%u", k);
		err = fg_strbuf_check(&sb);
	}
	if (!err && !(err = fg_strbuf_check(&sb)))
		st->tests[i].file = keep(st, sb.buf);
	if (!err && !st->tests[i].file)
		err = FG_ENOMEM;
	fg_strbuf_release(&sb);
	return err;
}

/* Builds t unless a test before it needed the same build. */
static int build_once(struct suite *st, fg_project *p, const fg_target *t)
{
	const char *key = fg_target_build_name(t) ? fg_target_build_name(t) : "";
	fg_build_result br = FG_BUILD_RESULT_INIT;

	for (size_t i = 0; i < st->built.n; i++)
		if (!strcmp(st->built.v[i], key))
			return 0;
	int err = fg_project_build(p, t, &br);
	return err ? err : fg_strvec_push(&st->built, key);
}

/* ---- one test's stacks: the merged graph and the hottest functions ---- */

struct stacks_walk {
	fg_folded *merged;
	fg_strbuf root;    /* "NAME;" */
	fg_strbuf line;
	fg_strmap self;    /* leaf frame -> samples */
	int err;
};

static int walk_stack(void *ctx, const char *stack, size_t len, fg_count count, fg_count before)
{
	struct stacks_walk *w = ctx;
	const char *leaf = stack;
	fg_strmap_entry *e;

	(void)before;
	fg_strbuf_setlen(&w->line, 0);
	fg_strbuf_add(&w->line, w->root.buf, w->root.len);
	fg_strbuf_add(&w->line, stack, len);
	if ((w->err = fg_strbuf_check(&w->line)) ||
	    (w->err = fg_folded_add_count(w->merged, w->line.buf, w->line.len, count)))
		return w->err;
	for (const char *c = stack; c < stack + len; c++)
		if (*c == ';')
			leaf = c + 1;
	if (!(e = fg_strmap_put(&w->self, leaf, (size_t)(stack + len - leaf))))
		return w->err = FG_ENOMEM;
	e->value.u += count.n;
	return 0;
}

/* The record's three hottest functions by self weight, with their
 * shares of the test's total weight. */
static int hottest(struct suite *st, struct fg_suite_entry *e, const fg_strmap *self, uint64_t total)
{
	fg_strmap_entry *best[FG_SUITE_HOT] = { NULL };
	fg_strmap_entry *x;
	size_t it = 0;

	while ((x = fg_strmap_next(self, &it))) {
		for (size_t k = 0; k < FG_SUITE_HOT; k++) {
			if (best[k] && (best[k]->value.u > x->value.u ||
					(best[k]->value.u == x->value.u && strcmp(best[k]->key, x->key) <= 0)))
				continue;
			memmove(&best[k + 1], &best[k], (FG_SUITE_HOT - 1 - k) * sizeof(best[0]));
			best[k] = x;
			break;
		}
	}
	for (size_t k = 0; k < FG_SUITE_HOT && best[k]; k++) {
		if (!(e->hot[k] = keep(st, best[k]->key)))
			return FG_ENOMEM;
		e->hot_share[k] = total ? (double)best[k]->value.u / (double)total : 0;
	}
	return 0;
}

static int take_stacks(struct suite *st, struct fg_suite_entry *e, const fg_folded *stacks)
{
	struct stacks_walk w = { .merged = st->merged, .root = FG_STRBUF_INIT,
				 .line = FG_STRBUF_INIT, .self = FG_STRMAP_INIT };
	int err;

	fg_strbuf_addf(&w.root, "%s;", e->name);
	if (!(err = fg_strbuf_check(&w.root)) && !(err = fg_folded_foreach(stacks, walk_stack, &w)))
		err = w.err;
	if (!err)
		err = hottest(st, e, &w.self, fg_folded_total(stacks).n);
	fg_strbuf_release(&w.root);
	fg_strbuf_release(&w.line);
	fg_strmap_release(&w.self);
	return err;
}

/* Whether a stop was requested (Ctrl-C...) while no run was watching:
 * then test e is marked interrupted and the suite stops. */
static bool interrupted(struct suite *st, struct fg_suite_entry *e, bool *stop)
{
	if (!fg_interrupt_count())
		return false;
	e->status = FG_SUITE_INTERRUPTED;
	st->interrupt_signal = fg_interrupt_signal();
	*stop = true;
	return true;
}

/* ---- a comparison of each test ---- */

/* Around each run of a test's comparison: the program's report, and the
 * record of a run that failed; only an interrupt ends the comparison. */
static void compare_before_run(void *ctx, const fg_profile_opts *po)
{
	const struct suite *st = ctx;

	if (st->o->before_run)
		st->o->before_run(st->o->run_ctx, po);
}

static int compare_after_run(void *ctx, const fg_profile_opts *po, const fg_profile_result *res,
			     int err)
{
	struct suite *st = ctx;
	struct fg_suite_entry *e = st->current;

	if (st->o->after_run)
		st->o->after_run(st->o->run_ctx, po, res, err);
	e->wall_seconds += (res->seconds_run - e->wall_seconds) / (double)++st->current_runs;
	e->samples += res->samples;
	if (err == FG_EINTR || res->interrupted) {
		e->status = FG_SUITE_INTERRUPTED;
		st->interrupt_signal = res->interrupt_signal;
		return FG_EINTR;
	}
	if (res->signal && e->status < FG_SUITE_CRASHED) {
		e->status = FG_SUITE_CRASHED;
		e->signal = res->signal;
	} else if (res->workload_failed && e->status < FG_SUITE_FAILED) {
		e->status = FG_SUITE_FAILED;
		e->exit_code = res->exit_code;
	}
	return err == FG_ENODATA ? 0 : err;
}

/* Test i against itself at the revision: its differential graph, and the
 * gate's judgment of its runs (kept for the report). */
static int compare_test(struct suite *st, fg_project *p, size_t i, const char *svg, bool *stop)
{
	struct fg_suite_entry *e = &st->tests[i];
	fg_build_and_profile_opts one = *st->o;
	fg_regress *r = NULL;
	int err;

	one.run.target = (fg_pipeline_target){ .kind = st->s->kind, .name = e->name };
	one.run.profile.output = svg;
	one.run.profile.folded_out = NULL;
	one.run.profile.format = e->html ? FG_OUTPUT_HTML : FG_OUTPUT_SVG;
	/* judged always, for the test's change; failures count with a gate */
	one.gate = true;
	one.before_run = compare_before_run;
	one.after_run = compare_after_run;
	one.run_ctx = st;
	st->current = e;
	st->current_runs = 0;
	e->compared = true;
	e->change = NAN;
	if (interrupted(st, e, stop))
		return 0;
	err = fg_pipeline_compare_judged(&one, st->loc, p, st->targets[i], &r);
	fg_interrupt_set_active(true);
	if (err == FG_EINTR || e->status == FG_SUITE_INTERRUPTED) {
		*stop = true;
		e->status = FG_SUITE_INTERRUPTED;
		fg_regress_free(r);
		return 0;
	}
	if (err == FG_ENOMEM)
		return err;
	if (err) {
		if (e->status == FG_SUITE_PASSED)
			e->status = err == FG_ENODATA ? FG_SUITE_NO_SAMPLES : FG_SUITE_ERROR;
		if (e->status == FG_SUITE_ERROR)
			e->note = keep(st, fg_error_last());
		fg_regress_free(r);
		return 0;
	}
	e->has_graph = true;
	if (r) {
		const fg_regress_total *tot = fg_regress_total_of(r);
		const fg_regress_row *worst = fg_regress_count(r) ? fg_regress_row_at(r, 0) : NULL;
		e->change = tot ? tot->change : NAN;
		if (st->o->gate && (e->gate_failures = fg_regress_failures(r)) && worst && worst->over) {
			e->worst = keep(st, worst->func);
			e->worst_change = worst->change;
		}
	}
	st->judged[i] = r;
	return 0;
}

/* The gate's report of a suite: the tests whose functions grew past the
 * threshold, worst first, each with its table. */
static int write_report_to(const struct suite *st, size_t done, FILE *out)
{
	const fg_build_and_profile_opts *o = st->o;
	bool md = o->report_format == FG_REGRESS_MARKDOWN;
	size_t *order = fg_calloc(done ? done : 1, sizeof(*order)), n = 0;
	int err = 0;

	if (!order)
		return FG_ENOMEM;
	for (size_t i = 0; i < done; i++)
		if (st->tests[i].gate_failures && st->judged[i])
			order[n++] = i;
	/* worst first: the largest change past the threshold */
	for (size_t a = 1; a < n; a++)
		for (size_t b = a; b > 0 && st->tests[order[b]].worst_change >
					    st->tests[order[b - 1]].worst_change; b--) {
			size_t x = order[b];
			order[b] = order[b - 1];
			order[b - 1] = x;
		}
	if (!n)
		fprintf(out, "%sgate passed: no function of the %zu %ss grew by more than %.2f%%\n",
			md ? "## " : "", done, kind_word(st->s->kind), o->gate_opts.fail_above);
	else
		fprintf(out, "%sgate failed: %zu of %zu %ss grew by more than %.2f%%, worst first\n",
			md ? "## " : "", n, done, kind_word(st->s->kind), o->gate_opts.fail_above);
	for (size_t k = 0; k < n && !err; k++) {
		const struct fg_suite_entry *e = &st->tests[order[k]];
		fprintf(out, md ? "\n### %s %s: %s %+.1f%%\n\n" : "\n%s %s: %s %+.1f%%\n",
			kind_word(st->s->kind), e->name, e->worst ? e->worst : "", e->worst_change);
		err = fg_regress_report(st->judged[order[k]], o->report_format, o->report_top, out);
	}
	free(order);
	return err;
}

static int write_report(const struct suite *st, size_t done)
{
	const fg_build_and_profile_opts *o = st->o;
	fg_outfile *of = NULL;
	int err;

	if (!o->report_out)
		return o->report_stream ? write_report_to(st, done, o->report_stream) : 0;
	if ((err = fg_outfile_open(&of, o->report_out)) ||
	    (err = write_report_to(st, done, fg_outfile_stream(of)))) {
		fg_outfile_abort(of);
		return err;
	}
	return fg_outfile_commit(of);
}

/* ---- one test's run ---- */

static char *out_path(const struct suite *st, const char *stem, const char *ext)
{
	fg_strbuf sb = FG_STRBUF_INIT;

	fg_strbuf_addf(&sb, "%s/%s%s", st->dir, stem, ext);
	return fg_strbuf_detach(&sb, NULL);
}

/* The record of a run that ended with err and res. */
static void record_result(struct suite *st, struct fg_suite_entry *e, const fg_profile_opts *po,
			  const fg_profile_result *res, const fg_count *total, int err)
{
	e->wall_seconds = res->seconds_run;
	e->samples = res->samples;
	e->exit_code = res->exit_code;
	e->signal = res->signal;
	e->has_graph = res->output_written;
	e->cpu_seconds = -1;
	if (total && fg_pipeline_weights_are_ns(po))
		e->cpu_seconds = (double)total->n / 1e9;
	else if (total && po->record.recorder == FG_RECORDER_PERF && !po->record.custom &&
		 po->record.mode == FG_RECORD_ON_CPU && !po->alloc)
		e->cpu_seconds = (double)total->n / fg_record_freq(&po->record);
	if (err == FG_EINTR || res->interrupted)
		e->status = FG_SUITE_INTERRUPTED;
	else if (res->signal)
		e->status = FG_SUITE_CRASHED;
	else if (res->workload_failed)
		e->status = FG_SUITE_FAILED;
	else if (err == FG_ENODATA)
		e->status = FG_SUITE_NO_SAMPLES;
	else if (err) {
		e->status = FG_SUITE_ERROR;
		e->note = keep(st, fg_error_last());
	}
}

/* Profiles test i. *stop: the suite ends here (an interrupt, or a
 * recorder that cannot run at all). Errors: FG_ENOMEM and the like. */
static int run_test(struct suite *st, fg_project *p, size_t i, bool *stop)
{
	const fg_build_and_profile_opts *o = st->o;
	struct fg_suite_entry *e = &st->tests[i];
	fg_pipeline_job job = FG_PIPELINE_JOB_INIT;
	fg_profile_result res = FG_PROFILE_RESULT_INIT;
	fg_folded *stacks = NULL;
	bool html = o->run.profile.format == FG_OUTPUT_HTML;
	char *svg = out_path(st, e->file, html ? ".html" : ".svg");
	char *folded = out_path(st, e->file, ".folded");
	int err, run_err;

	if (!svg || !folded) {
		err = FG_ENOMEM;
		goto done;
	}
	e->html = html;
	if (o->run.profile.on_event) {
		fg_strbuf msg = FG_STRBUF_INIT;
		fg_strbuf_addf(&msg, "%s %zu of %zu: %s", kind_word(st->s->kind), i + 1, st->n, e->name);
		if (!(err = fg_strbuf_check(&msg)))
			o->run.profile.on_event(o->run.profile.event_ctx, FG_PROFILE_NOTE, msg.buf, 0);
		fg_strbuf_release(&msg);
		if (err)
			goto done;
	}
	err = build_once(st, p, st->targets[i]);
	/* a Ctrl-C during a build stops the suite there (the outputs of the
	 * tests done are written), not at the next run */
	if (err != FG_ENOMEM && interrupted(st, e, stop)) {
		err = 0;
		goto done;
	}
	if (err) {
		if (err == FG_ENOMEM)
			goto done;
		e->status = FG_SUITE_NOT_BUILT;
		e->note = keep(st, fg_error_last());
		err = 0;
		goto done;
	}
	if (o->compare.rev) {
		err = compare_test(st, p, i, svg, stop);
		goto done;
	}
	if ((err = fg_pipeline_job_init(&job, &o->run, p, st->targets[i]))) {
		if (err == FG_ENOMEM)
			goto done;
		e->status = FG_SUITE_ERROR;
		e->note = keep(st, fg_error_last());
		err = 0;
		goto done;
	}
	job.profile.output = svg;
	job.profile.folded_out = folded;
	job.profile.format = html ? FG_OUTPUT_HTML : FG_OUTPUT_SVG;
	job.profile.stacks_out = &stacks;
	/* a request made since is seen here: the run forgets earlier ones */
	if (interrupted(st, e, stop))
		goto done;
	if (o->before_run)
		o->before_run(o->run_ctx, &job.profile);
	run_err = fg_profile_run(&job.profile, &res);
	fg_interrupt_set_active(true);
	fg_count total = stacks ? fg_folded_total(stacks) : (fg_count){ 0, 0 };
	record_result(st, e, &job.profile, &res, stacks ? &total : NULL, run_err);
	/* the program's own report of the run; a failed test is the index's
	 * news, not the end of the suite */
	if (o->after_run)
		o->after_run(o->run_ctx, &job.profile, &res, run_err);
	if (run_err == FG_ENOMEM) {
		err = run_err;
		goto done;
	}
	if (e->status == FG_SUITE_INTERRUPTED)
		st->interrupt_signal = res.interrupt_signal;
	*stop = e->status == FG_SUITE_INTERRUPTED || (run_err && !res.recorded && run_err != FG_ENODATA);
	if (*stop && e->status == FG_SUITE_ERROR)
		err = run_err;
	if (!err && stacks)
		err = take_stacks(st, e, stacks);
done:
	fg_folded_free(stacks);
	fg_pipeline_job_release(&job);
	free(svg);
	free(folded);
	return err;
}

/* all.svg (all.html with the HTML format): every test's stacks under a
 * root frame of its name. */
static int write_merged(struct suite *st, struct fg_suite_summary *sum)
{
	fg_render_opts ro = st->o->run.profile.render;
	fg_strbuf title = FG_STRBUF_INIT;
	bool html = st->o->run.profile.format == FG_OUTPUT_HTML;
	char *path = out_path(st, MERGED, html ? ".html" : ".svg");
	fg_outfile *of = NULL;
	int err;

	if (!path)
		return FG_ENOMEM;
	fg_strbuf_addf(&title, "%s: %zu %ss", fg_project_name(st->p), st->n, kind_word(st->s->kind));
	if ((err = fg_strbuf_check(&title)))
		goto done;
	ro.title = title.buf;
	if ((err = fg_outfile_open(&of, path)) ||
	    (err = html ? fg_render_html(st->merged, &ro, fg_outfile_stream(of)) :
			  fg_render_svg(st->merged, &ro, fg_outfile_stream(of)))) {
		fg_outfile_abort(of);
		goto done;
	}
	if (!(err = fg_outfile_commit(of)))
		sum->merged = html ? MERGED ".html" : MERGED ".svg";
done:
	fg_strbuf_release(&title);
	free(path);
	return err;
}

/* The outputs' folder, made when missing; a file of that name is
 * refused before anything is built or run. */
static int make_folder(const char *dir)
{
	struct stat sb;

	if (stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode))
		return fg_error_set(FG_EINVAL, "%s is a file, and a suite writes a folder — give "
				    "`opts.suite.out_dir` a folder's name", dir);
	return fg_mkdir_p(dir);
}

/* What a sample of the graphs weighs. */
static const char *weight_unit(const fg_profile_opts *po)
{
	if (po->alloc)
		return po->alloc == FG_ALLOC_COUNT ? "allocations" : "bytes";
	if (po->record.mode != FG_RECORD_ON_CPU)
		return "us";
	return fg_pipeline_weights_are_ns(po) ? "ns" : "samples";
}

static void count_results(const struct suite *st, size_t done, bool interrupted,
			  fg_suite_result *res)
{
	res->tests = st->n;
	res->interrupted = interrupted;
	for (size_t i = 0; i < done; i++) {
		switch (st->tests[i].status) {
		case FG_SUITE_PASSED: res->passed++; break;
		case FG_SUITE_NO_SAMPLES: res->no_samples++; break;
		case FG_SUITE_FAILED:
		case FG_SUITE_CRASHED: res->failed++; break;
		case FG_SUITE_NOT_BUILT:
		case FG_SUITE_ERROR: res->errors++; break;
		case FG_SUITE_INTERRUPTED: break;
		}
		if (st->tests[i].gate_failures)
			res->gate_failed++;
	}
}

static int run_suite(struct suite *st, fg_project *p, fg_suite_result *res)
{
	struct fg_suite_summary sum = { .project = fg_project_name(p), .kind = kind_word(st->s->kind),
					.pattern = st->s->pattern, .unit = "samples" };
	size_t done = 0;
	bool stop = false;
	int err = 0;

	if (!(st->tests = fg_calloc(st->n, sizeof(*st->tests))) ||
	    !(st->judged = fg_calloc(st->n, sizeof(*st->judged))) || (err = fg_folded_new(&st->merged)))
		return err ? err : FG_ENOMEM;
	if (st->o->compare.rev) {
		sum.rev = st->o->compare.rev;
		sum.fail_above = st->o->gate ? st->o->gate_opts.fail_above : -1;
	} else {
		sum.fail_above = -1;
	}
	for (size_t i = 0; i < st->n && !err; i++) {
		st->tests[i].name = fg_target_name(st->targets[i]);
		st->tests[i].cpu_seconds = -1;
		err = file_stem(st, i, st->tests[i].name);
	}
	if (!err)
		err = make_folder(st->dir);
	/* a stop request between the runs (a build, the bookkeeping) ends the
	 * suite with its outputs, as one during a run does */
	if (!err && !(err = fg_interrupt_init())) {
		fg_interrupt_reset();
		fg_interrupt_set_active(true);
	}
	while (!err && !stop && done < st->n)
		err = run_test(st, p, done++, &stop);
	fg_interrupt_set_active(false);
	if (err)
		return err;
	sum.unit = weight_unit(&st->o->run.profile);
	sum.interrupted = stop && done && st->tests[done - 1].status == FG_SUITE_INTERRUPTED;
	if (fg_folded_total(st->merged).n && (err = write_merged(st, &sum)))
		return err;
	if ((err = fg_suite_write_index(st->dir, &sum, st->tests, done)) ||
	    (err = fg_suite_write_summary(st->dir, &sum, st->tests, done)))
		return err;
	if (st->o->compare.rev && st->o->gate && (err = write_report(st, done)))
		return err;
	count_results(st, done, sum.interrupted, res);
	res->interrupt_signal = st->interrupt_signal;
	return 0;
}

int fg_build_and_profile_suite(const fg_build_and_profile_opts *caller, const fg_suite_opts *s,
			       fg_suite_result *res)
{
	fg_build_and_profile_opts cur;
	fg_suite_result none;
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;
	fg_project *p = NULL;
	struct suite st = { .o = &cur, .s = s, .owned = FG_STRVEC_INIT, .built = FG_STRVEC_INIT };
	int err;

	if (!res)
		res = &none;
	memset(res, 0, sizeof(*res));
	if (!caller || !s)
		return fg_error_set(FG_EINVAL, "no %s: set them up with %s_init",
				    caller ? "fg_suite_opts" : "fg_build_and_profile_opts",
				    caller ? "fg_suite_opts" : "fg_build_and_profile_opts");
	if ((err = fg_build_and_profile_opts_current(&cur, caller)) ||
	    (err = fg_opts_version_check("fg_suite_opts", s->version, FG_SUITE_OPTS_VERSION)))
		return err;
	if (s->kind != FG_TARGET_TEST && s->kind != FG_TARGET_BENCH)
		return fg_error_set(FG_EINVAL, "`opts.suite.kind` must be test or bench");
	st.dir = s->out_dir && *s->out_dir ? s->out_dir : DEFAULT_DIR;
	if ((err = fg_manifest_find(&loc, cur.manifest_path ? cur.manifest_path : ".",
				    cur.manifest_path != NULL)) ||
	    (err = fg_project_open(&p, &loc, &cur.project)))
		goto done;
	st.p = p;
	st.loc = &loc;
	/* the gate's table is written last: a path it cannot have fails now */
	if (cur.compare.rev && cur.gate && cur.report_out && strcmp(cur.report_out, "-") &&
	    (err = fg_outfile_check(cur.report_out, false)))
		goto done;
	if (!(err = select_targets(&st)))
		err = run_suite(&st, p, res);
done:
	for (size_t i = 0; st.judged && i < st.n; i++)
		fg_regress_free(st.judged[i]);
	free(st.judged);
	fg_folded_free(st.merged);
	free(st.targets);
	free(st.tests);
	fg_strvec_clear(&st.owned);
	fg_strvec_clear(&st.built);
	fg_project_free(p);
	fg_manifest_loc_release(&loc);
	return err;
}
