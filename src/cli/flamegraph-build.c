/* flamegraph-build: find the project's manifest, build the chosen target
 * with debug info and frame pointers, profile it, write the graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/common/diag.h"
#include "cli/common/opts.h"
#include "cli/common/profile_opts.h"
#include "flamegraph/build.h"
#include "flamegraph/compare.h"
#include "flamegraph/error.h"
#include "flamegraph/git.h"
#include "flamegraph/manifest.h"
#include "flamegraph/profile.h"
#include "util/strbuf.h"
#include "util/process.h"

static struct {
	const char *bin, *example, *test, *bench, *unit_test, *package, *manifest;
	const char *profile, *build_dir, *compare;
	bool unit_test_given, no_default, all_features, dev, release, list, compare_outputs;
	fg_strlist features, defines;
} o;
static fg_profile_cli pc = FG_PROFILE_CLI_INIT;

static int unit_test_cb(const fg_option *opt, const char *arg, void *target)
{
	(void)opt;
	o.unit_test_given = true;
	*(const char **)target = arg;
	return 0;
}

static const fg_option options[] = {
	FG_OPT_GROUP("Target selection"),
	FG_OPT_STRING('b', "bin", &o.bin, "NAME", "profile the bin target NAME"),
	FG_OPT_STRING(0, "example", &o.example, "NAME", "profile the example NAME"),
	FG_OPT_STRING(0, "test", &o.test, "NAME", "profile the CTest test or test executable NAME"),
	FG_OPT_STRING(0, "bench", &o.bench, "NAME", "profile the bench NAME"),
	{ FG_OPT_CALLBACK_, 0, "unit-test", &o.unit_test, "NAME",
	  "run test executable NAME directly; arguments after -- are its test filter",
	  FG_OPTF_OPTARG, unit_test_cb, NULL },
	FG_OPT_STRING('p', "package", &o.package, "NAME", "only the targets of sub-project NAME (CMake: an add_subdirectory project())"),
	FG_OPT_STRING(0, "manifest-path", &o.manifest, "PATH",
		      "flamegraph.toml, CMakeLists.txt, compile_commands.json or a folder"),
	FG_OPT_BOOL(0, "list", &o.list, "list the targets by kind and exit"),
	FG_OPT_GROUP("Build"),
	FG_OPT_LIST('f', "features", &o.features, "A,B", "features to enable (CMake: BOOL options)"),
	FG_OPT_BOOL(0, "no-default-features", &o.no_default, "turn the default features off"),
	FG_OPT_BOOL(0, "all-features", &o.all_features, "turn every feature on"),
	FG_OPT_BOOL(0, "dev", &o.dev, "build with the dev profile (-O0 -g)"),
	FG_OPT_STRING(0, "profile", &o.profile, "NAME", "build with profile NAME (default: release)"),
	FG_OPT_BOOL('r', "release", &o.release, "build with the release profile (the default)"),
	FG_OPT_STRING(0, "build-dir", &o.build_dir, "DIR", "build here (default: build/flamegraph/PROFILE)"),
	FG_OPT_LIST('D', "define", &o.defines, "NAME=VALUE", "set a CMake cache entry (repeatable)"),
	FG_OPT_GROUP("Output"),
	FG_PROFILE_CLI_OUTPUT_ROWS(pc),
	FG_OPT_STRING(0, "compare", &o.compare, "REV",
		      "also build and profile git revision REV; write a differential graph (red: grew, blue: shrank)"),
	FG_OPT_BOOL(0, "compare-outputs", &o.compare_outputs,
		    "with --compare, also write the plain graphs OUTPUT.before.svg and OUTPUT.after.svg"),
	FG_OPT_GROUP("Recording"),
	FG_PROFILE_CLI_RECORD_ROWS(pc),
	FG_OPT_GROUP("Graph"),
	FG_PROFILE_CLI_RENDER_ROWS(pc),
	FG_OPT_END(),
};

static const fg_cli cli = {
	"flamegraph-build", "[OPTIONS] [--bin NAME | --test NAME | ...] [-- ARGS...]",
	"Builds a target of the C project around the current directory (CMake, "
	"flamegraph.toml or compile_commands.json) with debug info and frame "
	"pointers, profiles it with perf and writes flamegraph.svg.",
	"Examples:\n  flamegraph-build --bin stress2 -- --rounds 20\n"
	"  flamegraph-build --unit-test unit_tests -- hash\n  flamegraph-build --list\n"
	"  flamegraph-build --compare main --bin stress2 -o diff.svg\n",
	options, true, false,
};

static void note(void *ctx, const char *line)
{
	(void)ctx;
	fg_notef("%s", line);
}

/* --features a,b -f c: split at commas into one list. */
static void split_features(fg_strlist *out, char **keep)
{
	for (size_t i = 0; i < o.features.count; i++) {
		char *copy = strdup(o.features.items[i]), *s = copy, *comma;
		keep[i] = copy;
		for (; s && *s; s = comma ? comma + 1 : NULL) {
			if ((comma = strchr(s, ',')))
				*comma = '\0';
			if (*s)
				fg_strlist_push(out, s);
		}
	}
}

