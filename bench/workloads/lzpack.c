/* lzpack: a compressor-style workload for the capture benchmark. It packs
 * generated text with a small LZ77 (a hash table of 4-byte sequences,
 * greedy matches, literal runs), unpacks it and checks the round trip,
 * again and again for the given number of seconds — the shape of a
 * compressor benchmark such as `lz4 -b1`: one busy thread, tight loops,
 * deep enough stacks.
 *
 * Usage: lzpack [SECONDS]   (default 7) */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define BLOCK (256 * 1024)
#define CORPUS_BLOCKS 32
#define HASH_BITS 14
#define MIN_MATCH 4

static const char *const words[] = {
	"the", "of", "and", "stack", "frame", "sample", "profile", "compress", "buffer",
	"kernel", "thread", "function", "record", "graph", "flame", "pointer", "dwarf",
	"unwind", "symbol", "inline", "perf", "event", "cycle", "cache", "branch",
};

static uint32_t rng = 2463534242u;

static uint32_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* Text with a skewed word distribution and numbers: compressible, but
 * not trivially. */
static NOINLINE void make_corpus(unsigned char *out, size_t len)
{
	size_t n = 0;

	while (n < len) {
		uint32_t r = next_random();
		const char *w = words[(r % 7) * (r % 4) % (sizeof(words) / sizeof(*words))];
		char tmp[32];
		int k = (r & 31) == 0 ? snprintf(tmp, sizeof(tmp), "%u ", r >> 20) : snprintf(tmp, sizeof(tmp), "%s ", w);
		for (int i = 0; i < k && n < len; i++)
			out[n++] = (unsigned char)tmp[i];
	}
}

static inline uint32_t read32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static NOINLINE uint32_t hash4(const unsigned char *p)
{
	return (read32(p) * 2654435761u) >> (32 - HASH_BITS);
}

static NOINLINE size_t match_length(const unsigned char *a, const unsigned char *b,
				    const unsigned char *end)
{
	const unsigned char *start = b;

	while (b < end && *a == *b)
		a++, b++;
	return (size_t)(b - start);
}

/* A variable-length count: 7 bits per byte. */
static unsigned char *put_count(unsigned char *out, size_t v)
{
	while (v >= 0x80) {
		*out++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*out++ = (unsigned char)v;
	return out;
}

static const unsigned char *get_count(const unsigned char *in, size_t *v)
{
	unsigned shift = 0;

	*v = 0;
	do {
		*v |= (size_t)(*in & 0x7f) << shift;
		shift += 7;
	} while (*in++ & 0x80);
	return in;
}

static NOINLINE unsigned char *emit_sequence(unsigned char *out, const unsigned char *lit,
					     size_t nlit, size_t offset, size_t len)
{
	out = put_count(out, nlit);
	memcpy(out, lit, nlit);
	out += nlit;
	out = put_count(out, offset);
	return put_count(out, len);
}

/* Packs in[0, len) into out (big enough: len + len / 64 + 16); returns the
 * packed size. Each sequence is: literal count, literals, match offset,
 * match length (offset 0 ends the block). */
static NOINLINE size_t compress_block(const unsigned char *in, size_t len, unsigned char *out)
{
	static uint32_t table[1u << HASH_BITS];
	const unsigned char *p = in, *lit = in, *end = in + len, *limit = end - MIN_MATCH;
	unsigned char *o = out;

	memset(table, 0, sizeof(table));
	while (p < limit) {
		uint32_t h = hash4(p);
		const unsigned char *cand = in + table[h];
		table[h] = (uint32_t)(p - in);
		if (cand < p && p - cand < (1 << 16) && read32(cand) == read32(p)) {
			size_t m = match_length(cand, p, end);
			o = emit_sequence(o, lit, (size_t)(p - lit), (size_t)(p - cand), m);
			p += m;
			lit = p;
		} else {
			p++;
		}
	}
	return (size_t)(emit_sequence(o, lit, (size_t)(end - lit), 0, 0) - out);
}

static NOINLINE size_t decompress_block(const unsigned char *in, unsigned char *out)
{
	unsigned char *o = out;

	for (;;) {
		size_t nlit, offset, len;
		in = get_count(in, &nlit);
		memcpy(o, in, nlit);
		in += nlit;
		o += nlit;
		in = get_count(in, &offset);
		in = get_count(in, &len);
		if (!offset)
			break;
		/* byte by byte: a match may overlap what it copies */
		for (size_t i = 0; i < len; i++, o++)
			*o = o[-(ptrdiff_t)offset];
	}
	return (size_t)(o - out);
}

static NOINLINE uint64_t checksum(const unsigned char *p, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double run = argc > 1 ? atof(argv[1]) : 7.0, start = seconds();
	size_t total_in = 0, total_out = 0;
	unsigned char *corpus = malloc(CORPUS_BLOCKS * BLOCK), *packed = malloc(BLOCK + BLOCK / 64 + 16), *back = malloc(BLOCK);
	unsigned rounds = 0;

	if (!corpus || !packed || !back || run <= 0)
		return 2;
	make_corpus(corpus, CORPUS_BLOCKS * BLOCK);
	do {
		const unsigned char *src = corpus + (rounds % CORPUS_BLOCKS) * BLOCK;
		size_t n = compress_block(src, BLOCK, packed);
		if (decompress_block(packed, back) != BLOCK || checksum(back, BLOCK) != checksum(src, BLOCK)) {
			fprintf(stderr, "lzpack: round trip failed in round %u\n", rounds);
			return 1;
		}
		total_in += BLOCK;
		total_out += n;
		rounds++;
	} while (seconds() - start < run);
	printf("lzpack: %u rounds, %zu MB in, ratio %.2f, %.1f MB/s\n", rounds, total_in >> 20,
	       (double)total_in / (double)total_out, (double)total_in / 1e6 / (seconds() - start));
	free(corpus);
	free(packed);
	free(back);
	return 0;
}
