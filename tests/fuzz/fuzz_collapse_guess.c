/* Fuzz target: the format guesser, on the whole input and on every
 * prefix length the collapser may try, then a collapser that must guess
 * (FG_FORMAT_UNKNOWN) fed in pieces vs. in one go. */
#include "fuzz_collapse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fg_format whole = fg_guess_format((const char *)data, size);
	size_t n;

	if (whole != FG_FORMAT_UNKNOWN && whole != FG_FORMAT_PERF && whole != FG_FORMAT_DTRACE &&
	    whole != FG_FORMAT_RECURSIVE && whole != FG_FORMAT_SAMPLE && whole != FG_FORMAT_VTUNE &&
	    whole != FG_FORMAT_VSPROF && whole != FG_FORMAT_GHCPROF && whole != FG_FORMAT_XCTRACE)
		fz_fail("the guesser returned an unknown format value");
	/* prefixes ending at each line end, as the collapser guesses on
	 * complete lines; bounded so that long inputs stay fast */
	for (n = 0; n < size && n < 8192; n++)
		if (data[n] == '\n')
			(void)fg_guess_format((const char *)data, n + 1);
	fz_collapse_both(FG_FORMAT_UNKNOWN, 1, data, size);
	return 0;
}