static int select_target(const fg_target **t, const fg_project *p)
{
	if (o.bin) return fg_project_select(t, p, FG_TARGET_BIN, o.bin);
	if (o.example) return fg_project_select(t, p, FG_TARGET_EXAMPLE, o.example);
	if (o.bench) return fg_project_select(t, p, FG_TARGET_BENCH, o.bench);
	if (o.test) return fg_project_select(t, p, FG_TARGET_TEST, o.test);
	if (o.unit_test_given) return fg_project_select_unit(t, p, o.unit_test);
	return fg_project_select(t, p, FG_TARGET_BIN, NULL);
}

/* Output paths given relative to where the user ran us, made absolute
 * before moving into the test's working directory. */
static const char *absolute(const char *path, const char *here, char **keep)
{
	size_t n;

	if (!path || path[0] == '/' || !strcmp(path, "-") || !here)
		return path;
	n = strlen(here) + strlen(path) + 2;
	if (!(*keep = malloc(n)))
		return path;
	snprintf(*keep, n, "%s/%s", here, path);
	return *keep;
}

/* Where one profiling run writes; all NULL/false: what the options say. */
struct run_out {
	const char *output;    /* the graph (or folded text with folded_only) */
	const char *folded;    /* --folded for this run */
	const char *subtitle;  /* NULL: git provenance */
	bool folded_only;
	bool keep_perfdata;
};

static int profile(const fg_project *p, const fg_target *t, char **args, int nargs,
		   const struct run_out *ro)
{
	fg_profile_opts po = FG_PROFILE_OPTS_INIT;
	fg_profile_cli pcr = pc;
	fg_run_spec spec = FG_RUN_SPEC_INIT;
	fg_git_info gi = FG_GIT_INFO_INIT;
	fg_strbuf shown = FG_STRBUF_INIT;
	char subtitle[512], *here = NULL, *keep[3] = { NULL, NULL, NULL };
	int err, code;

	/* a flamegraph.toml test says how it takes a filter; guessing would
	 * hand it an argument it may reject or misread */
	if (o.unit_test_given && nargs && !fg_target_filter(t) && fg_project_type(p) == FG_MANIFEST_TOML) {
		fg_errorf("test '%s' declares no filter — add filter = \"--filter={}\" (its own "
			  "syntax) to its [[test]] entry in flamegraph.toml, or run it without one",
			  fg_target_name(t));
		return FG_EXIT_USAGE;
	}
	if ((code = fg_profile_cli_apply(&po, &pc)))
		return code;
	if (ro->output) {
		po.output = ro->output;
		po.format = ro->folded_only ? FG_OUTPUT_FOLDED : FG_OUTPUT_SVG;
		po.folded_out = ro->folded;
		po.render.subtitle = ro->subtitle ? ro->subtitle : po.render.subtitle;
		pcr.open = false;
		if (!ro->keep_perfdata)
			po.perfdata_out = NULL;
	}
	if ((err = fg_target_run_spec(&spec, t, (const char *const *)args, (size_t)nargs, o.unit_test_given)))
		return fg_die_lib(err);
	if (fg_target_is_ctest(t)) {
		fg_strvec v = { spec.argv, spec.argc, spec.argc };
		fg_strvec_join_quoted(&v, &shown);
		fg_notef("profiling CTest test %s: %s (in %s; perf follows its child processes)",
			 fg_target_name(t), shown.buf, spec.cwd ? spec.cwd : ".");
	}
	/* the workload runs where its test says, with its environment; the
	 * outputs stay where the user asked for them */
	here = realpath(".", NULL);
	if (spec.cwd) {
		po.output = absolute(po.output, here, &keep[0]);
		po.folded_out = absolute(po.folded_out, here, &keep[1]);
		po.perfdata_out = absolute(po.perfdata_out, here, &keep[2]);
	}
	for (size_t i = 0; i < spec.nenv; i++) {
		char *eq = strchr(spec.env[i], '=');
		if (eq) {
			*eq = '\0';
			setenv(spec.env[i], eq + 1, 1);
			*eq = '=';
		}
	}
	if (spec.cwd && chdir(spec.cwd) != 0) {
		fg_errorf("cannot enter %s, the working directory of test %s — check its "
			  "WORKING_DIRECTORY", spec.cwd, fg_target_name(t));
		code = FG_EXIT_USAGE;
		goto done;
	}
	po.argv = (const char *const *)spec.argv;
	po.argc = spec.argc;
	/* a test run by a script or interpreter: the ELF checks would judge
	 * /usr/bin/sh, not the project's code */
	if (fg_target_is_ctest(t) && !fg_target_build_name(t))
		po.check_elf = false;
	if (!po.render.subtitle && fg_git_provenance(&gi, fg_project_root(p)) == 0) {
		fg_git_info_format(subtitle, sizeof(subtitle), &gi);
		po.render.subtitle = subtitle;
	}
	fg_error_clear();
	code = fg_profile_cli_run(&po, &pcr);
	/* --compare runs twice: the second run starts where the first did */
	if (spec.cwd && here && chdir(here) != 0) {
		fg_errorf("cannot return to %s", here);
		code = FG_EXIT_USAGE;
	}
done:
	fg_git_info_release(&gi);
	fg_strbuf_release(&shown);
	for (size_t i = 0; i < 3; i++)
		free(keep[i]);
	free(here);
	fg_run_spec_release(&spec);
	return code;
}

