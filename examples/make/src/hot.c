#include "common.h"

uint64_t hot_inner_loop(uint64_t x, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		x = (x << 7 | x >> 57) * 0x2545f4914f6cdd1dull + i;
	return x;
}
