/* Building flamegraph.toml targets: the built-in cc system (one unit per
 * source, compiled and linked by the engine in units.c) and the command
 * system (the project's own build command, then the target's `path`). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "util/banned.h"

/* The compiler command words: [build] cc, else $CC, else cc. Either may
 * carry words of its own ("ccache gcc", "gcc -m32"). */
static int cc_words(const fg_project *p, const struct fg_build_recipe *rc, fg_strvec *out)
{
	const char *cc = rc->cc ? rc->cc : p->opts.cc && *p->opts.cc ? p->opts.cc : "cc";
	int err = fg_strvec_split(out, cc);

	if (!err && !out->n)
		err = fg_error_set(FG_EINVAL, "the C compiler is empty — set [build] cc or $CC to "
				   "a compiler such as cc");
	return err;
}

/* Some compilers (and GCC on some targets) reject
 * -mno-omit-leaf-frame-pointer; ask the compiler rather than guess. The
 * probe compiles a real file in the build dir: never -o /dev/null, which
 * a failing compiler run as root deletes. */
bool fg_cc_accepts(const fg_project *p, const fg_strvec *cc, const char *flag)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 1, 0 };
	fg_strbuf src_sb = FG_STRBUF_INIT, obj_sb = FG_STRBUF_INIT;
	char *src, *obj;
	int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	FILE *f = NULL;
	bool ok = false;

	/* per process, so two runs on one project do not share the file */
	fg_strbuf_addf(&src_sb, "%s/flamegraph-probe-%ld.c", p->build_dir, (long)getpid());
	fg_strbuf_addf(&obj_sb, "%s/flamegraph-probe-%ld.o", p->build_dir, (long)getpid());
	src = fg_strbuf_detach(&src_sb, NULL);
	obj = fg_strbuf_detach(&obj_sb, NULL);
	if (!src || !obj || null_fd < 0 || fg_mkdir_p(p->build_dir) || !(f = fopen(src, "w")))
		goto done;
	fputs("int flamegraph_probe(int x) { return x + 1; }\n", f);
	if (fclose(f))
		goto done;
	fg_strvec_pushv(&cmd.argv, (const char *const *)cc->v, cc->n);
	fg_strvec_push(&cmd.argv, flag);
	fg_strvec_push(&cmd.argv, "-Werror");
	fg_strvec_push(&cmd.argv, "-c");
	fg_strvec_push(&cmd.argv, src);
	fg_strvec_push(&cmd.argv, "-o");
	fg_strvec_push(&cmd.argv, obj);
	cmd.stdin_fd = cmd.stdout_fd = cmd.stderr_fd = null_fd;
	ok = fg_cmd_run(&cmd, &st) == 0 && st.code == 0;
	unlink(src);
	unlink(obj);
done:
	fg_error_clear();
	if (null_fd >= 0)
		close(null_fd);
	fg_cmd_clear(&cmd);
	free(src);
	free(obj);
	return ok;
}

/* The flags every source is compiled with, in the order that lets the
 * forced ones win: profile, [build] and feature cflags, $CFLAGS, -I/-D,
 * then -g and the frame-pointer flags last. */
static int compile_flags(const fg_project *p, const struct fg_build_recipe *rc, const fg_strvec *cc,
			 fg_strvec *out)
{
	int err;

	if ((err = fg_strvec_pushv(out, (const char *const *)cc->v, cc->n)) ||
	    (err = fg_strvec_pushv(out, (const char *const *)rc->profile_cflags.v, rc->profile_cflags.n)) ||
	    (err = fg_strvec_pushv(out, (const char *const *)rc->cflags.v, rc->cflags.n)))
		return err;
	if (p->opts.cflags && (err = fg_strvec_split(out, p->opts.cflags)))
		return fg_error_set(err, "cannot split $CFLAGS (an unmatched quote?) — fix $CFLAGS");
	if ((err = fg_strvec_pushv(out, (const char *const *)rc->cppflags.v, rc->cppflags.n)) ||
	    (err = fg_strvec_push(out, "-g")) || (err = fg_strvec_push(out, "-fno-omit-frame-pointer")))
		return err;
	if (fg_cc_accepts(p, cc, "-mno-omit-leaf-frame-pointer"))
		err = fg_strvec_push(out, "-mno-omit-leaf-frame-pointer");
	/* clang then keeps its flags in the debug info, for the link check */
	if (!err && fg_cc_accepts(p, cc, "-grecord-command-line"))
		err = fg_strvec_push(out, "-grecord-command-line");
	return err;
}

