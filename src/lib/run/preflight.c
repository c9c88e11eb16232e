/* Before anything runs: the options, the recorder, the program or PIDs,
 * the ELF checks, the kernel's limits and the room for the recording. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flamegraph/alloc.h"
#include "flamegraph/error.h"
#include "lib/run/capture_notes.h"
#include "lib/run/run.h"
#include "util/input.h"
#include "util/process.h"
#include "util/version.h"
#include "util/error.h"
#include "util/banned.h"

int fg_run_fail_tool_missing(const char *tool, const fg_record_opts *rec)
{
	if (rec->tool_origin && rec->tool && *rec->tool)
		return fg_error_set(FG_ERECORD, "%s names '%s', which is not an executable program — "
				    "fix the path, or unset %s to use the %s on PATH", rec->tool_origin,
				    tool, rec->tool_origin, fg_recorder_tool(rec->recorder));
	if (rec->recorder == FG_RECORDER_XCTRACE)
		return fg_error_set(FG_ERECORD, "%s was not found — install Xcode or its command "
				    "line tools (xcode-select --install), set XCTRACE to its path, "
				    "or record with DTrace as root (`opts.record.root`)", tool);
	if (rec->recorder == FG_RECORDER_DTRACE)
		return fg_error_set(FG_ERECORD, "%s was not found — install DTrace (macOS and FreeBSD "
				    "ship it; illumos too) or set DTRACE to its path", tool);
	return fg_error_set_reason(FG_ERECORD, FG_REASON_PERF_MISSING,
				   "%s was not found — install perf: Debian: apt install "
				   "linux-perf; Ubuntu: apt install linux-tools-common linux-tools-generic; "
				   "Fedora/RHEL: dnf install perf; Arch: pacman -S perf; openSUSE: zypper "
				   "install perf; or set PERF to its path", tool);
}

static void elf_warn(void *ctx, const char *msg)
{
	fg_run_emit(ctx, FG_PROFILE_WARNING, msg, 0);
}

static void check_program(run *r, const char *path, const char *shown)
{
	fg_elfcheck_report rep;

	if (!r->o->check_elf || fg_elfcheck_file(path, &rep) != 0)
		return;
	fg_elfcheck_warnings(&rep, shown, r->rec.call_graph == FG_CALL_GRAPH_FP && !r->rec.custom,
			     r->o->fix_style, elf_warn, r);
}

int fg_run_check_pids(run *r)
{
	size_t i;
	fg_strbuf exe = FG_STRBUF_INIT;

	for (i = 0; i < r->o->npids; i++) {
		const char *s = r->o->pids[i];
		unsigned long long pid;
		if (fg_parse_u64(fg_view_cstr(s), &pid) || pid == 0 || pid > 0x7fffffff)
			return fg_error_set(FG_EINVAL, "'%s' is not a PID — give process ids as "
					    "numbers, e.g. `opts.pids` 1234,5678", s);
		if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
			fg_strbuf_release(&exe);
			return fg_error_set(FG_ENOTFOUND, "no process with PID %llu is running — "
					    "check the PID with ps or pgrep", pid);
		}
		fg_strbuf_reset(&exe);
		fg_strbuf_addf(&exe, "/proc/%llu/exe", pid);
		check_program(r, exe.buf, s);
	}
	fg_strbuf_release(&exe);
	r->program = r->o->npids == 1 ? r->o->pids[0] : "the processes";
	return 0;
}

int fg_run_check_command(run *r)
{
	const char *prog = r->o->argv[0];
	fg_strbuf in_cwd = FG_STRBUF_INIT;

	/* a relative path names a file where the command runs */
	if (r->o->cwd && prog[0] != '/' && strchr(prog, '/')) {
		fg_strbuf_addf(&in_cwd, "%s/%s", r->o->cwd, prog);
		r->program_path = fg_which(in_cwd.buf);
	} else {
		r->program_path = fg_which(prog);
	}
	fg_strbuf_release(&in_cwd);
	if (!r->program_path && strchr(prog, '/'))
		return fg_error_set(FG_ENOTFOUND, "program '%s' was not found or is not "
				    "executable — check the path", prog);
	if (!r->program_path)
		return fg_error_set(FG_ENOTFOUND, "program '%s' was not found on PATH — check "
				    "the name, or give its path (./%s)", prog, prog);
	r->program = prog;
	/* a static program cannot get the allocation tracker: that error
	 * comes first, alone, not after warnings about its build */
	if (!(r->o->alloc && fg_alloc_is_static(r->program_path)))
		check_program(r, r->program_path, prog);
	return 0;
}

/* No output may land on the --perfdata input or on another output: the
 * atomic rename would replace the input, or one output the other. A
 * character device (/dev/null) is written in place: it may be several. */
