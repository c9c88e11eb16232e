/* The versioned options structs (docs/ARCHITECTURE.md, "The public
 * API"): every _init() takes every version from 1 to its own and writes
 * no more than that version holds, every function handed options takes
 * those versions too, reading only the fields of the caller's version,
 * and refuses 0 and later versions — alone or embedded — before it does
 * anything, in the library's words. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/flamegraph.h"
#include "lib/pipeline/opts_v1.h"

/* Each _init through one signature: the version it leaves in a struct
 * filled with 0xa5 first (untouched when refused). */
#define INIT_CASE(t)                                              \
	static int init_##t(unsigned v, unsigned *got)            \
	{                                                         \
		t o;                                              \
		int err;                                          \
		memset(&o, 0xa5, sizeof(o));                      \
		err = t##_init(&o, v);                            \
		*got = o.version;                                 \
		return err;                                       \
	}
INIT_CASE(fg_build_and_profile_opts)
INIT_CASE(fg_pipeline_opts)
INIT_CASE(fg_pipeline_compare_opts)
INIT_CASE(fg_profile_opts)
INIT_CASE(fg_perfdata_read_opts)
INIT_CASE(fg_speedscope_opts)
INIT_CASE(fg_project_opts)
INIT_CASE(fg_record_opts)
INIT_CASE(fg_record_run_opts)
INIT_CASE(fg_recorder_opts)
INIT_CASE(fg_perfdata_opts)
INIT_CASE(fg_collapse_opts)
INIT_CASE(fg_render_opts)
INIT_CASE(fg_pprof_opts)
INIT_CASE(fg_diff_opts)
INIT_CASE(fg_compare_opts)
INIT_CASE(fg_regress_opts)
INIT_CASE(fg_suite_opts)

static const struct {
	const char *type;
	int (*init)(unsigned v, unsigned *got);
	unsigned version;
} inits[] = {
#define ROW(t, V) { #t, init_##t, V }
	ROW(fg_build_and_profile_opts, FG_BUILD_AND_PROFILE_OPTS_VERSION),
	ROW(fg_pipeline_opts, FG_PIPELINE_OPTS_VERSION),
	ROW(fg_pipeline_compare_opts, FG_PIPELINE_COMPARE_OPTS_VERSION),
	ROW(fg_profile_opts, FG_PROFILE_OPTS_VERSION),
	ROW(fg_perfdata_read_opts, FG_PERFDATA_READ_OPTS_VERSION),
	ROW(fg_speedscope_opts, FG_SPEEDSCOPE_OPTS_VERSION),
	ROW(fg_project_opts, FG_PROJECT_OPTS_VERSION),
	ROW(fg_record_opts, FG_RECORD_OPTS_VERSION),
	ROW(fg_record_run_opts, FG_RECORD_RUN_OPTS_VERSION),
	ROW(fg_recorder_opts, FG_RECORDER_OPTS_VERSION),
	ROW(fg_perfdata_opts, FG_PERFDATA_OPTS_VERSION),
	ROW(fg_collapse_opts, FG_COLLAPSE_OPTS_VERSION),
	ROW(fg_render_opts, FG_RENDER_OPTS_VERSION),
	ROW(fg_pprof_opts, FG_PPROF_OPTS_VERSION),
	ROW(fg_diff_opts, FG_DIFF_OPTS_VERSION),
	ROW(fg_compare_opts, FG_COMPARE_OPTS_VERSION),
	ROW(fg_regress_opts, FG_REGRESS_OPTS_VERSION),
	ROW(fg_suite_opts, FG_SUITE_OPTS_VERSION),
#undef ROW
};

/* "1" or "1 to K": the versions a library of version K takes */
static const char *range(char *buf, size_t size, unsigned known)
{
	if (known == 1)
		return "1";
	snprintf(buf, size, "1 to %u", known);
	return buf;
}

static void inits_take_every_version_they_know(void **state)
{
	char want[160], r[32];
	unsigned got;

	(void)state;
	for (size_t i = 0; i < sizeof(inits) / sizeof(inits[0]); i++) {
		unsigned known = inits[i].version;
		const unsigned bad[] = { 0, known + 1 };

		for (unsigned v = 1; v <= known; v++) {
			assert_int_equal(inits[i].init(v, &got), 0);
			assert_int_equal(got, v);
		}
		for (size_t j = 0; j < 2; j++) {
			unsigned v = bad[j];

			assert_int_equal(inits[i].init(v, &got), FG_EINVAL);
			assert_int_equal(got, 0xa5a5a5a5u);
			snprintf(want, sizeof(want), "%s version %u is not %s, the version%s of this library",
				 inits[i].type, v, range(r, sizeof(r), known), known == 1 ? "" : "s");
			assert_string_equal(fg_error_last(), want);
		}
	}
}

