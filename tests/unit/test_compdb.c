/* Unit tests of compile_commands.json projects: the link selection over
 * hand-made symbol tables, and the reader on a small database compiled
 * with the real cc (how each entry's command is rewritten, target names
 * and kinds). */
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
#include "lib/project/compdb/link.h"
#include "util/strvec.h"

/* One unit of the synthetic database: defined and undefined symbols,
 * space-separated. */
struct fake {
	const char *defs, *undefs;
	bool main;
};

static void add_syms(struct fg_compdb *db, const char *list, const char ***arr, size_t *n,
		     size_t *alloc, size_t ui, bool define)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", list);
	char *save = NULL;
	for (char *s = strtok_r(buf, " ", &save); s; s = strtok_r(NULL, " ", &save)) {
		const char *k = fg_strmap_intern(&db->names, s, strlen(s));
		if (*n == *alloc) {
			*alloc = *alloc ? 2 * *alloc : 8;
			*arr = realloc((void *)*arr, *alloc * sizeof(**arr));
		}
		(*arr)[(*n)++] = k;
		if (define) {
			fg_strmap_entry *d = fg_strmap_put(&db->defs, s, strlen(s));
			if (!d->value.u)
				d->value.u = ui + 1;
		}
	}
}

static struct fg_compdb *fake_db(const struct fake *f, size_t n)
{
	struct fg_compdb *db = calloc(1, sizeof(*db));
	db->ux = calloc(n, sizeof(*db->ux));
	db->n = n;
	for (size_t i = 0; i < n; i++) {
		struct fg_compdb_unit *x = &db->ux[i];
		x->has_main = f[i].main;
		add_syms(db, f[i].defs, &x->defs, &x->ndefs, &x->adefs, i, !f[i].main);
		add_syms(db, f[i].undefs, &x->undefs, &x->nundefs, &x->aundefs, i, false);
	}
	return db;
}

static void test_select_transitive(void **state)
{
	(void)state;
	static const struct fake f[] = {
		{ "main helper", "f printf", true },  /* 0: the target */
		{ "f", "g", false },                   /* 1: needed */
		{ "g", "malloc", false },              /* 2: needed through 1 */
		{ "h", "f", false },                   /* 3: unused */
		{ "main", "h", true },                 /* 4: another program */
		{ "f2 f", "", false },                 /* 5: later definer of f */
	};
	struct fg_compdb *db = fake_db(f, 6);
	fg_strvec missing = FG_STRVEC_INIT;
	size_t *sel = NULL, n = 0;

	assert_int_equal(fg_compdb_select(&sel, &n, db, 0, &missing), 0);
	assert_int_equal(n, 3);
	assert_int_equal(sel[0], 0);
	assert_int_equal(sel[1], 1);
	assert_int_equal(sel[2], 2);
	assert_int_equal(missing.n, 2);
	assert_string_equal(missing.v[0], "printf");
	assert_string_equal(missing.v[1], "malloc");
	free(sel);
	fg_strvec_clear(&missing);

	/* the other program: its h pulls in 3, which pulls in 1 and 2 */
	assert_int_equal(fg_compdb_select(&sel, &n, db, 4, &missing), 0);
	assert_int_equal(n, 4);
	assert_int_equal(sel[1], 3);
	free(sel);
	fg_strvec_clear(&missing);
	fg_compdb_free(db);
}

static void test_select_self_contained(void **state)
{
	(void)state;
	static const struct fake f[] = {
		{ "main local", "puts", true }, /* needs nothing of the others */
		{ "local other", "", false },
	};
	struct fg_compdb *db = fake_db(f, 2);
	fg_strvec missing = FG_STRVEC_INIT;
	size_t *sel = NULL, n = 0;

	assert_int_equal(fg_compdb_select(&sel, &n, db, 0, &missing), 0);
	assert_int_equal(n, 1);
	assert_int_equal(missing.n, 1);
	assert_string_equal(missing.v[0], "puts");
	free(sel);
	fg_strvec_clear(&missing);
	fg_compdb_free(db);
}

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

static const struct fg_unit *unit_of(const fg_project *p, const char *suffix)
{
	for (size_t i = 0; i < p->nunits; i++) {
		size_t n = strlen(p->units[i].source), k = strlen(suffix);
		if (n >= k && !strcmp(p->units[i].source + n - k, suffix))
			return &p->units[i];
	}
	return NULL;
}