/* "main @ 1a2b3c4d", or just the id when REV was one. */
static void rev_label(fg_strbuf *out, const char *rev, const char *id, const char *short_id)
{
	if (!strncmp(id, rev, strlen(rev)))
		fg_strbuf_addstr(out, short_id);
	else
		fg_strbuf_addf(out, "%s @ %s", rev, short_id);
}

/* OUTPUT.before.svg / OUTPUT.after.svg next to the differential graph. */
static void side_output(fg_strbuf *out, const char *output, const char *side)
{
	size_t n = strlen(output);
	if (n > 4 && !strcmp(output + n - 4, ".svg"))
		n -= 4;
	fg_strbuf_addf(out, "%.*s.%s.svg", (int)n, output, side);
}

/* The export of REV under the build dir, reused when an earlier run made it. */
static int export_rev(fg_strbuf *dir, const char *base, const char *root, const char *id)
{
	fg_git_export_result er = FG_GIT_EXPORT_RESULT_INIT;
	char *path = NULL;
	bool reused = false;
	int err = fg_compare_export(&path, &reused, &er, base, root, id);

	if (!err && reused)
		fg_notef("reusing the export of %.12s in %s", id, path);
	else if (!err)
		fg_notef("exported %.12s (%zu files) to %s", id, er.files, path);
	if (!err && er.skipped_submodules)
		fg_warnf("submodules are not exported (%s): the %.12s build sees them empty",
			 er.skipped_submodules, id);
	if (!err)
		fg_strbuf_addstr(dir, path);
	fg_git_export_result_release(&er);
	free(path);
	return err;
}

/* The project as it was at REV: the same manifest, relative to the
 * repository, in the export; built in its own build/flamegraph. */
static int open_rev_project(fg_project **out, const fg_manifest_loc *loc, const char *workdir,
			    const char *exported, const fg_project_opts *popts)
{
	fg_manifest_loc rloc = FG_MANIFEST_LOC_INIT;
	fg_project_opts ropts = *popts;
	fg_strbuf path = FG_STRBUF_INIT;
	char *real = realpath(loc->file, NULL);
	size_t n = strlen(workdir);
	int err;

	if (!real || strncmp(real, workdir, n) || real[n] != '/') {
		err = fg_error_set(FG_EINVAL, "%s is not inside the git work tree %s — --compare "
				   "needs the project under git", loc->file, workdir);
		goto done;
	}
	fg_strbuf_addf(&path, "%s/%s", exported, real + n + 1);
	if (access(path.buf, F_OK) != 0) {
		err = fg_error_set(FG_ENOTFOUND, "%s does not exist at that revision — compare with a "
				   "revision that has it", real + n + 1);
		goto done;
	}
	ropts.build_dir = NULL;
	if (!(err = fg_manifest_find(&rloc, path.buf, true)))
		err = fg_project_open(out, &rloc, &ropts);
done:
	fg_manifest_loc_release(&rloc);
	fg_strbuf_release(&path);
	free(real);
	return err;
}

