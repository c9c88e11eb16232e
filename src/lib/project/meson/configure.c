/* Configuring a Meson project into the flamegraph build folder: the
 * `meson setup` arguments (debug info, frame pointers, the user's
 * options, features as options) and the (re)configure itself, run only
 * when its arguments changed. The reader (read.c) reads
 * what this writes. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "lib/project/meson/meson.h"
#include "lib/project/project.h"
#include "util/input.h"
#include "util/suggest.h"
#include "util/banned.h"

#define STAMP_FILE "flamegraph-meson-setup.txt"
#define DEFAULTS_FILE "flamegraph-meson-defaults.txt"
#define INSTALL_HINT "(Debian/Ubuntu: apt-get install meson ninja-build)"

/* ---- configure arguments -------------------------------------------------- */

/* The user's -D NAME=VALUE for NAME, or NULL. */
static const char *user_define(const fg_project *p, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < p->opts.ndefines; i++) {
		const char *d = p->opts.defines[i];
		if (!strncmp(d, name, n) && d[n] == '=')
			return d + n + 1;
	}
	return NULL;
}

static const cJSON *find_option(const cJSON *options, const char *name)
{
	const cJSON *o;
	cJSON_ArrayForEach(o, options) {
		const char *n = fg_meson_jstr(o, "name");
		if (n && !strcmp(n, name))
			return o;
	}
	return NULL;
}

/* An option's value as -D takes it: true/false, a number, a string, or
 * a list (["a", "b"], which Meson reads as a literal). */
static void format_value(const cJSON *v, fg_strbuf *out)
{
	const cJSON *e;

	if (cJSON_IsBool(v))
		fg_strbuf_addstr(out, cJSON_IsTrue(v) ? "true" : "false");
	else if (cJSON_IsNumber(v))
		fg_strbuf_addf(out, "%lld", (long long)v->valuedouble);
	else if (cJSON_IsString(v))
		fg_strbuf_addstr(out, v->valuestring);
	else if (cJSON_IsArray(v)) {
		fg_strbuf_addch(out, '[');
		cJSON_ArrayForEach(e, v) {
			if (!cJSON_IsString(e))
				continue;
			if (out->buf[out->len - 1] != '[')
				fg_strbuf_addstr(out, ", ");
			fg_strbuf_addch(out, '\'');
			for (const char *s = e->valuestring; *s; s++) {
				if (*s == '\'' || *s == '\\')
					fg_strbuf_addch(out, '\\');
				fg_strbuf_addch(out, *s);
			}
			fg_strbuf_addch(out, '\'');
		}
		fg_strbuf_addch(out, ']');
	}
}

/* A compiler-argument option (c_args...) of the user's build folder as
 * one shell-quoted string, the way -Dc_args= takes it. */
static void array_words(const cJSON *v, fg_strbuf *out)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, v) {
		if (!cJSON_IsString(e))
			continue;
		if (out->len)
			fg_strbuf_addch(out, ' ');
		if (!strpbrk(e->valuestring, " \t'\"\\")) {
			fg_strbuf_addstr(out, e->valuestring);
			continue;
		}
		fg_strbuf_addch(out, '\'');
		for (const char *s = e->valuestring; *s; s++)
			fg_strbuf_addstr(out, *s == '\'' ? "'\\''" : (char[2]){ *s, 0 });
		fg_strbuf_addch(out, '\'');
	}
}

/* -Dc_args=... and the like: the user's own flags (their -D, else their
 * build folder's, else $CFLAGS/$LDFLAGS), then ours. */
