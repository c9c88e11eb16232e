/* Unit tests of the TOML reader's API: typed accessors, path lookup,
 * document-order iteration, value positions and error locations. The
 * grammar itself is covered by the toml-test conformance runner. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "flamegraph/error.h"
#include "lib/project/toml/toml.h"
#include "util/strbuf.h"

static const char manifest[] =
	"# a flamegraph.toml\n"                              /* 1 */
	"[package]\n"                                         /* 2 */
	"name = \"stress\"\n"                                 /* 3 */
	"\n"                                                  /* 4 */
	"[build]\n"                                           /* 5 */
	"cflags = [\"-Wall\", \"-O2\"]\n"                     /* 6 */
	"jobs = 4\n"                                          /* 7 */
	"ratio = 0.5\n"                                       /* 8 */
	"lto = false\n"                                       /* 9 */
	"\n"                                                  /* 10 */
	"[[bin]]\n"                                           /* 11 */
	"name = \"stress2\"\n"                                /* 12 */
	"sources = [\"src/stress2.c\", \"src/table.c\"]\n"    /* 13 */
	"[[bin]]\n"                                           /* 14 */
	"name = \"other\"\n"                                  /* 15 */
	"sources = \"src/other.c\"\n"                         /* 16 */
	"\n"                                                  /* 17 */
	"[features]\n"                                        /* 18 */
	"default = [\"fast-hash\"]\n"                         /* 19 */
	"fast-hash = { defines = [\"FAST_HASH\"], cmake = \"ENABLE_FAST_HASH\" }\n" /* 20 */
	"[profile.release]\n"                                 /* 21 */
	"cflags = [\"-O2\"]\n"                                /* 22 */
	"[profile.fast]\n"                                    /* 23 */
	"inherits = \"release\"\n"                            /* 24 */
	"built = 2024-02-29 12:00:00z\n";                     /* 25 */

static fg_toml *parse_ok(const char *text)
{
	fg_toml *doc = NULL;
	int ret = fg_toml_parse(&doc, text, strlen(text), "flamegraph.toml");

	if (ret < 0)
		fail_msg("parse failed: %s", fg_error_last());
	assert_non_null(doc);
	return doc;
}

static void accessors_return_typed_values(void **state)
{
	fg_toml *doc = parse_ok(manifest);
	const fg_toml_value *root = fg_toml_root(doc), *build, *bins, *v;
	const char *s;
	int64_t i;
	double d;
	bool b;
	size_t len;

	assert_string_equal(fg_toml_filename(doc), "flamegraph.toml");
	assert_int_equal(fg_toml_type(root), FG_TOML_TABLE);
	s = fg_toml_string(fg_toml_get(fg_toml_get(root, "package"), "name"), &len);
	assert_string_equal(s, "stress");
	assert_int_equal(len, 6);

	build = fg_toml_get(root, "build");
	assert_true(fg_toml_int(fg_toml_get(build, "jobs"), &i));
	assert_int_equal(i, 4);
	assert_true(fg_toml_float(fg_toml_get(build, "ratio"), &d));
	assert_true(d == 0.5);
	assert_true(fg_toml_bool(fg_toml_get(build, "lto"), &b));
	assert_false(b);
	v = fg_toml_get(build, "cflags");
	assert_int_equal(fg_toml_type(v), FG_TOML_ARRAY);
	assert_int_equal(fg_toml_array_len(v), 2);
	assert_string_equal(fg_toml_string(fg_toml_array_at(v, 1), NULL), "-O2");
	assert_null(fg_toml_array_at(v, 2));

	/* no conversions: the getters refuse other types */
	i = 99;
	assert_false(fg_toml_int(fg_toml_get(build, "ratio"), &i));
	assert_int_equal(i, 99);
	assert_false(fg_toml_float(fg_toml_get(build, "jobs"), &d));
	assert_null(fg_toml_string(fg_toml_get(build, "jobs"), NULL));
	assert_null(fg_toml_get(build, "missing"));
	assert_null(fg_toml_get(fg_toml_get(build, "jobs"), "x"));
	assert_null(fg_toml_get(NULL, "x"));
	assert_int_equal(fg_toml_array_len(build), 0);
	assert_int_equal(fg_toml_table_size(v), 0);

	bins = fg_toml_get(root, "bin");
	assert_int_equal(fg_toml_array_len(bins), 2);
	v = fg_toml_array_at(bins, 1);
	assert_int_equal(fg_toml_type(v), FG_TOML_TABLE);
	assert_string_equal(fg_toml_string(fg_toml_get(v, "name"), NULL), "other");
	assert_int_equal(fg_toml_type(fg_toml_get(v, "sources")), FG_TOML_STRING);
	assert_string_equal(fg_toml_type_name(FG_TOML_STRING), "string");
	assert_string_equal(fg_toml_type_name(FG_TOML_DATE_LOCAL), "local date");
	fg_toml_free(doc);
	fg_toml_free(NULL);
}

