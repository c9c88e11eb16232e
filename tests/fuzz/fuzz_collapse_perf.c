/* Fuzz target: the `perf script` collapser, single-threaded, input fed
 * whole and in random pieces (partial lines carried between calls). */
#include "fuzz_collapse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_collapse_both(FG_FORMAT_PERF, 1, data, size);
	return 0;
}
