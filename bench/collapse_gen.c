/* bench-collapse_gen: writes a large `perf script` stream to stdout without
 * putting it on disk, for the streaming benchmark of the collapser.
 *
 *   bench-collapse_gen BYTES FILE   FILE's bytes, repeated
 *   bench-collapse_gen BYTES        synthetic events (see fill_synthetic)
 *
 * Writes whole copies of the block (so no event is cut), at least BYTES,
 * and prints to stderr the byte count written and the seconds spent
 * preparing the block (before the first byte: not the reader's time).
 *
 * One block of input is prepared in memory and written again and again, so
 * the generator costs little more than the pipe itself. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK ((size_t)32 << 20)

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	/* xorshift64*: fixed seed, so every run writes the same stream */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Events like a C++ program's: a few threads, 4-40 frames drawn from a
 * pool of 3000 symbols in 12 libraries: about 16 000 distinct stacks per
 * 32 MB block. */
static size_t fill_synthetic(char *buf, size_t cap)
{
	static const char *const mods[] = {
		"/usr/bin/server", "/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", "[kernel.kallsyms]",
		"/usr/lib/x86_64-linux-gnu/libssl.so.3", "/usr/lib/x86_64-linux-gnu/libz.so.1.2.13",
		"/opt/app/lib/libengine.so", "/opt/app/lib/libstorage.so", "/opt/app/lib/libnet.so",
		"/usr/lib/x86_64-linux-gnu/libm.so.6", "/opt/app/lib/libjson.so", "[unknown]",
	};
	size_t len = 0, nmods = sizeof(mods) / sizeof(mods[0]);
	uint64_t t = 1000000;
	int n;

	while (len + 8192 < cap) {
		unsigned tid = 4000 + (unsigned)(rng() % 8), depth = 4 + (unsigned)(rng() % 37), i;
		uint64_t chain = rng() % 5000; /* callers are shared between stacks */
		t += 1 + rng() % 400;
		n = snprintf(buf + len, cap - len, "server %u/%u [%03u] %llu.%06llu: %u cycles:u: \n",
			     4000, tid, tid % 4, (unsigned long long)(t / 1000000),
			     (unsigned long long)(t % 1000000), 250000 + (unsigned)(rng() % 1000));
		len += (size_t)n;
		for (i = 0; i < depth; i++) {
			unsigned sym = i < 3 ? (unsigned)(rng() % 3000) : (unsigned)((chain * 31 + i * 7) % 3000);
			const char *mod = mods[sym % nmods];
			if (mod[0] == '[' && mod[1] == 'u')
				n = snprintf(buf + len, cap - len, "\t    7f%010llx [unknown] ([unknown])\n",
					     (unsigned long long)(rng() % 0xffffffffffULL));
			else
				n = snprintf(buf + len, cap - len,
					     "\t    %12llx ns%u::Class%u::method_%u(int, char const*)+0x%x (%s)\n",
					     (unsigned long long)(0x400000 + sym * 64ULL), sym % 17, sym % 101,
					     sym, (unsigned)(rng() % 512), mod);
			len += (size_t)n;
		}
		buf[len++] = '\n';
	}
	return len;
}

static size_t fill_file(char *buf, size_t cap, const char *path)
{
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		fprintf(stderr, "bench-collapse_gen: cannot open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while (len < cap && (n = read(fd, buf + len, cap - len)) > 0)
		len += (size_t)n;
	if (len == cap) {
		fprintf(stderr, "bench-collapse_gen: %s is larger than %zu bytes\n", path, cap);
		exit(1);
	}
	close(fd);
	return len;
}

int main(int argc, char **argv)
{
	unsigned long long total, copies, written;
	size_t len, off, n;
	ssize_t w;
	char *end, *buf;
	struct timespec t0, t1;

	if (argc < 2 || argc > 3 || !(total = strtoull(argv[1], &end, 10)) || *end) {
		fprintf(stderr, "usage: bench-collapse_gen BYTES [FILE]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!(buf = malloc(BLOCK))) {
		fprintf(stderr, "bench-collapse_gen: out of memory\n");
		return 1;
	}
	len = argc == 3 ? fill_file(buf, BLOCK, argv[2]) : fill_synthetic(buf, BLOCK);
	if (!len)
		return 0;
	signal(SIGPIPE, SIG_DFL);
	/* a bigger pipe means fewer wake-ups of the reader (best effort) */
	fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 1 << 20);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	copies = (total + len - 1) / len;
	total = written = copies * len;
	for (off = 0; total; total -= n, off = (off + n) % len) {
		n = len - off < total ? len - off : (size_t)total;
		w = write(STDOUT_FILENO, buf + off, n);
		if (w < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (w <= 0) {
			fprintf(stderr, "bench-collapse_gen: write: %s\n", strerror(errno));
			return 1;
		}
		n = (size_t)w;
	}
	free(buf);
	fprintf(stderr, "%llu %.3f\n", written,
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
