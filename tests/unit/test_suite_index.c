/* A suite's index.html and summary.json (pipeline/suite_index.c), written
 * into a folder of the test's own from records covering every status: the
 * JSON read back field by field, the page searched for its escaping, its
 * links and the absence of anything fetched from a network. */
#include <dirent.h>
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "flamegraph/error.h"
#include "lib/pipeline/suite.h"

#define ODD_NAME "odd <&\"'> /name"

static const struct fg_suite_entry entries[] = {
	{.name = "alpha", .file = "alpha", .status = FG_SUITE_PASSED, .has_graph = true,
	 .wall_seconds = 1.5, .cpu_seconds = 1.25, .samples = 1200,
	 .hot = {"main", "parse", "operator<<"}, .hot_share = {0.5, 0.25, 0.125}},
	{.name = "quick", .file = "quick", .status = FG_SUITE_NO_SAMPLES, .wall_seconds = 0.25},
	{.name = ODD_NAME, .file = ODD_NAME, .status = FG_SUITE_FAILED, .has_graph = true,
	 .exit_code = 3, .wall_seconds = 2, .cpu_seconds = -1, .samples = 50,
	 .hot = {"std::vector<int>::push_back", "a&b"}, .hot_share = {0.75, 0.25}},
	{.name = "boom", .file = "boom", .status = FG_SUITE_CRASHED, .has_graph = true,
	 .signal = 11, .wall_seconds = 0.5, .cpu_seconds = 0.5, .samples = 40,
	 .hot = {"deref"}, .hot_share = {1}},
	{.name = "long", .file = "long", .status = FG_SUITE_INTERRUPTED, .has_graph = true,
	 .signal = 2, .wall_seconds = 4, .cpu_seconds = 3.5, .samples = 3000,
	 .hot = {"spin"}, .hot_share = {0.875}},
	{.name = "nobuild", .file = "nobuild", .status = FG_SUITE_NOT_BUILT,
	 .cpu_seconds = -1, .note = "undefined reference to `helper'"},
	{.name = "err", .file = "err", .status = FG_SUITE_ERROR, .cpu_seconds = -1,
	 .note = "perf <could not> start"},
};
#define N_ENTRIES (sizeof(entries) / sizeof(entries[0]))

static const struct fg_suite_summary summary = {
	.project = "demo<&>", .kind = "test", .pattern = "^(a|b)&", .merged = "all.svg",
	.unit = "samples", .interrupted = true,
};

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = malloc(256);

	if (!dir)
		return -1;
	snprintf(dir, 256, "%s/fgsuite.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		free(dir);
		return -1;
	}
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	char *dir = *state;

	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
	return 0;
}

static char *slurp(const char *dir, const char *name)
{
	char path[512];
	FILE *f;
	long len;
	char *text;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	text = malloc((size_t)len + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
	text[len] = '\0';
	fclose(f);
	return text;
}

static cJSON *member(const cJSON *o, const char *key)
{
	cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!m)
		print_error("no member \"%s\"\n", key);
	assert_non_null(m);
	return m;
}

static void check_text(const cJSON *o, const char *key, const char *want)
{
	cJSON *m = member(o, key);

	if (!want) {
		assert_true(cJSON_IsNull(m));
		return;
	}
	assert_true(cJSON_IsString(m));
	assert_string_equal(m->valuestring, want);
}

static void check_number(const cJSON *o, const char *key, bool has, double want)
{
	cJSON *m = member(o, key);

	if (!has) {
		if (!cJSON_IsNull(m))
			print_error("\"%s\" is not null\n", key);
		assert_true(cJSON_IsNull(m));
		return;
	}
	assert_true(cJSON_IsNumber(m));
	if (fabs(m->valuedouble - want) > 1e-9)
		print_error("\"%s\": %g, not %g\n", key, m->valuedouble, want);
	assert_true(fabs(m->valuedouble - want) <= 1e-9);
}

static const char *const status_names[] = {
	"passed", "no-samples", "failed", "crashed", "interrupted", "not-built", "error",
};

static void check_file(const cJSON *t, const char *key, const struct fg_suite_entry *e,
		       const char *ext)
{
	char want[256];

	snprintf(want, sizeof(want), "%s%s", e->file, ext);
	check_text(t, key, e->has_graph ? want : NULL);
}

