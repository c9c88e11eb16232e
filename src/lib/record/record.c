/* Command lines of the recorders. Kept free of process handling so they
 * can be unit-tested anywhere (the DTrace one included, on Linux). */
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "flamegraph/record.h"
#include "util/process.h"
#include "util/banned.h"

static const char *const call_graph_names[] = { "dwarf", "fp", "lbr" };

const char *fg_call_graph_name(fg_call_graph mode)
{
	if ((unsigned)mode >= sizeof(call_graph_names) / sizeof(*call_graph_names))
		return "dwarf";
	return call_graph_names[mode];
}

int fg_call_graph_parse(fg_call_graph *out, const char *name)
{
	unsigned i;

	for (i = 0; name && i < sizeof(call_graph_names) / sizeof(*call_graph_names); i++) {
		if (!strcmp(name, call_graph_names[i])) {
			*out = (fg_call_graph)i;
			return 0;
		}
	}
	return fg_error_set(FG_EINVAL, "unknown call-graph mode '%s' — use fp, dwarf or lbr",
			    name ? name : "");
}

void fg_argv_free(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* Hands the vector over as a plain NULL-terminated char ** (an empty one
 * still gets its terminator). */
static int detach(fg_strvec *sv, char ***out)
{
	if (!sv->v && fg_strvec_push(sv, "") == 0) {
		free(sv->v[0]);
		sv->v[0] = NULL;
		sv->n = 0;
	}
	if (!sv->v)
		return FG_ENOMEM;
	*out = sv->v;
	sv->v = NULL;
	sv->n = sv->alloc = 0;
	return 0;
}

/* "sudo [FLAGS]" in front of the tool when asked for. */
static int push_prefix(fg_strvec *sv, const fg_record_opts *o, const char *deftool)
{
	int err;

	if (o->root) {
		if ((err = fg_strvec_push(sv, "sudo")))
			return err;
		if (o->sudo_flags && (err = fg_strvec_split(sv, o->sudo_flags)))
			return fg_error_set(err, "--root flags: %s", fg_error_last());
	}
	return fg_strvec_push(sv, o->tool && *o->tool ? o->tool : deftool);
}

static int check_target(const fg_record_opts *o)
{
	if ((o->npids > 0) == (o->argc > 0))
		return fg_error_set(FG_EINVAL, "give either a command or PIDs to record, not %s",
				    o->npids ? "both" : "neither");
	if (!o->output || !*o->output)
		return fg_error_set(FG_EINVAL, "no output file for the recorder");
	return 0;
}

static int perf_command(fg_strvec *sv, const fg_record_opts *o)
{
	size_t i, first;
	int err;

	if ((err = push_prefix(sv, o, "perf")))
		return err;
	first = sv->n;
	if (o->custom) {
		if ((err = fg_strvec_split(sv, o->custom)))
			return fg_error_set(err, "-c/--cmd: %s", fg_error_last());
		if (sv->n == first || strcmp(sv->v[first], "record") != 0) {
			/* "-c '-e cycles -g'" means the record arguments */
			fg_strvec tail = FG_STRVEC_INIT;
			err = fg_strvec_pushv(&tail, (const char *const *)sv->v + first, sv->n - first);
			while (!err && sv->n > first)
				free(sv->v[--sv->n]);
			if (!err)
				err = fg_strvec_push(sv, "record");
			if (!err)
				err = fg_strvec_pushv(sv, (const char *const *)tail.v, tail.n);
			fg_strvec_clear(&tail);
			if (err)
				return err;
		}
	} else {
		err = fg_strvec_push(sv, "record");
		if (!err)
			err = fg_strvec_push(sv, "-F");
		if (!err)
			err = fg_strvec_pushf(sv, "%u", o->freq ? o->freq : 997);
		if (!err)
			err = fg_strvec_push(sv, "--call-graph");
		if (!err && o->call_graph == FG_CALL_GRAPH_DWARF)
			err = fg_strvec_pushf(sv, "dwarf,%d", FG_DWARF_STACK_SIZE);
		else if (!err)
			err = fg_strvec_push(sv, fg_call_graph_name(o->call_graph));
		if (!err)
			err = fg_strvec_push(sv, "-g");
		if (err)
			return err;
	}
	if (o->compression_level >= 0 &&
	    (err = fg_strvec_pushf(sv, "--compression-level=%d", o->compression_level)))
		return err;
	if ((err = fg_strvec_push(sv, "-o")) || (err = fg_strvec_push(sv, o->output)))
		return err;
	if (o->npids) {
		fg_strbuf list = FG_STRBUF_INIT;
		for (i = 0; i < o->npids; i++)
			fg_strbuf_addf(&list, "%s%s", i ? "," : "", o->pids[i]);
		err = fg_strvec_push(sv, "-p");
		if (!err)
			err = fg_strvec_push(sv, list.buf);
		fg_strbuf_release(&list);
		return err;
	}
	if ((err = fg_strvec_push(sv, "--")))
		return err;
	return fg_strvec_pushv(sv, o->argv, o->argc);
}

static int dtrace_command(fg_strvec *sv, const fg_record_opts *o)
{
	size_t i;
	int err;

	if ((err = push_prefix(sv, o, "dtrace")))
		return err;
	if (o->custom) {
		if ((err = fg_strvec_split(sv, o->custom)))
			return fg_error_set(err, "-c/--cmd: %s", fg_error_last());
	} else {
		err = fg_strvec_push(sv, "-x");
		if (!err)
			err = fg_strvec_push(sv, "ustackframes=100");
		if (!err)
			err = fg_strvec_push(sv, "-n");
		if (!err)
			err = fg_strvec_pushf(sv, "profile-%u /pid == $target/ { @[ustack(100)] = count(); }",
					      o->freq ? o->freq : 997);
		if (err)
			return err;
	}
	if ((err = fg_strvec_push(sv, "-o")) || (err = fg_strvec_push(sv, o->output)))
		return err;
	for (i = 0; i < o->npids; i++)
		if ((err = fg_strvec_push(sv, "-p")) || (err = fg_strvec_push(sv, o->pids[i])))
			return err;
	if (o->argc) {
		/* dtrace -c takes one string and splits it itself */
		fg_strvec args = FG_STRVEC_INIT;
		fg_strbuf joined = FG_STRBUF_INIT;
		err = fg_strvec_pushv(&args, o->argv, o->argc);
		if (!err) {
			fg_strvec_join_quoted(&args, &joined);
			err = fg_strvec_push(sv, "-c");
		}
		if (!err)
			err = fg_strvec_push(sv, joined.buf);
		fg_strbuf_release(&joined);
		fg_strvec_clear(&args);
	}
	return err;
}

int fg_record_command(char ***out, const fg_record_opts *opts)
{
	fg_strvec sv = FG_STRVEC_INIT;
	int err;

	*out = NULL;
	if ((err = check_target(opts)))
		return err;
	if (opts->recorder == FG_RECORDER_DTRACE)
		err = dtrace_command(&sv, opts);
	else
		err = perf_command(&sv, opts);
	if (!err)
		err = detach(&sv, out);
	fg_strvec_clear(&sv);
	return err;
}

int fg_record_script_command(char ***out, const fg_record_opts *opts,
			     const char *perfdata, bool no_inline)
{
	fg_strvec sv = FG_STRVEC_INIT;
	int err;

	*out = NULL;
	if (opts->recorder == FG_RECORDER_DTRACE)
		return fg_error_set(FG_EINVAL, "DTrace output needs no script step");
	err = push_prefix(&sv, opts, "perf");
	if (!err)
		err = fg_strvec_push(&sv, "script");
	if (!err && opts->root)
		err = fg_strvec_push(&sv, "-f");
	if (!err)
		err = fg_strvec_push(&sv, "-i");
	if (!err)
		err = fg_strvec_push(&sv, perfdata);
	if (!err && no_inline)
		err = fg_strvec_push(&sv, "--no-inline");
	if (!err)
		err = detach(&sv, out);
	fg_strvec_clear(&sv);
	return err;
}