static int flags_arg(const fg_project *p, const cJSON *user_options, const char *name,
		     const char *env_value, const char *ours, fg_strvec *args)
{
	const char *user = user_define(p, name);
	fg_strbuf sb = FG_STRBUF_INIT;
	int err = 0;

	if (user)
		fg_strbuf_addstr(&sb, user);
	else if (find_option(user_options, name))
		array_words(cJSON_GetObjectItemCaseSensitive(find_option(user_options, name), "value"), &sb);
	else if (env_value)
		fg_strbuf_addstr(&sb, env_value);
	if (ours && *ours)
		fg_strbuf_addf(&sb, "%s%s", sb.len ? " " : "", ours);
	/* given even when empty: what an earlier run put there (its
	 * -Wl,--no-rosegment) must not outlive the options it came from */
	err = fg_strvec_pushf(args, "-D%s=%s", name, sb.buf ? sb.buf : "");
	fg_strbuf_release(&sb);
	return err;
}

static bool flags_option(const char *name)
{
	static const char *const names[] = { "c_args", "cpp_args", "c_link_args", "cpp_link_args" };
	for (size_t i = 0; i < 4; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* release: -O2 -g (debugoptimized); dev: -O0 -g (debug); a Meson build
 * type by name, with debug info kept. */
static int profile_args(const fg_project *p, fg_strvec *args)
{
	static const char *const types[] = { "debug", "debugoptimized", "minsize", "plain" };
	const char *prof = p->profile;

	if (!strcmp(prof, "release"))
		return fg_strvec_push(args, "-Dbuildtype=debugoptimized");
	if (!strcmp(prof, "dev"))
		return fg_strvec_push(args, "-Dbuildtype=debug");
	for (size_t i = 0; i < 4; i++) {
		if (strcmp(prof, types[i]))
			continue;
		fg_strvec_pushf(args, "-Dbuildtype=%s", prof);
		return fg_strvec_push(args, "-Ddebug=true");
	}
	const char *near = fg_suggest(prof, types, 4);
	return fg_error_set(FG_EINVAL, "no profile '%s' for a Meson project — %s%s%suse release "
			    "(debugoptimized, the default), dev (debug), or a Meson build type: debug, "
			    "debugoptimized, minsize, plain", prof, near ? "did you mean '" : "",
			    near ? near : "", near ? "'? Otherwise " : "");
}

/* The options of the user's build folder: the project's own (and its
 * subprojects'), and the default library kind. */
static int carried_options(const cJSON *user_options, fg_strvec *args)
{
	const cJSON *o;
	fg_strbuf sb = FG_STRBUF_INIT;
	int err = 0;

	cJSON_ArrayForEach(o, user_options) {
		const char *n = fg_meson_jstr(o, "name"), *sec = fg_meson_jstr(o, "section");
		if (!n || !sec || (strcmp(sec, "user") && strcmp(n, "default_library")))
			continue;
		fg_strbuf_reset(&sb);
		fg_strbuf_addf(&sb, "-D%s=", n);
		format_value(cJSON_GetObjectItemCaseSensitive(o, "value"), &sb);
		if ((err = fg_strvec_push(args, sb.buf)))
			break;
	}
	fg_strbuf_release(&sb);
	return err;
}

static bool same_word(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int x = a[i] == '-' ? '_' : tolower((unsigned char)a[i]);
		int y = b[i] == '-' ? '_' : tolower((unsigned char)b[i]);
		if (x != y)
			return false;
	}
	return true;
}

/* --features X names the option X, or one that differs only in case and
 * '-'/'_', or one with an enable_/with_/use_/<project>_ prefix. */
static bool feature_matches(const char *option, const char *feature, const char *project)
{
	static const char *const pre[] = { "enable_", "with_", "use_" };
	size_t fl = strlen(feature), ol = strlen(option), pl;

	if (ol == fl && same_word(option, feature, fl))
		return true;
	for (size_t i = 0; i < 3; i++) {
		pl = strlen(pre[i]);
		if (ol == pl + fl && same_word(option, pre[i], pl) && same_word(option + pl, feature, fl))
			return true;
	}
	pl = strlen(project);
	return pl && ol == pl + 1 + fl && same_word(option, project, pl) &&
	       (option[pl] == '_' || option[pl] == '-') && same_word(option + pl + 1, feature, fl);
}

static const char *default_of(const char *defaults, const char *name, fg_strbuf *tmp)
{
	const char *s;
	size_t n = strlen(name);

	for (s = defaults; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
		if (!strncmp(s, name, n) && s[n] == '=') {
			fg_strbuf_reset(tmp);
			fg_strbuf_add(tmp, s + n + 1, strcspn(s + n + 1, "\n"));
			return tmp->buf;
		}
	}
	return NULL;
}

static int unknown_feature(const fg_project *p, const char *f)
{
	const char *near = fg_suggest(f, (const char *const *)p->bool_options.v, p->bool_options.n);

	return fg_feature_unknown(f, near, NULL, &p->bool_options,
				  "%s's boolean and feature options are", p->name);
}

/* One -D per boolean or feature option of the project: on when asked
 * for (or --all-features), off with --no-default-features, else its
 * value at the first configure, so that dropping --features restores it. */
static int feature_args(fg_project *p, const cJSON *options, const char *defaults, fg_strvec *args)
{
	fg_strbuf tmp = FG_STRBUF_INIT;
	const cJSON *o;
	bool *asked = NULL;
	int err = 0;

	if ((err = fg_meson_read_switches(p, options)))
		return err;
	if (!(asked = fg_calloc(p->bool_options.n + 1, sizeof(*asked))))
		return FG_ENOMEM;
	for (size_t i = 0; i < p->opts.nfeatures && !err; i++) {
		const char *f = p->opts.features[i];
		size_t k, hit = p->bool_options.n;
		for (k = 0; k < p->bool_options.n && hit == p->bool_options.n; k++)
			if (!strcmp(p->bool_options.v[k], f))
				hit = k;
		for (k = 0; k < p->bool_options.n && hit == p->bool_options.n; k++)
			if (feature_matches(p->bool_options.v[k], f, p->name))
				hit = k;
		if (hit == p->bool_options.n)
			err = unknown_feature(p, f);
		else
			asked[hit] = true;
	}
	for (size_t k = 0; k < p->bool_options.n && !err; k++) {
		const char *n = p->bool_options.v[k], *v;
		bool feature;
		o = find_option(options, n);
		feature = o && fg_meson_is_feature(o);
		if (asked[k] || p->opts.all_features)
			v = feature ? "enabled" : "true";
		else if (p->opts.no_default_features)
			v = feature ? "disabled" : "false";
		else if (!(v = default_of(defaults, n, &tmp)))
			continue;
		err = fg_strvec_pushf(args, "-D%s=%s", n, v);
	}
	free(asked);
	fg_strbuf_release(&tmp);
	return err;
}

/* Everything but the feature switches (base) and the user's -D (last,
 * so they win). */
static int split_args(fg_project *p, const char *fp_flags, const cJSON *user_options,
		      const cJSON *options, const char *defaults, fg_strvec *base,
		      fg_strvec *feats, fg_strvec *user)
{
	fg_strbuf link = FG_STRBUF_INIT;
	int err;

	if ((err = profile_args(p, base)))
		return err;
	if (p->no_rosegment)
		fg_strbuf_addstr(&link, "-Wl,--no-rosegment");
	if ((err = flags_arg(p, user_options, "c_args", p->opts.cflags, fp_flags, base)) ||
	    (err = flags_arg(p, user_options, "cpp_args", NULL, fp_flags, base)) ||
	    (err = flags_arg(p, user_options, "c_link_args", p->opts.ldflags, link.buf, base)) ||
	    (err = flags_arg(p, user_options, "cpp_link_args", NULL, link.buf, base)) ||
	    (err = carried_options(user_options, base)))
		goto done;
	if (options && (err = feature_args(p, options, defaults, feats)))
		goto done;
	for (size_t i = 0; i < p->opts.ndefines && !err; i++) {
		const char *d = p->opts.defines[i], *eq = strchr(d, '=');
		fg_strbuf name = FG_STRBUF_INIT;
		if (!eq || eq == d) {
			err = fg_error_set(FG_EINVAL, "-D %s: a Meson option is set as -D NAME=VALUE", d);
			break;
		}
		fg_strbuf_add(&name, d, (size_t)(eq - d));
		if (!flags_option(name.buf))
			err = fg_strvec_pushf(user, "-D%s", d);
		fg_strbuf_release(&name);
	}
done:
	fg_strbuf_release(&link);
	return err;
}

int fg_meson_setup_args(fg_project *p, const char *fp_flags, const char *user_options,
			const char *options, const char *defaults, fg_strvec *args)
{
	fg_strvec feats = FG_STRVEC_INIT, user = FG_STRVEC_INIT;
	cJSON *uo = fg_meson_parse(user_options), *o = fg_meson_parse(options);
	int err = split_args(p, fp_flags, uo, o, defaults, args, &feats, &user);

	if (!err)
		err = fg_strvec_pushv(args, (const char *const *)feats.v, feats.n);
	if (!err)
		err = fg_strvec_pushv(args, (const char *const *)user.v, user.n);
	fg_strvec_clear(&feats);
	fg_strvec_clear(&user);
	cJSON_Delete(uo);
	cJSON_Delete(o);
	return err;
}

/* ---- configure ------------------------------------------------------------ */

/* Whether the C compiler ($CC, else cc) takes a flag. */
static bool cc_accepts(const fg_project *p, const char *flag)
{
	fg_strvec cc = FG_STRVEC_INIT;
	bool ok = fg_strvec_push(&cc, p->opts.cc && *p->opts.cc ? p->opts.cc : "cc") == 0 &&
		  fg_cc_accepts(p, &cc, flag);

	fg_strvec_clear(&cc);
	return ok;
}

/* Meson reports errors on stdout: keep its ERROR lines (or its last
 * lines) for the message. */
static void meson_message(const fg_strbuf *out, fg_strbuf *msg)
{
	const char *s = out->buf ? strstr(out->buf, "ERROR:") : NULL;
	size_t lines = 0;

	if (s) {
		while (s > out->buf && s[-1] != '\n')
			s--;
	} else if (out->len) {
		for (s = out->buf + out->len - 1; s > out->buf && lines < 12; s--)
			if (*s == '\n')
				lines++;
	}
	if (s)
		fg_strbuf_add(msg, s, strlen(s));
	while (msg->len && strchr(" \t\r\n", msg->buf[msg->len - 1]))
		fg_strbuf_setlen(msg, msg->len - 1);
}

static int run_setup(fg_project *p, const fg_strvec *args, const char *mode)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 0, 0 };
	fg_strbuf out = FG_STRBUF_INIT, msg = FG_STRBUF_INIT, shown = FG_STRBUF_INIT;
	int err;

	fg_strvec_push(&cmd.argv, "meson");
	fg_strvec_push(&cmd.argv, "setup");
	if (mode)
		fg_strvec_push(&cmd.argv, mode);
	fg_strvec_push(&cmd.argv, p->build_dir);
	fg_strvec_push(&cmd.argv, p->loc.root);
	err = fg_strvec_pushv(&cmd.argv, (const char *const *)args->v, args->n);
	fg_project_note(p, "configuring %s (%s) with meson in %s", p->name, p->profile, p->build_dir);
	if (p->opts.verbose) {
		fg_strvec_join_quoted(&cmd.argv, &shown);
		fg_project_note(p, "running %s", shown.buf);
	}
	if (!err)
		err = fg_cmd_capture(&cmd, &out, &st);
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "meson is not installed — install it " INSTALL_HINT);
	else if (!err && st.code != 0) {
		meson_message(&out, &msg);
		err = fg_error_set(FG_EBUILD, "configuring %s with meson failed:\n%s\n— fix that in the "
				   "project or its options (`opts.defines` NAME=VALUE, `opts.features`)", p->loc.file,
				   msg.len ? msg.buf : "(meson said nothing)");
	}
	fg_strbuf_release(&out);
	fg_strbuf_release(&msg);
	fg_strbuf_release(&shown);
	fg_cmd_clear(&cmd);
	return err;
}

