/* "Did you mean": edit distances and the choice of a suggestion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/suggest.h"

static void distances(void **state)
{
	(void)state;
	assert_int_equal(fg_edit_distance("", ""), 0);
	assert_int_equal(fg_edit_distance("bin", "bin"), 0);
	assert_int_equal(fg_edit_distance("bins", "bin"), 1);       /* one too many */
	assert_int_equal(fg_edit_distance("stres2", "stress2"), 1); /* one missing */
	assert_int_equal(fg_edit_distance("crunsh", "crunch"), 1);  /* one wrong */
	assert_int_equal(fg_edit_distance("cruhcn", "crunch"), 2);
	assert_int_equal(fg_edit_distance("plaette", "palette"), 1); /* neighbours swapped */
	assert_int_equal(fg_edit_distance("ENABLE_X", "enable_x"), 0); /* case ignored */
	assert_int_equal(fg_edit_distance("abc", ""), 3);
	assert_int_equal(fg_edit_distance("kitten", "sitting"), 3);
}

static void suggestions(void **state)
{
	static const char *const targets[] = { "crunch", "textstat", "stress2", "unit_tests", "parse_number" };
	static const char *const options[] = { "bin", "bench", "features", "max-size", "palette" };

	(void)state;
	assert_string_equal(fg_suggest("stres2", targets, 5), "stress2");
	assert_string_equal(fg_suggest("crunsh", targets, 5), "crunch");
	assert_string_equal(fg_suggest("textstats", targets, 5), "textstat");
	assert_string_equal(fg_suggest("bins", options, 5), "bin");
	assert_string_equal(fg_suggest("feature", options, 5), "features");
	assert_string_equal(fg_suggest("max-sise", options, 5), "max-size");
	/* a word too many or too few */
	assert_string_equal(fg_suggest("parse_number_twice", targets, 5), "parse_number");
	assert_string_equal(fg_suggest("unit", targets, 5), "unit_tests");
	/* nothing near: no guess */
	assert_null(fg_suggest("zzz", targets, 5));
	assert_null(fg_suggest("rounds", options, 5));
	assert_null(fg_suggest("x", targets, 0));
	/* ties go to the first */
	static const char *const tie[] = { "ab", "ac" };
	assert_string_equal(fg_suggest("aa", tie, 2), "ab");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(distances),
		cmocka_unit_test(suggestions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
