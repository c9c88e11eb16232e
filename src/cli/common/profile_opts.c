/* Shared options of the profiling programs: validation, progress display
 * and the mapping of pipeline results to messages and exit codes. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/common/diag.h"
#include "cli/common/profile_opts.h"
#include "flamegraph/error.h"
#include "util/process.h"
#include "util/banned.h"

int fg_profile_cli_root_cb(const fg_option *opt, const char *arg, void *target)
{
	fg_profile_root *root = target;

	(void)opt;
	root->on = true;
	root->flags = arg;
	return 0;
}

typedef struct printer {
	bool verbose, tty;
	double last;
	unsigned tick;
	bool spinning;
} printer;

static printer the_printer;

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The spinner, like cargo-flamegraph's while perf script runs: on a TTY
 * only, redrawn at most ten times a second. */
static void spin(printer *p, double bytes)
{
	static const char frames[] = "|/-\\";
	double t = mono();

	if (!p->tty || t - p->last < 0.1)
		return;
	p->last = t;
	p->spinning = true;
	fprintf(stderr, "\r%c reading perf samples: %.1f MB", frames[p->tick++ % 4], bytes / 1e6);
	fflush(stderr);
}

static void on_event(void *ctx, fg_profile_event kind, const char *msg, double value)
{
	printer *p = ctx;

	switch (kind) {
	case FG_PROFILE_COMMAND:
		if (p->verbose)
			fg_notef("running: %s", msg);
		break;
	case FG_PROFILE_TIMING:
		if (p->verbose)
			fg_notef("timing: %s took %.3f s", msg, value);
		break;
	case FG_PROFILE_WARNING:
		fg_warnf("%s", msg);
		break;
	case FG_PROFILE_NOTE:
		fg_notef("%s", msg);
		break;
	case FG_PROFILE_PROGRESS:
		spin(p, value);
		break;
	case FG_PROFILE_PROGRESS_END:
		if (p->spinning)
			fputs("\r\033[K", stderr);
		p->spinning = false;
		break;
	}
}

static int usage(const char *fmt, const char *what)
{
	fg_errorf(fmt, what);
	return FG_EXIT_USAGE;
}

static int apply_record(fg_record_opts *rec, fg_profile_cli *pc)
{
	const char *env;

#if defined(__linux__)
	rec->recorder = FG_RECORDER_PERF;
	env = getenv("PERF");
#else
	rec->recorder = FG_RECORDER_DTRACE;
	env = getenv("DTRACE");
#endif
	if (env && *env)
		rec->tool = pc->tool_env = env;
	if (pc->cmd && pc->freq)
		return usage("%s", "-c/--cmd and -F/--freq conflict: -c replaces all the recorder "
			     "arguments — put -F in the -c string");
	if (pc->freq < 0 || pc->freq > 1000000)
		return usage("-F/--freq %s: give a frequency from 1 to 1000000 Hz", "value out of range");
	rec->freq = pc->freq ? (unsigned)pc->freq : 997;
	rec->custom = pc->cmd;
	if (pc->call_graph && fg_call_graph_parse(&rec->call_graph, pc->call_graph))
		return usage("%s", fg_error_last());
	rec->root = pc->root.on;
	rec->sudo_flags = pc->root.flags;
	if (pc->compression != -1 && (pc->compression < 0 || pc->compression > 22))
		return usage("%s", "-z/--compression-level wants a level from 0 to 22");
	rec->compression_level = (int)pc->compression;
	return 0;
}

static int apply_render(fg_render_opts *ro, const fg_profile_cli *pc)
{
	ro->title = pc->title;
	ro->subtitle = pc->subtitle;
	ro->notes = pc->notes;
	ro->palette = pc->palette;
	ro->deterministic = pc->deterministic;
	ro->inverted = pc->inverted;
	ro->reverse = pc->reverse;
	ro->flamechart = pc->flamechart;
	if (pc->min_width >= 0)
		ro->min_width = pc->min_width;
	if (pc->image_width < 0 || pc->image_width > 1000000)
		return usage("%s", "--image-width wants a width in pixels, e.g. 1200");
	if (pc->image_width)
		ro->image_width = (unsigned)pc->image_width;
	return 0;
}

