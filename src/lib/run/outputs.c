/* What a run writes: the graph (SVG, HTML, folded stacks, speedscope, pprof)
 * and the --folded copy, each through an atomic output file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "flamegraph/pprof.h"
#include "lib/run/capture_notes.h"
#include "lib/run/run.h"
#include "util/banned.h"

int fg_output_format_parse(fg_output_format *out, const char *name)
{
	static const struct { const char *name; fg_output_format format; } names[] = {
		{ "svg", FG_OUTPUT_SVG }, { "html", FG_OUTPUT_HTML }, { "folded", FG_OUTPUT_FOLDED },
		{ "json", FG_OUTPUT_JSON }, { "pprof", FG_OUTPUT_PPROF },
	};
	unsigned i;

	for (i = 0; name && i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(name, names[i].name)) {
			*out = names[i].format;
			return 0;
		}
	}
	return fg_error_set(FG_EINVAL, "unknown output format '%s' — use svg, html, folded, json or pprof",
			    name ? name : "");
}

const char *fg_output_default_name(fg_output_format format)
{
	switch (format) {
	case FG_OUTPUT_FOLDED: return "stacks.folded";
	case FG_OUTPUT_JSON: return "profile.speedscope.json";
	case FG_OUTPUT_PPROF: return "profile.pb.gz";
	case FG_OUTPUT_HTML: return "flamegraph.html";
	case FG_OUTPUT_NONE: return NULL;
	default: return "flamegraph.svg";
	}
}

/* The graph's file ("-": stdout), or NULL when none is written. */
const char *fg_run_graph_path(const fg_profile_opts *o)
{
	if (o->format == FG_OUTPUT_NONE)
		return NULL;
	return o->output ? o->output : fg_output_default_name(o->format);
}

/* Folded text: the post-processed text when there is one, else straight
 * from the collapser. */
static int write_folded(run *r, FILE *fp)
{
	int err;

	if (r->o->post_process) {
		if (fwrite(r->post.buf, 1, r->post.len, fp) != r->post.len)
			return fg_error_set(FG_EIO, "cannot write the folded stacks: %s", strerror(errno));
		return 0;
	}
	err = fg_collapser_write(r->collapser, fp);
	return err;
}

static int write_json(run *r, FILE *fp)
{
	fg_speedscope_opts so = FG_SPEEDSCOPE_OPTS_INIT;

	so.name = r->program ? r->program : "profile";
	so.git = r->o->git;
	/* a thread's samples are a profile of their own */
	so.per_root = r->o->per_thread;
	if (r->rec.mode != FG_RECORD_ON_CPU)
		so.unit = "microseconds";
	if (r->o->alloc)
		so.unit = r->o->alloc == FG_ALLOC_COUNT ? "none" : "bytes";
	return fg_speedscope_write_opts(fp, &so, r->stacks);
}

/* pprof: perf's default event is cpu-clock, whose sample periods are
 * nanoseconds of CPU time; another event (-c) is counted in samples. */
static int write_pprof(run *r, FILE *fp)
{
	fg_pprof_opts po = FG_PPROF_OPTS_INIT;
	const fg_record_opts *rec = &r->o->record;

	if (r->o->alloc) {
		/* objects and bytes, as Go's heap profiles name them: allocated
		 * (bytes, count), or in use (at the end: leaked; at the peak) */
		bool inuse = r->o->alloc == FG_ALLOC_LEAKED || r->o->alloc == FG_ALLOC_PEAK;
		bool count = r->o->alloc == FG_ALLOC_COUNT;
		const char *objects = inuse ? "inuse_objects" : "alloc_objects";
		const char *space = inuse ? "inuse_space" : "alloc_space";
		po.sample_type = count ? objects : space;
		po.sample_unit = count ? "count" : "bytes";
		po.companion = r->companion;
		po.companion_type = count ? space : objects;
		po.companion_unit = count ? "bytes" : "count";
		po.companion_first = !count;
		po.default_type = po.sample_type;
	} else if (rec->recorder == FG_RECORDER_PERF && rec->mode != FG_RECORD_ON_CPU) {
		po.sample_type = rec->mode == FG_RECORD_OFF_CPU ? "off-cpu" : "time";
		po.sample_unit = "microseconds";
	} else if (rec->recorder == FG_RECORDER_PERF && !rec->custom) {
		po.sample_type = "cpu";
		po.sample_unit = "nanoseconds";
		/* a re-rendered recording may have had another rate */
		if (!r->o->perfdata)
			po.period = (int64_t)(1000000000u / fg_record_freq(rec));
	}
	po.comment = r->program;
	return fg_pprof_write(r->stacks, &po, fp);
}

/* The SVG, with a note when it holds so many frames that a browser is
 * slow to open it. */
