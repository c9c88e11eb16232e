/* Plain Make projects, the build: the dry run that shows how
 * the project builds (`make -nB -w`: printed, not run, so the user's
 * tree gets nothing), and a program's build from it -- its units
 * compiled into the flamegraph build folder, the in-tree archives it
 * links made again from our objects, and its link line. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/builder.h"
#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "lib/project/make/make.h"
#include "util/input.h"
#include "util/banned.h"

/* make remakes the makefiles it reads for real, even under -n (and
 * -B makes every one out of date): a rule that writes an included
 * .depend would write into the user's tree. Each is named with -o
 * (taken as current): the Makefile itself and the files it includes. */
static int keep_makefiles(const fg_project *p, fg_strvec *argv)
{
	fg_strvec files = FG_STRVEC_INIT;
	char *text = NULL;
	size_t len = 0;
	int err = 0;

	if (fg_read_file(p->loc.file, &text, &len))
		fg_error_clear();
	else
		err = fg_make_included(text, len, &files);
	for (size_t i = 0; !err && i < files.n; i++)
		if (!(err = fg_strvec_push(argv, "-o")))
			err = fg_strvec_push(argv, files.v[i]);
	if (!err && !(err = fg_strvec_push(argv, "-o")))
		err = fg_strvec_push(argv, fg_path_base(p->loc.file));
	fg_strvec_clear(&files);
	free(text);
	return err;
}

/* The user's defines are make's command-line variables: NAME=VALUE (or
 * NAME+=VALUE, NAME:=VALUE... as make takes them), NAME a word without
 * blanks, ':' or '#'. */
static int check_defines(const fg_project *p)
{
	for (size_t i = 0; i < p->opts.ndefines; i++) {
		const char *d = p->opts.defines[i];
		size_t n = strcspn(d, "="), k = n;
		while (k && n - k < 2 && strchr("+:?!", d[k - 1]))
			k--;
		if (!d[n] || !k || d[0] == '-' || strcspn(d, ": \t#") < k)
			return fg_error_set(FG_EINVAL, "-D %s: a Make variable is set as -D NAME=VALUE "
					    "(such as -D CFLAGS=-O1; -D %.*s=1 sets it to 1)", d,
					    k ? (int)k : 4, k ? d : "NAME");
	}
	return 0;
}

/* make -f FILE, its makefiles kept as they are (-o), the user's
 * variables (NAME=VALUE, which override the Makefile's assignments),
 * LC_ALL=C for the "Entering directory" lines the reader knows, in the
 * project's root. */
static int make_cmd(const fg_project *p, const char *flags, fg_cmd *cmd)
{
	int err;

	fg_strvec_push(&cmd->argv, "make");
	fg_strvec_push(&cmd->argv, flags);
	fg_strvec_push(&cmd->argv, "-f");
	fg_strvec_push(&cmd->argv, p->loc.file);
	if ((err = keep_makefiles(p, &cmd->argv)))
		return err;
	if ((err = fg_strvec_pushv(&cmd->argv, (const char *const *)p->opts.defines,
				   p->opts.ndefines)))
		return err;
	fg_strvec_push(&cmd->env, "LC_ALL=C");
	return fg_cmd_set_cwd(cmd, p->loc.root);
}

/* Runs a make for what it prints, its messages dropped: the reading of
 * goals beyond the default is a best effort. */
static int capture_quietly(fg_cmd *cmd, fg_strbuf *out, fg_exit_status *st)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC), err;

	cmd->stderr_fd = null;
	err = fg_cmd_capture(cmd, out, st);
	if (null >= 0)
		close(null);
	return err;
}

/* The dry run of the goals that build tests (then benchmarks), when the
 * Makefile has them: the database (make -pq, which runs nothing; the goal
 * is the Makefile itself, taken as current) says which it has. */