/* NAME=VALUE of each boolean and feature option, as configured. */
static char *defaults_text(const cJSON *options)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	const cJSON *o;

	cJSON_ArrayForEach(o, options) {
		if (!fg_meson_is_switch(o))
			continue;
		fg_strbuf_addf(&sb, "%s=", fg_meson_jstr(o, "name"));
		format_value(cJSON_GetObjectItemCaseSensitive(o, "value"), &sb);
		fg_strbuf_addch(&sb, '\n');
	}
	return fg_strbuf_detach(&sb, NULL);
}

/* Whether every -DNAME=VALUE of args is NAME's configured value. */
static bool options_are(const cJSON *options, const fg_strvec *args)
{
	fg_strbuf v = FG_STRBUF_INIT;
	bool same = true;

	for (size_t i = 0; i < args->n && same; i++) {
		const char *d = args->v[i] + 2, *eq = strchr(d, '=');
		fg_strbuf name = FG_STRBUF_INIT;
		const cJSON *o;
		fg_strbuf_add(&name, d, eq ? (size_t)(eq - d) : 0);
		o = eq ? find_option(options, name.buf) : NULL;
		fg_strbuf_reset(&v);
		if (o)
			format_value(cJSON_GetObjectItemCaseSensitive(o, "value"), &v);
		same = o && v.buf && !strcmp(v.buf, eq + 1);
		fg_strbuf_release(&name);
	}
	fg_strbuf_release(&v);
	return same;
}

