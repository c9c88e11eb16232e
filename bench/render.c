/* bench-render: throughput of the render stage (folded text -> SVG).
 *
 *   bench-render FOLDED [COPIES]
 *
 * Reads FOLDED into memory and builds a ~COPIES x larger input twice: the
 * copies as they are (stacks merge into the same few) and with a distinct
 * root per copy (COPIES times more distinct stacks). Each input is parsed
 * in 1 MiB chunks, as from a file, and rendered to a temporary file; the best of
 * five runs is reported in MB/s of folded input. Then a synthetic profile
 * with 100k distinct frames gives the render time and SVG size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "flamegraph/error.h"
#include "flamegraph/render.h"
#include "util/input.h"
#include "util/strbuf.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run(const char *buf, size_t len, double min_width, double *parse_s,
	       double *render_s, long *svg_bytes)
{
	fg_render_opts ro = FG_RENDER_OPTS_INIT;
	fg_folded *f = NULL;
	FILE *out = tmpfile(); /* a real file: its size is the SVG size */
	const size_t chunk = 1 << 20;
	size_t off;
	double t0, t1;
	int err;

	if (!out)
		return FG_EIO;
	ro.hash = true;
	ro.min_width = min_width;
	t0 = now();
	if ((err = fg_folded_new(&f)))
		goto done;
	for (off = 0; off < len && !err; off += chunk)
		err = fg_folded_feed(f, buf + off, len - off < chunk ? len - off : chunk);
	if (err || (err = fg_folded_finish(f)))
		goto done;
	t1 = now();
	err = fg_render_svg(f, &ro, out);
	*parse_s = t1 - t0;
	*render_s = now() - t1;
	*svg_bytes = ftell(out);
done:
	fg_folded_free(f);
	fclose(out);
	return err;
}

static void report(const char *what, const char *buf, size_t len)
{
	double best = 1e9, bp = 0, br = 0, p, r;
	long svg = 0;
	int i;

	for (i = 0; i < 5; i++) {
		if (run(buf, len, 0.1, &p, &r, &svg)) {
			fprintf(stderr, "bench-render: %s\n", fg_error_last());
			exit(1);
		}
		if (p + r < best) {
			best = p + r;
			bp = p;
			br = r;
		}
	}
	printf("%-34s %7.1f MB in %.3f s = %7.1f MB/s  (parse+merge %.3f s, SVG %.3f s, %ld bytes)\n",
	       what, len / 1e6, best, len / 1e6 / best, bp, br, svg);
}

/* 100k distinct frames: 25k stacks of 4 frames below 10 shared roots. */
static void frames_100k(void)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	double p, r;
	long svg = 0;
	int i;

	for (i = 0; i < 25000; i++)
		fg_strbuf_addf(&sb, "app_main;subsystem_%d;module_%d::handler;worker_%d_loop;leaf_function_%d %d\n",
			       i % 10, i, i, i, 1 + i % 7);
	if (run(sb.buf, sb.len, 0, &p, &r, &svg)) /* draw every frame */ {
		fprintf(stderr, "bench-render: %s\n", fg_error_last());
		exit(1);
	}
	printf("100k distinct frames, all drawn (%.1f MB folded): parse %.3f s, render %.3f s, SVG %.1f MB\n",
	       sb.len / 1e6, p, r, svg / 1e6);
	fg_strbuf_release(&sb);
}

int main(int argc, char **argv)
{
	fg_strbuf same = FG_STRBUF_INIT, distinct = FG_STRBUF_INIT;
	char *data = NULL;
	size_t len, i;
	int copies = argc > 2 ? atoi(argv[2]) : 50;
	struct rusage ru;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-render FOLDED [COPIES]\n");
		return 1;
	}
	if (fg_read_file(argv[1], &data, &len)) {
		fprintf(stderr, "bench-render: %s\n", fg_error_last());
		return 1;
	}
	for (i = 0; i < (size_t)copies; i++) {
		const char *p = data, *e = data + len, *nl;
		fg_strbuf_add(&same, data, len);
		for (; p < e; p = nl + 1) {
			if (!(nl = memchr(p, '\n', (size_t)(e - p))))
				nl = e;
			fg_strbuf_addf(&distinct, "copy%03zu;", i);
			fg_strbuf_add(&distinct, p, (size_t)(nl - p));
			fg_strbuf_addch(&distinct, '\n');
		}
	}
	report("repeated as is", same.buf, same.len);
	report("distinct root per copy", distinct.buf, distinct.len);
	frames_100k();
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS %.1f MB (inputs held in memory included)\n", ru.ru_maxrss / 1024.0);
	fg_strbuf_release(&same);
	fg_strbuf_release(&distinct);
	free(data);
	return 0;
}
