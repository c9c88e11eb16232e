/* The profiling pipeline with a substituted process runner: the exact
 * command lines, environments and working directories of the workload,
 * perf record, perf script and --post-process, checked without running
 * any of them; the job of a project's target; the process's own cwd and
 * environment never change. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/builder.h"
#include "flamegraph/error.h"
#include "flamegraph/pipeline.h"
#include "flamegraph/profile.h"
#include "util/process.h"
#include "util/strbuf.h"
#include "util/strvec.h"

/* What perf script prints for the fake recording: two samples. */
static const char script_text[] =
	"prog 100/100 [000] 1.000: 1 cycles: \n"
	"\t401000 leaf+0x1 (/bin/prog)\n"
	"\t400500 main+0x2 (/bin/prog)\n"
	"\n"
	"prog 100/100 [000] 1.001: 1 cycles: \n"
	"\t400500 main+0x2 (/bin/prog)\n"
	"\n";

#define MAX_CMDS 8

typedef struct seen_cmd {
	char *argv;  /* "[a] [b] ..." */
	char *env;   /* "[A=1] ..." */
	char *cwd;   /* "" when inherited */
	bool hold;
} seen_cmd;

typedef struct fake {
	seen_cmd cmds[MAX_CMDS];
	size_t n;
	const char *post_output;  /* stdout of a --post-process command */
} fake;

static char *join(const fg_strvec *v)
{
	fg_strbuf sb = FG_STRBUF_INIT;

	for (size_t i = 0; i < v->n; i++)
		fg_strbuf_addf(&sb, i ? " [%s]" : "[%s]", v->v[i]);
	return fg_strbuf_detach(&sb, NULL);
}

static const char *arg_after(const fg_cmd *cmd, const char *flag)
{
	for (size_t i = 0; i + 1 < cmd->argv.n; i++)
		if (!strcmp(cmd->argv.v[i], flag))
			return cmd->argv.v[i + 1];
	return NULL;
}

static const char *arg_prefixed(const fg_cmd *cmd, const char *prefix)
{
	for (size_t i = 0; i < cmd->argv.n; i++)
		if (!strncmp(cmd->argv.v[i], prefix, strlen(prefix)))
			return cmd->argv.v[i] + strlen(prefix);
	return NULL;
}

static bool has_arg(const fg_cmd *cmd, const char *arg)
{
	for (size_t i = 0; i < cmd->argv.n; i++)
		if (!strcmp(cmd->argv.v[i], arg))
			return true;
	return false;
}

/* A pipe whose read end holds text and then EOF. */
static int canned_pipe(const char *text)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	if (text)
		assert_int_equal(write(p[1], text, strlen(text)), (ssize_t)strlen(text));
	close(p[1]);
	return p[0];
}

/* perf record: the recording file gets some bytes, and with --control
 * the acknowledgement that it is attached. */
static void fake_record(const fg_cmd *cmd)
{
	const char *out = arg_after(cmd, "-o"), *ctl = arg_prefixed(cmd, "--control=fifo:");
	FILE *f;

	assert_non_null(out);
	assert_non_null(f = fopen(out, "w"));
	fputs("not really perf.data", f);
	fclose(f);
	if (ctl) {
		const char *ack = strchr(ctl, ',');
		int fd;
		assert_non_null(ack);
		assert_true((fd = open(ack + 1, O_WRONLY | O_NONBLOCK)) >= 0);
		assert_int_equal(write(fd, "ack\n", 4), 4);
		close(fd);
	}
}

static int fake_spawn(void *ctx, const fg_cmd *cmd, fg_child *child)
{
	fake *f = ctx;
	seen_cmd *s = &f->cmds[f->n];

	assert_true(f->n < MAX_CMDS);
	s->argv = join(&cmd->argv);
	s->env = join(&cmd->env);
	s->cwd = strdup(cmd->cwd ? cmd->cwd : "");
	s->hold = cmd->hold;
	memset(child, 0, sizeof(*child));
	child->pid = 4242 + (pid_t)f->n++;
	child->out_fd = child->in_fd = child->err_fd = child->gate_fd = child->status_fd = -1;
	if (has_arg(cmd, "record"))
		fake_record(cmd);
	if (cmd->pipe_stdout)
		child->out_fd = canned_pipe(has_arg(cmd, "script") ? script_text : f->post_output);
	if (cmd->pipe_stderr)
		child->err_fd = canned_pipe(NULL);
	return 0;
}

static int fake_wait(void *ctx, fg_child *child, fg_exit_status *st)
{
	(void)ctx;
	(void)child;
	st->code = 0;
	st->signal = 0;
	return 0;
}

static int fake_try_wait(void *ctx, fg_child *child, fg_exit_status *st, bool *done)
{
	*done = true;
	return fake_wait(ctx, child, st);
}

