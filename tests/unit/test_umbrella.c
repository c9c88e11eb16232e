/* The umbrella header compiles on its own and its stages link together. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "flamegraph/flamegraph.h"

static void every_stage_is_reachable(void **state)
{
	fg_collapser *c = NULL;
	fg_folded *f = NULL;

	assert_int_equal(fg_collapser_new(&c, FG_FORMAT_PERF, NULL), 0);
	assert_int_equal(fg_folded_new(&f), 0);
	assert_int_equal(fg_guess_format("a;b 1\n", 6), FG_FORMAT_UNKNOWN);
	fg_collapser_free(c);
	fg_folded_free(f);
	assert_int_equal(fg_error_set(FG_EINVAL, "x %d", 1), FG_EINVAL);
	assert_string_equal(fg_error_last(), "x 1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_stage_is_reachable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
