/* Fuzz target: the allocation recording parser (src/lib/alloc/
 * recording.c) on any bytes. A recording that parses gives totals whose
 * counts agree with its stack lines (no stack more than the input has
 * lines), and is then collapsed in the count view without symbol files
 * (its maps name files that need not exist). */
#include <stdint.h>
#include <stdlib.h>

#include "flamegraph/alloc.h"
#include "flamegraph/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fg_collapse_opts co = FG_COLLAPSE_OPTS_INIT;
	fg_perfdata_opts po = FG_PERFDATA_OPTS_INIT;
	fg_collapser *c = NULL;
	fg_alloc *a = NULL;
	fg_alloc_totals t;
	size_t lines = 0;

	if (fg_alloc_new(&a))
		return 0;
	if (fg_alloc_add_mem(a, "fuzz", (const char *)data, size) == 0) {
		for (size_t i = 0; i < size; i++)
			lines += data[i] == '\n';
		fg_alloc_totals_get(a, &t);
		if (t.processes != 1 || t.stacks > lines)
			abort();
		po.inline_frames = false;
		po.debug_dir = "/nonexistent";
		if (fg_collapser_new(&c, FG_FORMAT_PERF, &co) == 0) {
			if (fg_alloc_collapse(a, FG_ALLOC_COUNT, &po, c) == 0 &&
			    fg_collapser_finish(c) == 0) {
				fg_collapse_stats st;
				fg_collapser_stats(c, &st);
				if (st.samples > t.allocations)
					abort();
			}
			fg_collapser_free(c);
		}
	}
	fg_alloc_free(a);
	fg_error_clear();
	return 0;
}
