/* Unit tests of the SVG renderer: frame coordinates, escaping, empty
 * input, option checks, min-width pruning, differential titles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "flamegraph/diff.h"
#include "flamegraph/error.h"
#include "flamegraph/render.h"

static fg_folded *load(const char *text)
{
	fg_folded *f;

	assert_int_equal(fg_folded_new(&f), 0);
	assert_int_equal(fg_folded_feed(f, text, strlen(text)), 0);
	assert_int_equal(fg_folded_finish(f), 0);
	return f;
}

/* Renders into memory; *rc gets the return code. */
static char *render(const char *text, const fg_render_opts *o, int *rc)
{
	fg_folded *f = load(text);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	*rc = fg_render_svg(f, o, out);
	fclose(out);
	fg_folded_free(f);
	return buf;
}

static void frames_carry_sample_coordinates(void **state)
{
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	int rc;
	char *svg;

	o.hash = true;
	svg = render("main;b 3\nmain;a 2\nidle 5\n", &o, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(svg, "<title>all (10 samples, 100.00%)</title>"));
	assert_non_null(strstr(svg, "<title>idle (5 samples, 50.00%)</title>"));
	/* sorted: idle [0,5), main [5,10), a [5,7), b [7,10) */
	assert_non_null(strstr(svg, "fg:x=\"5\" fg:w=\"2\"/><text"));
	assert_non_null(strstr(svg, "<title>a (2 samples, 20.00%)</title><rect x=\"50.0000%\""));
	assert_non_null(strstr(svg, "<title>b (3 samples, 30.00%)</title><rect x=\"70.0000%\""));
	assert_non_null(strstr(svg, "total_samples=\"10\""));
	assert_non_null(strstr(svg, ">Flame Graph</text>"));
	assert_null(strstr(svg, "https://"));
	free(svg);
}

/* The fill of the frame whose title starts with `title` at x `x`%. */
static void fill_of(const char *svg, const char *title, const char *x, unsigned rgb[3])
{
	char want[128];
	const char *p;

	snprintf(want, sizeof(want), "<title>%s (", title);
	for (p = svg; (p = strstr(p, want)); p++) {
		const char *rect = strstr(p, "<rect x=\"");
		if (rect && !strncmp(rect + 9, x, strlen(x))) {
			const char *fill = strstr(rect, "fill=\"rgb(");
			assert_non_null(fill);
			assert_int_equal(sscanf(fill, "fill=\"rgb(%u,%u,%u)", &rgb[0], &rgb[1], &rgb[2]), 3);
			return;
		}
	}
	fail_msg("no frame %s at x=%s%%", title, x);
}

/* Hot/cold: the cold root and every frame above it in blues, the rest
 * (main too, where it is on CPU) in the palette. */
static void cold_root_frames_are_blue(void **state)
{
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	unsigned c[3];
	int rc;
	char *svg;

	(void)state;
	o.hash = true;
	o.cold_root = "[off-cpu]";
	svg = render("app;[off-cpu];main;sleep 5\napp;[on-cpu];main;work 5\n", &o, &rc);
	assert_int_equal(rc, 0);
	const char *cold[][2] = { { "[off-cpu]", "0.0" }, { "main", "0.0" }, { "sleep", "0.0" } };
	const char *hot[][2] = { { "[on-cpu]", "50.0" }, { "main", "50.0" }, { "work", "50.0" },
				 { "app", "0.0" } };
	for (size_t i = 0; i < 3; i++) {
		fill_of(svg, cold[i][0], cold[i][1], c);
		if (!(c[2] >= 190 && c[0] < 150 && c[1] < 150))
			fail_msg("%s: rgb(%u,%u,%u) is not blue", cold[i][0], c[0], c[1], c[2]);
	}
	for (size_t i = 0; i < 4; i++) {
		fill_of(svg, hot[i][0], hot[i][1], c);
		if (!(c[0] >= 200 && c[2] < 100))
			fail_msg("%s: rgb(%u,%u,%u) is not in the hot palette", hot[i][0], c[0], c[1], c[2]);
	}
	free(svg);
}

