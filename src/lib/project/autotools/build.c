/* Building a program of a configured autotools project: `make -C DIR`
 * in the folders of the in-tree libraries it links, its folder's
 * BUILT_SOURCES, then `make -C DIR PROGRAM`. A program linked against
 * an in-tree libtool library is a shell wrapper; the real ELF file is in
 * .libs/, and it runs with the in-tree libraries first on the library
 * path (the system may hold an older copy of the same soname). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/builder.h"
#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "lib/project/autotools/autotools.h"
#include "util/input.h"
#include "util/banned.h"

static int make(fg_project *p, const char *dir, const fg_strvec *goals, const char *what)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 0, 0 };
	long jobs = p->opts.jobs > 0 ? p->opts.jobs : sysconf(_SC_NPROCESSORS_ONLN);
	int err;

	fg_strvec_push(&cmd.argv, "make");
	fg_strvec_push(&cmd.argv, "-C");
	fg_strvec_push(&cmd.argv, dir);
	fg_strvec_pushf(&cmd.argv, "-j%ld", jobs > 0 ? jobs : 1);
	err = goals ? fg_strvec_pushv(&cmd.argv, (const char *const *)goals->v, goals->n) : 0;
	if (!err)
		err = fg_build_tool_run(p, &cmd, false, &st);
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "make is not installed — install it "
				   "(Debian/Ubuntu: apt-get install make)");
	else if (!err && st.code != 0)
		err = fg_error_set(FG_EBUILD, "building %s failed (make's output is above) — fix the "
				   "error and run again", what);
	fg_cmd_clear(&cmd);
	return err;
}

int fg_autotools_dryrun(fg_project *p)
{
	fg_autotools_state *st = p->state;
	fg_cmd cmd = FG_CMD_INIT;
	fg_strbuf out = FG_STRBUF_INIT;
	fg_exit_status es = { 0, 0 };
	int err;

	if (!st || !st->handwritten)
		return 0;
	/* printed, not run (-B: every rule, however much is built already);
	 * make remakes a Makefile for real even under -n, and -B would have
	 * it run config.status each time: the Makefiles count as current */
	fg_strvec_push(&cmd.argv, "make");
	fg_strvec_push(&cmd.argv, "-nB");
	fg_strvec_push(&cmd.argv, "-w");
	fg_strvec_push(&cmd.argv, "-o");
	fg_strvec_push(&cmd.argv, "Makefile");
	fg_strvec_push(&cmd.argv, "-o");
	fg_strvec_push(&cmd.argv, "config.status");
	fg_strvec_push(&cmd.env, "LC_ALL=C");
	if (!(err = fg_cmd_set_cwd(&cmd, p->build_dir))) {
		if (p->opts.verbose)
			fg_project_note(p, "%s/Makefile was written by hand (no automake): reading its "
					"programs from a dry run, make -nB -w", p->build_dir);
		err = fg_cmd_capture(&cmd, &out, &es);
	}
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "make is not installed — install it "
				   "(Debian/Ubuntu: apt-get install make)");
	if (!err)
		err = fg_autotools_read_links(p, out.buf ? out.buf : "", out.len);
	if (err == FG_EPARSE)
		err = fg_error_set(FG_EPARSE, "%s/Makefile, from a Makefile.in written by hand, links "
				   "no program in its dry run (make -nB%s) — build the project under "
				   "bear (bear -- make) and point `opts.manifest_path` at the "
				   "compile_commands.json it writes", p->build_dir,
				   es.code ? ", which failed: make's message is above" : "");
	fg_cmd_clear(&cmd);
	fg_strbuf_release(&out);
	return err;
}

static bool is_script(const char *path)
{
	char head[2] = { 0 };
	FILE *f = fopen(path, "rb");
	bool script = f && fread(head, 1, 2, f) == 2 && head[0] == '#' && head[1] == '!';

	if (f)
		fclose(f);
	return script;
}

/* The LD_LIBRARY_PATH a libtool wrapper sets (its in-tree folders), or
 * NULL. */
