/* Allocation graphs (fg_profile_opts.alloc): the command runs with the
 * allocation interposer preloaded, each of its processes leaves a
 * recording in a temporary folder, and the allocation stage (alloc.h)
 * feeds them to the collapser in place of a perf recording. */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/alloc.h"
#include "flamegraph/error.h"
#include "lib/run/run.h"
#include "util/cleanup.h"
#include "util/interrupt.h"
#include "util/outfile.h"
#include "util/process.h"
#include "util/strvec.h"
#include "util/banned.h"

/* The recordings' folder: beside the folder --perfdata-out leads to (so
 * that keeping it is a rename), else in tmpdir; removed with what it
 * holds unless kept. */
static int make_dir(run *r, fg_strbuf *dir)
{
	const char *keep = r->o->perfdata_out;
	const char *tmp = r->o->tmpdir && *r->o->tmpdir ? r->o->tmpdir : "/tmp";
	bool beside = false;
	int err;

	if (keep && (err = fg_outfile_temp_folder(dir, &beside, keep, true)))
		return err;
	if (!beside)
		fg_strbuf_addf(dir, "%s/", tmp);
	fg_strbuf_addstr(dir, ".flamegraph-alloc.XXXXXX");
	if (!mkdtemp(dir->buf))
		return fg_error_set(FG_EIO,
		                    "cannot create a folder for the allocation recordings in %s: "
		                    "%s — %s",
		                    beside ? "the folder of `opts.perfdata_out`" : tmp, strerror(errno),
		                    beside ? "give `opts.perfdata_out` a writable folder"
		                         : "set TMPDIR to a writable folder");
	/* absolute: the program (and what it execs) may change folder */
	if (dir->buf[0] != '/') {
		char *abs = realpath(dir->buf, NULL);
		if (!abs) {
			err = errno == ENOMEM ? fg_error_set(FG_ENOMEM, "out of memory")
			                      : fg_error_set(FG_EIO, "cannot resolve the folder %s: %s",
			                                     dir->buf, strerror(errno));
			rmdir(dir->buf);
			return err;
		}
		fg_strbuf_reset(dir);
		if ((err = fg_strbuf_addstr(dir, abs)))
			rmdir(abs);
		free(abs);
		if (err)
			return err;
	}
	fg_cleanup_add_path(dir->buf, true);
	return 0;
}

/* Removes the files of dir (recordings: no folders). */
static void empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	fg_strbuf p = FG_STRBUF_INIT;

	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				fg_strbuf_reset(&p);
				fg_strbuf_addf(&p, "%s/%s", dir, e->d_name);
				unlink(p.buf);
			}
		closedir(d);
	}
	fg_strbuf_release(&p);
}

static void remove_dir(const char *dir)
{
	empty_dir(dir);
	rmdir(dir);
	fg_cleanup_remove_path(dir);
}

/* A process killed while it wrote a snapshot leaves PATH.tmp beside
 * its last whole one: not kept. */
static void remove_partial(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	fg_strbuf p = FG_STRBUF_INIT;

	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (!strncmp(e->d_name, "alloc.", 6) && n > 4 && !strcmp(e->d_name + n - 4, ".tmp")) {
			fg_strbuf_reset(&p);
			if (!fg_strbuf_addf(&p, "%s/%s", dir, e->d_name))
				unlink(p.buf);
		}
	}
	closedir(d);
	fg_strbuf_release(&p);
}

/* Whether path is a folder of allocation recordings (alloc.* files
 * and nothing else), which --perfdata-out may replace. */
bool fg_run_is_alloc_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool ok = d != NULL;

	while (ok && (e = readdir(d)))
		ok = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		     !strncmp(e->d_name, "alloc.", 6);
	if (d)
		closedir(d);
	return ok;
}