static int fake_release(void *ctx, fg_child *child)
{
	(void)ctx;
	(void)child;
	return 0;
}

static void fake_discard(void *ctx, fg_child *child)
{
	(void)ctx;
	(void)child;
}

static int fake_kill(void *ctx, fg_child *child, int sig)
{
	(void)ctx;
	(void)child;
	(void)sig;
	return 0;
}

static void fake_release_all(fake *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->cmds[i].argv);
		free(f->cmds[i].env);
		free(f->cmds[i].cwd);
	}
}

static fg_runner runner_for(fake *f)
{
	fg_runner r = { fake_spawn, fake_release, fake_discard, fake_wait, fake_try_wait,
			fake_kill, f };
	return r;
}

/* The options of a run that records "./true x" in /bin with FG_TEST=1. */
static void base_opts(fg_profile_opts *po, const fg_runner *r)
{
	static const char *const argv[] = { "./true", "x" };
	static const char *const env[] = { "FG_TEST_PIPELINE=1" };

	po->record.tool = "/bin/sh"; /* it must exist; it never runs */
	po->record.runner = r;
	/* the fake recording is read by the fake perf script, not natively */
	po->perf_script = true;
	po->argv = argv;
	po->argc = 2;
	po->env = env;
	po->nenv = 1;
	po->cwd = "/bin";
	po->check_elf = false;
	po->tmpdir = ".";
	po->output = "pipeline-test.svg";
}

static void test_attach_run(void **state)
{
	fake f = { .n = 0 };
	fg_runner r = runner_for(&f);
	fg_profile_opts po = FG_PROFILE_OPTS_INIT;
	fg_profile_result res = FG_PROFILE_RESULT_INIT;
	fg_folded *stacks = NULL;
	char before[4096], after[4096];

	(void)state;
	base_opts(&po, &r);
	po.stacks_out = &stacks;
	assert_non_null(getcwd(before, sizeof(before)));
	if (fg_profile_run(&po, &res))
		fail_msg("%s: %s", fg_error_last(), f.n > 1 ? f.cmds[1].argv : "");
	assert_non_null(getcwd(after, sizeof(after)));
	assert_string_equal(before, after);
	assert_null(getenv("FG_TEST_PIPELINE"));

	assert_int_equal(f.n, 3);
	/* the workload: held, in its folder, with its environment */
	assert_string_equal(f.cmds[0].argv, "[./true] [x]");
	assert_string_equal(f.cmds[0].env, "[FG_TEST_PIPELINE=1]");
	assert_string_equal(f.cmds[0].cwd, "/bin");
	assert_true(f.cmds[0].hold);
	/* perf attaches to it by PID, from here, with nothing of its place */
	assert_non_null(strstr(f.cmds[1].argv, "[/bin/sh] [record] [-F] [997] [--call-graph] [dwarf,65528]"));
	assert_non_null(strstr(f.cmds[1].argv, "[-D] [-1] [--control=fifo:./.flamegraph-rec."));
	assert_non_null(strstr(f.cmds[1].argv, "[-p] [4242]"));
	assert_string_equal(f.cmds[1].env, "");
	assert_string_equal(f.cmds[1].cwd, "");
	/* perf script reads the recording */
	assert_non_null(strstr(f.cmds[2].argv, "[/bin/sh] [script]"));
	assert_non_null(strstr(f.cmds[2].argv, "[-i] [/"));
	assert_non_null(strstr(f.cmds[2].argv, "/.flamegraph-perf."));

	assert_true(res.recorded);
	assert_int_equal(res.samples, 2);
	assert_int_equal(res.stacks, 2);
	assert_true(res.output_written);
	assert_int_equal(access("pipeline-test.svg", R_OK), 0);
	assert_non_null(stacks);
	assert_int_equal(fg_folded_total(stacks).n, 2);
	assert_int_equal(fg_folded_count(stacks), 2);
	fg_folded_free(stacks);
	unlink("pipeline-test.svg");
	fake_release_all(&f);
}

/* A custom perf command: perf runs the workload, so perf gets its place,
 * and the recording's path is absolute to be found from there. */
static void test_custom_command_run(void **state)
{
	fake f = { .n = 0 };
	fg_runner r = runner_for(&f);
	fg_profile_opts po = FG_PROFILE_OPTS_INIT;
	fg_profile_result res = FG_PROFILE_RESULT_INIT;
	char *o;

	(void)state;
	base_opts(&po, &r);
	po.record.custom = "record -g";
	po.format = FG_OUTPUT_NONE;
	po.output = NULL;
	assert_int_equal(fg_profile_run(&po, &res), 0);
	assert_int_equal(f.n, 2);
	assert_non_null(o = strstr(f.cmds[0].argv, "[-o] [/"));
	assert_non_null(strstr(f.cmds[0].argv, "[/bin/sh] [record] [-g]"));
	assert_non_null(strstr(f.cmds[0].argv, "[--] [./true] [x]"));
	assert_string_equal(f.cmds[0].env, "[FG_TEST_PIPELINE=1]");
	assert_string_equal(f.cmds[0].cwd, "/bin");
	assert_false(f.cmds[0].hold);
	/* no graph asked for: none written */
	assert_false(res.output_written);
	assert_int_equal(res.samples, 2);
	fake_release_all(&f);
}