/* Whether n bytes from p are all 0xa5: memory an _init must not write. */
static int untouched(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0xa5)
			return 0;
	return 1;
}

/* An _init of an older version writes that version's fields, no more: a
 * program of that version has a smaller struct. */
static void older_inits_write_their_version_only(void **state)
{
	fg_pipeline_compare_opts big, now;
	fg_build_and_profile_opts bbig;
	fg_build_and_profile_opts_v1 b1;
	size_t v1 = offsetof(fg_pipeline_compare_opts, runs_out);

	(void)state;
	{
		/* the native recorder's version 1 ends before its mode */
		fg_recorder_opts rbig;
		size_t r1 = offsetof(fg_recorder_opts, mode);
		memset(&rbig, 0xa5, sizeof(rbig));
		assert_int_equal(fg_recorder_opts_init(&rbig, 1), 0);
		assert_true(untouched((char *)&rbig + r1, sizeof(rbig) - r1));
		assert_int_equal(rbig.version, 1);
	}
	memset(&big, 0xa5, sizeof(big));
	assert_int_equal(fg_pipeline_compare_opts_init(&big, 1), 0);
	assert_true(untouched((char *)&big + v1, sizeof(big) - v1));
	assert_int_equal(fg_pipeline_compare_opts_init(&now, FG_PIPELINE_COMPARE_OPTS_VERSION), 0);
	now.version = 1;
	assert_memory_equal(&big, &now, v1);

	/* version 1 of flamegraph-build's options holds version 1 of the
	 * comparison's: the fields after it lie nearer */
	memset(&bbig, 0xa5, sizeof(bbig));
	assert_int_equal(fg_build_and_profile_opts_init(&bbig, 1), 0);
	assert_true(untouched((char *)&bbig + sizeof(b1), sizeof(bbig) - sizeof(b1)));
	memcpy(&b1, &bbig, sizeof(b1));
	assert_int_equal(b1.version, 1);
	assert_int_equal(b1.compare.version, 1);
	assert_int_equal(b1.compare.repeat, 1);
	assert_int_equal(b1.project.version, FG_PROJECT_OPTS_VERSION);
	assert_int_equal(b1.run.profile.version, FG_PROFILE_OPTS_VERSION);
	assert_int_equal(b1.run.profile.record.version, FG_RECORD_OPTS_VERSION);
	assert_int_equal(b1.gate_opts.version, FG_REGRESS_OPTS_VERSION);
	assert_int_equal(b1.report_format, FG_REGRESS_TEXT);
	assert_int_equal(b1.report_top, FG_REGRESS_DEFAULT_TOP);
	assert_false(b1.gate);
	assert_null(b1.report_out);
}

/* The macros and the _init functions agree, embedded structs included. */
static void macros_set_the_versions_too(void **state)
{
	fg_build_and_profile_opts bo = FG_BUILD_AND_PROFILE_OPTS_INIT;
	fg_compare_opts co = FG_COMPARE_OPTS_INIT;
	fg_record_run_opts rr = FG_RECORD_RUN_OPTS_INIT;

	(void)state;
	assert_int_equal(bo.version, FG_BUILD_AND_PROFILE_OPTS_VERSION);
	assert_int_equal(bo.project.version, FG_PROJECT_OPTS_VERSION);
	assert_int_equal(bo.run.version, FG_PIPELINE_OPTS_VERSION);
	assert_int_equal(bo.run.profile.version, FG_PROFILE_OPTS_VERSION);
	assert_int_equal(bo.run.profile.record.version, FG_RECORD_OPTS_VERSION);
	assert_int_equal(bo.run.profile.render.version, FG_RENDER_OPTS_VERSION);
	assert_int_equal(bo.compare.version, FG_PIPELINE_COMPARE_OPTS_VERSION);
	assert_int_equal(bo.gate_opts.version, FG_REGRESS_OPTS_VERSION);
	assert_int_equal(bo.report_top, FG_REGRESS_DEFAULT_TOP);
	assert_int_equal(co.diff.version, FG_DIFF_OPTS_VERSION);
	assert_int_equal(co.render.version, FG_RENDER_OPTS_VERSION);
	assert_int_equal(rr.rec.version, FG_RECORD_OPTS_VERSION);
}