static void path_lookup_follows_tables(void **state)
{
	fg_toml *doc = parse_ok(manifest);
	const fg_toml_value *root = fg_toml_root(doc), *v;

	v = fg_toml_table_get_path(root, "profile.release");
	assert_non_null(v);
	assert_int_equal(fg_toml_type(v), FG_TOML_TABLE);
	assert_ptr_equal(v, fg_toml_get(fg_toml_get(root, "profile"), "release"));
	v = fg_toml_table_get_path(root, "profile . fast.inherits");
	assert_string_equal(fg_toml_string(v, NULL), "release");
	v = fg_toml_table_get_path(root, "features.\"fast-hash\".cmake");
	assert_string_equal(fg_toml_string(v, NULL), "ENABLE_FAST_HASH");
	v = fg_toml_table_get_path(root, "features.'fast-hash'.defines");
	assert_int_equal(fg_toml_array_len(v), 1);
	assert_ptr_equal(fg_toml_table_get_path(root, "package"), fg_toml_get(root, "package"));
	assert_null(fg_toml_table_get_path(root, "profile.debug"));
	assert_null(fg_toml_table_get_path(root, "package.name.x")); /* through a string */
	assert_null(fg_toml_table_get_path(root, "bin.name"));       /* through an array */
	assert_null(fg_toml_table_get_path(root, "profile..release"));
	assert_null(fg_toml_table_get_path(root, ""));
	assert_null(fg_toml_table_get_path(root, "profile.release extra"));
	fg_toml_free(doc);
}

static void iteration_keeps_document_order(void **state)
{
	fg_strbuf text = FG_STRBUF_INIT;
	const fg_toml_value *root, *t, *v;
	fg_toml *doc;
	const char *key;
	char name[32];
	size_t i, len;
	int64_t n;

	/* keys written in reverse order; enough of them to use the hash index */
	fg_strbuf_addstr(&text, "[t]\n");
	for (i = 0; i < 300; i++)
		fg_strbuf_addf(&text, "k%03zu = %zu\n", 299 - i, i);
	fg_strbuf_addstr(&text, "[a]\nz = 1\nb.y = 2\nb.x = 3\nm = 4\n");
	doc = parse_ok(text.buf);
	root = fg_toml_root(doc);

	assert_int_equal(fg_toml_table_size(root), 2);
	assert_string_equal(fg_toml_table_key(root, 0, NULL, NULL), "t");
	assert_string_equal(fg_toml_table_key(root, 1, NULL, NULL), "a");
	assert_null(fg_toml_table_key(root, 2, NULL, NULL));

	t = fg_toml_get(root, "t");
	assert_int_equal(fg_toml_table_size(t), 300);
	for (i = 0; (key = fg_toml_table_key(t, i, &v, &len)); i++) {
		snprintf(name, sizeof(name), "k%03zu", 299 - i);
		assert_string_equal(key, name);
		assert_int_equal(len, 4);
		assert_true(fg_toml_int(v, &n));
		assert_int_equal(n, (int64_t)i);
		assert_ptr_equal(fg_toml_get(t, name), v);
	}
	assert_int_equal(i, 300);

	t = fg_toml_get(root, "a");
	assert_string_equal(fg_toml_table_key(t, 0, NULL, NULL), "z");
	assert_string_equal(fg_toml_table_key(t, 1, NULL, NULL), "b");
	assert_string_equal(fg_toml_table_key(t, 2, NULL, NULL), "m");
	t = fg_toml_get(t, "b");
	assert_string_equal(fg_toml_table_key(t, 0, NULL, NULL), "y");
	assert_string_equal(fg_toml_table_key(t, 1, NULL, NULL), "x");
	fg_toml_free(doc);
	fg_strbuf_release(&text);
}

