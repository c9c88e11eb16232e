/* Internals shared by the collapse stage: the per-thread parser state
 * (a "worker") and the format-specific chunk parsers.
 *
 * The collapser cuts its input into chunks that end at points where a
 * format's parser holds no state (after an empty line for perf, after a
 * count line for DTrace). Every chunk is parsed independently into the
 * stack map of whichever worker picks it up, so the result does not
 * depend on how many threads there are. */
#ifndef FG_LIB_COLLAPSE_INTERNAL_H
#define FG_LIB_COLLAPSE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flamegraph/collapse.h"
#include "flamegraph/error.h"
#include "lib/collapse/caches.h"
#include "util/arena.h"
#include "util/hashmap.h"
#include "util/strbuf.h"

/* The limits of collapse.h. Fuzzing builds, which shrink blocks to 4 KB,
 * shrink them too, so that fuzz inputs of a few KB reach the code that
 * cuts names, skips lines and drops stacks (the stack cap must stay at
 * least one block: a stack is judged after the block is cut). */
#ifdef FG_COLLAPSE_CHUNK_SIZE
#define FG_CMAX_FRAME ((size_t)256)
#define FG_CMAX_LINE ((size_t)2048)
#define FG_CMAX_STACK ((size_t)4 * FG_COLLAPSE_CHUNK_SIZE)
#else
#define FG_CMAX_FRAME FG_COLLAPSE_MAX_FRAME
#define FG_CMAX_LINE FG_COLLAPSE_MAX_LINE
#define FG_CMAX_STACK FG_COLLAPSE_MAX_STACK
#endif

/* Kinds of bad input, counted per worker and reported once each. */
enum fg_cwarn {
	FG_CWARN_EVENT = 0,   /* perf: a line where an event header was expected */
	FG_CWARN_STACK,       /* perf: a stack line without "ADDR SYMBOL (MODULE)" */
	FG_CWARN_UTF8,        /* invalid UTF-8 (replaced with U+FFFD) */
	FG_CWARN_NUL,         /* NUL bytes (replaced with U+FFFD) */
	FG_CWARN_NOCOUNT,     /* dtrace: a stack at the end without its count */
	FG_CWARN_COUNT,       /* dtrace: a count too large for 64 bits */
	FG_CWARN_BADCOUNT,    /* dtrace: a stack ended by a line that is no count */
	FG_CWARN_PERIOD,      /* perf: a sample period too large for 64 bits */
	FG_CWARN_LONGNAME,    /* a frame name over FG_COLLAPSE_MAX_FRAME (truncated) */
	FG_CWARN_LONGLINE,    /* a line over FG_COLLAPSE_MAX_LINE (its stack dropped) */
	FG_CWARN_SATURATED,   /* a stack's count summed past 2^64 - 1 (held there) */
	FG_CWARN_BIGSTACK,    /* an event/stack over FG_COLLAPSE_MAX_STACK (dropped) */
	FG_CWARN_NOSTART,     /* line formats: the input never reached its stacks */
	FG_CWARN_BADLINE,     /* line formats: lines skipped as not of the format */
	FG_CWARN_KINDS
};

/* Settings every worker reads; fixed before the first chunk is parsed. */
typedef struct fg_cshared {
	fg_collapse_opts opts;
	const char *event;     /* the event type kept (NULL: not decided yet) */
	size_t event_len;
} fg_cshared;

/* One frame of the event being parsed: a view into the chunk or into the
 * worker's arena, plus an annotation appended when the key is built. */
typedef struct fg_cframe {
	const char *ptr;
	uint32_t len;
	uint8_t suffix;        /* index into the suffix table (0: none) */
	bool semi;             /* replace ';' with ':' when copying */
	bool truncated;        /* cut at FG_COLLAPSE_MAX_FRAME: append the marker */
} fg_cframe;

enum { FG_SUFFIX_NONE = 0, FG_SUFFIX_KERNEL, FG_SUFFIX_JIT, FG_SUFFIX_INLINE };
/* Or-ed into the suffix argument of fg_cworker_push: the frame may hold
 * ';', which becomes ':' as the key is built (no extra copy). */
#define FG_FRAME_SEMI 0x10