/* --compare REV: profile REV and the working tree with the same target and
 * arguments, then write the differential graph. */
static int compare(const fg_project *p, const fg_target *t, const fg_manifest_loc *loc,
		   const fg_project_opts *popts, char **args, int nargs)
{
	fg_git_info gi = FG_GIT_INFO_INIT;
	fg_project *rp = NULL;
	const fg_target *rt = NULL;
	fg_build_result br = FG_BUILD_RESULT_INIT;
	fg_compare_opts co = FG_COMPARE_OPTS_INIT;
	fg_output_format fmt = FG_OUTPUT_SVG;
	fg_profile_opts po = FG_PROFILE_OPTS_INIT;
	fg_strbuf base = FG_STRBUF_INIT, dir = FG_STRBUF_INIT, before = FG_STRBUF_INIT,
		  after = FG_STRBUF_INIT, lb = FG_STRBUF_INIT, la = FG_STRBUF_INIT,
		  sub = FG_STRBUF_INIT, sb = FG_STRBUF_INIT, sa = FG_STRBUF_INIT;
	char id[FG_GIT_ID_SIZE], label[512];
	const char *output;
	int err = 0, code = 0;

	if (pc.format && fg_output_format_parse(&fmt, pc.format) == 0 && fmt == FG_OUTPUT_JSON) {
		fg_errorf("--compare writes a differential graph, which has no speedscope form — "
			  "use --format svg or --format folded");
		return FG_EXIT_USAGE;
	}
	output = pc.output ? pc.output : fmt == FG_OUTPUT_FOLDED ? "stacks.folded" : "flamegraph.svg";
	if (o.compare_outputs && !strcmp(output, "-")) {
		fg_errorf("--compare-outputs names its graphs after -o FILE — give -o a file name");
		return FG_EXIT_USAGE;
	}
	if (fg_git_provenance(&gi, fg_project_root(p)) || !gi.workdir || !*gi.workdir) {
		fg_errorf("--compare needs a git repository, and %s is not in one — run "
			  "'git init' and commit, or drop --compare", fg_project_root(p));
		code = FG_EXIT_USAGE;
		goto done;
	}
	if ((err = fg_git_resolve(id, fg_project_root(p), o.compare)))
		goto lib_error;
	if (o.build_dir)
		fg_strbuf_addstr(&base, o.build_dir);
	else
		fg_strbuf_addf(&base, "%s/build/flamegraph", fg_project_root(p));
	if ((err = export_rev(&dir, base.buf, fg_project_root(p), id)) ||
	    (err = open_rev_project(&rp, loc, gi.workdir, dir.buf, popts)))
		goto lib_error;
	fg_notef("building %s at %s", fg_target_name(t), o.compare);
	if ((err = select_target(&rt, rp)) || (err = fg_project_build(rp, rt, &br)))
		goto lib_error;
	snprintf(label, sizeof(label), "%.8s", id);
	rev_label(&lb, o.compare, id, label);
	fg_git_info_format(label, sizeof(label), &gi);
	fg_strbuf_addstr(&la, gi.dirty ? "working tree (dirty)" : label);
	fg_strbuf_addf(&before, "%s/compare/%.12s-before.folded", base.buf, id);
	fg_strbuf_addf(&after, "%s/compare/working-tree.folded", base.buf);
	if (o.compare_outputs) {
		side_output(&sb, output, "before");
		side_output(&sa, output, "after");
	}
	{
		struct run_out rb = { o.compare_outputs ? sb.buf : before.buf,
				      o.compare_outputs ? before.buf : NULL, lb.buf, !o.compare_outputs, false };
		struct run_out ra = { o.compare_outputs ? sa.buf : after.buf,
				      o.compare_outputs ? after.buf : NULL, label, !o.compare_outputs, true };
		fg_notef("profiling %s at %s", fg_target_name(t), lb.buf);
		if ((code = profile(rp, rt, args, nargs, &rb)))
			goto done;
		fg_notef("profiling %s in the working tree", fg_target_name(t));
		if ((code = profile(p, t, args, nargs, &ra)))
			goto done;
	}
	fg_strbuf_addf(&sub, "%s → %s", lb.buf, la.buf);
	if ((code = fg_profile_cli_apply(&po, &pc)))
		goto done;
	co.render = po.render;
	co.render.title = pc.title ? pc.title : "Differential Flame Graph";
	co.render.subtitle = pc.subtitle ? pc.subtitle : sub.buf;
	co.format = fmt;
	co.folded_out = pc.folded;
	if ((err = fg_compare_write(before.buf, after.buf, output, &co)))
		goto lib_error;
	if (strcmp(output, "-"))
		fg_notef("wrote %s: %s (red: grew, blue: shrank)", output, sub.buf);
	if (pc.open && strcmp(output, "-"))
		fg_profile_cli_open(output);
	goto done;
lib_error:
	code = fg_die_lib(err);
done:
	fg_project_free(rp);
	fg_git_info_release(&gi);
	fg_strbuf_release(&base);
	fg_strbuf_release(&dir);
	fg_strbuf_release(&before);
	fg_strbuf_release(&after);
	fg_strbuf_release(&lb);
	fg_strbuf_release(&la);
	fg_strbuf_release(&sub);
	fg_strbuf_release(&sb);
	fg_strbuf_release(&sa);
	return code;
}

