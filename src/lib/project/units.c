/* The compile engine shared by the built-in cc system and compile
 * databases: compiles units into the flamegraph build directory in
 * parallel, recompiling only what changed, and links targets only when an
 * object or the link command changed.
 *
 * What "changed" means is decided from files next to each output, so a
 * re-run needs no state beyond the build directory:
 *   <object>.d    the -MMD dependency list written by the compiler
 *   <object>.cmd  the exact compile command of the last good compile
 *   <exe>.link    the exact link command of the last good link */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "util/input.h"
#include "util/banned.h"

/* Serialises an argv as NUL-separated words, so a stamp comparison cannot
 * be fooled by spaces inside arguments. */
static void stamp_of(const fg_strvec *argv, fg_strbuf *out)
{
	size_t i;

	for (i = 0; i < argv->n; i++)
		fg_strbuf_add(out, argv->v[i], strlen(argv->v[i]) + 1);
}

static bool stamp_matches(const char *path, const fg_strbuf *want)
{
	char *data = NULL;
	size_t len = 0;
	bool same;

	if (fg_read_file(path, &data, &len)) {
		fg_error_clear();
		return false;
	}
	same = len == want->len && !memcmp(data, want->buf, len);
	free(data);
	return same;
}

static int stamp_write(const char *path, const fg_strbuf *data)
{
	FILE *f = fopen(path, "wb");
	int err = 0;

	if (!f)
		return fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
	if (fwrite(data->buf, 1, data->len, f) != data->len)
		err = fg_error_set(FG_EIO, "cannot write %s", path);
	if (fclose(f) && !err)
		err = fg_error_set(FG_EIO, "cannot write %s", path);
	return err;
}

static char *path_plus(const char *path, const char *suffix)
{
	fg_strbuf sb = FG_STRBUF_INIT;

	if (fg_strbuf_addf(&sb, "%s%s", path, suffix)) {
		fg_strbuf_release(&sb);
		return NULL;
	}
	return fg_strbuf_detach(&sb, NULL);
}

static int mkdir_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int err;

	if (!slash || slash == path)
		return 0;
	if (!(dir = fg_strndup(path, (size_t)(slash - path))))
		return FG_ENOMEM;
	err = fg_mkdir_p(dir);
	free(dir);
	return err;
}

/* True when some prerequisite named in a make-style dependency file is
 * missing or newer than `than`. Words ending in ':' are targets (the
 * object itself, or -MP's phony header targets); "\ " is an escaped
 * space and a backslash-newline continues the line. */
static bool deps_newer(const char *data, size_t len, long long than)
{
	fg_strbuf word = FG_STRBUF_INIT;
	bool newer = false;
	size_t i = 0;

	while (i <= len && !newer) {
		char c = i < len ? data[i] : ' ';
		if (c == '\\' && i + 1 < len && (data[i + 1] == '\n' || data[i + 1] == '\r')) {
			i += 2;
			continue;
		}
		if (c == '\\' && i + 1 < len && (data[i + 1] == ' ' || data[i + 1] == '#')) {
			fg_strbuf_addch(&word, data[i + 1]);
			i += 2;
			continue;
		}
		if (c == '$' && i + 1 < len && data[i + 1] == '$') {
			fg_strbuf_addch(&word, '$');
			i += 2;
			continue;
		}
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			fg_strbuf_addch(&word, c);
			i++;
			continue;
		}
		if (word.len && word.buf[word.len - 1] != ':') {
			long long m = fg_path_mtime(word.buf);
			newer = m < 0 || m > than;
		}
		fg_strbuf_reset(&word);
		i++;
	}
	fg_strbuf_release(&word);
	return newer;
}

/* Decides whether unit u must be compiled with the command `stamp`. */
static bool unit_stale(const struct fg_unit *u, const char *depfile, const char *cmdfile,
		       const fg_strbuf *stamp)
{
	long long obj = fg_path_mtime(u->object);
	char *data = NULL;
	size_t len = 0;
	bool stale;

	if (obj < 0 || !stamp_matches(cmdfile, stamp))
		return true;
	if (fg_read_file(depfile, &data, &len)) {
		fg_error_clear();
		return true;
	}
	stale = deps_newer(data, len, obj);
	free(data);
	return stale;
}

