/* Fuzz target: the perf.data reader (flamegraph/perfdata.h) on any bytes:
 * header, attributes, features and records, then the collapser fed with
 * what it reads. Symbol files are those the input names (no kallsyms, no
 * debug folder), opened read-only; nothing blocks on a FIFO or device. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/collapse.h"
#include "flamegraph/error.h"
#include "flamegraph/perfdata.h"

static int check_sample(void *ctx, const fg_perfdata_sample *s)
{
	size_t i;

	(void)ctx;
	if (!s->comm || !s->event || (s->nframes && !s->frames))
		abort();
	for (i = 0; i < s->nframes; i++)
		if (s->frames[i].inlined && !s->frames[i].sym)
			abort();
	return 0;
}

/* errors of malformed input say where: "NAME: offset N: ..." */
static void check_error(int err)
{
	if (err == FG_EPARSE && !strstr(fg_error_last(), "fuzz.data: offset "))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fg_perfdata_opts o = FG_PERFDATA_OPTS_INIT;
	fg_collapse_opts co = FG_COLLAPSE_OPTS_INIT;
	fg_perfdata *r = NULL;
	fg_collapser *c = NULL;
	int err;

	o.kallsyms = "/nonexistent/kallsyms";
	o.debug_dir = "/nonexistent/debug";
	co.nthreads = 1;
	err = fg_perfdata_open_mem(&r, "fuzz.data", data, size, &o);
	check_error(err);
	if (!err && !fg_perfdata_unsupported(r)) {
		check_error(fg_perfdata_foreach(r, check_sample, NULL));
		fg_perfdata_free(r);
		r = NULL;
		/* again, into the collapser */
		if (!fg_perfdata_open_mem(&r, "fuzz.data", data, size, &o) &&
		    !fg_collapser_new(&c, FG_FORMAT_PERF, &co)) {
			check_error(fg_perfdata_collapse(r, c));
			fg_collapser_finish(c);
		}
	}
	fg_collapser_free(c);
	fg_perfdata_free(r);
	return 0;
}
