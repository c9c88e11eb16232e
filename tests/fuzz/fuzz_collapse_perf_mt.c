/* Fuzz target: the chunked, multi-threaded `perf script` collapser.
 *
 * Threads take whole chunks, and a chunk is only cut once 4 MB are
 * buffered (4 KB in the fuzzing build), so a small input alone never
 * crosses a chunk boundary in the replay build. An
 * input that starts with the line "# repeat" is therefore repeated (raw,
 * so the copies join mid-line when the input has no final newline) until
 * it spans more than one chunk; the cut then falls inside the fuzzed text.
 * A marker rather than a random choice: such runs cost ~100 ordinary
 * ones, so the fuzzer should only make them for inputs that keep it (the
 * committed seed corpus/collapse_perf_mt/repeat-*.txt and its mutations).
 * Either way the output with 1 thread and with 2 or 3 threads fed in
 * random pieces must be identical. */
#include "fuzz_collapse.h"

/* the library's block size: 4 MB, or the fuzzing build's small blocks */
#ifdef FG_COLLAPSE_CHUNK_SIZE
#define FZ_CHUNK ((size_t)FG_COLLAPSE_CHUNK_SIZE)
#else
#define FZ_CHUNK ((size_t)4 << 20)
#endif
#define FZ_MARK "# repeat\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t h = fg_hash_bytes(data, size);
	unsigned threads = (h & 1) ? 3 : 2;
	uint8_t *big = NULL;
	size_t total, off;

	if (size < sizeof(FZ_MARK) - 1 || memcmp(data, FZ_MARK, sizeof(FZ_MARK) - 1) ||
	    size > FZ_CHUNK) {
		fz_collapse_both(FG_FORMAT_PERF, threads, data, size);
		return 0;
	}
	/* just past one chunk: both the cut and the carried-over rest run */
	total = FZ_CHUNK + size;
	total -= total % size;
	if (!(big = malloc(total)))
		return 0;
	for (off = 0; off < total; off += size)
		memcpy(big + off, data, size);
	fz_collapse_both(FG_FORMAT_PERF, threads, big, total);
	free(big);
	return 0;
}