static char *object_path(const fg_project *p, const char *source)
{
	size_t n = strlen(p->loc.root);
	fg_strbuf sb = FG_STRBUF_INIT;

	if (!strncmp(source, p->loc.root, n) && source[n] == '/')
		fg_strbuf_addf(&sb, "%s/obj/%s.o", p->build_dir, source + n + 1);
	else
		fg_strbuf_addf(&sb, "%s/obj/_abs%s.o", p->build_dir, source);
	return fg_strbuf_detach(&sb, NULL);
}

/* The unit compiling `source`, created on first use: targets sharing a
 * source share its object, since every unit gets the same flags. */
static int unit_for(fg_project *p, const fg_strvec *flags, const char *source, size_t *out)
{
	struct fg_unit *u;
	size_t i;

	for (i = 0; i < p->nunits; i++)
		if (!strcmp(p->units[i].source, source)) {
			*out = i;
			return 0;
		}
	if (!fg_path_is_file(source))
		return fg_error_set(FG_ENOTFOUND, "source %s does not exist — fix `sources` in %s",
				    source, p->loc.file);
	if (!(u = fg_project_add_unit(p)))
		return FG_ENOMEM;
	*out = p->nunits - 1;
	if (!(u->source = fg_strdup(source)) || !(u->dir = fg_strdup(p->loc.root)) ||
	    !(u->object = object_path(p, source)))
		return FG_ENOMEM;
	int err = fg_strvec_pushv(&u->argv, (const char *const *)flags->v, flags->n);
	if (!err && !(err = fg_strvec_push(&u->argv, "-c")) && !(err = fg_strvec_push(&u->argv, source)) &&
	    !(err = fg_strvec_push(&u->argv, "-o")))
		err = fg_strvec_push(&u->argv, u->object);
	return err;
}

/* [build] libs: "m" means -lm; anything with a slash is a file of the
 * project; flags ("-l...", "-Wl,...") pass as written. */
static int link_setup(fg_project *p, const struct fg_build_recipe *rc, const fg_strvec *cc)
{
	size_t i;
	int err = 0;

	free(p->cc);
	fg_strvec_clear(&p->ldflags);
	fg_strvec_clear(&p->libs);
	if (!(p->cc = fg_strdup(cc->v[0])))
		return FG_ENOMEM;
	for (i = 1; !err && i < cc->n; i++)
		err = fg_strvec_push(&p->ldflags, cc->v[i]);
	for (i = 0; !err && i < rc->profile_ldflags.n; i++)
		err = fg_strvec_push(&p->ldflags, rc->profile_ldflags.v[i]);
	for (i = 0; !err && i < rc->ldflags.n; i++)
		err = fg_strvec_push(&p->ldflags, rc->ldflags.v[i]);
	for (i = 0; !err && i < rc->libs.n; i++) {
		const char *l = rc->libs.v[i];
		if (l[0] == '-')
			err = fg_strvec_push(&p->libs, l);
		else if (strchr(l, '/')) {
			char *abs = fg_path_join(p->loc.root, l);
			err = abs ? fg_strvec_push(&p->libs, abs) : FG_ENOMEM;
			free(abs);
		} else
			err = fg_strvec_pushf(&p->libs, "-l%s", l);
	}
	return err;
}

int fg_cc_build(fg_project *p, const struct fg_target *t, fg_build_result *res)
{
	const struct fg_build_recipe *rc = &p->recipe;
	fg_strvec cc = FG_STRVEC_INIT, flags = FG_STRVEC_INIT;
	size_t *units = fg_calloc(t->sources.n ? t->sources.n : 1, sizeof(*units)), i;
	bool changed = false;
	int err = 0;

	if (!units)
		return FG_ENOMEM;
	if ((err = cc_words(p, rc, &cc)) || (err = compile_flags(p, rc, &cc, &flags)))
		goto done;
	for (i = 0; !err && i < t->sources.n; i++)
		err = unit_for(p, &flags, t->sources.v[i], &units[i]);
	if (err || (err = fg_units_compile(p, units, t->sources.n, &changed)) ||
	    (err = link_setup(p, rc, &cc)))
		goto done;
	err = fg_units_link(p, t, units, t->sources.n, changed, res);
done:
	free(units);
	fg_strvec_clear(&cc);
	fg_strvec_clear(&flags);
	return err;
}

/* [build] command: "{jobs}" becomes the job count; split like a shell
 * would, run without one. */
