/* Fuzz target: the off-CPU filter (fg_offcpu). The input is perf script
 * text of a scheduler recording, fed in chunks whose sizes come from the
 * input's hash, in off-CPU or hot/cold mode (also from the hash), into a
 * perf collapser. The collapser never keeps more events than the filter
 * passed on (waits and on-CPU samples); it may keep fewer, as it drops
 * lines past its limits. */
#include "flamegraph/collapse.h"
#include "flamegraph/error.h"
#include "fuzz_common.h"

static int fz_to_collapser(void *ctx, const char *buf, size_t len)
{
	return fg_collapser_feed(ctx, buf, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_rng rng = fz_rng_of(data, size);
	fg_collapse_opts co = FG_COLLAPSE_OPTS_INIT;
	fg_collapser *c = NULL;
	fg_offcpu *o = NULL;
	fg_offcpu_stats st;
	fg_collapse_stats cs;
	bool hot_cold = fz_next(&rng) & 1;
	size_t off = 0;
	int err = 0;

	co.nthreads = 1;
	if (fg_collapser_new(&c, FG_FORMAT_PERF, &co))
		return 0;
	if (fg_offcpu_new(&o, hot_cold, 1 + fz_next(&rng) % 2000, fz_to_collapser, c))
		goto done;
	while (off < size && !err) {
		size_t n = 1 + fz_next(&rng) % 512;
		if (n > size - off)
			n = size - off;
		err = fg_offcpu_feed(o, (const char *)data + off, n);
		off += n;
	}
	if (!err)
		err = fg_offcpu_finish(o);
	if (err) /* the collapser's own errors pass through */
		goto done;
	if (fg_collapser_finish(c))
		goto done;
	fg_offcpu_filter_stats(o, &st);
	fg_collapser_stats(c, &cs);
	if (cs.samples > st.waits + st.on_samples)
		fz_fail("the collapser kept more events than the filter passed on");
	if (!hot_cold && st.on_samples)
		fz_fail("on-CPU samples passed on in off-CPU mode");
done:
	fg_offcpu_free(o);
	fg_collapser_free(c);
	fg_error_clear();
	return 0;
}