static void values_remember_line_and_column(void **state)
{
	fg_toml *doc = parse_ok(manifest);
	const fg_toml_value *root = fg_toml_root(doc), *bin, *v;
	unsigned line, col;
	int ret;

	bin = fg_toml_array_at(fg_toml_get(root, "bin"), 0);
	assert_int_equal(fg_toml_line(bin), 11);
	assert_int_equal(fg_toml_column(bin), 1);
	v = fg_toml_get(bin, "sources");
	assert_int_equal(fg_toml_line(v), 13);
	assert_int_equal(fg_toml_column(v), 11);
	v = fg_toml_array_at(v, 1);
	assert_int_equal(fg_toml_line(v), 13);
	assert_int_equal(fg_toml_column(v), 29);

	v = fg_toml_table_get_path(root, "features.fast-hash.cmake");
	assert_int_equal(fg_toml_line(v), 20);
	assert_int_equal(fg_toml_column(v), 48);
	v = fg_toml_table_get_path(root, "features.fast-hash");
	assert_int_equal(fg_toml_column(v), 13);
	v = fg_toml_table_get_path(root, "profile.release");
	assert_int_equal(fg_toml_line(v), 21);

	assert_true(fg_toml_table_key_pos(fg_toml_get(root, "build"), 1, &line, &col));
	assert_int_equal(line, 7);
	assert_int_equal(col, 1);
	assert_false(fg_toml_table_key_pos(fg_toml_get(root, "build"), 9, &line, &col));

	/* the message a schema reader would give */
	v = fg_toml_get(fg_toml_array_at(fg_toml_get(root, "bin"), 1), "sources");
	ret = fg_toml_error(doc, v, "`sources` must be an array of strings, not a %s",
			    fg_toml_type_name(fg_toml_type(v)));
	assert_int_equal(ret, FG_EPARSE);
	assert_int_equal(fg_error_last_code(), FG_EPARSE);
	assert_string_equal(fg_error_last(),
			    "flamegraph.toml:16:11: `sources` must be an array of strings, not a string");
	fg_toml_free(doc);

	/* columns count characters, not bytes */
	doc = parse_ok("\"héllo wörld\" = 1\nk = [ \"ü\", 2 ]\n");
	root = fg_toml_root(doc);
	v = fg_toml_get(root, "héllo wörld");
	assert_int_equal(fg_toml_line(v), 1);
	assert_int_equal(fg_toml_column(v), 17);
	v = fg_toml_array_at(fg_toml_get(root, "k"), 1);
	assert_int_equal(fg_toml_line(v), 2);
	assert_int_equal(fg_toml_column(v), 12);
	fg_toml_free(doc);
}

