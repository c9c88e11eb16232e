/* Unit tests of the SVG writer's number formatting: fg_svgout_fixed
 * rounds half away from zero at the asked decimals, as llround of the
 * scaled value does, never prints "-0", and keeps huge values valid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "lib/render/svgout.h"

/* One writer and its memory stream for every call: the writer's buffer
 * is large, and allocating it per call would make the sweep slow under
 * the sanitizers. */
static fg_svgout o;
static char *stream_text;
static size_t stream_size;

/* What fg_svgout wrote for one call of put(o, v, decimals). */
static char *written(double v, int decimals, bool grouped)
{
	size_t before;

	if (!o.out)
		assert_non_null(o.out = open_memstream(&stream_text, &stream_size));
	assert_int_equal(fflush(o.out), 0);
	before = stream_size;
	if (grouped)
		fg_svgout_wrote(&o, fg_put_grouped(fg_svgout_room(&o, FG_PUT_NUMBER_MAX), (uint64_t)v));
	else
		fg_svgout_fixed(&o, v, decimals);
	fg_svgout_flush(&o);
	assert_int_equal(o.err, 0);
	assert_int_equal(fflush(o.out), 0);
	return strndup(stream_text + before, stream_size - before);
}

static int close_writer(void **state)
{
	(void)state;
	if (o.out && fclose(o.out))
		return -1;
	free(stream_text);
	fg_strbuf_release(&o.buf);
	memset(&o, 0, sizeof(o));
	return 0;
}

/* The same number the plain way: llround of the scaled value, printed
 * with printf, the point put in. */
static void expected(double v, int decimals, char *out, size_t size)
{
	static const double scale[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	long long n = llround(fabs(v) * scale[decimals]);
	char digits[64];
	int len = snprintf(digits, sizeof(digits), "%0*lld", decimals + 1, n);

	if (!decimals)
		snprintf(out, size, "%s%s", v < 0 && n ? "-" : "", digits);
	else
		snprintf(out, size, "%s%.*s.%s", v < 0 && n ? "-" : "", len - decimals, digits,
			 digits + len - decimals);
}

static void fixed_matches_llround(void **state)
{
	static const double edges[] = { 0, -0.0, 0.5, 1.5, 2.5, -0.5, 0.005, 0.015, 0.0049999,
					99.99995, 100, 0.125, 1e-9, -1e-9, 123456789.987654,
					0.49999999999999994, 4503599627370495.5 / 1e6, 1e12 };
	uint64_t x = 0x853c49e6748fea9bull;
	char want[128];
	int d;

	(void)state;
	for (d = 0; d <= 6; d++) {
		for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
			char *got = written(edges[i], d, false);
			expected(edges[i], d, want, sizeof(want));
			assert_string_equal(got, want);
			free(got);
		}
		for (int i = 0; i < 20000; i++) {
			double v;
			char *got;

			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			/* from tiny to a million, and values on a half of the last digit */
			v = (double)(x >> 11) / 9007199254740992.0 * pow(10, (double)(x % 13) - 6);
			if (x & 1)
				v = (floor(v * pow(10, d)) + 0.5) / pow(10, d);
			if (x & 2)
				v = -v;
			got = written(v, d, false);
			expected(v, d, want, sizeof(want));
			assert_string_equal(got, want);
			free(got);
		}
	}
}

static void huge_values_stay_valid(void **state)
{
	char *got;

	(void)state;
	got = written(1e300, 2, false);
	assert_int_equal(strspn(got, "0123456789"), strlen(got) - 3);
	assert_string_equal(got + strlen(got) - 3, ".00");
	free(got);
	got = written(NAN, 1, false);
	assert_string_equal(got, "0.0");
	free(got);
	got = written(1234567.0, 0, true);
	assert_string_equal(got, "1,234,567");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fixed_matches_llround),
		cmocka_unit_test(huge_values_stay_valid),
	};

	return cmocka_run_group_tests(tests, NULL, close_writer);
}
