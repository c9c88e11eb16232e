/* Target names users type: compile_commands targets named after the
 * executables the project's own build made (the source stem a second
 * name, any kind flag accepted), and the "did you mean" answers of target
 * selection — a near name, a target of another kind with its flag. Real
 * projects in a temporary folder, built with the real cc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/builder.h"
#include "flamegraph/error.h"
#include "flamegraph/manifest.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0777);
		*s = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void make_root(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(root, sizeof(root), "%s/fgnames.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(root));
}

static void remove_root(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static fg_project *open_project(void)
{
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	fg_project *p = NULL;
	int err;

	assert_int_equal(fg_manifest_find(&loc, root, true), 0);
	err = fg_project_open(&p, &loc, &opts);
	if (err)
		print_error("%s\n", fg_error_last());
	assert_int_equal(err, 0);
	fg_manifest_loc_release(&loc);
	return p;
}

static const char *selected(const fg_project *p, fg_target_kind kind, const char *name)
{
	const fg_target *t = NULL;
	int err = fg_project_select(&t, p, kind, name);

	if (err)
		return NULL;
	return fg_target_name(t);
}

/* The error of a failed selection, or NULL when it succeeded. */
static const char *refused(const fg_project *p, fg_target_kind kind, const char *name)
{
	const fg_target *t = NULL;

	return fg_project_select(&t, p, kind, name) ? fg_error_last() : NULL;
}

static void compdb_program_names(void **state)
{
	char json[2048], cmd[1024];
	fg_project *p;

	(void)state;
	make_root();
	put("lib/util.c", "unsigned long churn(unsigned long n) { return n * 3; }\n");
	put("cli/tool_os.c", "unsigned long churn(unsigned long);\n"
			     "int main(int argc, char **argv) { (void)argv; return (int)churn((unsigned long)argc) - 3; }\n");
	put("cli/bench_tool.c", "unsigned long churn(unsigned long);\n"
				"int main(void) { return (int)churn(0); }\n");
	/* the project's own build: objects, then two programs from them */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && cc -g -c -o lib/util.o lib/util.c && cc -g -c -o cli/tool_os.o cli/tool_os.c && "
		 "cc -g -c -o cli/bench_tool.o cli/bench_tool.c && cc -o tool cli/tool_os.o lib/util.o && "
		 "cc -o tool-bench cli/bench_tool.o lib/util.o", root);
	assert_int_equal(system(cmd), 0);
	snprintf(json, sizeof(json),
		 "[{\"directory\": \"%s\", \"file\": \"lib/util.c\", \"command\": \"cc -g -c -o lib/util.o lib/util.c\"},\n"
		 " {\"directory\": \"%s\", \"file\": \"cli/tool_os.c\", \"command\": \"cc -g -c -o cli/tool_os.o cli/tool_os.c\"},\n"
		 " {\"directory\": \"%s\", \"file\": \"cli/bench_tool.c\", \"command\": \"cc -g -c -o cli/bench_tool.o cli/bench_tool.c\"}]\n",
		 root, root, root);
	put("compile_commands.json", json);
	p = open_project();

	/* named after the executables that hold their main units */
	assert_int_equal(fg_project_target_count(p), 2);
	assert_string_equal(selected(p, FG_TARGET_BIN, "tool"), "tool");
	/* the source stem is a second name */
	assert_string_equal(selected(p, FG_TARGET_BIN, "tool_os"), "tool");
	/* the kind is a guess: every kind flag finds every program */
	assert_string_equal(selected(p, FG_TARGET_BENCH, "tool"), "tool");
	assert_string_equal(selected(p, FG_TARGET_TEST, "tool-bench"), "tool-bench");
	assert_string_equal(selected(p, FG_TARGET_BIN, "tool-bench"), "tool-bench");
	/* a typo: the nearest program */
	assert_non_null(strstr(refused(p, FG_TARGET_BIN, "tol"), "did you mean 'tool'?"));
	fg_project_free(p);
	remove_root();
}

static void toml_suggestions(void **state)
{
	fg_project *p;
	const char *msg;

	(void)state;
	make_root();
	put("flamegraph.toml", "[package]\nname = \"demo\"\n\n[build]\nsystem = \"cc\"\n\n"
			       "[[bin]]\nname = \"stress2\"\nsources = [\"src/stress2.c\"]\n\n"
			       "[[test]]\nname = \"unit_tests\"\nsources = [\"tests/unit.c\"]\n\n"
			       "[[bench]]\nname = \"bench_hash\"\nsources = [\"bench/hash.c\"]\n");
	put("src/stress2.c", "int main(void) { return 0; }\n");
	put("tests/unit.c", "int main(void) { return 0; }\n");
	put("bench/hash.c", "int main(void) { return 0; }\n");
	p = open_project();

	assert_string_equal(selected(p, FG_TARGET_BIN, "stress2"), "stress2");
	/* one letter missing */
	msg = refused(p, FG_TARGET_BIN, "stres2");
	assert_non_null(strstr(msg, "did you mean 'stress2'?"));
	/* a target of another kind: the right flag is the whole answer */
	msg = refused(p, FG_TARGET_BIN, "unit_tests");
	assert_string_equal(msg, "'unit_tests' is a test, not a bin: use --test unit_tests");
	/* near a target of another kind: its kind and flag */
	msg = refused(p, FG_TARGET_BIN, "bench_hsh");
	assert_non_null(strstr(msg, "did you mean the bench 'bench_hash' (--bench bench_hash)?"));
	/* a word too few */
	msg = refused(p, FG_TARGET_TEST, "unit");
	assert_non_null(strstr(msg, "did you mean 'unit_tests'?"));
	/* nothing near: the list, no guess */
	msg = refused(p, FG_TARGET_BIN, "zzzz");
	assert_null(strstr(msg, "did you mean"));
	assert_non_null(strstr(msg, "pick one of these"));
	/* kinds are declared here: --bench does not find a bin */
	assert_null(selected(p, FG_TARGET_BENCH, "stress2"));
	fg_project_free(p);
	remove_root();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(compdb_program_names),
		cmocka_unit_test(toml_suggestions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