/* A custom command replaces perf's arguments: a frequency set beside it
 * is refused before anything runs, even the default one set explicitly;
 * a frequency left unset is no conflict. */
static void test_custom_command_explicit_freq(void **state)
{
	fake f = { .n = 0 };
	fg_runner r = runner_for(&f);
	fg_profile_opts po = FG_PROFILE_OPTS_INIT;
	fg_profile_result res = FG_PROFILE_RESULT_INIT;

	(void)state;
	assert_int_equal(po.record.freq, 0);
	assert_int_equal(fg_record_freq(&po.record), FG_RECORD_DEFAULT_FREQ);
	base_opts(&po, &r);
	po.record.custom = "record -g";
	po.record.freq = FG_RECORD_DEFAULT_FREQ;
	po.format = FG_OUTPUT_NONE;
	po.output = NULL;
	assert_int_equal(fg_profile_run(&po, &res), FG_EINVAL);
	assert_int_equal(f.n, 0);
	/* the library names its option fields, not the programs' flags */
	assert_non_null(strstr(fg_error_last(), "`opts.record.custom`"));
	assert_null(strstr(fg_error_last(), "--"));
	fake_release_all(&f);
}

/* fg_build_and_profile: options of another layout are refused; --list
 * through the entry point hands the project's description to on_text,
 * and names the missing features in the library's words. */
static void collect_text(void *ctx, const char *text)
{
	fg_strbuf_addstr(ctx, text);
}