int cmd_flamegraph_build(int argc, char **argv)
{
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;
	fg_project_opts po = FG_PROJECT_OPTS_INIT;
	fg_project *p = NULL;
	const fg_target *t = NULL;
	fg_build_result br = FG_BUILD_RESULT_INIT;
	fg_strlist feats = FG_STRLIST_INIT;
	char *keep[64] = { 0 };
	int npos = 0, dashdash = 0, r, code = 0;

	fg_diag_init(cli.prog);
	if ((r = fg_opts_parse(&cli, argc, argv, &npos, &dashdash)))
		return r == FG_OPTS_EXIT ? 0 : FG_EXIT_USAGE;
	if (o.unit_test_given && !o.unit_test && dashdash == 1)
		o.unit_test = argv[0];
	else if (dashdash > 0) {
		fg_errorf("unexpected argument '%s' — program arguments go after --", argv[0]);
		return FG_EXIT_USAGE;
	}
	if (o.features.count > 64) { fg_errorf("too many --features options"); return FG_EXIT_USAGE; }
	split_features(&feats, keep);
	po.profile = o.profile ? o.profile : o.dev ? "dev" : "release";
	po.build_dir = o.build_dir;
	po.package = o.package;
	po.features = feats.items;
	po.nfeatures = feats.count;
	po.no_default_features = o.no_default;
	po.all_features = o.all_features;
	po.defines = o.defines.items;
	po.ndefines = o.defines.count;
	po.cc = getenv("CC");
	po.cflags = getenv("CFLAGS");
	po.ldflags = getenv("LDFLAGS");
	po.verbose = pc.verbose;
	po.note = note;
	if ((r = fg_manifest_find(&loc, o.manifest ? o.manifest : ".", o.manifest != NULL)) ||
	    (r = fg_project_open(&p, &loc, &po))) {
		code = fg_die_lib(r);
		goto done;
	}
	if (o.list) {
		char *text = fg_project_describe(p);
		fputs(text ? text : "", stdout);
		free(text);
		goto done;
	}
	if ((r = select_target(&t, p)) || (r = fg_project_build(p, t, &br))) {
		code = fg_die_lib(r);
		goto done;
	}
	if (o.compare)
		code = compare(p, t, &loc, &po, argv + dashdash, npos - dashdash);
	else
		code = profile(p, t, argv + dashdash, npos - dashdash, &(struct run_out){ 0 });
done:
	fg_project_free(p);
	fg_manifest_loc_release(&loc);
	fg_strlist_release(&feats);
	fg_profile_cli_release(&pc);
	for (size_t i = 0; i < 64; i++)
		free(keep[i]);
	return code;
}

int main(int argc, char **argv)
{
	return cmd_flamegraph_build(argc, argv);
}