static void check_entry(const cJSON *t, const struct fg_suite_entry *e)
{
	bool exited = e->signal == 0 && e->status != FG_SUITE_NOT_BUILT &&
		      e->status != FG_SUITE_ERROR;
	const cJSON *hot, *h;
	int i = 0;

	check_text(t, "name", e->name);
	check_text(t, "status", status_names[e->status]);
	check_file(t, "graph", e, ".svg");
	check_file(t, "folded", e, ".folded");
	check_number(t, "exit_code", exited, e->exit_code);
	check_number(t, "signal", e->signal != 0, e->signal);
	check_number(t, "wall_seconds", true, e->wall_seconds);
	check_number(t, "cpu_seconds", e->cpu_seconds >= 0, e->cpu_seconds);
	check_number(t, "samples", true, (double)e->samples);
	check_text(t, "note", e->note);
	hot = member(t, "hot");
	assert_true(cJSON_IsArray(hot));
	cJSON_ArrayForEach(h, hot) {
		assert_true(i < FG_SUITE_HOT);
		check_text(h, "function", e->hot[i]);
		check_number(h, "share", true, e->hot_share[i]);
		assert_int_equal(cJSON_GetArraySize(h), 2);
		i++;
	}
	assert_true(i == FG_SUITE_HOT || !e->hot[i]);
	/* not a comparison: its figures are null */
	check_number(t, "change", false, 0);
	check_number(t, "gate_failures", false, 0);
	assert_true(cJSON_IsNull(member(t, "worst")));
	assert_int_equal(cJSON_GetArraySize(t), 14);
}

static void summary_has_every_field(void **state)
{
	const char *dir = *state;
	cJSON *root, *tests, *t, *totals;
	char *text;
	size_t i = 0;

	assert_int_equal(fg_suite_write_summary(dir, &summary, entries, N_ENTRIES), 0);
	text = slurp(dir, "summary.json");
	root = cJSON_Parse(text);
	assert_non_null(root);
	check_text(root, "project", "demo<&>");
	check_text(root, "kind", "test");
	check_text(root, "pattern", "^(a|b)&");
	assert_true(cJSON_IsTrue(member(root, "interrupted")));
	check_text(root, "merged", "all.svg");
	check_text(root, "unit", "samples");
	tests = member(root, "tests");
	assert_int_equal(cJSON_GetArraySize(tests), N_ENTRIES);
	cJSON_ArrayForEach(t, tests)
		check_entry(t, &entries[i++]);
	totals = member(root, "totals");
	check_number(totals, "tests", true, N_ENTRIES);
	check_number(totals, "passed", true, 1);
	check_number(totals, "failed", true, 2);
	check_number(totals, "no_samples", true, 1);
	check_number(totals, "wall_seconds", true, 1.5 + 0.25 + 2 + 0.5 + 4);
	check_number(totals, "cpu_seconds", true, 1.25 + 0.5 + 3.5);
	check_number(totals, "gate_failed", true, 0);
	assert_int_equal(cJSON_GetArraySize(totals), 7);
	check_text(root, "rev", NULL);
	check_number(root, "fail_above", false, 0);
	assert_int_equal(cJSON_GetArraySize(root), 10);
	cJSON_Delete(root);
	free(text);
}

/* A comparison with a gate: the revision, the threshold, each test's
 * change and the function it failed on, in the summary and the index. */
static void comparison_fields(void **state)
{
	const char *dir = *state;
	struct fg_suite_summary s = {.project = "p", .kind = "test", .unit = "ns", .rev = "HEAD~1",
				     .fail_above = 5};
	struct fg_suite_entry e[2] = {
		{.name = "fast", .file = "fast", .has_graph = true, .compared = true, .change = 1.5,
		 .cpu_seconds = -1},
		{.name = "slow", .file = "slow", .has_graph = true, .compared = true, .change = 28.3,
		 .gate_failures = 2, .worst = "work_<b>", .worst_change = 31.5, .cpu_seconds = -1},
	};
	cJSON *root, *t, *w;
	char *text;

	assert_int_equal(fg_suite_write_summary(dir, &s, e, 2), 0);
	assert_int_equal(fg_suite_write_index(dir, &s, e, 2), 0);
	text = slurp(dir, "summary.json");
	root = cJSON_Parse(text);
	assert_non_null(root);
	check_text(root, "rev", "HEAD~1");
	check_number(root, "fail_above", true, 5);
	check_number(member(root, "totals"), "gate_failed", true, 1);
	t = cJSON_GetArrayItem(member(root, "tests"), 0);
	check_number(t, "change", true, 1.5);
	check_number(t, "gate_failures", true, 0);
	assert_true(cJSON_IsNull(member(t, "worst")));
	check_text(t, "folded", NULL);
	t = cJSON_GetArrayItem(member(root, "tests"), 1);
	check_number(t, "change", true, 28.3);
	check_number(t, "gate_failures", true, 2);
	w = member(t, "worst");
	check_text(w, "function", "work_<b>");
	check_number(w, "change", true, 31.5);
	cJSON_Delete(root);
	free(text);
	text = slurp(dir, "index.html");
	assert_non_null(strstr(text, "Change</button>"));
	assert_non_null(strstr(text, "+28.3%"));
	assert_non_null(strstr(text, "work_&lt;b&gt;"));
	assert_null(strstr(text, "work_<b>"));
	free(text);
}