static void scalars_keep_their_detail(void **state)
{
	static const char text[] =
		"\xef\xbb\xbf" /* a BOM is skipped */
		"nul = \"a\\u0000b\"\r\n"
		"dt = 2024-02-29 12:00:00.500z\n"
		"ldt = 2024-02-29t12:00:00\n"
		"ld = 2024-02-29\n"
		"lt = 07:32:00.25\n"
		"big = -9_223_372_036_854_775_808\n"
		"hex = 0xdead_BEEF\n"
		"ml = \"\"\"\n  one \\\n  two\"\"\"\n";
	fg_toml *doc = NULL;
	const fg_toml_value *root, *v;
	const char *s;
	size_t len;
	int64_t i;

	assert_int_equal(fg_toml_parse(&doc, text, sizeof(text) - 1, NULL), 0);
	root = fg_toml_root(doc);
	s = fg_toml_string(fg_toml_get(root, "nul"), &len);
	assert_int_equal(len, 3);
	assert_memory_equal(s, "a\0b", 4);

	v = fg_toml_get(root, "dt");
	assert_int_equal(fg_toml_type(v), FG_TOML_DATETIME);
	assert_string_equal(fg_toml_datetime(v), "2024-02-29T12:00:00.500Z");
	v = fg_toml_get(root, "ldt");
	assert_int_equal(fg_toml_type(v), FG_TOML_DATETIME_LOCAL);
	assert_string_equal(fg_toml_datetime(v), "2024-02-29T12:00:00");
	assert_int_equal(fg_toml_type(fg_toml_get(root, "ld")), FG_TOML_DATE_LOCAL);
	v = fg_toml_get(root, "lt");
	assert_int_equal(fg_toml_type(v), FG_TOML_TIME_LOCAL);
	assert_string_equal(fg_toml_datetime(v), "07:32:00.25");
	assert_null(fg_toml_datetime(fg_toml_get(root, "nul")));

	assert_true(fg_toml_int(fg_toml_get(root, "big"), &i));
	assert_true(i == INT64_MIN);
	assert_true(fg_toml_int(fg_toml_get(root, "hex"), &i));
	assert_true(i == 0xdeadbeef);
	assert_string_equal(fg_toml_string(fg_toml_get(root, "ml"), NULL), "  one two");
	fg_toml_free(doc);
}