static char *wrapper_library_path(const char *wrapper)
{
	static const char key[] = "LD_LIBRARY_PATH=\"";
	char *data = NULL, *path = NULL;
	size_t len = 0;

	if (fg_read_file(wrapper, &data, &len)) {
		fg_error_clear();
		return NULL;
	}
	for (char *s = data; (s = memmem(s, len - (size_t)(s - data), key, sizeof(key) - 1));
	     s += sizeof(key) - 1) {
		char *v = s + sizeof(key) - 1, *q = memchr(v, '"', len - (size_t)(v - data));
		size_t n;
		if (!q)
			break;
		/* "DIRS:$LD_LIBRARY_PATH": the wrapper's own folders */
		n = (size_t)(q - v);
		char *own = memmem(v, n, ":$LD_LIBRARY_PATH", 17);
		if (own)
			n = (size_t)(own - v);
		if (n && v[0] == '/') {
			path = fg_strndup(v, n);
			break;
		}
	}
	free(data);
	return path;
}

/* A libtool wrapper: the target is its real program in .libs/, run with
 * the in-tree libraries first. */
static int unwrap(fg_project *p, struct fg_target *t)
{
	char *dir, *real = NULL, *libs;
	const char *base = fg_path_base(t->exe);
	fg_strbuf sb = FG_STRBUF_INIT;
	int err = 0;

	if (!is_script(t->exe))
		return 0;
	if (!(dir = fg_strndup(t->exe, (size_t)(base - t->exe))))
		return FG_ENOMEM;
	for (int i = 0; i < 2 && !real; i++) {
		fg_strbuf_reset(&sb);
		fg_strbuf_addf(&sb, "%s.libs/%s%s", dir, i ? "lt-" : "", base);
		if (sb.buf && fg_path_is_file(sb.buf))
			real = fg_strbuf_detach(&sb, NULL);
	}
	fg_strbuf_release(&sb);
	free(dir);
	if (!real)
		return 0; /* a script of the project's own: run as it is */
	libs = wrapper_library_path(t->exe);
	fg_project_note(p, "%s is a libtool wrapper: profiling %s%s%s", t->name, real,
			libs ? " with the in-tree libraries first: " : "", libs ? libs : "");
	free(t->exe);
	t->exe = real;
	for (size_t i = 0; i < t->env.n; i++)
		if (!strncmp(t->env.v[i], "LD_LIBRARY_PATH=", 16)) {
			free(t->env.v[i]);
			t->env.v[i] = t->env.v[--t->env.n];
		}
	if (libs)
		err = fg_strvec_pushf(&t->env, "LD_LIBRARY_PATH=%s", libs);
	free(libs);
	return err;
}

static int build_goal(fg_project *p, const struct fg_target *t, const fg_autotools_goal *g)
{
	fg_strvec one = FG_STRVEC_INIT;
	int err = 0;

	/* in-tree libraries first, with what their folder generates */
	for (size_t i = 0; i < g->deps.n && !err; i++)
		err = make(p, g->deps.v[i], NULL, g->deps.v[i]);
	if (!err && g->built.n)
		err = make(p, g->dir, &g->built, "the generated sources");
	if (!err && g->libs.n)
		err = make(p, g->dir, &g->libs, "the in-tree libraries");
	if (!err && !(err = fg_strvec_push(&one, g->goal)))
		err = make(p, g->dir, &one, t->name);
	fg_strvec_clear(&one);
	return err;
}

int fg_autotools_build(fg_project *p, const struct fg_target *ct, fg_build_result *res)
{
	fg_autotools_state *st = p->state;
	size_t i = (size_t)(ct - p->targets);
	struct fg_target *t = &p->targets[i];
	char *made = NULL;
	long long before;
	bool relink = false;
	int err;

	if (!st || i >= st->ngoals || !st->goals[i].goal)
		return fg_error_set(FG_EINVAL, "%s: no way to build target '%s'", p->loc.file, t->name);
	/* what make writes: the program, or libtool's wrapper of it */
	if (!(made = fg_strdup(t->exe)))
		return FG_ENOMEM;
	before = fg_path_mtime(made);
	if ((err = build_goal(p, t, &st->goals[i])) || (err = unwrap(p, t)))
		goto done;
	res->rebuilt = fg_path_mtime(made) != before;
	fg_rosegment_after_link(p, t->exe, t->name, " to LDFLAGS", res, &relink);
	if (relink) {
		unlink(t->exe);
		unlink(made);
		if ((err = fg_autotools_configure(p)) || (err = build_goal(p, t, &st->goals[i])) ||
		    (err = unwrap(p, t)))
			goto done;
		res->rebuilt = true;
		res->no_rosegment = true;
	}
	if (res->no_rosegment && res->rebuilt)
		fg_project_note(p, "linked with %s: -Wl,--no-rosegment added", res->linker);
done:
	free(made);
	return err;
}
