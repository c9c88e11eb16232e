/* Configuring a CMake project into the flamegraph build folder:
 * the build type of the profile, the user's flags with -g and the frame
 * pointer flags appended, -Wl,--no-rosegment once lld or mold was seen,
 * the user's -D entries and the features as BOOL options. The File API
 * queries and replies are reply.c's; this file runs
 * cmake and keeps the stamps that make a re-run configure only when its
 * arguments changed. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "lib/project/cmake/cmake.h"
#include "util/input.h"
#include "util/banned.h"

#define STAMP_FILE "flamegraph-configure.txt"
#define DEFAULTS_FILE "flamegraph-features.txt"

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		return fg_error_set(FG_EIO, "cannot write %s", path);
	return 0;
}

static char *read_text(const char *path)
{
	char *data = NULL;
	size_t len;
	if (fg_read_file(path, &data, &len)) {
		fg_error_clear();
		return NULL;
	}
	return data;
}

/* The user's own value for a -D cache entry NAME (NAME=v or NAME:TYPE=v). */
static const char *user_define(const fg_project *p, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < p->opts.ndefines; i++) {
		const char *d = p->opts.defines[i];
		if (strncmp(d, name, n) || (d[n] != '=' && d[n] != ':'))
			continue;
		return strchr(d, '=') ? strchr(d, '=') + 1 : "";
	}
	return NULL;
}

/* The C compiler the build uses: once configured, the one in the cache
 * (a later run without $CC must probe the same one, or its flags would
 * change and everything would be rebuilt); before, the one asked for. */
static const char *c_compiler(const fg_project *p, const cJSON *cache)
{
	const char *cc = cache ? fg_cmake_cache_value(cache, "CMAKE_C_COMPILER") : NULL;

	if (!cc || !*cc)
		cc = user_define(p, "CMAKE_C_COMPILER");
	if (!cc || !*cc)
		cc = p->opts.cc;
	return cc && *cc ? cc : "cc";
}

/* Whether the compiler takes a flag: -mno-omit-leaf-frame-pointer (x86
 * and arm64 GCC/clang do, others reject it and the configure step would
 * fail), -grecord-command-line (clang only). */
static bool cc_accepts(const fg_project *p, const cJSON *cache, const char *flag)
{
	fg_strvec cc = FG_STRVEC_INIT;
	bool ok = fg_strvec_push(&cc, c_compiler(p, cache)) == 0 && fg_cc_accepts(p, &cc, flag);

	fg_strvec_clear(&cc);
	return ok;
}


static const char *cmake_build_type(const char *profile)
{
	if (!strcmp(profile, "release"))
		return "RelWithDebInfo";
	if (!strcmp(profile, "dev"))
		return "Debug";
	return profile;
}

/* The configure arguments other than the features: build type, flags with
 * frame pointers appended (those the compiler takes: the cache, when
 * there is one yet, names it), the user's -D entries. */
static int base_args(fg_project *p, const cJSON *cache, fg_strvec *args)
{
	fg_strbuf fl = FG_STRBUF_INIT;
	const char *user;
	int err = 0;

	fg_rosegment_load(p);
	if (fg_wants_lld(p))
		p->no_rosegment = true;
	fg_strvec_pushf(args, "-DCMAKE_BUILD_TYPE=%s", cmake_build_type(p->profile));
	user = user_define(p, "CMAKE_C_FLAGS");
	if (!user)
		user = p->opts.cflags;
	if (user && *user)
		fg_strbuf_addf(&fl, "%s ", user);
	/* -g too: Release and MinSizeRel build types have no debug info */
	fg_strbuf_addstr(&fl, "-g -fno-omit-frame-pointer");
	if (cc_accepts(p, cache, "-mno-omit-leaf-frame-pointer"))
		fg_strbuf_addstr(&fl, " -mno-omit-leaf-frame-pointer");
	/* clang then keeps its flags in the debug info, for the link check */
	if (cc_accepts(p, cache, "-grecord-command-line"))
		fg_strbuf_addstr(&fl, " -grecord-command-line");
	fg_strvec_pushf(args, "-DCMAKE_C_FLAGS=%s", fl.buf);
	fg_strvec_pushf(args, "-DCMAKE_CXX_FLAGS=%s", fl.buf);
	fg_strbuf_reset(&fl);
	user = user_define(p, "CMAKE_EXE_LINKER_FLAGS");
	if (!user)
		user = p->opts.ldflags;
	if (user && *user)
		fg_strbuf_addstr(&fl, user);
	if (p->no_rosegment)
		fg_strbuf_addf(&fl, "%s-Wl,--no-rosegment", fl.len ? " " : "");
	/* given even when empty: the cache must not keep an earlier run's
	 * -fuse-ld=lld or -Wl,--no-rosegment once this run's options drop them */
	fg_strvec_pushf(args, "-DCMAKE_EXE_LINKER_FLAGS=%s", fl.buf ? fl.buf : "");
	for (size_t i = 0; i < p->opts.ndefines; i++) {
		const char *d = p->opts.defines[i];
		if (!strncmp(d, "CMAKE_C_FLAGS", 13) && (d[13] == '=' || d[13] == ':'))
			continue;
		if (!strncmp(d, "CMAKE_EXE_LINKER_FLAGS", 22) && (d[22] == '=' || d[22] == ':'))
			continue;
		err = fg_strvec_pushf(args, "-D%s", d);
	}
	fg_strbuf_release(&fl);
	return err;
}

