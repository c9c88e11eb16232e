/* bench-hybrid: how small a stack copy whole stacks need, with the
 * kernel's frame-pointer chain beside it.
 *
 *   bench-hybrid [--all-regs] [--whole FIRST,EVERY] [--no-grow] [--min PERCENT] PERF.DATA
 *                [BYTES...]
 *
 * PERF.DATA is a dwarf recording (perf record --call-graph dwarf,65528).
 * Each of its samples is emulated as the sample a recorder of frame-
 * pointer chains with small copies would have taken (src/lib/perfdata/
 * hybrid.h): its chain walked from the sampled rbp through the copy, the
 * copy cut to BYTES (default 512 1024 2048 4096), only rbp, rsp and rip
 * kept of its registers (all of them with --all-regs). The stacks made
 * from those are compared with those unwound from the whole copy. For
 * each size it prints the share of the samples' weight whose stacks were
 * the same, the bytes a sample takes, and the reader's counters. With
 * --whole, the native recorder's second event is emulated too: a sample
 * with a 32 KB copy after each thread's sample number FIRST and then
 * every EVERY samples, which teaches the outermost frames (counted in
 * the bytes; not compared). The copy grows as the recorder's does
 * (PD_GROW_*), unless --no-grow. With
 * --min, it exits 1 when the share of the first size is below PERCENT
 * (tests). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "flamegraph/perfdata.h"
#include "lib/perfdata/hybrid.h"

static int ignore(void *ctx, const fg_perfdata_sample *s)
{
	(void)ctx, (void)s;
	return 0;
}

static int usage(void)
{
	fputs("usage: bench-hybrid [--all-regs] [--whole FIRST,EVERY] [--no-grow] [--min PERCENT] "
	      "PERF.DATA [BYTES...]\n", stderr);
	return 2;
}

static void print(const pd_check *c)
{
	size_t i;

	printf("dwarf 64K: %.0f bytes/sample, %llu samples whose 64K copy was too small\n",
	       c->sizes[0].samples ? (double)c->dwarf_bytes / (double)c->sizes[0].samples : 0.0,
	       (unsigned long long)c->dwarf_cut);
	printf("%8s %9s %10s %8s %8s %8s %8s %8s %8s %9s\n", "copy", "equal%", "bytes/smp",
	       "samples", "whole", "joined", "complete", "cut", "outer", "need-max");
	for (i = 0; i < c->nsizes; i++) {
		const pd_check_size *z = &c->sizes[i];
		const pd_hybrid_stats *h = &z->h.stats;
		printf("%8llu %9.2f %10.0f %8llu %8llu %8llu %8llu %8llu %8llu %9llu\n",
		       (unsigned long long)z->bytes,
		       z->weight ? 100.0 * (double)z->equal / (double)z->weight : 0.0,
		       z->samples ? (double)z->record_bytes / (double)z->samples : 0.0,
		       (unsigned long long)z->samples, (unsigned long long)h->whole,
		       (unsigned long long)h->joined, (unsigned long long)h->completed,
		       (unsigned long long)h->cut,
		       (unsigned long long)h->outer, (unsigned long long)h->needed_max);
	}
}

int main(int argc, char **argv)
{
	static const uint64_t defaults[] = { 512, 1024, 1536, 2048, 4096 };
	pd_check check;
	fg_perfdata *r = NULL;
	double min = -1;
	int i = 1, err, rc = 1;

	memset(&check, 0, sizeof(check));
	check.regs = FG_HYBRID_REGS_USER;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--all-regs"))
			check.regs = UINT64_MAX;
		else if (!strcmp(argv[i], "--whole") && i + 1 < argc &&
			 sscanf(argv[++i], "%u,%u", &check.whole_first, &check.whole_every) == 2 &&
			 check.whole_every)
			check.whole_bytes = 32768;
		else if (!strcmp(argv[i], "--no-grow"))
			check.no_grow = true;
		else if (!strcmp(argv[i], "--min") && i + 1 < argc)
			min = strtod(argv[++i], NULL);
		else
			return usage();
	}
	if (i >= argc)
		return usage();
	if ((err = fg_perfdata_open(&r, argv[i++], NULL))) {
		fprintf(stderr, "bench-hybrid: %s\n", fg_error_last());
		return 1;
	}
	for (; i < argc && check.nsizes < PD_CHECK_SIZES; i++)
		check.sizes[check.nsizes++].bytes = strtoull(argv[i], NULL, 10);
	for (size_t k = 0; !check.nsizes && k < 5; k++)
		check.sizes[k].bytes = defaults[k];
	if (!check.nsizes)
		check.nsizes = 5;
	pd_check_attach(r, &check);
	if ((err = fg_perfdata_foreach(r, ignore, NULL))) {
		fprintf(stderr, "bench-hybrid: %s\n", fg_error_last());
		goto done;
	}
	print(&check);
	rc = 0;
	if (min >= 0 && check.sizes[0].weight &&
	    100.0 * (double)check.sizes[0].equal / (double)check.sizes[0].weight < min)
		rc = 1;
done:
	fg_perfdata_free(r);
	pd_check_release(&check);
	return rc;
}