static void names_are_escaped(void **state)
{
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	int rc;
	char *svg;

	o.title = "<b>&\"'";
	svg = render("operator<<;a&b;\"q\";'s';x]]>y;</script><script>alert(1)</script>;bad\x01\xff 4\n", &o, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(svg, "operator&lt;&lt; (4 samples"));
	assert_non_null(strstr(svg, "a&amp;b (4"));
	assert_non_null(strstr(svg, "&quot;q&quot; (4"));
	assert_non_null(strstr(svg, "&apos;s&apos; (4"));
	assert_non_null(strstr(svg, "x]]&gt;y (4"));
	assert_non_null(strstr(svg, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; (4"));
	assert_non_null(strstr(svg, "bad\xEF\xBF\xBD\xEF\xBF\xBD (4")); /* U+FFFD twice */
	assert_non_null(strstr(svg, ">&lt;b&gt;&amp;&quot;&apos;</text>"));
	assert_null(strstr(svg, "<script>alert"));
	free(svg);
}

static void empty_input_still_writes_an_svg(void **state)
{
	int rc;
	char *svg = render("# nothing\n\n", NULL, &rc);

	assert_int_equal(rc, FG_ENODATA);
	assert_non_null(strstr(svg, "No valid input"));
	assert_non_null(strstr(svg, "</svg>"));
	assert_non_null(strstr(fg_error_last(), "no stack samples"));
	free(svg);
}

static void bad_options_are_rejected(void **state)
{
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	int rc;
	char *svg;

	o.palette = "rainbow";
	assert_int_equal(fg_render_opts_check(&o), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "hot|mem|io"));
	svg = render("a 1\n", &o, &rc);
	assert_int_equal(rc, FG_EINVAL);
	free(svg);
	o.palette = "java";
	o.bgcolors = "#12345g";
	assert_int_equal(fg_render_opts_check(&o), FG_EINVAL);
	o.bgcolors = "#12345f";
	assert_int_equal(fg_render_opts_check(&o), 0);
	o.image_width = 5;
	assert_int_equal(fg_render_opts_check(&o), FG_EINVAL);
}

static void narrow_frames_are_pruned(void **state)
{
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	int rc;
	char *svg;

	/* 1 of 100000 samples on 1180 px is 0.0118 px < 0.1 px */
	svg = render("wide 99999\ntiny;child 1\n", &o, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(svg, "<title>wide"));
	assert_null(strstr(svg, "<title>tiny"));
	assert_null(strstr(svg, "<title>child"));
	free(svg);
	o.min_width = 0;
	svg = render("wide 99999\ntiny;child 1\n", &o, &rc);
	assert_non_null(strstr(svg, "<title>tiny"));
	assert_non_null(strstr(svg, "<title>child"));
	free(svg);
}

static void inverted_reverse_and_factor(void **state)
{
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	int rc;
	char *svg;

	o.inverted = true;
	o.reverse = true;
	o.factor = 1000;
	o.count_name = "bytes";
	svg = render("a;leaf 2\nb;leaf 3\n", &o, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(svg, ">Icicle Graph</text>"));
	assert_non_null(strstr(svg, "<title>leaf (5,000 bytes, 100.00%)</title>"));
	assert_non_null(strstr(svg, "var fg_inverted = true;"));
	free(svg);
}

static void differential_titles(void **state)
{
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	int rc;
	char *svg = render("m;grew 10 30\nm;shrank 50 20\n", &o, &rc);

	assert_int_equal(rc, 0);
	assert_non_null(strstr(svg, "<title>grew (30 samples, 60.00%; +40.00%)</title>"));
	assert_non_null(strstr(svg, "<title>shrank (20 samples, 40.00%; -60.00%)</title>"));
	free(svg);
}

static void diff_folded_joins(void **state)
{
	fg_folded *b = load("a;x 10\nb 0x1 5\n"), *a = load("a;x 20\nc;0xdead 4\n");
	fg_diff_opts o = FG_DIFF_OPTS_INIT;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	o.normalize = true;
	o.strip_hex = true;
	assert_int_equal(fg_diff_folded_write(b, a, &o, out), 0);
	fclose(out);
	/* "b 0x1 5" is differential-looking? no: "0x1" is not a count, so
	 * the stack is "b 0x1" with 5 samples */
	assert_string_equal(buf, "a;x 16 20\nb 0x... 8 0\nc;0x... 0 4\n");
	free(buf);
	fg_folded_free(a);
	fg_folded_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frames_carry_sample_coordinates),
		cmocka_unit_test(cold_root_frames_are_blue),
		cmocka_unit_test(names_are_escaped),
		cmocka_unit_test(empty_input_still_writes_an_svg),
		cmocka_unit_test(bad_options_are_rejected),
		cmocka_unit_test(narrow_frames_are_pruned),
		cmocka_unit_test(inverted_reverse_and_factor),
		cmocka_unit_test(differential_titles),
		cmocka_unit_test(diff_folded_joins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