static void test_build_and_profile_entry(void **state)
{
	fg_build_and_profile_opts bo;
	fg_build_and_profile_result res;
	fg_strbuf text = FG_STRBUF_INIT;
	char dir[256], path[300];
	FILE *f;

	(void)state;
	memset(&bo, 0, sizeof(bo));
	assert_int_equal(fg_build_and_profile(&bo, &res), FG_EINVAL);
	assert_int_equal(fg_build_and_profile_opts_init(&bo, FG_BUILD_AND_PROFILE_OPTS_VERSION + 1),
			 FG_EINVAL);
	assert_int_equal(fg_build_and_profile_opts_init(&bo, FG_BUILD_AND_PROFILE_OPTS_VERSION), 0);
	assert_int_equal(bo.run.profile.version, FG_PROFILE_OPTS_VERSION);
	assert_int_equal(bo.run.profile.render.image_width, FG_RENDER_DEFAULT_IMAGE_WIDTH);

	snprintf(dir, sizeof(dir), "%s/fgentryXXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/flamegraph.toml", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("[package]\nname = \"demo\"\n[features]\nfast = []\n"
	      "[[bin]]\nname = \"demo\"\nsources = [\"demo.c\"]\n"
	      "[[bin]]\nname = \"quick\"\nsources = [\"demo.c\"]\nrequired-features = [\"fast\"]\n", f);
	fclose(f);
	bo.manifest_path = dir;
	bo.list = "";
	bo.on_text = collect_text;
	bo.text_ctx = &text;
	if (fg_build_and_profile(&bo, &res))
		fail_msg("%s", fg_error_last());
	assert_non_null(strstr(text.buf, "demo"));
	assert_non_null(strstr(text.buf, "quick (needs `opts.features` fast)"));
	assert_false(res.gate_failed);
	fg_strbuf_reset(&text);
	bo.list = "bin";
	assert_int_equal(fg_build_and_profile(&bo, &res), 0);
	assert_string_equal(text.buf, "demo\nquick\n");
	fg_strbuf_release(&text);
	unlink(path);
	rmdir(dir);
}

/* --post-process: the command is split like a shell and its output
 * replaces the stacks; the JSON output comes from the stacks as data. */
static void test_post_process_json(void **state)
{
	fake f = { .n = 0, .post_output = "a;b 3\na;c 1.5\n" };
	fg_runner r = runner_for(&f);
	fg_profile_opts po = FG_PROFILE_OPTS_INIT;
	fg_profile_result res = FG_PROFILE_RESULT_INIT;
	fg_strbuf json = FG_STRBUF_INIT;
	FILE *in;
	char buf[4096];
	size_t n;

	(void)state;
	base_opts(&po, &r);
	po.post_process = "sed -e 's/x y/z/'";
	po.format = FG_OUTPUT_JSON;
	po.output = "pipeline-test.json";
	assert_int_equal(fg_profile_run(&po, &res), 0);
	assert_int_equal(f.n, 4);
	assert_string_equal(f.cmds[3].argv, "[sed] [-e] [s/x y/z/]");
	assert_string_equal(f.cmds[3].cwd, "");
	assert_non_null(in = fopen("pipeline-test.json", "r"));
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fg_strbuf_add(&json, buf, n);
	fclose(in);
	assert_non_null(strstr(json.buf, "\"frames\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]"));
	assert_non_null(strstr(json.buf, "\"samples\":[[0,1],[0,2]],\"weights\":[3,1.5]"));
	assert_non_null(strstr(json.buf, "\"endValue\":4.5,"));
	assert_non_null(strstr(json.buf, "\"name\":\"./true\""));
	fg_strbuf_release(&json);
	unlink("pipeline-test.json");
	fake_release_all(&f);
}

/* ---- the job of a project's target ---- */

static char root[256];

static int open_project(fg_project **p, const char *text)
{
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	char file[300], here[200];
	FILE *f;

	/* beside the test, in the build tree */
	assert_non_null(getcwd(here, sizeof(here)));
	snprintf(root, sizeof(root), "%s/fgpipeXXXXXX", here);
	assert_non_null(mkdtemp(root));
	snprintf(file, sizeof(file), "%s/flamegraph.toml", root);
	assert_non_null(f = fopen(file, "w"));
	fputs(text, f);
	fclose(f);
	loc.type = FG_MANIFEST_TOML;
	loc.file = file;
	loc.root = root;
	return fg_project_open(p, &loc, &opts);
}

static void remove_project(void)
{
	char file[300];

	snprintf(file, sizeof(file), "%s/flamegraph.toml", root);
	unlink(file);
	rmdir(root);
}

static const char manifest[] =
	"[package]\nname = \"demo\"\n"
	"[build]\nsystem = \"command\"\ncommand = \"true\"\n"
	"[[bin]]\nname = \"tool\"\npath = \"out/tool\"\nargs = [\"--rounds\", \"3\"]\n"
	"[[test]]\nname = \"plain\"\npath = \"out/plain\"\n"
	"[[test]]\nname = \"filtered\"\npath = \"out/filtered\"\nfilter = \"--only={}\"\n";

static void test_job(void **state)
{
	fg_project *p = NULL;
	const fg_target *t = NULL;
	fg_pipeline_opts o = FG_PIPELINE_OPTS_INIT;
	fg_pipeline_job job = FG_PIPELINE_JOB_INIT;
	const char *const args[] = { "hash" };
	char want[400];

	(void)state;
	assert_int_equal(open_project(&p, manifest), 0);

	/* a bin with its default arguments; fixes in flamegraph.toml terms */
	o.target.name = "tool";
	assert_int_equal(fg_pipeline_select(&t, p, &o.target), 0);
	assert_int_equal(fg_pipeline_job_init(&job, &o, p, t), 0);
	assert_int_equal(job.profile.argc, 3);
	snprintf(want, sizeof(want), "%s/out/tool", root);
	assert_string_equal(job.profile.argv[0], want);
	assert_string_equal(job.profile.argv[1], "--rounds");
	assert_null(job.profile.cwd);
	assert_int_equal(job.profile.nenv, 0);
	assert_int_equal(job.profile.fix_style, FG_FIX_TOML);
	assert_true(job.profile.check_elf);
	fg_pipeline_job_release(&job);

	/* a unit test's filter goes through its template ... */
	o.target = (fg_pipeline_target){ .name = "filtered", .unit_test = true };
	o.args = args;
	o.nargs = 1;
	assert_int_equal(fg_pipeline_select(&t, p, &o.target), 0);
	job = (fg_pipeline_job)FG_PIPELINE_JOB_INIT;
	assert_int_equal(fg_pipeline_job_init(&job, &o, p, t), 0);
	assert_int_equal(job.profile.argc, 2);
	assert_string_equal(job.profile.argv[1], "--only=hash");
	fg_pipeline_job_release(&job);

	/* ... and a test without one is told how to declare it */
	o.target.name = "plain";
	assert_int_equal(fg_pipeline_select(&t, p, &o.target), 0);
	job = (fg_pipeline_job)FG_PIPELINE_JOB_INIT;
	assert_int_equal(fg_pipeline_job_init(&job, &o, p, t), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "declares no filter"));
	fg_pipeline_job_release(&job);

	fg_project_free(p);
	remove_project();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attach_run),
		cmocka_unit_test(test_custom_command_run),
		cmocka_unit_test(test_custom_command_explicit_freq),
		cmocka_unit_test(test_build_and_profile_entry),
		cmocka_unit_test(test_post_process_json),
		cmocka_unit_test(test_job),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