/* A compile in flight. */
struct job {
	fg_child child;
	size_t unit;
	char *cmdfile;
	fg_strbuf stamp;
};

static const char *shown_path(const fg_project *p, const char *path)
{
	size_t n = strlen(p->loc.root);

	if (!strncmp(path, p->loc.root, n) && path[n] == '/')
		return path + n + 1;
	return path;
}

static int job_start(fg_project *p, struct job *j, size_t ui)
{
	struct fg_unit *u = &p->units[ui];
	fg_cmd cmd = FG_CMD_INIT;
	char *depfile = path_plus(u->object, ".d");
	int err = 0;

	j->unit = ui;
	j->child.pid = -1;
	if (!depfile || !(j->cmdfile = path_plus(u->object, ".cmd"))) {
		err = FG_ENOMEM;
		goto done;
	}
	if ((err = fg_strvec_pushv(&cmd.argv, (const char *const *)u->argv.v, u->argv.n)) ||
	    (err = fg_strvec_push(&cmd.argv, "-MMD")) || (err = fg_strvec_push(&cmd.argv, "-MF")) ||
	    (err = fg_strvec_push(&cmd.argv, depfile)))
		goto done;
	stamp_of(&cmd.argv, &j->stamp);
	if (!unit_stale(u, depfile, j->cmdfile, &j->stamp)) {
		err = 1; /* up to date: nothing started */
		goto done;
	}
	if ((err = mkdir_parent(u->object)))
		goto done;
	/* a stale stamp must not survive a failed compile */
	unlink(j->cmdfile);
	if (u->dir && (err = fg_cmd_set_cwd(&cmd, u->dir)))
		goto done;
	fg_project_note(p, "compiling %s", shown_path(p, u->source));
	if (p->opts.verbose) {
		fg_strbuf shown = FG_STRBUF_INIT;
		fg_strvec_join_quoted(&cmd.argv, &shown);
		fg_project_note(p, "running %s", shown.buf);
		fg_strbuf_release(&shown);
	}
	err = fg_cmd_spawn(&cmd, &j->child);
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "the compiler '%s' was not found — install it, or name "
				   "another one ([build] cc in flamegraph.toml, or $CC)", cmd.argv.v[0]);
done:
	fg_cmd_clear(&cmd);
	free(depfile);
	return err;
}

static void job_release(struct job *j)
{
	free(j->cmdfile);
	j->cmdfile = NULL;
	fg_strbuf_release(&j->stamp);
}

/* Waits for one of the n running jobs and returns its index. Peeks with
 * WNOWAIT so a child that is not ours is never reaped behind its owner's
 * back. */
static size_t job_wait_any(struct job *jobs, size_t n, fg_exit_status *st)
{
	siginfo_t info;
	size_t i, hit = 0;

	memset(&info, 0, sizeof(info));
	while (waitid(P_ALL, 0, &info, WEXITED | WNOWAIT) != 0 && errno == EINTR)
		;
	for (i = 0; i < n; i++)
		if (jobs[i].child.pid == info.si_pid)
			hit = i;
	if (fg_child_wait(&jobs[hit].child, st)) {
		st->code = -1;
		st->signal = 0;
	}
	return hit;
}

static long job_count(const fg_project *p)
{
	long n = p->opts.jobs > 0 ? p->opts.jobs : sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}

int fg_units_compile(fg_project *p, const size_t *units, size_t n, bool *changed)
{
	size_t max = (size_t)job_count(p), running = 0, next = 0, failed_unit = 0;
	struct job *jobs = fg_calloc(max, sizeof(*jobs));
	bool failed = false;
	int err = 0;

	*changed = false;
	if (!jobs)
		return FG_ENOMEM;
	while (running || (next < n && !err && !failed)) {
		if (next < n && !err && !failed && running < max) {
			struct job *j = &jobs[running];
			int r = job_start(p, j, units[next++]);
			if (r == 0) {
				running++;
				*changed = true;
			} else {
				if (r < 0)
					err = r;
				job_release(j);
			}
			continue;
		}
		fg_exit_status st = { 0, 0 };
		size_t k = job_wait_any(jobs, running, &st);
		if (st.code == 0 && st.signal == 0) {
			int e = stamp_write(jobs[k].cmdfile, &jobs[k].stamp);
			if (e && !err)
				err = e;
		} else if (!failed) {
			failed = true;
			failed_unit = jobs[k].unit;
		}
		job_release(&jobs[k]);
		jobs[k] = jobs[--running];
		/* the moved job's buffers now belong to slot k only */
		memset(&jobs[running], 0, sizeof(jobs[running]));
		fg_strbuf_init(&jobs[running].stamp, 0);
	}
	free(jobs);
	if (!err && failed)
		err = fg_error_set(FG_EBUILD, "compiling %s failed (the compiler's output is above) — "
				   "fix the error and run again",
				   shown_path(p, p->units[failed_unit].source));
	return err;
}