static int read_extra_goals(fg_project *p)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_strbuf out = FG_STRBUF_INIT;
	fg_exit_status st = { 0, 0 };
	fg_strvec goals[2] = { FG_STRVEC_INIT, FG_STRVEC_INIT };
	static const fg_target_kind kinds[2] = { FG_TARGET_TEST, FG_TARGET_BENCH };
	int err;

	if ((err = make_cmd(p, "-pq", &cmd)))
		goto done;
	fg_strvec_push(&cmd.argv, fg_path_base(p->loc.file));
	if ((err = capture_quietly(&cmd, &out, &st)))
		goto done;
	if ((err = fg_strbuf_check(&out)) ||
	    (err = fg_make_extra_goals(out.buf ? out.buf : "", out.len, &goals[0], &goals[1])))
		goto done;
	for (int k = 0; !err && k < 2; k++) {
		if (!goals[k].n)
			continue;
		fg_cmd_clear(&cmd);
		cmd = (fg_cmd)FG_CMD_INIT;
		fg_strbuf_reset(&out);
		/* -k: what the goals show up to a rule make cannot follow */
		if ((err = make_cmd(p, "-nBk", &cmd)))
			break;
		fg_strvec_push(&cmd.argv, "-w");
		fg_strvec_pushv(&cmd.argv, (const char *const *)goals[k].v, goals[k].n);
		if (p->opts.verbose) {
			fg_strbuf names = FG_STRBUF_INIT;
			fg_strvec_join_quoted(&goals[k], &names);
			fg_project_note(p, "running make -nBk -w %s (a dry run of the goals that build "
					"%s)", names.buf ? names.buf : "", k ? "benchmarks" : "tests");
			fg_strbuf_release(&names);
		}
		if (!(err = capture_quietly(&cmd, &out, &st)) && !(err = fg_strbuf_check(&out)))
			err = fg_make_read_goal_dryrun(p, p->loc.root, kinds[k], out.buf ? out.buf : "",
						       out.len);
	}
done:
	/* make missing or failing here ran fine for the default goal:
	 * only running out of memory counts */
	if (err && err != FG_ENOMEM) {
		fg_error_clear();
		err = 0;
	}
	fg_cmd_clear(&cmd);
	fg_strbuf_release(&out);
	fg_strvec_clear(&goals[0]);
	fg_strvec_clear(&goals[1]);
	return err;
}

int fg_make_open(fg_project *p)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_strbuf out = FG_STRBUF_INIT;
	fg_exit_status st = { 0, 0 };
	int err;

	if ((err = check_defines(p)) || (err = make_cmd(p, "-nB", &cmd)))
		goto done;
	fg_strvec_push(&cmd.argv, "-w");
	if (p->opts.verbose)
		fg_project_note(p, "running make -nB -w -f %s (a dry run: nothing is built)",
				p->loc.file);
	err = fg_cmd_capture(&cmd, &out, &st);
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "make is not installed — install it "
				   "(Debian/Ubuntu: apt-get install make)");
	if (!err)
		err = fg_make_read_dryrun(p, p->loc.root, out.buf ? out.buf : "", out.len);
	if (err == FG_EPARSE && st.code != 0)
		err = fg_error_set(FG_EPARSE, "the dry run of %s (make -nB) failed (make's message is "
				   "above) — fix the Makefile, or build the project under bear (bear -- "
				   "make) and point `opts.manifest_path` at the compile_commands.json it "
				   "writes", p->loc.file);
	else if (!err && st.code != 0)
		fg_project_note(p, "the dry run of %s stopped early (make's message is above): using the "
				"commands it showed", p->loc.file);
	if (!err)
		err = read_extra_goals(p);
done:
	fg_cmd_clear(&cmd);
	fg_strbuf_release(&out);
	return err;
}

