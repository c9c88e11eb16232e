#ifndef COMMON_H
#define COMMON_H
#include <stdint.h>

/* Mixes n rounds of a 64-bit hash; the shared work of every program. */
uint64_t common_mix(uint64_t seed, unsigned rounds);
/* Parses argv[1] as a positive count, or returns def. */
unsigned common_arg(int argc, char **argv, unsigned def);
/* The hot inner loop, compiled with -fomit-frame-pointer by the Makefile. */
uint64_t hot_inner_loop(uint64_t x, unsigned n);

#endif
