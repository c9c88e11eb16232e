#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/common/diag.h"
#include "cli/common/perfdata_cli.h"
#include "flamegraph/error.h"
#include "flamegraph/perfdata.h"
#include "flamegraph/record.h"
#include "util/strbuf.h"

bool fg_cli_is_perfdata(const char *path)
{
	char magic[8];
	int fd;
	bool yes;

	if (!strcmp(path, "-") || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	yes = read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
	      fg_perfdata_magic(magic, sizeof(magic));
	close(fd);
	return yes;
}

static int feed(void *ctx, const char *buf, size_t len)
{
	return fg_collapser_feed(ctx, buf, len);
}

static void on_perf_line(void *ctx, fg_record_event ev, const char *line, double elapsed,
			 uint64_t bytes)
{
	(void)ctx;
	(void)elapsed;
	(void)bytes;
	if (ev == FG_RECORD_WARNING && line)
		fg_warnf("perf script: %s", line);
}

static int through_perf_script(fg_collapser *c, const char *path, bool inline_frames)
{
	fg_record_opts rec = FG_RECORD_OPTS_INIT;

	rec.tool = getenv("PERF");
	return fg_record_script_stream(&rec, path, !inline_frames, feed, c, on_perf_line, NULL);
}

const char *fg_cli_buildid_dir(void)
{
	static char dir[4096];
	const char *home = getenv("HOME");
	int n;

	if (!home || !*home)
		return NULL;
	n = snprintf(dir, sizeof(dir), "%s/.debug", home);
	return n > 0 && (size_t)n < sizeof(dir) ? dir : NULL;
}

const char *fg_cli_debug_cache_dir(void)
{
	static char dir[4096];
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && *xdg == '/')
		n = snprintf(dir, sizeof(dir), "%s/flamegraph-build/debug", xdg);
	else if (home && *home)
		n = snprintf(dir, sizeof(dir), "%s/.cache/flamegraph-build/debug", home);
	else
		return NULL;
	return n > 0 && (size_t)n < sizeof(dir) ? dir : NULL;
}

int fg_cli_collapse_perfdata(fg_collapser *c, const char *path, bool inline_frames,
			     bool force_script, bool quiet)
{
	fg_perfdata_opts opts = FG_PERFDATA_OPTS_INIT;
	fg_perfdata *r = NULL;
	const char *why;
	int err;

	if (force_script)
		return through_perf_script(c, path, inline_frames);
	opts.inline_frames = inline_frames;
	opts.buildid_dir = fg_cli_buildid_dir();
	opts.cache_dir = fg_cli_debug_cache_dir();
	if ((err = fg_perfdata_open(&r, path, &opts)))
		goto done;
	if ((why = fg_perfdata_unsupported(r))) {
		if (!quiet)
			fg_notef("%s holds %s, which the native reader does not read yet: using perf "
				 "script", path, why);
		fg_perfdata_free(r);
		r = NULL;
		err = through_perf_script(c, path, inline_frames);
		goto done;
	}
	err = fg_perfdata_collapse(r, c);
done:
	fg_perfdata_free(r);
	return err;
}
