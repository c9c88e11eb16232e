/* Unit tests of the HTML viewer's writer (fg_render_html): the page's
 * parts, the node encoding, escaping of names, empty input, size against
 * the SVG. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "flamegraph/error.h"
#include "flamegraph/render.h"

/* a string literal and its length */
#define LIT(s) s, sizeof(s) - 1

static fg_folded *load(const char *text, size_t len)
{
	fg_folded *f;

	assert_int_equal(fg_folded_new(&f), 0);
	assert_int_equal(fg_folded_feed(f, text, len), 0);
	assert_int_equal(fg_folded_finish(f), 0);
	return f;
}

/* Renders text as HTML (svg: as SVG) into memory; *rc gets the code. */
static char *render(const char *text, size_t len, const fg_render_opts *o, bool svg, int *rc)
{
	fg_folded *f = load(text, len);
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);

	assert_non_null(out);
	*rc = svg ? fg_render_svg(f, o, out) : fg_render_html(f, o, out);
	fclose(out);
	fg_folded_free(f);
	return buf;
}

/* The text of the element with id, between its '>' and "</script>". */
static char *element(const char *page, const char *id)
{
	char key[64];
	const char *p, *e;

	snprintf(key, sizeof(key), "id=\"%s\">", id);
	p = strstr(page, key);
	assert_non_null(p);
	p += strlen(key);
	e = strstr(p, "</script>");
	assert_non_null(e);
	return strndup(p, (size_t)(e - p));
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void page_has_its_parts(void **state)
{
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	int rc;
	char *html, *nodes, *names, *colors, *opts;

	(void)state;
	o.hash = true;
	o.title = "T & <b>";
	html = render(LIT("main;b 3\nmain;a 2\nidle 5\n"), &o, false, &rc);
	assert_int_equal(rc, 0);
	assert_true(strncmp(html, "<!DOCTYPE html>\n<html lang=\"en\">", 31) == 0);
	assert_non_null(strstr(html, "<title>T &amp; &lt;b&gt;</title>"));
	assert_non_null(strstr(html, "</body></html>\n"));
	/* one element of each kind, and nothing fetched: no src, no href
	 * other than the empty icon */
	assert_int_equal(count(html, "<script"), count(html, "</script>"));
	assert_int_equal(count(html, "<script"), 5);
	assert_null(strstr(html, " src="));
	assert_int_equal(count(html, "href="), 1);
	assert_non_null(strstr(html, "<link rel=\"icon\" href=\"data:,\">"));
	assert_non_null(strstr(html, "default-src 'none'"));
	opts = element(html, "fg-opts");
	assert_non_null(strstr(opts, "\"title\":\"T \\u0026 \\u003cb\\u003e\""));
	assert_non_null(strstr(opts, "\"samples\":10"));
	assert_non_null(strstr(opts, "\"differential\":false"));
	/* sorted: idle, main (a, b); names in the order first met */
	names = element(html, "fg-names");
	assert_string_equal(names, "[\"all\",\"idle\",\"main\",\"a\",\"b\"]");
	colors = element(html, "fg-colors");
	assert_int_equal(strlen(colors), 5 * 6);
	/* pre-order: all(10), idle(5), main(5) a(2) b(3); [UP,]NAME,WIDTH[,GAP] */
	nodes = element(html, "fg-nodes");
	assert_string_equal(nodes, "0,a;1,5;1,2,5;3,2;1,4,3;");
	free(opts);
	free(names);
	free(colors);
	free(nodes);
	free(html);
}

static void cold_frames_are_named_apart(void **state)
{
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	int rc;
	char *html, *names, *opts, *colors;
	unsigned b_cold;

	(void)state;
	o.hash = true;
	o.cold_root = "wait";
	/* b on CPU and b above the cold root: two names, the second cold */
	html = render(LIT("main;b 3\nmain;wait;b 2\n"), &o, false, &rc);
	assert_int_equal(rc, 0);
	names = element(html, "fg-names");
	assert_string_equal(names, "[\"all\",\"main\",\"b\",\"wait\",\"b\"]");
	opts = element(html, "fg-opts");
	assert_non_null(strstr(opts, "\"cold\":[3,4]"));
	/* the cold b in blues: its blue the largest component */
	colors = element(html, "fg-colors");
	assert_int_equal(strlen(colors), 5 * 6);
	b_cold = (unsigned)strtoul(colors + 4 * 6, NULL, 16);
	assert_true((b_cold & 255) > (b_cold >> 16 & 255));
	free(names);
	free(opts);
	free(colors);
	free(html);
}

static void names_are_escaped(void **state)
{
	static const char in[] = "main;x<&\"'</script><!--y 2\nmain;caf\xc3\xa9;bad\xff\xfe 1\n";
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	int rc;
	char *html, *names;

	(void)state;
	html = render(in, sizeof(in) - 1, &o, false, &rc);
	assert_int_equal(rc, 0);
	/* the viewer's own script and the data elements: no name ends one */
	assert_int_equal(count(html, "</script>"), 5);
	assert_null(strstr(html, "<!--"));
	names = element(html, "fg-names");
	assert_non_null(strstr(names, "\"x\\u003c\\u0026\\u0022\\u0027\\u003c/script\\u003e\\u003c!--y\""));
	/* UTF-8 kept, invalid bytes replaced */
	assert_non_null(strstr(names, "\"caf\xc3\xa9\""));
	assert_non_null(strstr(names, "\"bad\\ufffd\\ufffd\""));
	free(names);
	free(html);
}

static void differential_nodes_carry_the_change(void **state)
{
	static const char in[] = "main;a 10 30\nmain;b 30 15\n";
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	int rc;
	char *html, *nodes, *colors;

	(void)state;
	html = render(in, sizeof(in) - 1, &o, false, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(html, "\"differential\":true"));
	/* all(45) main(45) a(30, +20) b(15, -15) */
	nodes = element(html, "fg-nodes");
	assert_string_equal(nodes, "0,19,0;1,19,0;2,u,k;1,3,f,-f;");
	colors = element(html, "fg-colors");
	assert_string_equal(colors, "");
	free(nodes);
	free(colors);
	free(html);
}

static void narrow_frames_leave_a_gap(void **state)
{
	/* b is 1 sample of 10 001: narrower than 0.1 px of 1180 px, dropped;
	 * c after it starts one sample after a's end */
	static const char in[] = "main;a 5000\nmain;b 1\nmain;c 5000\n";
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	int rc;
	char *html, *nodes;

	(void)state;
	o.min_width = 1;
	html = render(in, sizeof(in) - 1, &o, false, &rc);
	assert_int_equal(rc, 0);
	nodes = element(html, "fg-nodes");
	/* all(10001) main(10001) a(5000) c(5000, gap 1) */
	assert_string_equal(nodes, "0,7pt;1,7pt;2,3uw;1,3,3uw,1;");
	free(nodes);
	free(html);
}

static void empty_input_fails_as_the_svg_does(void **state)
{
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	int rc_html, rc_svg;
	char *html, *svg, *msg_html;

	(void)state;
	html = render("", 0, &o, false, &rc_html);
	msg_html = strdup(fg_error_last());
	svg = render("", 0, &o, true, &rc_svg);
	assert_int_equal(rc_html, FG_ENODATA);
	assert_int_equal(rc_svg, FG_ENODATA);
	assert_string_equal(msg_html, fg_error_last());
	assert_non_null(strstr(html, "no samples"));
	assert_non_null(strstr(html, "data-ready=\"1\""));
	free(msg_html);
	free(html);
	free(svg);
}

static void bad_options_are_refused(void **state)
{
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	int rc;
	char *html;

	(void)state;
	o.palette = "nope";
	html = render(LIT("a 1\n"), &o, false, &rc);
	assert_int_equal(rc, FG_EINVAL);
	free(html);
	o = (fg_render_opts)FG_RENDER_OPTS_INIT;
	o.version = 99;
	html = render(LIT("a 1\n"), &o, false, &rc);
	assert_int_equal(rc, FG_EINVAL);
	free(html);
}

/* Many distinct stacks: the page is far smaller than the SVG. */
static void smaller_than_the_svg(void **state)
{
	fg_render_opts o = FG_RENDER_OPTS_INIT;
	char *text = NULL, *html, *svg;
	size_t len = 0, nframes = 0;
	FILE *in = open_memstream(&text, &len);
	int rc;

	(void)state;
	assert_non_null(in);
	for (unsigned i = 0; i < 3000; i++)
		fprintf(in, "main;mod_%u::run;mod_%u::step;fn_%u 1\n", i % 7, i % 31, i);
	fclose(in);
	html = render(text, len, &o, false, &rc);
	assert_int_equal(rc, 0);
	svg = render(text, len, &o, true, &rc);
	assert_int_equal(rc, 0);
	assert_true(strlen(html) < strlen(svg) / 4);
	{
		fg_folded *f = load(text, len);
		FILE *null = fopen("/dev/null", "w");
		assert_int_equal(fg_render_svg_ex(f, &o, null, &nframes), 0);
		fclose(null);
		fg_folded_free(f);
	}
	/* all, main, 7 run, 7 * 31 step, 3000 leaves */
	assert_int_equal(nframes, 1 + 1 + 7 + 7 * 31 + 3000);
	free(text);
	free(html);
	free(svg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(page_has_its_parts),
		cmocka_unit_test(cold_frames_are_named_apart),
		cmocka_unit_test(names_are_escaped),
		cmocka_unit_test(differential_nodes_carry_the_change),
		cmocka_unit_test(narrow_frames_leave_a_gap),
		cmocka_unit_test(empty_input_fails_as_the_svg_does),
		cmocka_unit_test(bad_options_are_refused),
		cmocka_unit_test(smaller_than_the_svg),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
