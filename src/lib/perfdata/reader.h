/* The perf.data reader's state, shared by reader.c (the file form, the
 * records, the time-ordered walk) and pipe.c (the pipe form's prologue,
 * streams read in blocks). */
#ifndef FG_LIB_PERFDATA_READER_H
#define FG_LIB_PERFDATA_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/perfdata/hybrid.h"
#include "lib/perfdata/internal.h"

#define FEAT_BUILD_ID 2
#define FEAT_ARCH 6
#define FEAT_CMDLINE 11
#define FEAT_EVENT_DESC 12
#define FEAT_AUXTRACE 18
#define FEAT_DIR_FORMAT 24
#define FEAT_COMPRESSED 27

/* perf's own record types (linux/perf_event.h has the kernel's) */
#define REC_HEADER_ATTR 64
#define REC_HEADER_TRACING_DATA 66
#define REC_HEADER_BUILD_ID 67
#define REC_FINISHED_ROUND 68
#define REC_AUXTRACE 71
#define REC_EVENT_UPDATE 78
#define REC_HEADER_FEATURE 80
#define REC_COMPRESSED 81
#define REC_FINISHED_INIT 82
#define REC_COMPRESSED2 83

/* the stack sizes a dwarf sample may keep with it (fetch.c): up to 24
 * KB in steps of 512 bytes */
#define PD_EAGER_STEPS 49

/* perf script's call chain depth (PERF_MAX_STACK_DEPTH) */
#define MAX_STACK 127

/* An event attribute and the sample format of its records. */
struct pd_attr {
	uint32_t type;            /* the event's type and config */
	uint64_t config;
	uint64_t sample_type;
	uint64_t sample_period;
	uint64_t regs_user;       /* sample_regs_user: the registers of a sample */
	const char *name;
	const unsigned char *ids; /* u64 ids in the file */
	size_t nids;
	bool id_all;              /* non-sample records end in a sample_id trailer */
	bool dwarf;               /* its samples carry user registers and stack
				     copies to unwind (--call-graph dwarf) */
	bool user_chain;          /* its call chains hold the kernel's walk of
				     the user stack (not exclude_callchain_user):
				     with a stack copy, hybrid samples */
	bool dummy;               /* the software dummy event: it only tracks
				     (maps, comms), never samples */
	uint8_t time_back;        /* where a trailer's time is, counted back
				     from the record's end; 0: none */
};

/* A record's bytes and, for messages, where it is: its file or stream
 * offset, or for a record decompressed out of a compressed record, the
 * chunk of that record (whose offset is given). A record in a chunk
 * keeps it alive while queued. */
struct recpos {
	const unsigned char *p;
	uint64_t off;
	pd_chunk *chunk;
	bool stack_in_file;       /* a dwarf sample kept with the start of its
				     valid stack; the rest is at the same place
				     in the file as in the record (fetch.c) */
};

struct qent {
	uint64_t time, seq;
	struct recpos at;
};

