/* flamegraph-build's second half: profiling a built target, and --compare. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/common/diag.h"
#include "cli/common/target_run.h"
#include "flamegraph/build.h"
#include "flamegraph/compare.h"
#include "flamegraph/error.h"
#include "flamegraph/git.h"
#include "flamegraph/profile.h"
#include "util/process.h"
#include "util/strbuf.h"

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

int fg_target_run_profile(const fg_target_run *tr, const fg_project *p, const fg_target *t,
			  const fg_run_out *ro)
{
	const fg_profile_cli *pc = tr->pc;
	char **args = tr->args;
	int nargs = tr->nargs;
	fg_profile_opts po = FG_PROFILE_OPTS_INIT;
	fg_profile_cli pcr = *pc;
	fg_run_spec spec = FG_RUN_SPEC_INIT;
	fg_git_info gi = FG_GIT_INFO_INIT;
	fg_strbuf shown = FG_STRBUF_INIT;
	char subtitle[512], *here = NULL, *keep[3] = { NULL, NULL, NULL };
	int err, code;

	/* a flamegraph.toml test says how it takes a filter; guessing would
	 * hand it an argument it may reject or misread */
	if (tr->unit_test && nargs && !fg_target_filter(t) && fg_project_type(p) == FG_MANIFEST_TOML) {
		fg_errorf("test '%s' declares no filter — add filter = \"--filter={}\" (its own "
			  "syntax) to its [[test]] entry in flamegraph.toml, or run it without one",
			  fg_target_name(t));
		return FG_EXIT_USAGE;
	}
	if ((code = fg_profile_cli_apply(&po, tr->pc)))
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
	if ((err = fg_target_run_spec(&spec, t, (const char *const *)args, (size_t)nargs, tr->unit_test)))
		return fg_die_lib(err);
	if (fg_target_is_ctest(t)) {
		fg_strvec v = { spec.argv, spec.argc, spec.argc };
		fg_strvec_join_quoted(&v, &shown);
		fg_notef("profiling %s %s: %s (in %s; perf follows its child processes)",
			 fg_project_type(p) != FG_MANIFEST_MESON ? "CTest test" :
			 fg_target_kind_of(t) == FG_TARGET_BENCH ? "Meson benchmark" : "Meson test",
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
	if (fg_git_provenance(&gi, fg_project_root(p)) == 0) {
		po.git = &gi;
		if (!po.render.subtitle) {
			fg_git_info_format(subtitle, sizeof(subtitle), &gi);
			po.render.subtitle = subtitle;
		}
	}
	/* the ELF check quotes the fix in the terms of the project's build */
	po.fix_style = fg_project_type(p) == FG_MANIFEST_CMAKE ? FG_FIX_CMAKE :
		       fg_project_type(p) == FG_MANIFEST_TOML ? FG_FIX_TOML : FG_FIX_GENERIC;
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
int fg_target_run_compare(const fg_target_run *tr, const fg_compare_req *req,
			  const fg_project *p, const fg_target *t, const fg_manifest_loc *loc,
			  const fg_project_opts *popts)
{
	const fg_profile_cli *pc = tr->pc;
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

	if (pc->format && fg_output_format_parse(&fmt, pc->format) == 0 && fmt == FG_OUTPUT_JSON) {
		fg_errorf("--compare writes a differential graph, which has no speedscope form — "
			  "use --format svg or --format folded");
		return FG_EXIT_USAGE;
	}
	output = pc->output ? pc->output : fmt == FG_OUTPUT_FOLDED ? "stacks.folded" : "flamegraph.svg";
	if (req->outputs && !strcmp(output, "-")) {
		fg_errorf("--compare-outputs names its graphs after -o FILE — give -o a file name");
		return FG_EXIT_USAGE;
	}
	if (fg_git_provenance(&gi, fg_project_root(p)) || !gi.workdir || !*gi.workdir) {
		fg_errorf("--compare needs a git repository, and %s is not in one — run "
			  "'git init' and commit, or drop --compare", fg_project_root(p));
		code = FG_EXIT_USAGE;
		goto done;
	}
	if ((err = fg_git_resolve(id, fg_project_root(p), req->rev)))
		goto lib_error;
	if (req->build_dir)
		fg_strbuf_addstr(&base, req->build_dir);
	else
		fg_strbuf_addf(&base, "%s/build/flamegraph", fg_project_root(p));
	if ((err = export_rev(&dir, base.buf, fg_project_root(p), id)) ||
	    (err = open_rev_project(&rp, loc, gi.workdir, dir.buf, popts)))
		goto lib_error;
	fg_notef("building %s at %s", fg_target_name(t), req->rev);
	if ((err = tr->select(&rt, rp)) || (err = fg_project_build(rp, rt, &br)))
		goto lib_error;
	snprintf(label, sizeof(label), "%.8s", id);
	rev_label(&lb, req->rev, id, label);
	fg_git_info_format(label, sizeof(label), &gi);
	fg_strbuf_addstr(&la, gi.dirty ? "working tree (dirty)" : label);
	fg_strbuf_addf(&before, "%s/compare/%.12s-before.folded", base.buf, id);
	fg_strbuf_addf(&after, "%s/compare/working-tree.folded", base.buf);
	if (req->outputs) {
		side_output(&sb, output, "before");
		side_output(&sa, output, "after");
	}
	{
		fg_run_out rb = { req->outputs ? sb.buf : before.buf,
				      req->outputs ? before.buf : NULL, lb.buf, !req->outputs, false };
		fg_run_out ra = { req->outputs ? sa.buf : after.buf,
				      req->outputs ? after.buf : NULL, label, !req->outputs, true };
		fg_notef("profiling %s at %s", fg_target_name(t), lb.buf);
		if ((code = fg_target_run_profile(tr, rp, rt, &rb)))
			goto done;
		fg_notef("profiling %s in the working tree", fg_target_name(t));
		if ((code = fg_target_run_profile(tr, p, t, &ra)))
			goto done;
	}
	fg_strbuf_addf(&sub, "%s → %s", lb.buf, la.buf);
	if ((code = fg_profile_cli_apply(&po, tr->pc)))
		goto done;
	co.render = po.render;
	co.render.title = pc->title ? pc->title : "Differential Flame Graph";
	co.render.subtitle = pc->subtitle ? pc->subtitle : sub.buf;
	co.format = fmt;
	co.folded_out = pc->folded;
	if ((err = fg_compare_write(before.buf, after.buf, output, &co)))
		goto lib_error;
	if (strcmp(output, "-"))
		fg_notef("wrote %s: %s (red: grew, blue: shrank)", output, sub.buf);
	if (pc->open && strcmp(output, "-"))
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

