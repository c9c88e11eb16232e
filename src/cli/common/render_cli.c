#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common/diag.h"
#include "cli/common/render_cli.h"
#include "flamegraph/error.h"
#include "util/banned.h"

/* "N" or "N%", N a finite number from 0; *percent says which. */
static int parse_width(const char *arg, double *out, bool *percent)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	*percent = *end == '%';
	if (*percent)
		end++;
	return errno || end == arg || *end || !isfinite(*out) || *out < 0 ? -1 : 0;
}

int fg_cli_min_width_cb(const fg_option *opt, const char *arg, void *target)
{
	fg_cli_min_width *mw = target;

	if (parse_width(arg, &mw->value, &mw->percent)) {
		fg_errorf("--%s wants pixels (0.5) or a percentage of the width (0.5%%), not '%s'",
			  opt->long_name, arg);
		return -1;
	}
	mw->given = true;
	return 0;
}

int fg_cli_minwidth_pct_cb(const fg_option *opt, const char *arg, void *target)
{
	fg_cli_min_width *mw = target;

	if (parse_width(arg, &mw->value, &mw->percent)) {
		fg_errorf("--%s wants a percentage of the width (0.5 or 0.5%%), not '%s'",
			  opt->long_name, arg);
		return -1;
	}
	mw->percent = true;
	mw->given = true;
	return 0;
}

void fg_cli_min_width_apply(fg_render_opts *ro, const fg_cli_min_width *mw)
{
	if (!mw->given)
		return;
	ro->min_width = mw->value;
	ro->min_width_percent = mw->percent;
}

void fg_cli_render_aliases_apply(fg_render_opts *ro, const fg_cli_render_aliases *al)
{
	if (al->cp && !ro->palette_map)
		ro->palette_map = "palette.map";
	ro->color_diffusion = al->color_diffusion;
	ro->no_javascript = al->no_javascript;
}
