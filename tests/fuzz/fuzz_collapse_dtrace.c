/* Fuzz target: the DTrace stack collapser, input fed whole and in random
 * pieces; one thread, or two for a quarter of the inputs. */
#include "fuzz_collapse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_collapse_both(FG_FORMAT_DTRACE, (fg_hash_bytes(data, size) & 3) ? 1 : 2, data, size);
	return 0;
}