static const char *link_driver(const fg_project *p, const size_t *units, size_t n)
{
	if (p->cc)
		return p->cc;
	if (n && p->units[units[0]].argv.n)
		return p->units[units[0]].argv.v[0];
	return p->opts.cc ? p->opts.cc : "cc";
}

static int link_argv(fg_project *p, const struct fg_target *t, const size_t *units, size_t n,
		     fg_strvec *argv)
{
	size_t i;
	int err = fg_strvec_push(argv, link_driver(p, units, n));

	for (i = 0; !err && i < p->ldflags.n; i++)
		err = fg_strvec_push(argv, p->ldflags.v[i]);
	if (!err && p->opts.ldflags)
		err = fg_strvec_split(argv, p->opts.ldflags);
	if (!err && p->no_rosegment)
		err = fg_strvec_push(argv, "-Wl,--no-rosegment");
	if (!err && !(err = fg_strvec_push(argv, "-o")))
		err = fg_strvec_push(argv, t->exe);
	for (i = 0; !err && i < n; i++)
		err = fg_strvec_push(argv, p->units[units[i]].object);
	for (i = 0; !err && i < p->libs.n; i++)
		err = fg_strvec_push(argv, p->libs.v[i]);
	return err;
}

static bool objects_newer(const fg_project *p, const size_t *units, size_t n, long long than)
{
	size_t i;

	for (i = 0; i < n; i++) {
		long long m = fg_path_mtime(p->units[units[i]].object);
		if (m < 0 || m > than)
			return true;
	}
	return false;
}

static int link_once(fg_project *p, const struct fg_target *t, const size_t *units, size_t n,
		     bool changed, fg_build_result *res)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_strbuf stamp = FG_STRBUF_INIT;
	fg_exit_status st = { 0, 0 };
	char *stampfile = path_plus(t->exe, ".link");
	long long exe_mtime = fg_path_mtime(t->exe);
	int err;

	if (!stampfile) {
		err = FG_ENOMEM;
		goto done;
	}
	if ((err = link_argv(p, t, units, n, &cmd.argv)))
		goto done;
	stamp_of(&cmd.argv, &stamp);
	if (!changed && exe_mtime >= 0 && stamp_matches(stampfile, &stamp) &&
	    !objects_newer(p, units, n, exe_mtime))
		goto done;
	if ((err = mkdir_parent(t->exe)))
		goto done;
	unlink(stampfile);
	fg_project_note(p, "linking %s", shown_path(p, t->exe));
	err = fg_build_tool_run(p, &cmd, false, &st);
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "the linker driver '%s' was not found — install it, or "
				   "name another compiler", cmd.argv.v[0]);
	if (!err && st.code != 0)
		err = fg_error_set(FG_EBUILD, "linking %s failed (the linker's output is above) — fix "
				   "the error and run again", t->name);
	if (!err)
		err = stamp_write(stampfile, &stamp);
	res->rebuilt = res->rebuilt || !err;
done:
	fg_cmd_clear(&cmd);
	fg_strbuf_release(&stamp);
	free(stampfile);
	return err;
}

int fg_units_link(fg_project *p, const struct fg_target *t, const size_t *units, size_t n,
		  bool changed, fg_build_result *res)
{
	bool relink;
	int err;

	fg_rosegment_load(p);
	if ((err = link_once(p, t, units, n, changed, res)))
		return err;
	fg_rosegment_after_link(p, t->exe, t->name, "", res, &relink);
	return relink ? link_once(p, t, units, n, true, res) : 0;
}
