#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "cli/common/diag.h"
#include "cli/common/distro.h"

static const char *prog_name = "flamegraph";

void fg_diag_init(const char *prog)
{
	prog_name = prog;
}

const char *fg_diag_prog(void)
{
	return prog_name;
}

static int use_colour(void)
{
	static int cached = -1;

	if (cached < 0) {
		const char *nc = getenv("NO_COLOR");
		cached = isatty(STDERR_FILENO) && !(nc && *nc);
	}
	return cached;
}

/* The library names the options of its calls in backquotes, after
 * "opts.": a field of its options structs (`opts.perfdata_out`,
 * `opts.record.call_graph`), or a field with the value meant
 * (`opts.record.call_graph=fp`). The programs say the same with their
 * flags. A name not listed here stays as it is, as do other names in
 * backquotes (a TOML key: `profile`). */
static const struct { const char *field, *flag; } words[] = {
	{ "manifest_path", "--manifest-path" },
	{ "features", "--features" },
	{ "all_features", "--all-features" },
	{ "no_default_features", "--no-default-features" },
	{ "build_profile=dev", "--dev" },
	{ "build_profile", "--profile" },
	{ "defines", "-D" },
	{ "target=bin", "--bin" },
	{ "target=test", "--test" },
	{ "target=bench", "--bench" },
	{ "target=example", "--example" },
	{ "unit_test", "--unit-test" },
	{ "unit_bench", "--unit-bench" },
	{ "compare.rev", "--compare" },
	{ "compare.side_outputs", "--compare-outputs" },
	{ "pids", "--pid" },
	{ "perfdata", "--perfdata" },
	{ "perfdata_out", "--perfdata-out" },
	{ "suite.pattern", "--tests/--benches REGEX" },
	{ "suite.kind", "--tests/--benches" },
	{ "suite.out_dir", "-o DIR" },
	{ "output", "-o" },
	{ "folded_out", "--folded" },
	{ "format=svg", "--format svg" },
	{ "format=folded", "--format folded" },
	{ "format=html", "--format html" },
	{ "perf_script", "--perf-script" },
	{ "stream", "--stream" },
	{ "post_process", "--post-process" },
	{ "alloc", "--alloc" },
	{ "alloc=VIEW", "--alloc[=VIEW]" },
	{ "alloc_sample", "--alloc-sample" },
	/* fg_record_opts, inside fg_profile_opts (record.) or alone */
	{ "record.custom", "-c/--cmd" },
	{ "custom", "-c/--cmd" },
	{ "record.freq", "-F" },
	{ "record.mode=off_cpu", "--off-cpu" },
	{ "record.mode=hot_cold", "--hot-cold" },
	{ "record.max_size", "--max-size" },
	{ "record.buffer_bytes", "--buffer-size" },
	{ "record.root", "--root" },
	{ "root", "--root" },
	{ "sudo_flags", "--root flags" },
	{ "record.call_graph=fp", "--call-graph fp" },
	{ "call_graph=fp", "--call-graph fp" },
	{ "call_graph=dwarf", "--call-graph dwarf" },
	{ "call_graph=lbr", "--call-graph lbr" },
	/* fg_render_opts */
	{ "min_width", "--min-width" },
	{ "factor", "--factor" },
	{ "total", "--total" },
	/* fg_collapse_opts */
	{ "ghc_source=ticks", "--ticks" },
	{ "ghc_source=bytes", "--bytes" },
};

char *fg_cli_words(const char *text)
{
	size_t len = strlen(text), cap = len + 64, n = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	while (*text) {
		const char *end = !strncmp(text, "`opts.", 6) ? strchr(text + 6, '`') : NULL;
		const char *put = NULL;
		size_t plen = 1, skip = 1;

		for (size_t i = 0; end && i < sizeof(words) / sizeof(words[0]); i++) {
			if (strlen(words[i].field) == (size_t)(end - text - 6) &&
			    !memcmp(words[i].field, text + 6, (size_t)(end - text - 6))) {
				put = words[i].flag;
				plen = strlen(put);
				skip = (size_t)(end - text) + 1;
				break;
			}
		}
		if (!put)
			put = text;
		if (n + plen + 1 > cap) {
			char *grown = realloc(out, cap = (n + plen + 1) * 2);
			if (!grown) {
				free(out);
				return NULL;
			}
			out = grown;
		}
		memcpy(out + n, put, plen);
		n += plen;
		text += skip;
	}
	out[n] = '\0';
	return out;
}

static void vmessage(const char *kind, const char *colour, const char *fmt, va_list ap)
{
	char small[1024], *msg = small, *said;
	va_list copy;
	int len;

	va_copy(copy, ap);
	len = vsnprintf(small, sizeof(small), fmt, copy);
	va_end(copy);
	if (len >= (int)sizeof(small) && (msg = malloc((size_t)len + 1)))
		vsnprintf(msg, (size_t)len + 1, fmt, ap);
	if (use_colour())
		fprintf(stderr, "%s: \033[%sm%s:\033[0m ", prog_name, colour, kind);
	else
		fprintf(stderr, "%s: %s: ", prog_name, kind);
	said = len >= 0 && msg ? fg_cli_words(msg) : NULL;
	fputs(said ? said : msg ? msg : fmt, stderr);
	fputc('\n', stderr);
	free(said);
	if (msg != small)
		free(msg);
}

void fg_errorf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("error", "1;31", fmt, ap);
	va_end(ap);
}

void fg_warnf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("warning", "1;33", fmt, ap);
	va_end(ap);
}

void fg_notef(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("note", "1;36", fmt, ap);
	va_end(ap);
}

int fg_exit_code_for(int err)
{
	switch (err) {
	case FG_OK:
		return FG_EXIT_OK;
	case FG_EBUILD:
		return FG_EXIT_BUILD;
	case FG_ERECORD:
		return FG_EXIT_RECORD;
	case FG_ENODATA:
		return FG_EXIT_NODATA;
	case FG_EINTR:
		return FG_EXIT_SIGNAL_BASE + 2; /* SIGINT; the caller knows better */
	default:
		return FG_EXIT_USAGE;
	}
}

int fg_die_lib(int err)
{
	/* an allocation that failed on the way is the cause, whatever the
	 * error it led to says (a name left out, a path cut short) */
	if (err != FG_EINTR && (err == FG_ENOMEM || fg_error_nomem_count())) {
		fg_errorf("out of memory — free some memory (or raise the limit: ulimit -v) "
			  "or give a smaller input");
		return fg_exit_code_for(FG_ENOMEM);
	}
	/* perf's install command is this system's, where it is known */
	if (fg_distro_explain_last_error() != 0)
		fg_errorf("%s", *fg_error_last() ? fg_error_last() : "unknown error");
	return fg_exit_code_for(err);
}

int fg_cli_check_memory(void)
{
	if (fg_error_nomem_count())
		return fg_error_set(FG_ENOMEM, "out of memory");
	return 0;
}