typedef struct fg_cworker {
	fg_strmap map;         /* folded stack -> count */
	fg_strbuf key;         /* the stack being assembled */
	fg_strbuf pname;       /* perf: "comm[-pid[/tid]]" of the current event */
	fg_arena arena;        /* rewritten lines and frames; freed per chunk */
	fg_clines clines;      /* perf: stack lines read before */
	fg_cstacks cstacks;    /* perf: stacks counted before */
	uint32_t *chain;       /* perf: ids of the cached lines of the event */
	size_t nchain, achain;
	fg_cframe *frames;     /* current event, leaf first */
	size_t nframes, aframes;
	int error;             /* sticky FG_ENOMEM */
	uint64_t samples, filtered;
	uint64_t seq, lineno;  /* chunk and line being parsed, for warnings */
	uint64_t warn_count[FG_CWARN_KINDS];
	uint64_t warn_seq[FG_CWARN_KINDS];  /* chunk of the first occurrence */
	uint64_t warn_line[FG_CWARN_KINDS]; /* 1-based line within that chunk */
	bool keep_order;       /* also record the stacks in input order: */
	fg_strbuf order;       /* records of u64 count, u32 length, stack */
	size_t last;           /* offset of the last record (SIZE_MAX: none) */
	bool replace;          /* emit sets a stack's count instead of adding
				  to it (sample: the last of equal stacks) */
} fg_cworker;

void fg_cworker_init(fg_cworker *w);
void fg_cworker_release(fg_cworker *w);
/* Records a bad line of `kind` at `line` of chunk `seq`. */
void fg_cworker_warn(fg_cworker *w, int kind, uint64_t seq, uint64_t line);
/* Appends a frame; false (and w->error) when out of memory. Names over
 * FG_COLLAPSE_MAX_FRAME are cut (warned at w->seq, w->lineno). */
bool fg_cworker_push(fg_cworker *w, const char *ptr, size_t len, int suffix);
/* Adds count to the stack "prefix;frames..." (frames reversed: root first),
 * saturating at UINT64_MAX (and, with keep_order, to the input-order
 * records: to the last one when it is the same stack). Returns its map
 * entry (valid until the next insertion), or NULL: an empty stack, or
 * out of memory (w->error). */
const fg_strmap_entry *fg_cworker_emit(fg_cworker *w, const char *prefix, size_t plen,
				       uint64_t count);

/* Makes a line safe: when it holds NUL bytes or invalid UTF-8, returns a
 * copy in the worker's arena with those bytes replaced by U+FFFD and
 * records the warning; else returns the line itself. */
fg_view fg_cworker_clean_line(fg_cworker *w, fg_view line, uint64_t seq, uint64_t lineno);
/* Rust legacy symbols as perf and DTrace print them, half demangled
 * ("_$LT$alloc..vec..Vec$LT$T$GT$$GT$::from::hf1c5bb9dd6c517cb"): when
 * the trailing hash is there, drops it and decodes the escapes (result in
 * the worker's arena); else returns f. */
fg_view fg_cworker_fix_rust(fg_cworker *w, fg_view f);
/* Skips buf[0..len), a stack of more than FG_COLLAPSE_MAX_STACK bytes:
 * warns at its first line (line 1 of the chunk when `rest`: it is the rest
 * of one the collapser dropped) and adds its lines to *lineno. */
void fg_cworker_skip_too_big(fg_cworker *w, const char *buf, size_t len, uint64_t *lineno,
			     bool rest);
/* The last '\n' in [lo, hi), or NULL. Looks back a window at a time, so
 * the cost is the distance to it, also where memrchr is instrumented (a
 * sanitizer checks the whole range it is given). */
const char *fg_last_nl(const char *lo, const char *hi);
/* The length of buf[0..len) cut to at most cap bytes without splitting a
 * UTF-8 sequence. */
size_t fg_utf8_cut(const char *buf, size_t len, size_t cap);
/* Adds b to *a, holding it at UINT64_MAX; false when it had to. */
static inline bool fg_add_count(uint64_t *a, uint64_t b)
{
	if (__builtin_add_overflow(*a, b, a)) {
		*a = UINT64_MAX;
		return false;
	}
	return true;
}
/* True when buf holds no NUL byte and no byte >= 0x80 (fast path). */
bool fg_bytes_plain(const char *buf, size_t len);

/* Chunk parsers: parse buf[0..len) (which ends at a stateless point, or at
 * the end of input) into w. Line numbers start after *nlines (lines the
 * collapser dropped before the chunk), which gets the last one.
 * `dropped`: the chunk starts with the rest of an event or stack too big
 * to keep; its first line ends the part that was dropped. Those lines up
 * to the next stateless point are skipped and warned about once. */
