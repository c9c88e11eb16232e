/* Configuring an autotools project out of tree into the flamegraph build
 * folder: the options `configure --help` lists (for --features and -D),
 * the arguments (the profile's flags with frame pointers appended to the
 * user's, features as --enable-X, -D as --NAME[=VALUE]) and configure
 * itself, run only when its arguments changed. */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "lib/project/autotools/autotools.h"
#include "util/input.h"
#include "util/suggest.h"
#include "util/banned.h"

#define STAMP_FILE "flamegraph-configure.txt"
#define HELP_FILE "flamegraph-configure-help.txt"
#define LOG_FILE "flamegraph-configure.log"
#define ROSEGMENT_FILE "flamegraph-no-rosegment"
#define TAIL_LINES 15

/* ---- arguments ------------------------------------------------------------ */

static bool has(const fg_strvec *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return true;
	return false;
}

static bool has2(const fg_strvec *v, const char *prefix, const char *name)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	bool found;

	fg_strbuf_addf(&sb, "%s%s", prefix, name);
	found = sb.buf && has(v, sb.buf);
	fg_strbuf_release(&sb);
	return found;
}

int fg_autotools_check_profile(const fg_project *p)
{
	if (strcmp(p->profile, "release") && strcmp(p->profile, "dev"))
		return fg_error_set(FG_EINVAL, "no profile '%s' for an autotools project — use release "
				    "(-O2 -g, the default) or dev (-O0 -g); set other flags through "
				    "$CFLAGS", p->profile);
	return 0;
}

static int profile_flags(const fg_project *p, const char *fp_flags, fg_strbuf *out)
{
	const char *user = p->opts.cflags && *p->opts.cflags ? p->opts.cflags : NULL;
	int err;

	if ((err = fg_autotools_check_profile(p)))
		return err;
	if (user)
		fg_strbuf_addstr(out, user);
	else if (!strcmp(p->profile, "release"))
		fg_strbuf_addstr(out, "-O2");
	if (!strcmp(p->profile, "dev"))
		fg_strbuf_addf(out, "%s-O0", out->len ? " " : "");
	fg_strbuf_addf(out, "%s-g %s", out->len ? " " : "", fp_flags);
	return out->buf ? 0 : FG_ENOMEM;
}

static int unknown_feature(const fg_project *p, const char *f)
{
	const char *near = fg_suggest(f, (const char *const *)p->bool_options.v, p->bool_options.n);

	return fg_feature_unknown(f, near, NULL, &p->bool_options,
				  "%s's configure offers --enable/--with for", p->name);
}

static int feature_args(const fg_project *p, const fg_autotools_state *st, fg_strvec *args)
{
	fg_strvec asked = FG_STRVEC_INIT;
	int err = 0;

	for (size_t i = 0; i < p->opts.nfeatures && !err; i++) {
		const char *f = p->opts.features[i];
		if (has2(&st->options, "enable-", f) || has2(&st->options, "disable-", f))
			err = fg_strvec_pushf(args, "--enable-%s", f);
		else if (has2(&st->options, "with-", f) || has2(&st->options, "without-", f))
			err = fg_strvec_pushf(args, "--with-%s", f);
		else
			err = unknown_feature(p, f);
		if (!err)
			err = fg_strvec_push(&asked, f);
	}
	for (size_t i = 0; i < st->options.n && !err; i++) {
		const char *o = st->options.v[i], *f = NULL;
		bool all = false;
		if (p->opts.all_features && !strncmp(o, "enable-", 7))
			f = o + 7, all = true;
		else if (p->opts.no_default_features && !strncmp(o, "disable-", 8))
			f = o + 8;
		else if (p->opts.no_default_features && !strncmp(o, "without-", 8))
			f = o + 8;
		if (!f || !*f || fg_autotools_generic_option(f) || has(&asked, f))
			continue;
		err = all ? fg_strvec_pushf(args, "--enable-%s", f) : fg_strvec_pushf(args, "--%s", o);
		if (!err)
			err = fg_strvec_push(&asked, f);
	}
	fg_strvec_clear(&asked);
	return err;
}

