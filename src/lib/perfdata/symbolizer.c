/* The reader's symbolization for call chains recorded elsewhere
 * (fg_symbolizer, perfdata.h): the same modules, maps and resolution
 * the reader uses for a sample, driven by maps the caller gives. */
#include <stdlib.h>

#include "flamegraph/error.h"
#include "lib/perfdata/internal.h"
#include "util/version.h"
#include "util/banned.h"

struct fg_symbolizer {
	fg_perfdata_opts opts;
	pd_symbols syms;
	pd_machine machine;
	fg_perfdata_frame unknown;
};

FG_OPTS_INIT_FUNCTION(fg_perfdata_opts, FG_PERFDATA_OPTS_VERSION, FG_PERFDATA_OPTS_INIT)

int fg_symbolizer_new(fg_symbolizer **out, const fg_perfdata_opts *opts)
{
	fg_perfdata_opts defaults = FG_PERFDATA_OPTS_INIT;
	fg_symbolizer *s;

	*out = NULL;
	if (opts &&
	    fg_opts_version_check("fg_perfdata_opts", opts->version, FG_PERFDATA_OPTS_VERSION))
		return FG_EINVAL;
	if (!(s = fg_calloc(1, sizeof(*s))))
		return FG_ENOMEM;
	s->opts = opts ? *opts : defaults;
	pd_symbols_init(&s->syms, &s->opts);
	pd_machine_init(&s->machine);
	*out = s;
	return 0;
}

int fg_symbolizer_add_map(fg_symbolizer *s, int32_t space, uint64_t start, uint64_t end,
                          uint64_t pgoff, const char *path)
{
	pd_module *mod;

	if (end <= start)
		return 0;
	if (!(mod = pd_symbols_module(&s->syms, path)))
		return FG_ENOMEM;
	/* kernel names have no place in a process' own maps */
	if (mod->kernel)
		return 0;
	return pd_machine_mmap(&s->machine, space, start, end - start, pgoff, mod);
}

int fg_symbolizer_resolve(fg_symbolizer *s, int32_t space, uint64_t addr,
                          const fg_perfdata_frame **frames, size_t *n)
{
	const struct pd_map *map = pd_machine_find_map(&s->machine, space, addr);
	fg_perfdata_frame unknown = {.addr = addr};

	if (!map || !map->mod) {
		s->unknown = unknown;
		*frames = &s->unknown;
		*n = 1;
		return 0;
	}
	if (map->mod->anon)
		return pd_symbols_resolve(&s->syms, map->mod, addr, frames, n);
	return pd_symbols_resolve(&s->syms, map->mod, addr - map->start + map->pgoff, frames, n);
}

void fg_symbolizer_free(fg_symbolizer *s)
{
	if (!s)
		return;
	pd_machine_release(&s->machine);
	pd_symbols_release(&s->syms);
	free(s);
}
