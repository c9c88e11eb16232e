/* Fuzz target: the chunked, multi-threaded `perf script` collapser.
 *
 * Threads take whole chunks, and a chunk is only cut once 4 MB are
 * buffered, so a small input alone never crosses a chunk boundary. One
 * input in 16 is therefore repeated (raw, so the copies join mid-line when
 * the input has no final newline) until it spans two chunks; the cut
 * points then fall inside the fuzzed text. Either way the output with 1
 * thread and with 2 or 3 threads fed in random pieces must be identical. */
#include "fuzz_collapse.h"

#define FZ_CHUNK ((size_t)4 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t h = fg_hash_bytes(data, size);
	unsigned threads = (h & 1) ? 3 : 2;
	uint8_t *big = NULL;
	size_t total, off;

	if (!size || (h >> 4) % 16 || size > FZ_CHUNK) {
		fz_collapse_both(FG_FORMAT_PERF, threads, data, size);
		return 0;
	}
	/* just past two chunks: both the cut and the carried-over rest run */
	total = 2 * FZ_CHUNK + size;
	total -= total % size;
	if (!(big = malloc(total)))
		return 0;
	for (off = 0; off < total; off += size)
		memcpy(big + off, data, size);
	fz_collapse_both(FG_FORMAT_PERF, threads, big, total);
	free(big);
	return 0;
}