static int make_archive(fg_project *p, const fg_make_archive *a, bool *changed)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 0, 0 };
	long long made = fg_path_mtime(a->path);
	bool stale = made < 0 || *changed;
	char *dir = NULL;
	int err = 0;

	for (size_t i = 0; i < a->nunits && !stale; i++)
		stale = fg_path_mtime(p->units[a->units[i]].object) > made;
	if (!stale)
		return 0;
	if (!(dir = fg_strndup(a->path, (size_t)(fg_path_base(a->path) - a->path))) ||
	    (err = fg_mkdir_p(dir)))
		goto done;
	unlink(a->path);
	fg_project_note(p, "archiving %s", fg_path_base(a->path));
	fg_strvec_push(&cmd.argv, "ar");
	fg_strvec_push(&cmd.argv, "rcs");
	fg_strvec_push(&cmd.argv, a->path);
	for (size_t i = 0; i < a->nunits; i++)
		fg_strvec_push(&cmd.argv, p->units[a->units[i]].object);
	err = fg_build_tool_run(p, &cmd, false, &st);
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "ar is not installed — install binutils");
	else if (!err && st.code != 0)
		err = fg_error_set(FG_EBUILD, "archiving %s failed (ar's output is above)", a->path);
	*changed = true;
done:
	free(dir);
	fg_cmd_clear(&cmd);
	return err;
}

/* What made a generated header: its command's environment, folder and
 * words, each ended by a NUL. */
static int header_stamp(const fg_make_header *h, fg_strbuf *out)
{
	for (size_t i = 0; i < h->env.n; i++)
		fg_strbuf_add(out, h->env.v[i], strlen(h->env.v[i]) + 1);
	fg_strbuf_add(out, h->dir, strlen(h->dir) + 1);
	for (size_t i = 0; i < h->argv.n; i++)
		fg_strbuf_add(out, h->argv.v[i], strlen(h->argv.v[i]) + 1);
	return fg_strbuf_check(out);
}

/* Whether a header, and its stamp (<header>.cmd), say it was made by this
 * command: a Make variable given with -D can change the command. */
static bool header_current(const char *path, const char *stampfile, const fg_strbuf *stamp)
{
	char *text = NULL;
	size_t len = 0;
	bool same;

	if (!fg_path_is_file(path) || fg_read_file(stampfile, &text, &len)) {
		fg_error_clear();
		return false;
	}
	same = len == stamp->len && !memcmp(text, stamp->buf, len);
	free(text);
	return same;
}

static int write_stamp(const char *path, const fg_strbuf *stamp)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), err = 0;

	if (fd < 0 || fg_write_all(fd, stamp->buf, stamp->len))
		err = fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return err;
}

/* A header the project generates, made again into our build folder when
 * missing or made by another command: its command run where the dry run
 * runs it, output to ours. */
static int make_header(fg_project *p, const fg_make_header *h)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 0, 0 };
	fg_strbuf stamp = FG_STRBUF_INIT, stamp_path = FG_STRBUF_INIT;
	char *dir = NULL, *stampfile = NULL;
	int fd = -1, err = 0;

	if ((err = header_stamp(h, &stamp)))
		goto done;
	fg_strbuf_addf(&stamp_path, "%s.cmd", h->path);
	if (!(stampfile = fg_strbuf_detach(&stamp_path, NULL))) {
		err = FG_ENOMEM;
		goto done;
	}
	if (header_current(h->path, stampfile, &stamp))
		goto done;
	unlink(stampfile);
	if (!(dir = fg_strndup(h->path, (size_t)(fg_path_base(h->path) - h->path)))) {
		err = FG_ENOMEM;
		goto done;
	}
	if ((err = fg_mkdir_p(dir)))
		goto done;
	if ((fd = open(h->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		err = fg_error_set(FG_EIO, "cannot write %s: %s", h->path, strerror(errno));
		goto done;
	}
	fg_project_note(p, "generating %s", fg_path_base(h->path));
	fg_strvec_pushv(&cmd.argv, (const char *const *)h->argv.v, h->argv.n);
	fg_strvec_pushv(&cmd.env, (const char *const *)h->env.v, h->env.n);
	cmd.stdout_fd = fd;
	if (!(err = fg_cmd_set_cwd(&cmd, h->dir)))
		err = fg_build_tool_run(p, &cmd, false, &st);
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "%s, which writes %s, was not found", h->argv.v[0],
				   h->orig);
	else if (!err && st.code != 0)
		err = fg_error_set(FG_EBUILD, "generating %s failed (%s's output is above)", h->orig,
				   fg_path_base(h->argv.v[0]));
	if (!err)
		err = write_stamp(stampfile, &stamp);
done:
	if (fd >= 0)
		close(fd);
	/* a header half written is not one */
	if (err && fd >= 0)
		unlink(h->path);
	free(dir);
	free(stampfile);
	fg_strbuf_release(&stamp);
	fg_cmd_clear(&cmd);
	return err;
}