static int write_svg(run *r, FILE *fp)
{
	size_t nframes = 0;
	int err = fg_render_svg_ex(r->stacks, &r->render, fp, &nframes);

	if (!err && nframes > FG_RENDER_HTML_ADVISED_FRAMES)
		fg_run_emitf(r, FG_PROFILE_NOTE, "the SVG holds %zu frames and opens slowly in a "
			     "browser — `opts.format=html` writes a page that opens fast", nframes);
	return err;
}

int fg_run_write_outputs(run *r)
{
	double t0 = fg_run_now();
	FILE *fp = r->out ? fg_outfile_stream(r->out) : NULL;
	int err = 0;

	switch (r->o->format) {
	case FG_OUTPUT_NONE:
		break;
	case FG_OUTPUT_FOLDED:
		err = write_folded(r, fp);
		break;
	case FG_OUTPUT_JSON:
		err = write_json(r, fp);
		break;
	case FG_OUTPUT_PPROF:
		err = write_pprof(r, fp);
		break;
	case FG_OUTPUT_HTML:
		err = fg_render_html(r->stacks, &r->render, fp);
		break;
	default:
		err = write_svg(r, fp);
		break;
	}
	if (!err && r->folded)
		err = write_folded(r, fg_outfile_stream(r->folded));
	r->res->seconds_render = fg_run_now() - t0;
	fg_run_emit(r, FG_PROFILE_TIMING, "render", r->res->seconds_render);
	if (err)
		return err;
	if (r->folded) {
		err = fg_outfile_commit(r->folded);
		r->folded = NULL;
		if (err)
			return err;
	}
	if (!r->out)
		return 0;
	err = fg_outfile_commit(r->out);
	r->out = NULL;
	if (!err)
		r->res->output_written = true;
	return err;
}

int fg_run_open_outputs(run *r)
{
	int err;

	if (fg_run_graph_path(r->o) && (err = fg_outfile_open(&r->out, fg_run_graph_path(r->o))))
		return err;
	if (r->o->folded_out && (err = fg_outfile_open(&r->folded, r->o->folded_out)))
		return err;
	return 0;
}

/* What an allocation graph's figures are: estimates when sampled; up to
 * a process' death, and live at it, when one died by a signal. */
static void alloc_subtitle(fg_strbuf *out, const fg_profile_result *res)
{
	const fg_alloc_totals *t = &res->alloc;
	char mean[32];

	if (t->sample_bytes) {
		fg_record_format_size(mean, sizeof(mean), t->sample_bytes);
		fg_strbuf_addf(out, "%sestimates: one allocation sampled per %s allocated, on average",
			       out->len ? " \u2014 " : "", mean);
	}
	if (res->signal && !res->interrupted)
		fg_strbuf_addf(out, "%sthe program died by signal %d: %s; leaked is what was live at "
			       "its death", out->len ? " \u2014 " : "", res->signal,
			       t->snapshots ? "what it recorded up to its last snapshot"
					    : "what it recorded up to then");
	else if (t->snapshots)
		fg_strbuf_addf(out, "%s%llu process%s died without its last word: what it recorded up "
			       "to its last snapshot; leaked is what was live then",
			       out->len ? " \u2014 " : "", (unsigned long long)t->snapshots,
			       t->snapshots == 1 ? "" : "es");
}

/* The graph's subtitle tells what it does not cover. */
int fg_run_make_subtitle(run *r)
{
	fg_capture_subtitle(&r->subtitle, r->o->render.subtitle, r->res, r->recorded_samples);
	if (r->o->alloc)
		alloc_subtitle(&r->subtitle, r->res);
	if (r->subtitle.len && r->o->words) {
		char *said = r->o->words(r->subtitle.buf);
		if (said) {
			fg_strbuf_reset(&r->subtitle);
			fg_strbuf_addstr(&r->subtitle, said);
			free(said);
		}
	}
	r->render = r->o->render;
	if (r->subtitle.len)
		r->render.subtitle = r->subtitle.buf;
	if (r->o->alloc) {
		if (!r->render.title) {
			if (fg_strbuf_addf(&r->title, "Allocation Flame Graph \u2014 %s",
					   fg_alloc_view_name(r->o->alloc)))
				return FG_ENOMEM;
			r->render.title = r->title.buf;
		}
		if (!r->render.count_name)
			r->render.count_name = fg_alloc_view_unit(r->o->alloc);
		if (!r->render.palette)
			r->render.palette = "mem";
	} else if (r->rec.mode != FG_RECORD_ON_CPU) {
		bool hot_cold = r->rec.mode == FG_RECORD_HOT_COLD;
		if (!r->render.title)
			r->render.title = hot_cold ? "Hot/Cold Flame Graph" : "Off-CPU Time Flame Graph";
		if (!r->render.count_name)
			r->render.count_name = "us";
		if (hot_cold)
			r->render.cold_root = FG_OFFCPU_ROOT;
	}
	return 0;
}