static char *join_lines(const fg_strvec *v)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	for (size_t i = 0; i < v->n; i++)
		fg_strbuf_addf(&sb, "%s\n", v->v[i]);
	return fg_strbuf_detach(&sb, NULL);
}

/* An option set by the last configure and given no value now keeps its
 * old value in Meson's build folder: only a fresh configure resets it. */
static bool option_dropped(const char *stamp, const char *want)
{
	for (const char *s = stamp; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
		size_t n = strcspn(s, "=\n");
		bool found = false;
		for (const char *w = want; w && *w && !found; w = strchr(w, '\n') ? strchr(w, '\n') + 1 : NULL)
			found = strcspn(w, "=\n") == n && !strncmp(s, w, n);
		if (!found)
			return true;
	}
	return false;
}

static char *fp_flags(const fg_project *p)
{
	fg_strbuf fl = FG_STRBUF_INIT;

	fg_strbuf_addstr(&fl, "-fno-omit-frame-pointer");
	if (cc_accepts(p, "-mno-omit-leaf-frame-pointer"))
		fg_strbuf_addstr(&fl, " -mno-omit-leaf-frame-pointer");
	return fg_strbuf_detach(&fl, NULL);
}

static char *build_file(const fg_project *p, const char *name)
{
	return fg_path_join(p->build_dir, name);
}