static bool has_word(const fg_strvec *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return true;
	return false;
}

/* The units to compile find the generated headers: the folder of our
 * copy of each, last (-I), so a copy the project built comes first. */
static int units_see_headers(fg_project *p, const fg_make_state *st, const size_t *units, size_t n)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	int err = 0;

	for (size_t k = 0; !err && k < st->nheaders; k++) {
		const char *path = st->headers[k].path;
		fg_strbuf_reset(&sb);
		fg_strbuf_addstr(&sb, "-I");
		fg_strbuf_add(&sb, path, (size_t)(fg_path_base(path) - path));
		if ((err = fg_strbuf_check(&sb)))
			break;
		if (sb.len > 3 && sb.buf[sb.len - 1] == '/')
			sb.buf[--sb.len] = '\0';
		for (size_t i = 0; !err && i < n; i++)
			if (!has_word(&p->units[units[i]].argv, sb.buf))
				err = fg_strvec_push(&p->units[units[i]].argv, sb.buf);
	}
	fg_strbuf_release(&sb);
	return err;
}

int fg_make_build(fg_project *p, const struct fg_target *t, fg_build_result *res)
{
	fg_make_state *st = p->state;
	size_t ti = (size_t)(t - p->targets), *all = NULL, n = 0;
	const fg_make_link *l;
	bool changed = false;
	int err = 0;

	if (!st || ti >= st->nlinks)
		return fg_error_set(FG_EINVAL, "%s: no way to build target '%s'", p->loc.file, t->name);
	l = &st->links[ti];
	if (!(all = fg_calloc(p->nunits + 1, sizeof(*all))))
		return FG_ENOMEM;
	for (size_t i = 0; i < l->nunits; i++)
		all[n++] = l->units[i];
	for (size_t k = 0; k < l->narchives; k++) {
		const fg_make_archive *a = &st->archives[l->archives[k]];
		for (size_t i = 0; i < a->nunits; i++) {
			bool dup = false;
			for (size_t j = 0; j < n && !dup; j++)
				dup = all[j] == a->units[i];
			if (!dup && n < p->nunits)
				all[n++] = a->units[i];
		}
	}
	for (size_t i = 0; !err && i < st->nheaders; i++)
		err = make_header(p, &st->headers[i]);
	if (!err)
		err = units_see_headers(p, st, all, n);
	if (err || (err = fg_units_compile(p, all, n, &changed)))
		goto done;
	fg_strvec_clear(&p->libs);
	for (size_t k = 0; !err && k < l->narchives; k++) {
		const fg_make_archive *a = &st->archives[l->archives[k]];
		if (!(err = make_archive(p, a, &changed)))
			err = fg_strvec_push(&p->libs, a->path);
	}
	if (!err)
		err = fg_strvec_pushv(&p->libs, (const char *const *)l->libs.v, l->libs.n);
	free(p->cc);
	if (!err && !(p->cc = fg_strdup(l->driver)))
		err = FG_ENOMEM;
	if (!err)
		err = fg_units_link(p, t, l->units, l->nunits, changed, res);
done:
	free(all);
	return err;
}