int fg_profile_cli_apply(fg_profile_opts *po, fg_profile_cli *pc)
{
	int code;

	if ((code = apply_record(&po->record, pc)) || (code = apply_render(&po->render, pc)))
		return code;
	if (pc->format && fg_output_format_parse(&po->format, pc->format))
		return usage("%s", fg_error_last());
	po->output = pc->output ? pc->output :
		     po->format == FG_OUTPUT_FOLDED ? "stacks.folded" :
		     po->format == FG_OUTPUT_JSON ? "profile.speedscope.json" : "flamegraph.svg";
	po->folded_out = pc->folded;
	po->perfdata_out = pc->perfdata_out;
	po->tmpdir = getenv("TMPDIR");
	po->no_inline = pc->no_inline;
	po->skip_after = pc->skip_after.items;
	po->nskip_after = pc->skip_after.count;
	po->post_process = pc->post_process;
	po->ignore_status = pc->ignore_status;
	the_printer.verbose = pc->verbose;
	the_printer.tty = isatty(STDERR_FILENO);
	po->on_event = on_event;
	po->event_ctx = &the_printer;
	return 0;
}

int fg_profile_cli_open(const char *path)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st;
	const char *browser = getenv("BROWSER");
	int err;

	if (browser && *browser)
		err = fg_strvec_split(&cmd.argv, browser);
	else
#if defined(__APPLE__)
		err = fg_strvec_push(&cmd.argv, "open");
#else
		err = fg_strvec_push(&cmd.argv, "xdg-open");
#endif
	if (!err && !cmd.argv.n)
		err = fg_error_set(FG_EINVAL, "BROWSER is empty");
	if (!err)
		err = fg_strvec_push(&cmd.argv, path);
	if (!err)
		err = fg_cmd_run(&cmd, &st);
	if (!err && (st.code != 0 || st.signal))
		err = fg_error_set(FG_ECHILD, "%s exited with status %d", cmd.argv.v[0], st.code);
	if (err)
		fg_warnf("could not open %s: %s — open it in a browser yourself, or set BROWSER",
			 path, fg_error_last());
	fg_cmd_clear(&cmd);
	return err ? -1 : 0;
}

static const char *signame(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGABRT: return "SIGABRT";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGKILL: return "SIGKILL";
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	default: return "a signal";
	}
}

static int report_workload(const fg_profile_opts *po, const fg_profile_result *res, const char *what)
{
	if (!res->workload_failed)
		return FG_EXIT_OK;
	if (res->interrupted) {
		fg_notef("interrupted: the graph covers the run up to Ctrl-C");
		return FG_EXIT_OK;
	}
	if (po->ignore_status)
		return FG_EXIT_OK;
	if (res->signal)
		fg_errorf("%s was killed by %s (signal %d: %s); the graph was still written to %s — "
			  "pass --ignore-status to exit 0 anyway", what, signame(res->signal),
			  res->signal, strsignal(res->signal), po->output);
	else
		fg_errorf("%s exited with status %d; the graph was still written to %s — pass "
			  "--ignore-status to exit 0 anyway", what, res->exit_code, po->output);
	return FG_EXIT_RECORD;
}

int fg_profile_cli_run(fg_profile_opts *po, const fg_profile_cli *pc)
{
	fg_profile_result res = FG_PROFILE_RESULT_INIT;
	const char *what = po->argc ? po->argv[0] : po->npids ? "the process" : po->perfdata;
	int err, code;

	err = fg_profile_run(po, &res);
	if (err) {
		if (res.recorded && res.workload_failed && res.signal && res.signal != SIGINT)
			fg_warnf("%s was killed by %s (signal %d: %s)", what, signame(res.signal),
				 res.signal, strsignal(res.signal));
		return fg_die_lib(err);
	}
	code = report_workload(po, &res, what);
	if (strcmp(po->output, "-") != 0)
		fg_notef("wrote %s (%llu samples, %llu stacks)", po->output,
			 (unsigned long long)res.samples, (unsigned long long)res.stacks);
	if (pc->open && strcmp(po->output, "-") != 0)
		fg_profile_cli_open(po->output);
	return code;
}

void fg_profile_cli_release(fg_profile_cli *pc)
{
	fg_strlist_release(&pc->skip_after);
}