static int keep_dir(run *r, const char *dir)
{
	const char *keep = r->o->perfdata_out;

	if (!keep)
		return 0;
	int err;

	/* its files go, the folder stays: a link to it stays a link */
	if (access(keep, F_OK) == 0 && fg_run_is_alloc_dir(keep))
		empty_dir(keep);
	if ((err = fg_outfile_install(keep, dir, true)))
		return err;
	fg_cleanup_remove_path(dir);
	return 0;
}

static int check(run *r)
{
	const fg_profile_opts *o = r->o;

	if (o->perfdata_out && access(o->perfdata_out, F_OK) == 0 &&
	    !fg_run_is_alloc_dir(o->perfdata_out))
		return fg_error_set(FG_EINVAL,
		                    "`opts.perfdata_out` %s exists and is not a folder of allocation "
		                    "recordings: it would be replaced — give a new name",
		                    o->perfdata_out);
	if (o->npids)
		return fg_error_set(
		    FG_EINVAL, "allocation graphs cannot attach to a running process: "
		               "the interposer must be loaded when the program starts — run the "
		               "program under the allocation graph instead of giving its PID");
	if (o->perfdata)
		return 0;
	if (!o->argc)
		return fg_error_set(FG_EINVAL, "nothing to profile — give the command to run");
	if (o->record.mode != FG_RECORD_ON_CPU)
		return fg_error_set(FG_EINVAL, "allocation graphs and off-CPU graphs are different "
		                               "recordings — drop one of the two");
	if (!o->alloc_lib || access(o->alloc_lib, R_OK) != 0)
		return fg_error_set(FG_ENOTFOUND,
		                    "the allocation interposer %s was not found — "
		                    "reinstall flamegraph-build (it ships libflamegraph-alloc.so)",
		                    o->alloc_lib ? o->alloc_lib : "libflamegraph-alloc.so");
	if (o->alloc_lib[0] != '/')
		return fg_error_set(FG_EINVAL,
		                    "the allocation interposer's path must be absolute: %s",
		                    o->alloc_lib);
	return 0;
}

/* Waits for the program, passing on the interrupts we are asked for
 * (Ctrl-C reaches the program from the terminal by itself; a signal sent
 * to us alone does not): it ends by its own handling of them, and the
 * interposer writes its recording first. */
static int wait_program(run *r, fg_child *child, fg_exit_status *st)
{
	int seen = fg_interrupt_count();
	struct pollfd pfd = {fg_interrupt_fd(), POLLIN, 0};

	for (;;) {
		bool done = false;
		int err = fg_child_try_wait(child, st, &done);
		if (err || done)
			return err;
		if (fg_interrupt_count() != seen) {
			seen = fg_interrupt_count();
			r->res->interrupted = true;
			r->res->interrupt_signal = fg_interrupt_signal();
			kill(child->pid, fg_interrupt_signal() ? fg_interrupt_signal() : SIGINT);
		}
		if (poll(&pfd, pfd.fd >= 0 ? 1 : 0, 100) > 0)
			fg_interrupt_drain();
	}
}

/* How the interposer walks allocating stacks: by each frame's
 * .eh_frame rule (the default: whole stacks through code with and
 * without frame pointers), or by frame pointers alone when asked. */
static const char *unwind_env(const run *r)
{
	return r->o->alloc_unwind == FG_ALLOC_UNWIND_FP ? "FLAMEGRAPH_ALLOC_UNWIND=fp"
	                                                : "FLAMEGRAPH_ALLOC_UNWIND=eh";
}

