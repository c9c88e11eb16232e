/* Shared pieces of the fuzz targets (tests/fuzz/fuzz_*.c).
 *
 * Each target is one file defining LLVMFuzzerTestOneInput. It is linked
 * either with libFuzzer (clang, -DFG_FUZZ=ON) or with replay_main.c (any
 * compiler), which runs it over corpus folders as a CTest test.
 *
 * Options that change how an input is parsed (--pid, --inverted, chunk
 * sizes, ...) are derived from a hash of the input itself rather than from
 * leading "control" bytes: the seed corpora stay plain profiler text,
 * every reproducer stays a single self-describing file, and the fuzzer
 * still reaches every option through its mutations. */
#ifndef FG_TESTS_FUZZ_FUZZ_COMMON_H
#define FG_TESTS_FUZZ_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A small deterministic generator (splitmix64) seeded from the input. */
typedef struct fz_rng {
	uint64_t s;
} fz_rng;

static inline fz_rng fz_rng_of(const uint8_t *data, size_t size)
{
	fz_rng r = { fg_hash_bytes(data, size) ^ 0x9e3779b97f4a7c15ull };
	return r;
}

static inline uint64_t fz_next(fz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A random size in [1, max]: mostly small pieces, so that lines and
 * multi-byte characters get cut everywhere, sometimes large ones. */
static inline size_t fz_piece(fz_rng *r, size_t max)
{
	uint64_t v = fz_next(r);
	size_t n = (v & 3) == 0 ? (size_t)(v >> 8) % 4096 + 1 : (size_t)(v >> 8) % 17 + 1;
	return n > max ? max : n;
}

/* Stops the run loudly: libFuzzer saves the input as a crash, the replay
 * driver's test fails. Used when two ways of computing one result differ. */
static inline void fz_fail(const char *what)
{
	fprintf(stderr, "fuzz invariant broken: %s\n", what);
	abort();
}

/* A sink that discards output: rendering into /dev/null still runs every
 * formatting path, without the cost of growing a memory buffer. */
static inline FILE *fz_devnull(void)
{
	static FILE *f;

	if (!f && !(f = fopen("/dev/null", "w")))
		fz_fail("cannot open /dev/null");
	return f;
}

#endif