static int command_argv(const fg_project *p, const char *tmpl, fg_strvec *argv)
{
	long jobs = p->opts.jobs > 0 ? p->opts.jobs : sysconf(_SC_NPROCESSORS_ONLN);
	fg_strbuf sb = FG_STRBUF_INIT;
	int err;

	for (const char *s = tmpl; *s; s++) {
		if (!strncmp(s, "{jobs}", 6)) {
			fg_strbuf_addf(&sb, "%ld", jobs > 0 ? jobs : 1);
			s += 5;
		} else
			fg_strbuf_addch(&sb, *s);
	}
	err = fg_strvec_split(argv, sb.buf);
	if (err)
		err = fg_error_set(err, "%s: cannot split [build] command (an unmatched quote?) — "
				   "check its quotes", p->loc.file);
	else if (!argv->n)
		err = fg_error_set(FG_EINVAL, "%s: [build] command is empty", p->loc.file);
	fg_strbuf_release(&sb);
	return err;
}

/* CFLAGS and LDFLAGS for the project's own build: its profile, [build]
 * and the flags a profile needs, then the caller's $CFLAGS / $LDFLAGS, for
 * build files that take them from the environment. */
static int command_env(const fg_project *p, const struct fg_build_recipe *rc, fg_cmd *cmd)
{
	fg_strvec words = FG_STRVEC_INIT;
	fg_strbuf sb = FG_STRBUF_INIT;
	int err;

	fg_strvec_pushv(&words, (const char *const *)rc->profile_cflags.v, rc->profile_cflags.n);
	fg_strvec_pushv(&words, (const char *const *)rc->cflags.v, rc->cflags.n);
	fg_strvec_pushv(&words, (const char *const *)rc->cppflags.v, rc->cppflags.n);
	fg_strvec_push(&words, "-g");
	fg_strvec_push(&words, "-fno-omit-frame-pointer");
	fg_strvec_join_quoted(&words, &sb);
	if (p->opts.cflags)
		fg_strbuf_addf(&sb, " %s", p->opts.cflags);
	err = fg_strvec_pushf(&cmd->env, "CFLAGS=%s", sb.buf);
	fg_strvec_clear(&words);
	fg_strbuf_reset(&sb);
	fg_strvec_pushv(&words, (const char *const *)rc->profile_ldflags.v, rc->profile_ldflags.n);
	fg_strvec_pushv(&words, (const char *const *)rc->ldflags.v, rc->ldflags.n);
	fg_strvec_join_quoted(&words, &sb);
	if (p->opts.ldflags)
		fg_strbuf_addf(&sb, "%s%s", sb.len ? " " : "", p->opts.ldflags);
	if (!err && (sb.len || p->opts.ldflags))
		err = fg_strvec_pushf(&cmd->env, "LDFLAGS=%s", sb.buf ? sb.buf : "");
	if (!err)
		err = fg_strvec_pushf(&cmd->env, "FLAMEGRAPH_PROFILE=%s", p->profile);
	fg_strvec_clear(&words);
	fg_strbuf_release(&sb);
	return err;
}

int fg_command_build(fg_project *p, const struct fg_target *t, fg_build_result *res)
{
	const struct fg_build_recipe *rc = &p->recipe;
	long long before = fg_path_mtime(t->exe);
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 0, 0 };
	int err;

	if ((err = command_argv(p, rc->command, &cmd.argv)) || (err = command_env(p, rc, &cmd)) ||
	    (err = fg_cmd_set_cwd(&cmd, p->loc.root)))
		goto done;
	fg_project_note(p, "running the build command of %s: %s", p->name, rc->command);
	err = fg_build_tool_run(p, &cmd, false, &st);
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "the build command's program '%s' was not found — "
				   "install it or fix [build] command in %s", cmd.argv.v[0], p->loc.file);
	if (!err && st.code != 0)
		err = fg_error_set(FG_EBUILD, "the build command failed (exit %d; its output is "
				   "above) — fix the error and run again", st.code);
	if (!err && !fg_path_is_file(t->exe))
		err = fg_error_set(FG_ENOTFOUND, "the build command finished but %s '%s' is not at "
				   "%s — fix its `path` in %s", fg_target_kind_name(t->kind), t->name,
				   t->exe, p->loc.file);
	if (!err) {
		res->rebuilt = fg_path_mtime(t->exe) != before;
		if (fg_build_linker_of(t->exe, res->linker, sizeof(res->linker)))
			fg_error_clear();
	}
done:
	fg_cmd_clear(&cmd);
	return err;
}