static int run_configure(fg_project *p, const fg_strvec *args)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 0, 0 };
	int err;

	fg_strvec_push(&cmd.argv, "cmake");
	fg_strvec_push(&cmd.argv, "-S");
	fg_strvec_push(&cmd.argv, p->loc.root);
	fg_strvec_push(&cmd.argv, "-B");
	fg_strvec_push(&cmd.argv, p->build_dir);
	fg_strvec_push(&cmd.argv, "--no-warn-unused-cli");
	err = fg_strvec_pushv(&cmd.argv, (const char *const *)args->v, args->n);
	fg_project_note(p, "configuring %s (%s) in %s", p->name, p->profile, p->build_dir);
	if (!err)
		err = fg_build_tool_run(p, &cmd, true, &st);
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "cmake is not installed — install it "
				   "(Debian/Ubuntu: apt-get install cmake)");
	else if (!err && st.code != 0)
		err = fg_error_set(FG_EBUILD, "configuring %s with cmake failed (its message is above) — "
				   "fix the CMake error, or pass cache entries with -D NAME=VALUE",
				   p->loc.file);
	fg_cmd_clear(&cmd);
	return err;
}

static char *join_lines(const fg_strvec *v)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	for (size_t i = 0; i < v->n; i++)
		fg_strbuf_addf(&sb, "%s\n", v->v[i]);
	return fg_strbuf_detach(&sb, NULL);
}

/* Configures when needed: the first time, and whenever the arguments
 * differ from the last configure's (kept in STAMP_FILE). */
int fg_cmake_configure(fg_project *p)
{
	fg_strvec args = FG_STRVEC_INIT;
	char *stamp_path = fg_path_join(p->build_dir, STAMP_FILE);
	char *defaults_path = fg_path_join(p->build_dir, DEFAULTS_FILE);
	char *stamp = NULL, *defaults = NULL, *want = NULL;
	cJSON *cache = NULL;
	size_t nbase;
	bool fresh = false, configured;
	int err;

	if ((err = fg_mkdir_p(p->build_dir)) || (err = fg_cmake_write_queries(p)))
		goto done;
	defaults = read_text(defaults_path);
	configured = fg_cmake_has_reply(p);
	if (defaults && configured && !(cache = fg_cmake_load_cache(p))) {
		err = fg_error_last_code();
		goto done;
	}
	if ((err = base_args(p, cache, &args)))
		goto done;
	if (!defaults || !configured) {
		if ((err = run_configure(p, &args)))
			goto done;
		fresh = true;
		if (!(cache = fg_cmake_load_cache(p))) {
			err = fg_error_last_code();
			goto done;
		}
		free(defaults);
		if (!(defaults = fg_cmake_cache_defaults(cache))) {
			err = FG_ENOMEM;
			goto done;
		}
		if ((err = write_text(defaults_path, defaults)))
			goto done;
		fg_strvec_clear(&args);
		if ((err = base_args(p, cache, &args)))
			goto done;
	}
	nbase = args.n;
	if ((err = fg_cmake_feature_args(p, cache, defaults, &args)))
		goto done;
	if (!(want = join_lines(&args))) {
		err = FG_ENOMEM;
		goto done;
	}
	stamp = read_text(stamp_path);
	/* right after the first configure the feature switches are usually
	 * the values CMake just chose: configuring again would change nothing */
	if (fresh && fg_cmake_features_in_cache(cache, &args, nbase))
		err = write_text(stamp_path, want);
	else if (!stamp || strcmp(stamp, want)) {
		if ((err = run_configure(p, &args)))
			goto done;
		err = write_text(stamp_path, want);
	}
done:
	cJSON_Delete(cache);
	fg_strvec_clear(&args);
	free(stamp_path);
	free(defaults_path);
	free(stamp);
	free(defaults);
	free(want);
	return err;
}