static bool is_chardev(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

static int check_paths(const fg_profile_opts *o)
{
	const char *out = fg_run_graph_path(o);
	const struct { const char *path, *what; } files[] = {
		{ o->perfdata, "the `opts.perfdata` input" },
		{ out && strcmp(out, "-") ? out : NULL, "the output (`opts.output`)" },
		{ o->folded_out, "the `opts.folded_out` output" },
		{ o->perfdata_out, "the `opts.perfdata_out` file" },
	};
	size_t n = sizeof(files) / sizeof(files[0]);

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (files[i].path && files[j].path && !is_chardev(files[j].path) &&
			    fg_same_path(files[i].path, files[j].path))
				return fg_error_set(FG_EINVAL, "%s is both %s and %s — writing it would "
						    "%s; give each its own file name", files[j].path,
						    files[i].what, files[j].what,
						    i == 0 ? "destroy the input" : "lose one of them");
	return 0;
}

bool fg_profile_can_stream(const fg_profile_opts *o)
{
#if defined(__x86_64__)
	const fg_record_opts *rec = &o->record;

	return !o->perfdata && !o->perfdata_out && !o->perf_script && !rec->custom &&
	       fg_run_records_perfdata(rec->recorder) &&
	       (rec->mode == FG_RECORD_ON_CPU || rec->recorder == FG_RECORDER_NATIVE);
#else
	(void)o;
	return false;
#endif
}

bool fg_run_streams(const fg_profile_opts *o)
{
	return o->stream == FG_STREAM_ON || (o->stream == FG_STREAM_AUTO && fg_profile_can_stream(o));
}

bool fg_run_attaches(const run *r)
{
	return fg_run_records_perfdata(r->rec.recorder) && !r->rec.custom && r->o->argc > 0;
}

int fg_run_check_opts(const fg_profile_opts *o)
{
	int targets = (o->argc > 0) + (o->npids > 0) + (o->perfdata != NULL);
	int err;

	/* the options it embeds, before anything is recorded */
	if ((err = fg_opts_version_check("fg_record_opts", o->record.version,
					 FG_RECORD_OPTS_VERSION)) ||
	    (err = fg_opts_version_check("fg_render_opts", o->render.version,
					 FG_RENDER_OPTS_VERSION)))
		return err;
	if (targets != 1)
		return fg_error_set(FG_EINVAL, targets ? "give only one of a command, `opts.pids` or `opts.perfdata`"
					       : "nothing to profile — give a command, `opts.pids` PID or `opts.perfdata` FILE");
	if (o->record.custom && o->record.freq)
		return fg_error_set(FG_EINVAL, "`opts.record.custom` replaces the perf arguments, so it cannot be "
				    "combined with `opts.record.freq` — put -F in the custom command");
	if (o->record.recorder == FG_RECORDER_NATIVE && !o->perfdata &&
	    (o->record.custom || o->record.root || o->record.call_graph == FG_CALL_GRAPH_LBR))
		return fg_error_set(FG_EINVAL, "the native recorder records with its own events: %s "
				    "needs perf — record with `opts.record.recorder=perf`",
				    o->record.custom ? "`opts.record.custom`" : o->record.root ?
				    "`opts.record.root`" : "`opts.record.call_graph=lbr`");
	if (o->stream == FG_STREAM_ON) {
		const fg_record_opts *rec = &o->record;
		const char *with = o->perfdata ? "`opts.perfdata` (it reads a recording made before)" :
			o->perfdata_out ? "`opts.perfdata_out` (a stream leaves no perf.data to keep)" :
			o->perf_script ? "`opts.perf_script` (perf script reads a file)" :
			rec->custom ? "`opts.record.custom` (its perf command writes a file)" :
			rec->recorder == FG_RECORDER_DTRACE ? "DTrace (it writes a file)" :
			rec->recorder == FG_RECORDER_XCTRACE ? "xctrace (it writes a .trace)" :
			rec->mode != FG_RECORD_ON_CPU && rec->recorder != FG_RECORDER_NATIVE ?
				"`opts.record.mode=off_cpu` or `opts.record.mode=hot_cold` (their scheduler "
							"events go through perf script)" : NULL;
		if (with)
			return fg_error_set(FG_EINVAL, "`opts.stream` cannot be combined with %s — drop "
					    "one of the two", with);
		if (!fg_profile_can_stream(o))
			return fg_error_set(FG_EINVAL, "`opts.stream` needs the native reader, which reads "
					    "x86_64 recordings only — drop `opts.stream`");
	}
	/* bad graph options fail before a recording, not after it */
	if ((o->format == FG_OUTPUT_SVG || o->format == FG_OUTPUT_HTML) &&
	    (err = fg_render_opts_check(&o->render)))
		return err;
	return check_paths(o);
}

/* The folder the recording goes to: beside perfdata_out, else tmpdir. */
static void record_dir(const fg_profile_opts *o, fg_strbuf *dir)
{
	const char *keep = o->perfdata_out, *slash = keep ? strrchr(keep, '/') : NULL;

	if (keep && slash)
		fg_strbuf_add(dir, keep, slash == keep ? 1 : (size_t)(slash - keep));
	else if (keep)
		fg_strbuf_addstr(dir, ".");
	else
		fg_strbuf_addstr(dir, o->tmpdir && *o->tmpdir ? o->tmpdir : "/tmp");
}

char *fg_profile_record_dir(const fg_profile_opts *o)
{
	fg_strbuf dir = FG_STRBUF_INIT;

	record_dir(o, &dir);
	return fg_strbuf_detach(&dir, NULL);
}

/* Limits before anything runs: the kernel's sampling limit, the size cap,
 * the ring buffer. */
int fg_run_plan_recording(run *r)
{
	fg_record_plan plan;
	fg_record_opts rec = r->rec;
	fg_strbuf dir = FG_STRBUF_INIT, note = FG_STRBUF_INIT;
	int err;

	if (!fg_run_records_perfdata(r->rec.recorder))
		return 0;
	record_dir(r->o, &dir);
	/* a stream takes no disk space: no cap unless one is asked for */
	if (fg_run_streams(r->o) && !rec.max_size)
		rec.max_size = UINT64_MAX;
	if (!(err = fg_record_plan_make(&plan, &rec, dir.buf))) {
		r->rec.max_size = plan.max_size;
		r->res->max_size = plan.max_size;
		if (!r->rec.custom)
			r->rec.buffer_bytes = plan.buffer_bytes;
		if (!fg_run_streams(r->o))
			fg_capture_note_plan(&note, &plan, &r->rec, dir.buf);
		if (note.len)
			fg_run_emit(r, FG_PROFILE_NOTE, note.buf, 0);
	}
	fg_strbuf_release(&dir);
	fg_strbuf_release(&note);
	return err;
}