static void errors_carry_file_line_column(void **state)
{
	static const struct {
		const char *text, *where, *what;
	} cases[] = {
		{ "a = 1\na = 2\n", "f.toml:2:1: ", "duplicate key `a`" },
		{ "[x]\n[y]\n[x]\n", "f.toml:3:1: ", "defined twice" },
		{ "a = \"open\n", "f.toml:1:5: ", "unterminated string" },
		{ "a = 1\nb = 2020-02-30\n", "f.toml:2:5: ", "day out of range" },
		{ "n = 9223372036854775808\n", "f.toml:1:5: ", "does not fit in 64 bits" },
		{ "t = {a = 1,}\n", "f.toml:1:12: ", "trailing comma" },
		{ "t = {a = 1\n}\n", "f.toml:1:11: ", "one line" },
		{ "x = [1 2]\n", "f.toml:1:8: ", "expected ',' or ']'" },
		{ "x = 1 y\n", "f.toml:1:7: ", "expected a newline" },
		{ "s = \"\\x41\"\n", "f.toml:1:6: ", "invalid escape" },
		{ "s = \"\\uD800\"\n", "f.toml:1:6: ", "not a Unicode scalar" },
		{ "\n\nk = \"\xc3\x28\"\n", "f.toml:3:6: ", "invalid UTF-8" },
		{ "a = 1\r\nb = 2\r", "f.toml:2:6: ", "carriage return" },
		{ "p.q = 1\n[p]\n", "f.toml:2:1: ", "dotted keys" },
		{ "t = {}\n[t.u]\n", "f.toml:2:2: ", "inline table" },
		{ "a = []\n[[a]]\n", "f.toml:2:1: ", "not an array of tables" },
		{ "[[a]]\n[a]\n", "f.toml:2:1: ", "already an array" },
		{ "x = 0o8\n", "f.toml:1:5: ", "invalid digit" },
		{ "x = 01\n", "f.toml:1:5: ", "leading zeros" },
		{ "x = +0x1\n", "f.toml:1:5: ", "take no sign" },
		{ "x = 1.\n", "f.toml:1:5: ", "digits on both sides" },
		{ "x = 07:60:00\n", "f.toml:1:5: ", "minute out of range" },
		{ "x = \n", "f.toml:1:5: ", "expected a value" },
		{ "= 1\n", "f.toml:1:1: ", "expected a key" },
		{ "# bell \x07\n", "f.toml:1:8: ", "control character U+0007" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fg_toml *doc = (fg_toml *)&i; /* must be reset to NULL */
		int ret = fg_toml_parse(&doc, cases[i].text, strlen(cases[i].text), "f.toml");
		const char *msg = fg_error_last();

		if (ret != FG_EPARSE || doc ||
		    strncmp(msg, cases[i].where, strlen(cases[i].where)) != 0 ||
		    !strstr(msg, cases[i].what))
			fail_msg("case %zu (%s): ret %d, message \"%s\"; expected \"%s...%s\"",
				 i, cases[i].text, ret, msg, cases[i].where, cases[i].what);
	}
}

static void hostile_input_is_refused_cleanly(void **state)
{
	fg_strbuf text = FG_STRBUF_INIT;
	fg_toml *doc = NULL;
	size_t i;

	fg_strbuf_addstr(&text, "x = ");
	for (i = 0; i < 100000; i++)
		fg_strbuf_addch(&text, '[');
	assert_int_equal(fg_toml_parse(&doc, text.buf, text.len, "deep.toml"), FG_EPARSE);
	assert_non_null(strstr(fg_error_last(), "nested deeper"));
	assert_null(doc);

	/* a NUL byte in the text is a control character, not the end */
	assert_int_equal(fg_toml_parse(&doc, "a = 1\0b = 2\n", 12, "nul.toml"), FG_EPARSE);
	assert_non_null(strstr(fg_error_last(), "nul.toml:1:6: "));
	assert_int_equal(fg_toml_parse(&doc, "", 0, "empty.toml"), 0);
	assert_int_equal(fg_toml_table_size(fg_toml_root(doc)), 0);
	fg_toml_free(doc);
	fg_strbuf_release(&text);
}

/* The choices the TOML 1.0 text leaves open, pinned down. */
static void table_rules_and_edge_choices(void **state)
{
	static const struct {
		const char *text;
		bool ok;
	} cases[] = {
		/* [table] may add sub-tables under dotted-key tables ... */
		{ "[a]\nx.y = 1\n[a.x.z]\nw = 2\n", true },
		/* ... but dotted keys only extend tables of their own block
		 * (the clarified wording of toml-lang/toml#859) */
		{ "[a.b.c]\n[a]\nb.d = 1\n", false },
		{ "[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", false },
		{ "[[a]]\nb.c = 1\n[[a]]\nb.c = 2\n", true },
		{ "[[a.b]]\n[a]\nc = 1\n", true },
		{ "a = {b.c = 1, b.d = 2}\n", true },
		{ "a = {b = {c = 1}, b.d = 2}\n", false },
		{ "a = [{b = 1}]\n[a.c]\n", false },
		/* RFC 3339 allows a leap second */
		{ "t = 23:59:60\n", true },
		{ "t = 23:59:61\n", false },
		/* a float that does not fit a double is an error, not inf */
		{ "f = 1e400\n", false },
		{ "f = 1e-400\n", true },
		{ "i = -9223372036854775808\n", true },
		{ "i = 0x8000000000000000\n", false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fg_toml *doc = NULL;
		int ret = fg_toml_parse(&doc, cases[i].text, strlen(cases[i].text), "r.toml");

		if ((ret == 0) != cases[i].ok)
			fail_msg("case %zu (%s): expected %s, got %d %s", i, cases[i].text,
				 cases[i].ok ? "success" : "an error", ret,
				 ret ? fg_error_last() : "");
		fg_toml_free(doc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accessors_return_typed_values),
		cmocka_unit_test(path_lookup_follows_tables),
		cmocka_unit_test(iteration_keeps_document_order),
		cmocka_unit_test(values_remember_line_and_column),
		cmocka_unit_test(scalars_keep_their_detail),
		cmocka_unit_test(errors_carry_file_line_column),
		cmocka_unit_test(hostile_input_is_refused_cleanly),
		cmocka_unit_test(table_rules_and_edge_choices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