/* No tests, no pattern, nothing merged: nulls and zeros, never a crash. */
static void summary_of_nothing(void **state)
{
	const char *dir = *state;
	struct fg_suite_summary s = {.project = "p", .kind = "bench", .unit = "ns"};
	cJSON *root, *totals;
	char *text;

	assert_int_equal(fg_suite_write_summary(dir, &s, NULL, 0), 0);
	assert_int_equal(fg_suite_write_index(dir, &s, NULL, 0), 0);
	text = slurp(dir, "summary.json");
	root = cJSON_Parse(text);
	assert_non_null(root);
	check_text(root, "pattern", NULL);
	check_text(root, "merged", NULL);
	assert_true(cJSON_IsFalse(member(root, "interrupted")));
	assert_int_equal(cJSON_GetArraySize(member(root, "tests")), 0);
	totals = member(root, "totals");
	check_number(totals, "tests", true, 0);
	check_number(totals, "wall_seconds", true, 0);
	check_number(totals, "cpu_seconds", false, 0);
	cJSON_Delete(root);
	free(text);
	text = slurp(dir, "index.html");
	assert_null(strstr(text, "id=\"merged\""));
	assert_null(strstr(text, "class=\"stopped\""));
	free(text);
}

static void must_hold(const char *text, const char *want)
{
	if (!strstr(text, want))
		print_error("index.html lacks: %s\n", want);
	assert_non_null(strstr(text, want));
}

static void index_escapes_and_links(void **state)
{
	const char *dir = *state;
	char *html;

	assert_int_equal(fg_suite_write_index(dir, &summary, entries, N_ENTRIES), 0);
	html = slurp(dir, "index.html");
	/* every string of the data escaped, the raw one never there */
	must_hold(html, ">odd &lt;&amp;&quot;&#39;&gt; /name</a>");
	assert_null(strstr(html, "<&"));
	assert_null(strstr(html, ODD_NAME));
	must_hold(html, "demo&lt;&amp;&gt;");
	must_hold(html, "^(a|b)&amp;");
	must_hold(html, "std::vector&lt;int&gt;::push_back");
	must_hold(html, "a&amp;b");
	must_hold(html, "operator&lt;&lt;");
	must_hold(html, "undefined reference to `helper&#39;");
	must_hold(html, "perf &lt;could not&gt; start");
	/* links: percent-encoded file names, only for written graphs */
	must_hold(html, "href=\"odd%20%3C%26%22%27%3E%20%2Fname.svg\"");
	must_hold(html, "href=\"alpha.svg\"");
	must_hold(html, "href=\"all.svg\"");
	assert_null(strstr(html, "href=\"quick.svg\""));
	assert_null(strstr(html, "href=\"nobuild.svg\""));
	/* nothing from elsewhere */
	assert_null(strstr(html, "http://"));
	assert_null(strstr(html, "https://"));
	assert_null(strstr(html, "src="));
	/* statuses, exits, times, shares */
	must_hold(html, "class=\"stopped\"");
	must_hold(html, "too short to sample");
	must_hold(html, "st-failed\">failed");
	must_hold(html, "st-crashed\">crashed");
	must_hold(html, "st-interrupted\">interrupted");
	must_hold(html, "st-not-built\">not built");
	must_hold(html, "st-error\">error");
	must_hold(html, ">signal 11</td>");
	must_hold(html, ">3</td>");
	must_hold(html, "data-sort=\"-1\">&mdash;</td>");
	must_hold(html, "main <span class=\"share\">50.0%</span>");
	must_hold(html, "deref <span class=\"share\">100.0%</span>");
	must_hold(html, "7 tests");
	free(html);
}

/* Written again over the old files, through temporaries that are gone. */
static void rewrites_leave_two_files(void **state)
{
	const char *dir = *state;
	struct dirent *d;
	DIR *dh;
	int n = 0;

	for (int round = 0; round < 2; round++) {
		assert_int_equal(fg_suite_write_index(dir, &summary, entries, N_ENTRIES), 0);
		assert_int_equal(fg_suite_write_summary(dir, &summary, entries, N_ENTRIES), 0);
	}
	dh = opendir(dir);
	assert_non_null(dh);
	while ((d = readdir(dh))) {
		if (d->d_name[0] == '.')
			continue;
		assert_true(!strcmp(d->d_name, "index.html") || !strcmp(d->d_name, "summary.json"));
		n++;
	}
	closedir(dh);
	assert_int_equal(n, 2);
}

static void missing_folder_is_an_error(void **state)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/none/deeper", (const char *)*state);
	assert_true(fg_suite_write_index(dir, &summary, entries, N_ENTRIES) < 0);
	assert_true(fg_suite_write_summary(dir, &summary, entries, N_ENTRIES) < 0);
	assert_non_null(fg_error_last());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(summary_has_every_field, setup, teardown),
		cmocka_unit_test_setup_teardown(summary_of_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(comparison_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(index_escapes_and_links, setup, teardown),
		cmocka_unit_test_setup_teardown(rewrites_leave_two_files, setup, teardown),
		cmocka_unit_test_setup_teardown(missing_folder_is_an_error, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