struct fg_perfdata {
	char *name;
	const unsigned char *base;
	size_t size;
	bool mapped, used;
	int fd;                   /* a file's, read by fetch.c; else -1 */
	unsigned char *stage;     /* fetch.c: bytes of the data section, in
				     stage_buf or at the newest chunk's end */
	unsigned char *stage_buf;
	uint64_t stage_off;       /* (at this offset) */
	size_t stage_len;
	size_t eager;             /* of a dwarf sample's valid stack, how much
				     is read with it (fetch.c) */
	uint32_t needs[PD_EAGER_STEPS]; /* samples unwound that needed up to
				     i steps of 512 bytes of their stack */
	uint64_t nneeds;
	size_t stage_hint;        /* in a dwarf recording, how much a read of a
				     record header or a sample's tail fetches */
	pd_chunk_list records;    /* fetch.c: the records read, in chunks */
	fg_perfdata_opts opts;
	const char *unsupported;
	struct pd_attr *attrs;
	size_t nattrs, aattrs;
	bool pipe;                /* the pipe form (perf record -o -) */
	/* Several sample formats (perf 6.x adds a dummy tracking event of
	 * its own format to the sampling ones): the format of a record is
	 * that of the attribute of its id, at the place all formats agree on
	 * (id_pos, is_pos). With one format, attrs[0]'s serves every record
	 * and nothing is looked up. */
	bool formats;
	bool trailers;            /* the formats' sample_id trailers differ too */
	int id_pos;               /* a sample's id: the u64 at this index after
				     the header; -1: none */
	int is_pos;               /* a trailer's id: this many u64s back from the
				     record's end; -1: none */
	pd_u64map attr_ids;       /* several attributes: id -> attribute index */
	bool timed;               /* records carry times (ordered by them) */
	bool comm_exec;           /* COMM records mark execs (attr comm_exec) */
	bool held_launch;         /* perf's command line: attached (-p) and
				     driven through a control fifo */
	bool dwarf;               /* user stacks to unwind (--call-graph dwarf) */
	pd_unwinder *unwinder;
	uint64_t pcs[MAX_STACK];
	/* samples with frame-pointer chains and small stack copies
	 * (hybrid.c): their chains, the frames of their copies and how far
	 * into the copy each was known */
	pd_hybrid hybrid;
	uint64_t fp[MAX_STACK], cfi[MAX_STACK], reach[MAX_STACK];
	pd_check *check;          /* or NULL: emulating them (hybrid.h) */
	bool hybrid_chains;       /* an event records them: the stacks of its
				     other samples unwound whole teach their
				     outermost frames too */
	uint64_t data_off, data_end;
	pd_machine machine;
	pd_symbols syms;
	fg_perfdata_stats stats;
	uint64_t lost_in_lost;    /* samples lost, as LOST records count them */
	uint64_t lost_in_lost_samples; /* and as LOST_SAMPLES records do */
	fg_arena arena;
	struct qent *q;
	size_t nq, aq;
	struct qent *qtmp;        /* scratch for sorting q */
	size_t aqtmp;
	uint64_t seq, next_flush, max_time;
	fg_perfdata_frame *frames;
	size_t nframes, aframes;
	struct pd_addr_slot *addrs; /* sample.c: the frames of the addresses met */
	size_t naddrs, aaddrs;
	char comm_buf[24];
	/* off-CPU (sched_switch.c): the tracepoint's layout, and the
	 * weighing the switches go to instead of the sample callback */
	const fg_perfdata_sched_switch *sched;
	fg_offcpu *offcpu;
	fg_perfdata_progress_cb offcpu_progress;
	void *offcpu_ctx;
	bool compressed;          /* the recording has the compressed feature */
	pd_inflater inflater;     /* compressed records' stream */
	size_t tail;              /* bytes of a record cut at the end of the
				     newest chunk */
	fg_perfdata_read_cb read; /* a stream's, or NULL */
	void *read_ctx;
	unsigned char *prologue;  /* a stream's header and first records (base) */
	pd_chunk_list stream;     /* blocks of the stream in use */
};

/* reader.c, for pipe.c */
/* header.c: FG_EPARSE with "NAME: offset OFF: WHAT" (pd_bad_at: of a
 * record, or of the compressed record its chunk was decompressed from). */
int pd_bad(const fg_perfdata *r, uint64_t off, const char *what);
int pd_bad_at(const fg_perfdata *r, const struct recpos *at, const char *what);
/* sample.c: a SAMPLE record handed to cb; the time of any record (0
 * when it carries none). */
int pd_do_sample(fg_perfdata *r, const struct recpos *at, uint16_t size, uint16_t misc,
		 fg_perfdata_sample_cb cb, void *ctx);
int pd_record_time(const fg_perfdata *r, const struct recpos *at, uint32_t type, uint16_t size,
		   uint64_t *time);