static int run_program(run *r, const char *dir)
{
	const fg_profile_opts *o = r->o;
	fg_cmd cmd = FG_CMD_INIT;
	fg_child child;
	fg_exit_status st = {0, 0};
	double t0 = fg_run_now();
	int err;

	if ((err = fg_strvec_pushv(&cmd.argv, o->argv, o->argc)) ||
	    (err = fg_strvec_pushv(&cmd.env, o->env, o->nenv)) ||
	    (err =
	         o->alloc_preload && *o->alloc_preload
	             ? fg_strvec_pushf(&cmd.env, "LD_PRELOAD=%s:%s", o->alloc_lib, o->alloc_preload)
	             : fg_strvec_pushf(&cmd.env, "LD_PRELOAD=%s", o->alloc_lib)) ||
	    (err = fg_strvec_pushf(&cmd.env, "FLAMEGRAPH_ALLOC_OUT=%s", dir)) ||
	    (o->alloc_sample && (err = fg_strvec_pushf(&cmd.env, "FLAMEGRAPH_ALLOC_SAMPLE=%llu",
	                                               (unsigned long long)o->alloc_sample))) ||
	    (err = fg_strvec_pushf(&cmd.env, "%s", unwind_env(r))) ||
	    (o->cwd && (err = fg_cmd_set_cwd(&cmd, o->cwd))))
		goto done;
	/* the program's argv[0] as found on PATH */
	if (r->program_path) {
		free(cmd.argv.v[0]);
		if (!(cmd.argv.v[0] = fg_strndup(r->program_path, strlen(r->program_path)))) {
			err = FG_ENOMEM;
			goto done;
		}
	}
	/* the program's stdout is its own, but when ours is the graph (-o -) */
	cmd.stdout_fd = o->workload_stdout_to_stderr ? STDERR_FILENO : -1;
	fg_run_emit_cmd(r, cmd.argv.v);
	if ((err = fg_cmd_spawn(&cmd, &child)))
		goto done;
	err = wait_program(r, &child, &st);
	r->res->seconds_record = r->res->seconds_run = fg_run_now() - t0;
	fg_run_emit(r, FG_PROFILE_TIMING, "record", r->res->seconds_record);
	r->res->exit_code = st.code;
	r->res->signal = st.signal;
	if (!r->res->interrupted && st.signal == SIGINT) {
		r->res->interrupted = true;
		r->res->interrupt_signal = SIGINT;
	}
	r->interrupts_seen = fg_interrupt_count();
	r->res->workload_failed = !r->res->interrupted && (st.signal || st.code);
	r->res->recorded = true;
done:
	fg_cmd_clear(&cmd);
	return err;
}

static int nothing_recorded(run *r)
{
	if (r->res->workload_failed && r->res->signal)
		return fg_error_set(
		    FG_ENODATA,
		    "%s was killed by signal %d before it wrote its allocation recording "
		    "(a process writes a snapshot each second while it allocates: it died "
		    "before its first)",
		    r->program, r->res->signal);
	return fg_error_set(FG_ENODATA,
	                    "%s left no allocation recording — it never loaded the "
	                    "interposer (a program that clears LD_PRELOAD, or a setuid program) "
	                    "or could not write to the temporary folder",
	                    r->program);
}

/* What the C and C++ runtimes kept for the process's life: listed apart
 * from the leaks, which it is not part of. */
static void note_runtime_kept(run *r, const fg_alloc *a)
{
	uint64_t bytes, blocks;
	char size[32];

	fg_alloc_runtime_kept(a, &bytes, &blocks);
	if (!blocks)
		return;
	fg_record_format_size(size, sizeof(size), bytes);
	fg_run_emitf(r, FG_PROFILE_NOTE,
	             "the C and C++ runtimes kept %s in %llu block%s for the process's life "
	             "(libstdc++'s exception pool, libc's buffers), released at exit after "
	             "every destructor: not counted as leaked",
	             size, (unsigned long long)blocks, blocks == 1 ? "" : "s");
}

/* Allocations counted but in no stack. */
static void note_unrecorded(run *r, const fg_alloc *a)
{
	uint64_t calls, bytes;
	char size[32];

	fg_alloc_unrecorded(a, &calls, &bytes);
	if (!calls)
		return;
	fg_record_format_size(size, sizeof(size), bytes);
	fg_run_emitf(r, FG_PROFILE_WARNING,
	             "%llu allocation%s (%s) made by signal handlers that interrupted the "
	             "tracker itself are counted but not in the graph: no stack can be taken "
	             "there (their frees are counted)",
	             (unsigned long long)calls, calls == 1 ? "" : "s", size);
}

