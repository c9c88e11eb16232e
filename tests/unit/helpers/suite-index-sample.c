/* suite-index-sample DIR: a suite's folder for the index's browser test
 * (e2e/test_suite_index_browser.sh): a small graph per test that has one,
 * the merged graph, index.html and summary.json written from records of
 * every kind of ending. The tests' wall times are out of order, and one
 * graph's file name must be percent-encoded in its link. Exit 0, or 1
 * with the error on stderr. */
#include <stdio.h>
#include <stdlib.h>

#include "flamegraph/error.h"
#include "lib/pipeline/suite.h"

static const struct fg_suite_entry tests[] = {
	{.name = "parse_small", .file = "parse_small", .status = FG_SUITE_PASSED,
	 .has_graph = true, .wall_seconds = 2.5, .cpu_seconds = 2.25, .samples = 2250,
	 .hot = {"tokenize", "read_line", "main"}, .hot_share = {0.5, 0.3, 0.1}},
	{.name = "slow #2 <big>", .file = "slow #2 <big>", .status = FG_SUITE_FAILED,
	 .has_graph = true, .exit_code = 1, .wall_seconds = 10, .cpu_seconds = 9.5,
	 .samples = 9500, .hot = {"sort<int>", "compare"}, .hot_share = {0.75, 0.2}},
	{.name = "tiny", .file = "tiny", .status = FG_SUITE_NO_SAMPLES, .wall_seconds = 0.3},
	{.name = "needs_lib", .file = "needs_lib", .status = FG_SUITE_NOT_BUILT,
	 .cpu_seconds = -1, .note = "cannot find -lfoo"},
	{.name = "segv", .file = "segv", .status = FG_SUITE_CRASHED, .has_graph = true,
	 .signal = 11, .wall_seconds = 1, .cpu_seconds = 0.75, .samples = 750,
	 .hot = {"walk"}, .hot_share = {0.9}},
};
#define N_TESTS (sizeof(tests) / sizeof(tests[0]))

static int fake_graph(const char *dir, const char *file)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.svg", dir, file);
	if (!(f = fopen(path, "w")))
		return -1;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"40\">"
		   "<text id=\"graph-of\" x=\"4\" y=\"20\">graph of ");
	for (; *file; file++) {
		if (*file == '<')
			fputs("&lt;", f);
		else if (*file == '&')
			fputs("&amp;", f);
		else
			fputc(*file, f);
	}
	fprintf(f, "</text></svg>\n");
	return fclose(f);
}

int main(int argc, char **argv)
{
	struct fg_suite_summary s = {.project = "sample <project>", .kind = "test",
				     .pattern = "^(parse|slow)", .merged = "all",
				     .unit = "samples"};
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: suite-index-sample DIR\n");
		return 2;
	}
	for (i = 0; i < N_TESTS; i++)
		if (tests[i].has_graph && fake_graph(argv[1], tests[i].file)) {
			perror(tests[i].file);
			return 1;
		}
	if (fake_graph(argv[1], s.merged)) {
		perror("all.svg");
		return 1;
	}
	s.merged = "all.svg";
	if (fg_suite_write_index(argv[1], &s, tests, N_TESTS) ||
	    fg_suite_write_summary(argv[1], &s, tests, N_TESTS)) {
		fprintf(stderr, "suite-index-sample: %s\n", fg_error_last());
		return 1;
	}
	return 0;
}