/* reader.c: one record handled (a sample given, a map or process noted). */
int pd_handle(fg_perfdata *r, const struct recpos *at, fg_perfdata_sample_cb cb, void *ctx);
/* queue.c: the kinds of records queued; a record queued for the end of
 * its round (in a recording without times, handled at once); the queued
 * records up to time limit handled in time order (all: UINT64_MAX). */
bool pd_is_queued_type(uint32_t type);
int pd_queue_record(fg_perfdata *r, const struct recpos *at, uint32_t type, uint16_t size,
		    fg_perfdata_sample_cb cb, void *ctx);
int pd_queue_flush(fg_perfdata *r, uint64_t limit, fg_perfdata_sample_cb cb, void *ctx);
int pd_setup(fg_perfdata *r, const char *name, const fg_perfdata_opts *opts);
/* Attribute i (asize bytes at a, its ids at ids); then, once all are
 * set, pd_check_attrs (the formats, the ids' places, the id map). */
void pd_set_attr(fg_perfdata *r, size_t i, const unsigned char *a, uint64_t asize,
		 const unsigned char *ids, size_t nids);
int pd_check_attrs(fg_perfdata *r);
/* A feature section, or build id records, at [off, end) of r->base. */
int pd_read_feature(fg_perfdata *r, uint64_t feat, uint64_t off, uint64_t end);
int pd_read_build_ids(fg_perfdata *r, uint64_t off, uint64_t end);
bool pd_is_compressed_type(const fg_perfdata *r, uint32_t type);
/* The offset in a sample record (its first len bytes at rec) of its
 * user stack's size, when its format has user stacks and the fields
 * before lie in those bytes; else 0. */
size_t pd_stack_size_at(const fg_perfdata *r, const unsigned char *rec, size_t len);
/* One record (*extra: the size of the data that follows it, to pass);
 * the end of the walk
 * (queued records handled). */
int pd_walk_one(fg_perfdata *r, const struct recpos *at, uint32_t type, uint16_t size,
		uint64_t *extra, fg_perfdata_sample_cb cb, void *ctx);
int pd_walk_end(fg_perfdata *r, fg_perfdata_sample_cb cb, void *ctx);

/* fetch.c, for reader.c: the records of [data_off, data_end), read
 * from the file (r->fd) or from r->base */
int pd_walk_records(fg_perfdata *r, fg_perfdata_sample_cb cb, void *ctx);
void pd_fetch_release(fg_perfdata *r);
/* Copies len bytes of the data at off to dst: the rest of a stack left
 * in the file. Returns 0, FG_EPARSE (not in the data) or FG_EIO. */
int pd_fetch_more(fg_perfdata *r, uint64_t off, size_t len, unsigned char *dst);
/* A sample was unwound that needed used bytes of its stack copy: how
 * much of the next ones' to read with them is chosen again from time to
 * time. */
void pd_fetch_note_stack(fg_perfdata *r, uint64_t used);

/* pipe.c, for reader.c */
/* The pipe form's records that stand for the header, from r->base. */
int pd_read_pipe_prologue(fg_perfdata *r);
/* fg_perfdata_foreach's walk of a stream. */
int pd_walk_stream(fg_perfdata *r, fg_perfdata_sample_cb cb, void *ctx);


/* sched_switch.c */
/* Whether a is the sched_switch tracepoint of the off-CPU layout. */
bool pd_is_sched_switch(const fg_perfdata *r, const struct pd_attr *a);
/* A sample of an off-CPU read (raw: its PERF_SAMPLE_RAW data, or NULL)
 * handed to the weighing. */
int pd_offcpu_sample(fg_perfdata *r, const struct pd_attr *a, const unsigned char *raw,
		     size_t raw_len, const fg_perfdata_sample *s);
/* A SWITCH record of an off-CPU read: a switch back in ends a wait. */
int pd_offcpu_switch(fg_perfdata *r, const struct recpos *at, uint16_t size, uint16_t misc);

#endif