/* Notes on what could not be seen. */
static void warn_totals(run *r, const fg_alloc_totals *t)
{
	if (r->res->signal && !r->res->interrupted) {
		fg_run_emitf(r, FG_PROFILE_NOTE,
		             "%s died by signal %d: the graph shows what it recorded up to %s; "
		             "its leaked view is what was live at its death",
		             r->program, r->res->signal,
		             t->snapshots ? "its last snapshot (one a second while it allocates)"
		                          : "then");
	} else if (t->snapshots) {
		fg_run_emitf(r, FG_PROFILE_NOTE,
		             "%llu process%s died without writing %s last recording (killed, or "
		             "a crash where no handler ran): %s what %s recorded up to %s last "
		             "snapshot",
		             (unsigned long long)t->snapshots, t->snapshots == 1 ? "" : "es",
		             t->snapshots == 1 ? "its" : "their", "the graph shows",
		             t->snapshots == 1 ? "it" : "they", t->snapshots == 1 ? "its" : "their");
	}
	if (t->sample_bytes) {
		char mean[32];
		fg_record_format_size(mean, sizeof(mean), t->sample_bytes);
		fg_run_emitf(r, FG_PROFILE_NOTE,
		             "sampled: one allocation per %s allocated on average, weighted to "
		             "estimates — the figures are approximate (without `opts.alloc_sample` "
		             "for exact ones)",
		             mean);
	}
	if (t->incomplete) {
		fg_run_emitf(r, FG_PROFILE_WARNING,
		             "%llu of %llu allocation recordings were cut short (a process "
		             "killed while writing it): their stacks are partial",
		             (unsigned long long)t->incomplete, (unsigned long long)t->processes);
	}
	if (t->dropped) {
		fg_run_emitf(r, FG_PROFILE_WARNING,
		             "%llu allocations came from more distinct stacks than the tracker "
		             "keeps: they are counted under one frame without their stack",
		             (unsigned long long)t->dropped);
	}
	if (!t->allocations && t->sample_bytes) {
		char mean[32];
		fg_record_format_size(mean, sizeof(mean), t->sample_bytes);
		fg_run_emitf(r, FG_PROFILE_WARNING,
		             "no allocation of %s was sampled: one is recorded per %s allocated "
		             "on average, and it allocated less than that (or through an allocator "
		             "of its own) — run without `opts.alloc_sample` to record every one",
		             r->program, mean);
	} else if (!t->allocations) {
		fg_run_emitf(r, FG_PROFILE_WARNING,
		             "%s made no allocation through malloc and its relatives: "
		             "a program with an allocator of its own (jemalloc, tcmalloc, a "
		             "pool on mmap) is not seen by the interposer",
		             r->program);
	}
}

static int add_companion(void *ctx, const char *stack, size_t len, uint64_t count)
{
	return fg_folded_add(ctx, stack, len, count);
}

/* pprof's second value (Go's heap profiles have objects and bytes). */
static int companion(run *r, const fg_alloc *a, const fg_perfdata_opts *popts)
{
	fg_collapse_opts co = FG_COLLAPSE_OPTS_INIT;
	fg_collapser *c = NULL;
	int err;

	co.skip_after = r->o->skip_after;
	co.nskip_after = r->o->nskip_after;
	co.inline_frames = !r->o->no_inline;
	co.lines = r->o->lines; /* the same stacks as the main graph's */
	if ((err = fg_collapser_new(&c, FG_FORMAT_PERF, &co)) ||
	    (err = fg_alloc_collapse_companion(a, r->o->alloc, popts, c)) ||
	    (err = fg_collapser_finish(c)) || (err = fg_folded_new(&r->companion)) ||
	    (err = fg_collapser_foreach(c, add_companion, r->companion)))
		goto done;
	err = fg_folded_finish(r->companion);
done:
	fg_collapser_free(c);
	return err;
}