/* Whether a meson.build (or options file) changed since build.ninja was
 * written: the introspection files are then out of date until Meson
 * regenerates, which `meson compile` would do only after they are read. */
static bool intro_stale(const fg_project *p, const char *ninja_file)
{
	char *path = fg_meson_info_path(p->build_dir, "intro-buildsystem_files.json"), *text = fg_meson_read_text(path);
	cJSON *files = fg_meson_parse(text);
	const cJSON *f;
	long long built = fg_path_mtime(ninja_file);
	bool stale = false;

	cJSON_ArrayForEach(f, files)
		if (cJSON_IsString(f) && fg_path_mtime(f->valuestring) > built)
			stale = true;
	cJSON_Delete(files);
	free(text);
	free(path);
	return stale;
}

int fg_meson_configure(fg_project *p)
{
	fg_meson_state *st = fg_meson_state_of(p);
	fg_strvec base = FG_STRVEC_INIT, feats = FG_STRVEC_INIT, user = FG_STRVEC_INIT;
	char *stamp_path = build_file(p, STAMP_FILE), *defaults_path = build_file(p, DEFAULTS_FILE);
	char *ninja_file = build_file(p, "build.ninja");
	char *fp = NULL, *uo_path = NULL, *uo_text = NULL, *opt_path = NULL, *opt_text = NULL;
	char *defaults = NULL, *stamp = NULL, *want = NULL, *meson = fg_which("meson"), *ninja = NULL;
	cJSON *uo = NULL, *options = NULL;
	bool configured, fresh = false;
	int err = 0;

	if (!st || !stamp_path || !defaults_path || !ninja_file) {
		err = FG_ENOMEM;
		goto done;
	}
	if (!meson || !((ninja = fg_which("ninja")) || (ninja = fg_which("samu")))) {
		err = fg_error_set(FG_ENOTFOUND, "%s is not installed — flamegraph-build builds Meson "
				   "projects with meson and ninja: install them " INSTALL_HINT,
				   meson ? "ninja" : "meson");
		goto done;
	}
	if ((err = fg_mkdir_p(p->build_dir)))
		goto done;
	p->no_rosegment = false;
	fg_rosegment_load(p);
	if (fg_wants_lld(p))
		p->no_rosegment = true;
	fp = fp_flags(p);
	if (st->user_build && (uo_path = fg_meson_info_path(st->user_build, "intro-buildoptions.json")))
		uo = fg_meson_parse(uo_text = fg_meson_read_text(uo_path));
	opt_path = fg_meson_info_path(p->build_dir, "intro-buildoptions.json");
	configured = fg_meson_is_build_dir(p->build_dir) && fg_path_is_file(ninja_file);
	defaults = fg_meson_read_text(defaults_path);
	if (!configured || !defaults) {
		if ((err = split_args(p, fp, uo, NULL, NULL, &base, &feats, &user)) ||
		    (err = fg_strvec_pushv(&base, (const char *const *)user.v, user.n)) ||
		    (err = run_setup(p, &base, configured ? "--wipe" : NULL)))
			goto done;
		fresh = true;
		free(defaults);
		options = fg_meson_parse(opt_text = fg_meson_read_text(opt_path));
		if (!(defaults = defaults_text(options)) || (err = fg_meson_write_text(defaults_path, defaults)))
			goto done;
		fg_strvec_clear(&base);
		fg_strvec_clear(&user);
	} else
		options = fg_meson_parse(opt_text = fg_meson_read_text(opt_path));
	if (!options) {
		err = fg_error_set(FG_EPARSE, "Meson wrote no readable %s", opt_path);
		goto done;
	}
	if ((err = split_args(p, fp, uo, options, defaults, &base, &feats, &user)) ||
	    (err = fg_strvec_pushv(&base, (const char *const *)feats.v, feats.n)) ||
	    (err = fg_strvec_pushv(&base, (const char *const *)user.v, user.n)))
		goto done;
	if (!(want = join_lines(&base))) {
		err = FG_ENOMEM;
		goto done;
	}
	stamp = fg_meson_read_text(stamp_path);
	if (fresh && options_are(options, &feats))
		err = fg_meson_write_text(stamp_path, want);
	else if (!stamp || strcmp(stamp, want)) {
		if ((err = run_setup(p, &base, stamp && option_dropped(stamp, want) ? "--wipe" : "--reconfigure")))
			goto done;
		err = fg_meson_write_text(stamp_path, want);
	} else if (intro_stale(p, ninja_file))
		err = run_setup(p, &base, "--reconfigure");
done:
	cJSON_Delete(uo);
	cJSON_Delete(options);
	fg_strvec_clear(&base);
	fg_strvec_clear(&feats);
	fg_strvec_clear(&user);
	free(stamp_path);
	free(defaults_path);
	free(ninja_file);
	free(fp);
	free(uo_path);
	free(uo_text);
	free(opt_path);
	free(opt_text);
	free(defaults);
	free(stamp);
	free(want);
	free(meson);
	free(ninja);
	return err;
}