static ssize_t no_bytes(void *ctx, void *buf, size_t cap)
{
	(void)ctx;
	(void)buf;
	(void)cap;
	fail_msg("a refused stream was read");
	return 0;
}

static int no_sink(void *ctx, const char *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return 0;
}

static void refused(int err, const char *type)
{
	char want[160];

	char r[32];
	/* the options of a comparison grew a second look (version 2), and so
	 * did flamegraph-build's, which hold them; the native recorder's
	 * grew its mode */
	unsigned now = !strcmp(type, "fg_pipeline_compare_opts")  ? FG_PIPELINE_COMPARE_OPTS_VERSION :
		       !strcmp(type, "fg_build_and_profile_opts") ? FG_BUILD_AND_PROFILE_OPTS_VERSION :
		       !strcmp(type, "fg_recorder_opts")          ? FG_RECORDER_OPTS_VERSION :
								    1;

	snprintf(want, sizeof(want), "%s version 0 is not %s: set the options up with %s_init", type,
		 range(r, sizeof(r), now), type);
	assert_int_equal(err, FG_EINVAL);
	assert_string_equal(fg_error_last(), want);
}

/* Every function handed options of version 0 (a program from before the
 * versions) refuses them before it reads, writes or runs anything. */
static void functions_refuse_another_version(void **state)
{
	fg_record_opts rec = FG_RECORD_OPTS_INIT;
	fg_record_run_opts rr = FG_RECORD_RUN_OPTS_INIT;
	fg_render_opts ro = FG_RENDER_OPTS_INIT;
	fg_pprof_opts pp = FG_PPROF_OPTS_INIT;
	fg_speedscope_opts ss = FG_SPEEDSCOPE_OPTS_INIT;
	fg_compare_opts co = FG_COMPARE_OPTS_INIT;
	fg_diff_opts dfo = FG_DIFF_OPTS_INIT;
	fg_regress_opts go = FG_REGRESS_OPTS_INIT;
	fg_collapse_opts cl = FG_COLLAPSE_OPTS_INIT;
	fg_perfdata_opts pd = FG_PERFDATA_OPTS_INIT;
	fg_perfdata_read_opts pr = FG_PERFDATA_READ_OPTS_INIT;
	fg_project_opts pj = FG_PROJECT_OPTS_INIT;
	fg_pipeline_opts pl = FG_PIPELINE_OPTS_INIT;
	fg_pipeline_compare_opts pc = FG_PIPELINE_COMPARE_OPTS_INIT;
	fg_pipeline_job job = FG_PIPELINE_JOB_INIT;
	fg_manifest_loc loc;
	fg_record_plan plan;
	fg_record_outcome outcome;
	fg_folded *f = NULL, *d = NULL;
	fg_collapser *c = NULL, *refused_c = NULL;
	fg_regress *r = NULL;
	fg_perfdata *pdr = NULL;
	fg_symbolizer *sy = NULL;
	fg_project *p = NULL;
	char **argv = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	const fg_folded *runs[1];

	(void)state;
	memset(&loc, 0, sizeof(loc));
	assert_non_null(out);
	assert_int_equal(fg_folded_new(&f), 0);
	assert_int_equal(fg_folded_feed(f, "main;a 1\n", 9), 0);
	assert_int_equal(fg_folded_finish(f), 0);
	runs[0] = f;
	assert_int_equal(fg_collapser_new(&c, FG_FORMAT_PERF, NULL), 0);

	rec.version = rr.version = ro.version = pp.version = ss.version = co.version = 0;
	dfo.version = go.version = cl.version = pd.version = pr.version = pj.version = 0;
	pl.version = pc.version = 0;
	refused(fg_record_command(&argv, &rec), "fg_record_opts");
	refused(fg_record_script_command(&argv, &rec, "perf.data", false), "fg_record_opts");
	refused(fg_record_plan_make(&plan, &rec, "."), "fg_record_opts");
	refused(fg_record_script_stream(&rec, "perf.data", false, no_sink, NULL, NULL, NULL),
		"fg_record_opts");
	refused(fg_record_run(&rr, &outcome), "fg_record_run_opts");
	{
		fg_recorder_opts nr = FG_RECORDER_OPTS_INIT;
		nr.version = 0;
		refused(fg_recorder_run(&nr, NULL), "fg_recorder_opts");
	}
	refused(fg_render_opts_check(&ro), "fg_render_opts");
	refused(fg_render_svg(f, &ro, out), "fg_render_opts");
	refused(fg_render_svg_ex(f, &ro, out, NULL), "fg_render_opts");
	refused(fg_render_html(f, &ro, out), "fg_render_opts");
	refused(fg_pprof_write(f, &pp, out), "fg_pprof_opts");
	refused(fg_speedscope_write_opts(out, &ss, f), "fg_speedscope_opts");
	refused(fg_compare_write_stacks(f, f, "never.svg", &co), "fg_compare_opts");
	refused(fg_diff_folded(&d, f, f, &dfo), "fg_diff_opts");
	refused(fg_diff_folded_write(f, f, &dfo, out), "fg_diff_opts");
	refused(fg_regress_compare(&r, f, f, &go), "fg_regress_opts");
	refused(fg_regress_compare_runs(&r, runs, 1, runs, 1, &go), "fg_regress_opts");
	refused(fg_collapser_new(&refused_c, FG_FORMAT_PERF, &cl), "fg_collapse_opts");
	refused(fg_perfdata_open(&pdr, "perf.data", &pd), "fg_perfdata_opts");
	refused(fg_perfdata_open_mem(&pdr, "mem", "", 0, &pd), "fg_perfdata_opts");
	refused(fg_perfdata_open_stream(&pdr, "stdin", no_bytes, NULL, &pd), "fg_perfdata_opts");
	refused(fg_symbolizer_new(&sy, &pd), "fg_perfdata_opts");
	refused(fg_profile_collapse_perfdata(c, "perf.data", &pr), "fg_perfdata_read_opts");
	refused(fg_profile_collapse_perfdata_stream(c, "stdin", no_bytes, NULL, &pr),
		"fg_perfdata_read_opts");
	refused(fg_project_open(&p, &loc, &pj), "fg_project_opts");
	refused(fg_pipeline_job_init(&job, &pl, NULL, NULL), "fg_pipeline_opts");
	refused(fg_pipeline_compare(&pl, &pc, NULL, NULL), "fg_pipeline_opts");
	pl.version = FG_PIPELINE_OPTS_VERSION;
	refused(fg_pipeline_compare(&pl, &pc, NULL, NULL), "fg_pipeline_compare_opts");
	{
		fg_build_and_profile_opts bo = FG_BUILD_AND_PROFILE_OPTS_INIT;
		fg_suite_opts so = FG_SUITE_OPTS_INIT;
		so.version = 0;
		refused(fg_build_and_profile_suite(&bo, &so, NULL), "fg_suite_opts");
		so.version = FG_SUITE_OPTS_VERSION;
		bo.version = 0;
		refused(fg_build_and_profile_suite(&bo, &so, NULL), "fg_build_and_profile_opts");
	}

	/* embedded: the outer struct right, the inner one not */
	co.version = FG_COMPARE_OPTS_VERSION;
	co.render.version = 0;
	refused(fg_compare_write_stacks(f, f, "never.svg", &co), "fg_render_opts");
	co.render.version = FG_RENDER_OPTS_VERSION;
	co.diff.version = 0;
	refused(fg_compare_write_stacks(f, f, "never.svg", &co), "fg_diff_opts");
	rr.version = FG_RECORD_RUN_OPTS_VERSION;
	rr.rec.version = 0;
	refused(fg_record_run(&rr, &outcome), "fg_record_opts");

	/* nothing was made or written */
	assert_null(argv);
	assert_null(d);
	assert_null(r);
	assert_null(pdr);
	assert_null(sy);
	assert_null(p);
	assert_null(refused_c);
	assert_int_equal(access("never.svg", F_OK), -1);
	fclose(out);
	assert_int_equal(len, 0);
	free(buf);
	fg_collapser_free(c);
	fg_folded_free(f);
}