static bool has_arg(const struct fg_unit *u, const char *a)
{
	for (size_t i = 0; i < u->argv.n; i++)
		if (!strcmp(u->argv.v[i], a))
			return true;
	return false;
}

static void test_reader(void **state)
{
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	fg_project *p = NULL;
	char json[2048], inc[300];
	const struct fg_unit *u;

	(void)state;
	snprintf(root, sizeof(root), "%s/fgcompdb.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(root));
	put("inc/defs.h", "#define TWO 2\n");
	put("bench/speed.c", "#include \"defs.h\"\nint helper(void);\n"
			     "int main(void) { return helper() - TWO; }\n");
	put("lib/helper.c", "#include \"defs.h\"\nint helper(void) { return TWO; }\n");
	snprintf(json, sizeof(json),
		 "[{\"directory\": \"%s\", \"file\": \"bench/speed.c\",\n"
		 "  \"command\": \"cc -O1 -Iinc \\\"-DNAME=a b\\\" -MD -MF speed.d -o speedy bench/speed.c lib/helper.c -lm\"},\n"
		 " {\"directory\": \"%s\", \"file\": \"lib/helper.c\",\n"
		 "  \"arguments\": [\"clang\", \"-fomit-frame-pointer\", \"-I\", \"inc\", \"-c\", \"-o\", \"lib/helper.o\", \"lib/helper.c\"]}]\n",
		 root, root);
	put("compile_commands.json", json);

	assert_int_equal(fg_manifest_find(&loc, root, true), 0);
	assert_int_equal(loc.type, FG_MANIFEST_COMPDB);
	int err = fg_project_open(&p, &loc, &opts);
	if (err)
		print_error("%s\n", fg_error_last());
	assert_int_equal(err, 0);

	/* the one-step entry: named after its -o, kind from its folder */
	assert_int_equal(fg_project_target_count(p), 1);
	const fg_target *t = fg_project_target(p, 0);
	assert_string_equal(fg_target_name(t), "speedy");
	assert_int_equal(fg_target_kind_of(t), FG_TARGET_BENCH);

	/* its compile: our object, debug info and frame pointers last, no
	 * outputs of its own, the other source and the link flags gone,
	 * paths absolute */
	u = unit_of(p, "bench/speed.c");
	assert_non_null(u);
	assert_string_equal(u->argv.v[u->argv.n - 1], "-fno-omit-frame-pointer");
	assert_string_equal(u->argv.v[u->argv.n - 2], "-g");
	assert_false(has_arg(u, "-grecord-command-line")); /* cc: GCC here */
	assert_string_equal(u->argv.v[u->argv.n - 3], u->object);
	assert_non_null(strstr(u->object, "/build/flamegraph/release/obj/bench/speed.c.o"));
	assert_true(has_arg(u, "-DNAME=a b"));
	assert_false(has_arg(u, "-MD"));
	assert_false(has_arg(u, "-MF"));
	assert_false(has_arg(u, "speed.d"));
	assert_false(has_arg(u, "-lm"));
	assert_false(has_arg(u, "lib/helper.c"));
	assert_true(has_arg(u, u->source));
	snprintf(inc, sizeof(inc), "-I%s/inc", root);
	assert_true(has_arg(u, inc));
	assert_true(access(u->object, F_OK) == 0);

	/* the compile-only entry (built by clang) keeps its flags, ours after them */
	u = unit_of(p, "lib/helper.c");
	assert_non_null(u);
	assert_true(has_arg(u, "-fomit-frame-pointer"));
	assert_false(has_arg(u, "lib/helper.o"));
	/* clang is asked to record its flags, for the frame-pointer check */
	assert_string_equal(u->argv.v[u->argv.n - 1], "-grecord-command-line");
	assert_string_equal(u->argv.v[u->argv.n - 2], "-fno-omit-frame-pointer");
	snprintf(inc, sizeof(inc), "%s/inc", root);
	assert_true(has_arg(u, inc));
	assert_false(u->has_main);

	fg_project_free(p);
	fg_manifest_loc_release(&loc);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_select_transitive),
		cmocka_unit_test(test_select_self_contained),
		cmocka_unit_test(test_reader),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
