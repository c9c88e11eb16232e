/* perf.data samples into the collapser, handed over as data
 * (fg_collapser_add_sample): the collapser folds each exactly as the text
 * `perf script -F +pid` prints for it (with opts.lines, `-F +srcline`),
 * so every rule of the collapser (the process frame, --pid/--tid, _[k]
 * marks, [unknown] frames named after their module, --addrs, event
 * filtering, --skip-after, cleaning of names) applies as to perf
 * script's text, without the text being made or parsed. */
#include <stdlib.h>

#include "flamegraph/error.h"
#include "lib/perfdata/internal.h"
#include "util/banned.h"

/* how often progress hears of the samples: often enough for a status
 * line and for an interrupt to be heard */
#define PROGRESS_EVERY 512

struct sink {
	fg_collapser *c;
	uint64_t samples;
	fg_perfdata_progress_cb progress;
	void *progress_ctx;
};

static int on_sample(void *ctx, const fg_perfdata_sample *s)
{
	struct sink *k = ctx;
	int err;

	if ((err = fg_collapser_add_sample(k->c, s)))
		return err;
	if (++k->samples % PROGRESS_EVERY == 0 && k->progress &&
	    (err = k->progress(k->progress_ctx, k->samples)))
		return err;
	return 0;
}

int fg_perfdata_collapse(fg_perfdata *r, fg_collapser *c)
{
	return fg_perfdata_collapse_progress(r, c, NULL, NULL);
}

int fg_perfdata_collapse_progress(fg_perfdata *r, fg_collapser *c, fg_perfdata_progress_cb progress,
				  void *ctx)
{
	struct sink k = { c, 0, progress, ctx };

	return fg_perfdata_foreach(r, on_sample, &k);
}