/* The text fg_build_and_profile lists, kept. */
static void keep_text(void *ctx, const char *text)
{
	snprintf(ctx, 256, "%s", text);
}

/* A program compiled against version 1 of the comparison's options and
 * flamegraph-build's: structs of version 1's size alone (so a sanitizer
 * sees a read past them), read at version 1's offsets, the later fields
 * their defaults. */
static void functions_take_older_versions(void **state)
{
	fg_pipeline_compare_opts_v1 *c1 = malloc(sizeof(*c1));
	fg_build_and_profile_opts_v1 *b1 = malloc(sizeof(*b1));
	fg_build_and_profile_opts b2;
	fg_pipeline_compare_opts cur;
	fg_pipeline_opts pl = FG_PIPELINE_OPTS_INIT;
	fg_folded **runs = NULL;
	char listed[256] = "";

	(void)state;
	assert_non_null(c1);
	assert_non_null(b1);
	assert_int_equal(fg_pipeline_compare_opts_init((fg_pipeline_compare_opts *)c1, 1), 0);
	c1->rev = "HEAD~1";
	c1->repeat = 3;
	c1->after_out = &runs;
	assert_int_equal(fg_pipeline_compare_opts_upgrade(&cur, (fg_pipeline_compare_opts *)c1), 0);
	assert_int_equal(cur.version, FG_PIPELINE_COMPARE_OPTS_VERSION);
	assert_string_equal(cur.rev, "HEAD~1");
	assert_int_equal(cur.repeat, 3);
	assert_ptr_equal(cur.after_out, &runs);
	assert_null(cur.runs_out);
	assert_int_equal(cur.max_repeat, 0);
	assert_null(cur.undecided_cb);
	/* taken, then judged on what it asks: no JSON differential */
	pl.profile.format = FG_OUTPUT_JSON;
	assert_int_equal(fg_pipeline_compare(&pl, (fg_pipeline_compare_opts *)c1, NULL, NULL),
			 FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "a differential graph has no speedscope form"));

	/* flamegraph-build's job at version 1: the project's targets listed */
	assert_int_equal(fg_build_and_profile_opts_init((fg_build_and_profile_opts *)b1, 1), 0);
	b1->manifest_path = FG_TEST_DATA_DIR "/../../examples/gate";
	b1->list = "";
	b1->on_text = keep_text;
	b1->text_ctx = listed;
	assert_int_equal(fg_build_and_profile((fg_build_and_profile_opts *)b1, NULL), 0);
	assert_non_null(strstr(listed, "phases"));
	/* a field after the comparison's options, read where version 1 has it */
	b1->gate_opts.version = 0;
	assert_int_equal(fg_build_and_profile((fg_build_and_profile_opts *)b1, NULL), FG_EINVAL);
	assert_string_equal(fg_error_last(), "fg_regress_opts version 0 is not 1, the version "
			    "fg_build_and_profile_opts version 1 holds: set the options up with "
			    "fg_regress_opts_init");
	/* an embedded struct is at the version its outer one holds */
	b1->gate_opts.version = FG_REGRESS_OPTS_VERSION;
	b1->compare.version = 2;
	assert_int_equal(fg_build_and_profile((fg_build_and_profile_opts *)b1, NULL), FG_EINVAL);
	assert_string_equal(fg_error_last(), "fg_pipeline_compare_opts version 2 is not 1, the "
			    "version fg_build_and_profile_opts version 1 holds: set the options up "
			    "with fg_pipeline_compare_opts_init");
	assert_int_equal(fg_build_and_profile_opts_init(&b2, FG_BUILD_AND_PROFILE_OPTS_VERSION), 0);
	assert_int_equal(fg_pipeline_compare_opts_init(&b2.compare, 1), 0);
	b2.manifest_path = b1->manifest_path;
	assert_int_equal(fg_build_and_profile(&b2, NULL), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "fg_pipeline_compare_opts version 1 is not 2"));
	/* and a version from the future is refused */
	b2.compare.version = FG_PIPELINE_COMPARE_OPTS_VERSION;
	b2.version = FG_BUILD_AND_PROFILE_OPTS_VERSION + 1;
	assert_int_equal(fg_build_and_profile(&b2, NULL), FG_EINVAL);
	assert_string_equal(fg_error_last(), "fg_build_and_profile_opts version 3 is not 1 to 2: "
			    "set the options up with fg_build_and_profile_opts_init");
	free(c1);
	free(b1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inits_take_every_version_they_know),
		cmocka_unit_test(older_inits_write_their_version_only),
		cmocka_unit_test(macros_set_the_versions_too),
		cmocka_unit_test(functions_refuse_another_version),
		cmocka_unit_test(functions_take_older_versions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