void fg_perf_parse(fg_cworker *w, const fg_cshared *sh, const char *buf, size_t len,
		   uint64_t seq, bool dropped, uint64_t *nlines);
void fg_dtrace_parse(fg_cworker *w, const fg_cshared *sh, const char *buf, size_t len,
		     uint64_t seq, bool first, bool dropped, uint64_t *nlines);

/* Line formats (all but perf and DTrace): parsed a line at a time, in
 * input order, by one worker; `state` (state_size bytes, zeroed at the
 * start of each input, released by release) carries what a line needs
 * from the lines before it. Frames pushed must stay valid until the emit
 * that uses them (the line, or the state's own buffers). */
typedef struct fg_lctx {
	fg_cworker *w;
	const fg_cshared *sh;
	uint64_t seq, line;    /* chunk and line in it (warnings) */
	uint64_t input_line;   /* line within the current input (errors) */
} fg_lctx;

typedef struct fg_lformat {
	size_t state_size;
	/* One line, without its newline (and '\r'), made valid UTF-8.
	 * Returns 0 or an FG_E* code whose message fg_lctx_fail set. */
	int (*line)(fg_lctx *x, void *state, fg_view line);
	/* The end of one input (a file); 0 or an error. */
	int (*end)(fg_lctx *x, void *state);
	void (*release)(void *state);
} fg_lformat;

/* The line format of f, or NULL (perf, DTrace). */
const fg_lformat *fg_lformat_of(fg_format f);
/* FG_EPARSE with "input line N: MSG" as the error detail. */
int fg_lctx_fail(const fg_lctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

extern const fg_lformat fg_lformat_recursive, fg_lformat_sample, fg_lformat_vtune,
	fg_lformat_vsprof, fg_lformat_ghcprof, fg_lformat_xctrace;

/* A stack of names owned by a line format's state (the open call tree):
 * names copied into one buffer, popped and pushed by depth. */
typedef struct fg_lstack {
	fg_strbuf names;
	size_t *ends;          /* ends[i]: end of frame i in names */
	size_t depth, alloc;
} fg_lstack;
/* Cuts the stack to `depth` frames. */
void fg_lstack_cut(fg_lstack *s, size_t depth);
/* Pushes a frame (optionally "module`name" when mod.len). FG_ENOMEM. */
int fg_lstack_push(fg_lstack *s, fg_view mod, fg_view name);
/* Pushes the frames into x's worker, root first, and emits count. */
void fg_lstack_emit(fg_lctx *x, const fg_lstack *s, uint64_t count);
void fg_lstack_release(fg_lstack *s);

/* Samples handed over as data (perf_sample.c, perf.c): the text perf
 * script prints for s appended to b (FG_ENOMEM); whether s is plain, so
 * that fg_perf_fold_sample folds it as fg_perf_parse would its text, and
 * that text's length in *text_len; the fold itself, its lines counted on
 * from *lineno (chunk seq, for warnings). */
int fg_sample_text(fg_strbuf *b, const fg_sample *s);
bool fg_perf_sample_plain(const fg_sample *s, uint64_t *text_len);
void fg_perf_fold_sample(fg_cworker *w, const fg_cshared *sh, const fg_sample *s, uint64_t seq,
			 uint64_t *lineno);

/* Where a chunk may end: the offset just past the last stateless point in
 * buf[from..len), or 0 when there is none. */
size_t fg_perf_boundary(const char *buf, size_t from, size_t len);
size_t fg_dtrace_boundary(const char *buf, size_t from, size_t len);
/* True when buf's first lines are folded stacks ("a;b;c 12"). */
bool fg_guess_is_folded(const char *buf, size_t len);

/* perf: the event type of the first event header in buf that names one
 * (a view into buf), or an empty view. Stacks the parser would skip as
 * too big (`dropped`: as for fg_perf_parse) are not looked at. */
fg_view fg_perf_first_event(const char *buf, size_t len, bool dropped);

/* Parsing pieces shared with the format guesser. */
bool fg_perf_header_ok(fg_view line);
/* An event header's command name, PID (empty when perf printed only the
 * TID), TID and the rest of the line after them. */
bool fg_perf_header_split(fg_view line, fg_view *comm, fg_view *pid, fg_view *tid, fg_view *rest);
bool fg_perf_stack_ok(fg_view line);

#endif
