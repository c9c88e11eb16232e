/* A recording read into a collapser outside a profiling run
 * (fg_profile_collapse_perfdata, profile.h): the run's own choice between
 * the native reader and perf script (fg_run_unsupported_note). */

#include "flamegraph/error.h"
#include "flamegraph/profile.h"
#include "run.h"
#include "util/strbuf.h"
#include "util/version.h"

FG_OPTS_INIT_FUNCTION(fg_perfdata_read_opts, FG_PERFDATA_READ_OPTS_VERSION, FG_PERFDATA_READ_OPTS_INIT)

static int feed(void *ctx, const char *buf, size_t len)
{
	return fg_collapser_feed(ctx, buf, len);
}

static void on_script_line(void *ctx, fg_record_event ev, const char *line, double elapsed,
			   uint64_t bytes)
{
	const fg_perfdata_read_opts *o = ctx;
	fg_strbuf msg = FG_STRBUF_INIT;

	(void)elapsed;
	(void)bytes;
	if (ev != FG_RECORD_WARNING || !line || !o->on_event)
		return;
	if (!fg_strbuf_addf(&msg, "perf script: %s", line))
		o->on_event(o->event_ctx, FG_PROFILE_WARNING, msg.buf, 0);
	fg_strbuf_release(&msg);
}

static int through_perf_script(fg_collapser *c, const char *path, const fg_perfdata_read_opts *o)
{
	fg_record_opts rec = FG_RECORD_OPTS_INIT;

	rec.tool = o->tool;
	rec.script_lines = o->lines;
	return fg_record_script_stream(&rec, path, !o->inline_frames, feed, c, on_script_line,
				       (void *)o);
}

static void reader_opts(fg_perfdata_opts *po, const fg_perfdata_read_opts *o)
{
	fg_perfdata_opts init = FG_PERFDATA_OPTS_INIT;

	*po = init;
	po->inline_frames = o->inline_frames;
	po->lines = o->lines;
	po->buildid_dir = o->buildid_dir;
	po->cache_dir = o->debug_cache_dir;
}

static int check_version(const fg_perfdata_read_opts *o)
{
	if (!o)
		return fg_error_set(FG_EINVAL, "no fg_perfdata_read_opts: set them up with "
				    "fg_perfdata_read_opts_init");
	return fg_opts_version_check("fg_perfdata_read_opts", o->version,
				     FG_PERFDATA_READ_OPTS_VERSION);
}

int fg_profile_collapse_perfdata(fg_collapser *c, const char *path, const fg_perfdata_read_opts *o)
{
	fg_perfdata_opts po;
	fg_perfdata *r = NULL;
	fg_strbuf note = FG_STRBUF_INIT;
	const char *why;
	int err;

	if ((err = check_version(o)))
		return err;
	if (o->perf_script)
		return through_perf_script(c, path, o);
	reader_opts(&po, o);
	if ((err = fg_perfdata_open(&r, path, &po)))
		return err;
	if ((why = fg_perfdata_unsupported(r))) {
		fg_run_unsupported_note(&note, path, why);
		if (o->on_event && note.len)
			o->on_event(o->event_ctx, FG_PROFILE_NOTE, note.buf, 0);
		fg_strbuf_release(&note);
		fg_perfdata_free(r);
		return through_perf_script(c, path, o);
	}
	err = fg_perfdata_collapse(r, c);
	fg_perfdata_free(r);
	return err;
}

int fg_profile_collapse_perfdata_stream(fg_collapser *c, const char *name,
					fg_perfdata_read_cb read, void *read_ctx,
					const fg_perfdata_read_opts *o)
{
	fg_perfdata_opts po;
	fg_perfdata *r = NULL;
	const char *why;
	int err;

	if ((err = check_version(o)))
		return err;
	if (o->perf_script)
		return fg_error_set(FG_EINVAL, "`opts.perf_script` cannot read the recording streamed on %s "
				    "— save it to a file and pass that", name);
	reader_opts(&po, o);
	if ((err = fg_perfdata_open_stream(&r, name, read, read_ctx, &po)))
		goto done;
	if ((why = fg_perfdata_unsupported(r))) {
		err = fg_error_set(FG_EINVAL, "%s holds %s, which the native reader does not read "
				   "yet — save the recording to a file and pass that (perf script reads it)",
				   name, why);
		goto done;
	}
	err = fg_perfdata_collapse(r, c);
done:
	fg_perfdata_free(r);
	return err;
}
