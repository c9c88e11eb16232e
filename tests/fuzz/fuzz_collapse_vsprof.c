/* Fuzz target: the vsprof collapser, input fed whole and in random pieces
 * (it reads in order, one thread, whatever the thread count asked for). */
#include "fuzz_collapse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_collapse_both(FG_FORMAT_VSPROF, 2, data, size);
	return 0;
}
