/* geometry [ROUNDS]: distances between pseudo-random points (sqrt from libm). */
#include <math.h>
#include <stdio.h>

#include "common.h"

static __attribute__((noinline)) double path_length(unsigned points, uint64_t seed)
{
	double total = 0, x = 0, y = 0;
	for (unsigned i = 0; i < points; i++) {
		seed = common_mix(seed, 2);
		double nx = (double)(seed & 0xffff), ny = (double)(seed >> 48);
		total += sqrt((nx - x) * (nx - x) + (ny - y) * (ny - y));
		x = nx;
		y = ny;
	}
	return total;
}

int main(int argc, char **argv)
{
	unsigned rounds = common_arg(argc, argv, 60);
	double total = 0;

	for (unsigned r = 0; r < rounds; r++)
		total += path_length(400000, r + 1);
	printf("geometry: %u rounds, total length %.0f\n", rounds, total);
	return 0;
}