/* CC=clang and the like: a variable for configure, not an option */
static bool is_variable(const char *name, size_t n)
{
	if (!n || !isupper((unsigned char)name[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isupper((unsigned char)name[i]) && !isdigit((unsigned char)name[i]) && name[i] != '_')
			return false;
	return true;
}

static bool known_option(const fg_autotools_state *st, const char *opt)
{
	static const char *const pairs[][2] = {
		{ "enable-", "disable-" }, { "with-", "without-" },
	};
	if (has(&st->options, opt))
		return true;
	for (size_t i = 0; i < 2; i++)
		for (size_t k = 0; k < 2; k++) {
			size_t n = strlen(pairs[i][k]);
			if (!strncmp(opt, pairs[i][k], n) && has2(&st->options, pairs[i][!k], opt + n))
				return true;
		}
	return false;
}

static int define_args(const fg_project *p, const fg_autotools_state *st, fg_strvec *args)
{
	int err = 0;

	for (size_t i = 0; i < p->opts.ndefines && !err; i++) {
		const char *d = p->opts.defines[i];
		while (*d == '-')
			d++;
		size_t n = strcspn(d, "=");
		char *name = fg_strndup(d, n);
		if (!name)
			return FG_ENOMEM;
		if (is_variable(d, n))
			err = fg_strvec_push(args, d);
		else if (known_option(st, name))
			err = fg_strvec_pushf(args, "--%s", d);
		else {
			const char *near = fg_suggest(name, (const char *const *)st->options.v, st->options.n);
			err = fg_error_set(FG_EINVAL, "-D %s: %s's configure has no option --%s — %s%s%s"
					   "see `configure --help` (-D NAME=VALUE passes --NAME=VALUE, "
					   "-D VAR=VALUE in capitals a variable such as CC)",
					   p->opts.defines[i], p->name, name, near ? "did you mean --" : "",
					   near ? near : "", near ? "? Otherwise " : "");
		}
		free(name);
	}
	return err;
}

int fg_autotools_configure_args(fg_project *p, const char *fp_flags, fg_strvec *args)
{
	fg_autotools_state *st = fg_autotools_state_of(p);
	fg_strbuf flags = FG_STRBUF_INIT, ld = FG_STRBUF_INIT;
	int err;

	if (!st)
		return FG_ENOMEM;
	if ((err = profile_flags(p, fp_flags, &flags)))
		goto done;
	if ((err = fg_strvec_pushf(args, "CFLAGS=%s", flags.buf)) ||
	    (err = fg_strvec_pushf(args, "CXXFLAGS=%s", flags.buf)))
		goto done;
	if (p->opts.ldflags && *p->opts.ldflags)
		fg_strbuf_addstr(&ld, p->opts.ldflags);
	if (p->no_rosegment)
		fg_strbuf_addf(&ld, "%s-Wl,--no-rosegment", ld.len ? " " : "");
	if (ld.len && (err = fg_strvec_pushf(args, "LDFLAGS=%s", ld.buf)))
		goto done;
	if (p->opts.cc && *p->opts.cc && (err = fg_strvec_pushf(args, "CC=%s", p->opts.cc)))
		goto done;
	if (!(err = feature_args(p, st, args)))
		err = define_args(p, st, args);
done:
	fg_strbuf_release(&flags);
	fg_strbuf_release(&ld);
	return err;
}

/* ---- running configure ------------------------------------------------------ */

static char *build_file(const fg_project *p, const char *name)
{
	return fg_path_join(p->build_dir, name);
}

static char *configure_path(const fg_autotools_state *st)
{
	return fg_path_join(st->srcdir, "configure");
}

/* configure --help, kept in the build folder until configure changes. */
static int read_help(fg_project *p, const fg_autotools_state *st)
{
	char *path = build_file(p, HELP_FILE), *conf = configure_path(st), *text = NULL;
	fg_cmd cmd = FG_CMD_INIT;
	fg_strbuf out = FG_STRBUF_INIT;
	fg_exit_status es = { 0, 0 };
	size_t len = 0;
	int err = path && conf ? 0 : FG_ENOMEM;

	if (!err && fg_path_mtime(path) > fg_path_mtime(conf) && !fg_read_file(path, &text, &len)) {
		err = fg_autotools_read_help(p, text, len);
		goto done;
	}
	fg_error_clear();
	fg_strvec_push(&cmd.argv, conf);
	fg_strvec_push(&cmd.argv, "--help");
	if (!err)
		err = fg_cmd_set_cwd(&cmd, p->build_dir);
	if (!err)
		err = fg_cmd_capture(&cmd, &out, &es);
	if (!err && es.code == 0 && out.len) {
		FILE *f = fopen(path, "w");
		if (f) {
			fwrite(out.buf, 1, out.len, f);
			fclose(f);
		}
		err = fg_autotools_read_help(p, out.buf, out.len);
	} else if (!err)
		err = fg_error_set(FG_EBUILD, "%s --help failed — is it a configure script?", conf);
done:
	fg_cmd_clear(&cmd);
	fg_strbuf_release(&out);
	free(text);
	free(path);
	free(conf);
	return err;
}

/* The last lines of configure's output, for the error. */
static void tail_of(const char *log, fg_strbuf *out)
{
	char *data = NULL;
	size_t len = 0, lines = 0;
	const char *s;

	if (fg_read_file(log, &data, &len) || !len) {
		fg_error_clear();
		free(data);
		return;
	}
	while (len && (data[len - 1] == '\n' || data[len - 1] == ' '))
		len--;
	for (s = data + len; s > data; s--)
		if (s[-1] == '\n' && ++lines == TAIL_LINES)
			break;
	fg_strbuf_add(out, s, (size_t)(data + len - s));
	free(data);
}

static int run_configure(fg_project *p, const fg_autotools_state *st, const fg_strvec *args)
{
	char *log = build_file(p, LOG_FILE), *conf = configure_path(st), *config_log = build_file(p, "config.log");
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status es = { 0, 0 };
	fg_strbuf tail = FG_STRBUF_INIT;
	int fd = -1, err = log && conf && config_log ? 0 : FG_ENOMEM;

	if (err)
		goto done;
	if ((fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		err = fg_error_set(FG_EIO, "cannot write %s", log);
		goto done;
	}
	fg_strvec_push(&cmd.argv, conf);
	fg_strvec_pushv(&cmd.argv, (const char *const *)args->v, args->n);
	cmd.stdout_fd = cmd.stderr_fd = fd;
	cmd.stdin_fd = -1;
	fg_project_note(p, "configuring %s (%s) in %s", p->name, p->profile, p->build_dir);
	if (!(err = fg_cmd_set_cwd(&cmd, p->build_dir)))
		err = fg_build_tool_run(p, &cmd, false, &es);
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "%s cannot be run — is it executable?", conf);
	else if (!err && es.code != 0) {
		tail_of(log, &tail);
		err = fg_error_set(FG_EBUILD, "configuring %s failed; configure's last lines:\n%s\n"
				   "— the whole story is in %s: install what it asks for (a library's "
				   "-dev package), or pass configure options with `opts.defines` NAME=VALUE or "
				   "`opts.features`", p->name, tail.len ? tail.buf : "(nothing)", config_log);
	}
done:
	if (fd >= 0)
		close(fd);
	fg_cmd_clear(&cmd);
	fg_strbuf_release(&tail);
	free(log);
	free(conf);
	free(config_log);
	return err;
}

static char *fp_flags(const fg_project *p)
{
	fg_strvec cc = FG_STRVEC_INIT;
	fg_strbuf fl = FG_STRBUF_INIT;

	fg_strbuf_addstr(&fl, "-fno-omit-frame-pointer");
	if (!fg_strvec_split(&cc, p->opts.cc && *p->opts.cc ? p->opts.cc : "cc") &&
	    fg_cc_accepts(p, &cc, "-mno-omit-leaf-frame-pointer"))
		fg_strbuf_addstr(&fl, " -mno-omit-leaf-frame-pointer");
	fg_strvec_clear(&cc);
	return fg_strbuf_detach(&fl, NULL);
}

int fg_autotools_configure(fg_project *p)
{
	fg_autotools_state *st = fg_autotools_state_of(p);
	fg_strvec args = FG_STRVEC_INIT;
	fg_strbuf want = FG_STRBUF_INIT;
	char *stamp_path = build_file(p, STAMP_FILE), *marker = build_file(p, ROSEGMENT_FILE);
	char *makefile = build_file(p, "Makefile"), *status = build_file(p, "config.status");
	char *fp = NULL, *stamp = NULL;
	size_t len = 0;
	int err = 0;

	if (!st || !st->srcdir || !stamp_path || !marker || !makefile || !status) {
		err = FG_ENOMEM;
		goto done;
	}
	if ((err = fg_mkdir_p(p->build_dir)))
		goto done;
	p->no_rosegment = fg_path_is_file(marker) || fg_wants_lld(p);
	fp = fp_flags(p);
	if ((err = read_help(p, st)) || (err = fg_autotools_configure_args(p, fp, &args)))
		goto done;
	fg_strbuf_addf(&want, "%s\n", st->srcdir);
	for (size_t i = 0; i < args.n; i++)
		fg_strbuf_addf(&want, "%s\n", args.v[i]);
	if ((err = fg_strbuf_check(&want)))
		goto done;
	if (fg_read_file(stamp_path, &stamp, &len))
		fg_error_clear();
	if (stamp && want.buf && !strcmp(stamp, want.buf) && fg_path_is_file(makefile) &&
	    fg_path_is_file(status))
		goto done;
	/* a failed configure leaves no stamp: the next run configures again */
	unlink(stamp_path);
	if ((err = run_configure(p, st, &args)))
		goto done;
	FILE *f = fopen(stamp_path, "w");
	if (f) {
		fputs(want.buf, f);
		fclose(f);
	}
done:
	fg_strvec_clear(&args);
	fg_strbuf_release(&want);
	free(stamp_path);
	free(marker);
	free(makefile);
	free(status);
	free(fp);
	free(stamp);
	return err;
}
