/* The state of one fg_profile_run and the steps that share it, one file
 * a job: preflight.c (options, tools, programs, limits checked before
 * anything runs), profile.c (recording, and the run as a whole),
 * read_recording.c (the recording read, folded into stacks, post-processed),
 * outputs.c (the graph and the other files written). */
#ifndef FG_LIB_RUN_RUN_H
#define FG_LIB_RUN_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "flamegraph/collapse.h"
#include "flamegraph/perfdata.h"
#include "flamegraph/profile.h"
#include "util/outfile.h"
#include "util/process.h"
#include "util/strbuf.h"

typedef struct run {
	const fg_profile_opts *o;
	fg_profile_result *res;
	fg_record_opts rec;
	const char *program;       /* what is profiled, for messages */
	char *program_path;        /* argv[0] resolved on PATH */
	char *tool_path;           /* the perf chosen beside a wrapper that has
				      none for the running kernel (rec.tool) */
	fg_strbuf perfdata;        /* the perf.data being recorded/read */
	struct fg_run_stream *stream; /* the recording streamed (stream.c) */
	bool perfdata_is_temp;
	char *xctrace_dir;         /* xctrace: the temporary folder that holds
				      the .trace bundle (perfdata) */
	fg_outfile *out, *folded;
	fg_collapser *collapser;
	fg_offcpu *offcpu;         /* off-CPU modes: between perf script and
				      the collapser, or (the native recorder)
				      between the reader and the collapser */
	fg_perfdata_sched_switch sched; /* the native recorder's off-CPU
				      modes: its tracepoint's layout */
	fg_folded *stacks;
	fg_folded *companion;      /* allocation graphs in pprof: the second
				      value of each stack (objects or bytes) */
	fg_strbuf post;            /* post-processed folded text */
	int interrupts_seen;       /* interrupt requests the recording handled */
	uint64_t recorded_samples; /* samples in the recording (perf.data) */
	fg_render_opts render;     /* o->render with the subtitle extended */
	fg_strbuf subtitle;
	fg_strbuf title;           /* a title made here (allocation graphs) */
	double processing_start, last_status;
	uint64_t samples_read;     /* samples in the text read so far */
	char last_fed;             /* the last byte of the text fed */
} run;

/* Whether the recorder writes perf.data (perf, the native recorder). */
static inline bool fg_run_records_perfdata(fg_recorder rec)
{
	return rec == FG_RECORDER_PERF || rec == FG_RECORDER_NATIVE;
}

/* profile.c */
double fg_run_now(void);
/* Hands an event to opts->on_event (warnings are counted). */
void fg_run_emit(run *r, fg_profile_event kind, const char *msg, double value);
/* fg_run_emit of a formatted message (value 0); nothing when it could not
 * be made (out of memory: counted, and the programs say so). */
void fg_run_emitf(run *r, fg_profile_event kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* FG_PROFILE_COMMAND with argv quoted for display. */
void fg_run_emit_cmd(run *r, char **argv);
void fg_run_status(run *r, fg_profile_stage stage, double elapsed, uint64_t bytes);
/* The recorder's outcome into r->res. */
void fg_run_take_outcome(run *r, const fg_record_outcome *out);
/* The error for a recorder that ended having recorded nothing. */
int fg_run_record_failed(run *r, const fg_exit_status *st);

/* record_native.c */
/* The recording made by the native recorder (flamegraph/recorder.h):
 * into the stream, else into r->perfdata. */
int fg_run_record_native(run *r);
/* The recorder's events (record.h), as profile events. */
void fg_run_on_record_event(void *ctx, fg_record_event kind, const char *msg, double elapsed,
			    uint64_t bytes);

/* preflight.c */
/* Whether this run streams its recording (stream.c). */
bool fg_run_streams(const fg_profile_opts *o);
/* Whether perf attaches to the program started held (fg_record_run_opts
 * attach): perf runs it itself only for a custom command (whose arguments
 * may not allow attaching) and for DTrace. */
bool fg_run_attaches(const run *r);
int fg_run_check_opts(const fg_profile_opts *o);
/* The note of a recording at path read through perf script because it
 * holds why, which the native reader does not read yet. */
void fg_run_unsupported_note(fg_strbuf *note, const char *path, const char *why);
/* perf_choice.c: the recorder is there (and which perf records) */
int fg_run_check_tool(run *r);
int fg_run_check_pids(run *r);
int fg_run_check_command(run *r);
int fg_run_plan_recording(run *r);
/* The error for a recorder that is not installed where it was looked for. */
int fg_run_fail_tool_missing(const char *tool, const fg_record_opts *rec);

/* read_recording.c */
bool fg_run_is_perf_data(const char *path);
/* The native reader's options for this run. */
void fg_run_perfdata_opts(const run *r, fg_perfdata_opts *opts);
/* r->collapser, for input of this format. */
int fg_run_new_collapser(run *r, fg_format fmt);
/* The off-CPU modes' weighing (r->offcpu) in front of the collapser:
 * perf script's text, or the native recorder's switches as data (its
 * tracepoint's layout read into r->sched). 0 with the mode on CPU. */
int fg_run_new_offcpu(run *r);
/* The recording (or text) read into the collapser. */
int fg_run_collapse(run *r);
/* The collapser's stacks (post-processed) into r->stacks. */
int fg_run_build_stacks(run *r);

/* stream.c: a recording streamed from perf into the native reader */
/* Starts the reader (and the collapser it feeds) on a new pipe. */
int fg_run_stream_start(run *r);
/* The native recorder's bytes, queued for the reader (no pipe). */
int fg_run_stream_push(void *ctx, const void *buf, size_t len);
/* The pipe's end that perf writes to. */
int fg_run_stream_fd(const run *r);
/* Bytes the reader has had so far (ctx: the run), for the status line. */
uint64_t fg_run_stream_bytes(void *ctx);
/* After the recording: the pipe closed, the reader's end awaited; its
 * samples and lost samples counted into r. The reader's error, if any;
 * *empty: perf wrote nothing at all. */
int fg_run_stream_finish(run *r, bool *empty);
/* Ends a stream still running (on an error) and frees it. */
void fg_run_stream_release(run *r);

/* alloc_run.c */
/* An allocation graph's run: the program under the interposer, its
 * recordings read into r->collapser (opts.alloc). */
int fg_run_alloc(run *r);
/* Whether path is a folder of allocation recordings (alloc.* only). */
bool fg_run_is_alloc_dir(const char *path);

/* outputs.c */
/* The graph's file ("-": stdout), or NULL when none is written. */
const char *fg_run_graph_path(const fg_profile_opts *o);
int fg_run_open_outputs(run *r);
/* r->render: the options with the subtitle of what the graph does not
 * cover, and the off-CPU modes' title, unit and colours. */
int fg_run_make_subtitle(run *r);
int fg_run_write_outputs(run *r);

#endif