/* A kept folder of recordings (--perfdata-out of an earlier --alloc run). */
static int check_kept(run *r)
{
	const char *path = r->o->perfdata;

	r->program = path;
	if (access(path, R_OK) != 0)
		return fg_error_set(errno == ENOENT ? FG_ENOTFOUND : FG_EIO,
		                    "cannot read %s: %s — give "
		                    "the folder an `opts.alloc` run kept with `opts.perfdata_out`",
		                    path, strerror(errno));
	if (!fg_run_is_alloc_dir(path))
		return fg_error_set(FG_EINVAL,
		                    "%s is not a folder of allocation recordings — an "
		                    "allocation graph re-renders what `opts.alloc` `opts.perfdata_out` kept",
		                    path);
	return 0;
}

int fg_run_alloc(run *r)
{
	fg_strbuf dir = FG_STRBUF_INIT;
	fg_alloc *a = NULL;
	fg_perfdata_opts popts;
	const char *from;
	double t0;
	int err;

	if ((err = check(r)))
		goto done;
	if (r->o->perfdata) {
		if ((err = check_kept(r)) || (err = fg_run_open_outputs(r)))
			goto done;
		from = r->o->perfdata;
	} else {
		if ((err = fg_run_check_command(r)))
			goto done;
		if (fg_alloc_is_static(r->program_path)) {
			err = fg_error_set(FG_ERECORD,
			                   "%s is linked statically: no library can be preloaded "
			                   "into it, so its allocations cannot be seen — link it "
			                   "dynamically (without -static) to graph them",
			                   r->program);
			goto done;
		}
		if ((err = fg_run_open_outputs(r)) || (err = make_dir(r, &dir)) ||
		    (err = run_program(r, dir.buf)))
			goto done;
		remove_partial(dir.buf);
		from = dir.buf;
	}
	r->processing_start = t0 = fg_run_now();
	if ((err = fg_alloc_new(&a)) || (err = fg_alloc_add_dir(a, from)))
		goto done;
	fg_alloc_totals_get(a, &r->res->alloc);
	if (!r->res->alloc.processes) {
		err = r->o->perfdata ? fg_error_set(FG_ENODATA, "%s holds no allocation recording",
		                                    r->o->perfdata)
		                     : nothing_recorded(r);
		goto done;
	}
	warn_totals(r, &r->res->alloc);
	note_runtime_kept(r, a);
	note_unrecorded(r, a);
	fg_run_perfdata_opts(r, &popts);
	popts.from_exec = false;
	if ((err = fg_run_new_collapser(r, FG_FORMAT_PERF)) ||
	    (err = fg_alloc_collapse(a, r->o->alloc, &popts, r->collapser)) ||
	    (err = fg_collapser_finish(r->collapser)))
		goto done;
	if (r->o->format == FG_OUTPUT_PPROF && (err = companion(r, a, &popts)))
		goto done;
	r->res->seconds_read = fg_run_now() - t0;
	fg_run_emit(r, FG_PROFILE_TIMING, "read", r->res->seconds_read);
	{
		fg_collapse_stats cs;
		fg_collapser_stats(r->collapser, &cs);
		r->res->samples = cs.samples;
		r->res->stacks = cs.stacks;
	}
	if (!r->res->stacks)
		err = fg_error_set(FG_ENODATA, "the %s view of %s is empty — %s",
		                   fg_alloc_view_name(r->o->alloc), r->program,
		                   r->o->alloc == FG_ALLOC_LEAKED
		                       ? "it freed every block it allocated (no leak)"
		                   : r->res->alloc.sample_bytes
		                       ? "no allocation was sampled (see above)"
		                       : "it allocated nothing through malloc and its relatives");
	/* kept even when the view is empty: another view may not be */
	if (dir.len && (!err || err == FG_ENODATA)) {
		int kerr = keep_dir(r, dir.buf);
		if (kerr)
			err = kerr;
	}
done:
	fg_alloc_free(a);
	if (dir.len && access(dir.buf, F_OK) == 0)
		remove_dir(dir.buf);
	fg_strbuf_release(&dir);
	return err;
}
