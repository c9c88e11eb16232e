#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/common/diag.h"
#include "cli/common/perfdata_cli.h"
#include "flamegraph/error.h"
#include "flamegraph/perfdata.h"
#include "flamegraph/profile.h"
#include "util/input.h"
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

/* The library's notes and perf script's warnings on stderr. */
static void on_event(void *ctx, fg_profile_event kind, const char *msg, double value)
{
	bool quiet = *(const bool *)ctx;

	(void)value;
	if (kind == FG_PROFILE_WARNING)
		fg_warnf("%s", msg);
	else if (kind == FG_PROFILE_NOTE && !quiet)
		fg_notef("%s", msg);
}

/* How a recording is read, as the options say: $PERF, perf's build-id
 * cache and the copies of compressed debug files. */
static void read_opts(fg_perfdata_read_opts *o, const fg_collapse_opts *co, bool force_script,
		      const bool *quiet)
{
	fg_perfdata_read_opts_init(o, FG_PERFDATA_READ_OPTS_VERSION);
	o->inline_frames = co->inline_frames;
	o->lines = co->lines;
	o->perf_script = force_script;
	o->tool = getenv("PERF");
	o->buildid_dir = fg_cli_buildid_dir();
	o->debug_cache_dir = fg_cli_debug_cache_dir();
	o->on_event = on_event;
	o->event_ctx = (void *)quiet;
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

int fg_cli_collapse_perfdata(fg_collapser *c, const char *path, const fg_collapse_opts *co,
			     bool force_script, bool quiet)
{
	fg_perfdata_read_opts o;

	read_opts(&o, co, force_script, &quiet);
	return fg_profile_collapse_perfdata(c, path, &o);
}

/* Standard input as the perf.data reader's stream: the bytes read to
 * look for the magic first, then the rest. */
struct stdin_stream {
	fg_input *in;
	const char *head;
	size_t head_len, head_pos;
};

static ssize_t read_stdin(void *ctx, void *buf, size_t cap)
{
	struct stdin_stream *s = ctx;
	size_t n = s->head_len - s->head_pos;

	if (!n)
		return fg_input_read(s->in, buf, cap);
	if (n > cap)
		n = cap;
	memcpy(buf, s->head + s->head_pos, n);
	s->head_pos += n;
	return (ssize_t)n;
}

static int stream_perfdata(fg_collapser *c, struct stdin_stream *s, const fg_collapse_opts *co,
			   bool force_script)
{
	fg_perfdata_read_opts o;
	bool quiet = false;

	read_opts(&o, co, force_script, &quiet);
	return fg_profile_collapse_perfdata_stream(c, "<stdin>", read_stdin, s, &o);
}

/* Text on standard input: fed as fg_collapse_file would, starting with
 * the bytes already read. */
static int feed_text(fg_collapser *c, fg_input *in, const char *head, size_t n)
{
	char *buf = NULL;
	ssize_t k;
	int err;

	if ((err = fg_collapser_feed(c, head, n)))
		return err;
	if (!(buf = fg_malloc(1 << 20)))
		return FG_ENOMEM;
	while ((k = fg_input_read(in, buf, 1 << 20)) > 0)
		if ((err = fg_collapser_feed(c, buf, (size_t)k)))
			break;
	free(buf);
	if (err)
		return err;
	return k < 0 ? (int)k : fg_collapser_end_input(c);
}

static bool stdin_is_file(void)
{
	struct stat st;

	return !fstat(STDIN_FILENO, &st) && S_ISREG(st.st_mode);
}

/* A redirected file (prog < perf.data) that holds a recording, seen
 * without moving its offset. */
static bool stdin_file_is_perfdata(void)
{
	char magic[8];

	return pread(STDIN_FILENO, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	       fg_perfdata_magic(magic, sizeof(magic));
}

int fg_cli_collapse_stdin(fg_collapser *c, const fg_collapse_opts *co, bool force_script, bool quiet)
{
	struct stdin_stream s = { NULL, NULL, 0, 0 };
	char head[8];
	size_t n = 0;
	ssize_t k = 0;
	int err;

	/* a file: read as a file (mapped); a pipe can only be
	 * read once, so its first bytes say which way the rest goes */
	if (stdin_is_file())
		return stdin_file_is_perfdata() ?
			       fg_cli_collapse_perfdata(c, "/dev/stdin", co, force_script, quiet) :
			       fg_collapse_file(c, "-");
	if ((err = fg_input_open(&s.in, "-")))
		return err;
	while (n < sizeof(head) && (k = fg_input_read(s.in, head + n, sizeof(head) - n)) > 0)
		n += (size_t)k;
	if (k < 0) {
		err = (int)k;
	} else if (fg_perfdata_magic(head, n)) {
		s.head = head;
		s.head_len = n;
		err = stream_perfdata(c, &s, co, force_script);
	} else {
		err = feed_text(c, s.in, head, n);
	}
	fg_input_close(s.in);
	return err;
}
