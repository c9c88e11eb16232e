/* Internals of the perf.data stage: the recording's state as the records
 * build it (threads, processes and their maps: machine.c) and the
 * symbol sources (ELF modules with their DWARF, kallsyms: symbols.c,
 * kallsyms.c, debugcache.c; JIT map files: jitmap.c). reader.c walks
 * the records and drives both (its state in reader.h, shared with
 * header.c: the header and features; sample.c: sample records; queue.c:
 * the ordering queue; pipe.c: the pipe form and streams), with the
 * records of compressed records decompressed by compressed.c; collapse.c hands samples to the
 * collapser. Samples with frame-pointer chains and small stack copies
 * are joined into whole stacks by hybrid.c (hybrid.h). */
#ifndef FG_LIB_PERFDATA_INTERNAL_H
#define FG_LIB_PERFDATA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

#include "flamegraph/perfdata.h"
#include "util/arena.h"
#include "util/hashmap.h"
#include "util/strbuf.h"

/* ---- u64map.c ---- */

struct pd_u64slot {
	uint64_t key, value;
	bool used;
};

/* An open-addressing hash map from 64-bit keys to 64-bit values; all
 * zero is an empty map. */
typedef struct pd_u64map {
	struct pd_u64slot *slots; /* a power of 2 of them, at most half used */
	size_t alloc, count;
} pd_u64map;

/* The value of key, or NULL. */
uint64_t *pd_u64map_get(const pd_u64map *m, uint64_t key);
/* The value of key in *value, made (0) when new; valid until the next
 * put. Returns 0 or FG_ENOMEM. */
int pd_u64map_put(pd_u64map *m, uint64_t key, uint64_t **value);
void pd_u64map_release(pd_u64map *m);

/* ---- symbols.c ---- */

struct pd_elfsym {
	uint64_t start, end;      /* ELF virtual addresses; end exclusive */
	const char *name;         /* in the module's arena; kallsyms: in its
				     text, up to a tab or newline */
	const char *mod;          /* unused by kallsyms (named with the symbol) */
};

/* A source position: a file name (owned by the DWARF) and a line; file
 * NULL: not known. */
struct pd_srcpos {
	const char *file;
	unsigned line;
};

/* A resolved address: frames[first .. first + n) of the module's pool. */
struct pd_resolved {
	uint32_t first, n;
};

/* cuindex.c: where a module's compile units are (see cuindex.h) */
typedef struct pd_cu_index {
	struct pd_cu_range *sorted; /* .debug_aranges, by address */
	size_t nsorted, asorted;
	struct pd_cu_range *units;  /* every unit's ranges, in unit order */
	size_t nunits, aunits;
	bool aranges_read, units_read;
} pd_cu_index;

/* scopes.c: the scopes of the compile units met so far (see scopes.h) */
typedef struct pd_scope_index {
	struct pd_unit_scopes *v;
	size_t n, a;
} pd_scope_index;

typedef struct pd_module {
	char *path;               /* as the map names it */
	uint8_t build_id[20];
	size_t build_id_len;      /* 0: the recording gave none */
	bool loaded, kernel, vdso;
	bool partial_symbols;     /* only its exported symbols (.dynsym): the
				     full table is in a separate debug file
				     that was not found */
	uint64_t unnamed;         /* then, its addresses resolved to no symbol */
	bool anon;                /* no file behind it: addresses stay as they are */
	bool jit;                 /* a JIT map file ("/tmp/perf-PID.map", named
				     for the process' executable anonymous
				     maps, as perf does): anon, its symbols
				     those of the file, loaded on first use */
	struct pd_jitmap *jitmap; /* the file's symbols, or NULL (none, or no file) */
	char *elf_path;           /* the runtime ELF loaded (the map's file or its
				     build-id cache copy), or NULL */
	const void *image;        /* or, for the vdso of this very kernel, its
				     image in memory (image_size bytes) */
	size_t image_size;
	uint16_t elf_type;        /* ET_EXEC, ET_DYN... of the runtime ELF */
	/* its PLT entries (ELF addresses, end exclusive): lazy ones (.plt),
	 * and those that push nothing (.plt.sec, else .plt.got) */
	uint64_t plt_start, plt_end, plt_sec_start, plt_sec_end;
	/* the runtime ELF's PT_LOAD segments: file offset -> address */
	struct { uint64_t off, vaddr, filesz; } *segs;
	size_t nsegs;
	struct pd_elfsym *syms;   /* sorted by start (kallsyms: none) */
	size_t nsyms;             /* entries of syms, or of kstart and kname */
	void *dwarf;              /* Dwarf * of the symbol file, or NULL */
	void *dwarf_elf;          /* the Elf * it was opened from */
	pd_cu_index cus;          /* its compile units */
	pd_scope_index scopes;    /* and their scopes */
	int dwarf_fd;
	fg_arena arena;           /* names */
	char *text;               /* kallsyms: the file (mapped, or read) */
	size_t text_len;
	bool text_mapped;
	void *kindex;             /* kallsyms: the cache's index of this text
				     (mapped, kindex_len bytes), or NULL */
	size_t kindex_len;
	uint64_t *kstart;         /* kallsyms: the symbols' addresses, sorted */
	uint32_t *kname;          /* and where their names are in text */
	int64_t kdelta;           /* added to kstart: where the recording's
				     kernel was */
	pd_u64map cache;          /* address -> packed pd_resolved */
	pd_u64map die_names;      /* DIE offset -> its name (die_name) */
	fg_perfdata_frame *pool;  /* resolved frames */
	size_t npool, apool;
} pd_module;

typedef struct pd_symbols {
	fg_perfdata_opts opts;
	fg_strmap modules;        /* path -> pd_module * */
	pd_module kernel;         /* kallsyms, loaded on first use */
	fg_strmap buildids;       /* path -> build id (from the BUILD_ID feature) */
	uint64_t kernel_text;     /* where the recording's kernel map says _text
				     was (0: not known) */
	uint64_t loaded;
} pd_symbols;

void pd_symbols_init(pd_symbols *s, const fg_perfdata_opts *opts);
void pd_symbols_release(pd_symbols *s);
/* Records the build id perf saw for a file. */
int pd_symbols_add_buildid(pd_symbols *s, const char *path, size_t plen, const uint8_t *id,
			   size_t idlen);
/* Loads m (once): symbols, segments and the runtime ELF's name. Returns
 * 0 (also when no file could be found) or FG_ENOMEM. */
int pd_symbols_load(pd_symbols *s, pd_module *m);
/* The module of a mapped file name (created, not loaded, on first use). */
pd_module *pd_symbols_module(pd_symbols *s, const char *path);
/* Resolves a user address (rel: relative to the file as the map gives
 * it: address - map start + page offset) or, for the kernel module, an
 * address: *frames points to n frames (innermost first) valid until the
 * next call. Returns 0 or FG_ENOMEM. */
int pd_symbols_resolve(pd_symbols *s, pd_module *m, uint64_t rel, const fg_perfdata_frame **frames,
		       size_t *n);

/* The next module (from *iter, 0 at first) with addresses named after it
 * for want of its debug file (pd_module.partial_symbols), its path and
 * that count; false when there is no more. */
bool pd_symbols_missing_debug(const pd_symbols *s, size_t *iter, const char **path,
			      uint64_t *addresses);

/* The build id of m in hex (out: 41 bytes). */
void pd_hex_id(const pd_module *m, char *out);

/* ---- kallsyms.c ---- */

/* Loads the kernel module m (once): its symbols, sorted. Returns 0 (also
 * when no kallsyms could be read) or FG_ENOMEM. */
int pd_kallsyms_load(pd_symbols *s, pd_module *m);
/* The symbol of the kernel module m holding addr, in *out (its name in
 * m's text), or false. */
bool pd_kallsyms_find(const pd_module *m, uint64_t addr, struct pd_elfsym *out);
/* The name and module ("[ext4]", or NULL) of a symbol of m, in m's
 * arena. Returns 0 or FG_ENOMEM. */
int pd_kallsyms_names(pd_module *m, const struct pd_elfsym *sym, const char **name,
		      const char **module);
void pd_kallsyms_release(pd_module *m);

/* ---- debugcache.c ---- */

/* Whether elf has compressed DWARF (worth an uncompressed copy). */
bool pd_debugcache_wanted(Elf *elf);
/* The uncompressed copy of src's DWARF in folder dir, named after its
 * build id (hex): opened when there, else written first (src's sections
 * are inflated for that). NULL (*fd -1) when there is no copy and none
 * could be written: the caller reads src itself. */
Elf *pd_debugcache_open(const char *dir, const char *hex_build_id, Elf *src, int *fd);
struct iovec;
/* Writes the parts into dir/name (folders made as needed), under a
 * temporary name renamed into place. Whether it was written. */
bool pd_cache_write(const char *dir, const char *name, const struct iovec *parts, int nparts);

/* ---- jitmap.c ---- */

typedef struct pd_jitmap pd_jitmap;

/* The name perf gives an executable anonymous map of process pid (its
 * JIT map file), in buf (at least PD_JITMAP_NAME_MAX bytes). */
#define PD_JITMAP_NAME_MAX 32
void pd_jitmap_name(char *buf, int32_t pid);
/* Whether a map of this name with these protections (PROT_*; MMAP
 * records, which have none, pass PROT_EXEC unless they map data) and
 * flags (MAP_*) is one perf reads a JIT map file for. */
bool pd_jitmap_wanted(const char *name, uint32_t prot, uint32_t flags);
/* Parses a map file's text (len bytes, NUL-terminated, allocated with
 * malloc): *out takes it over and cuts the names out of it in place.
 * Malformed lines are skipped (and counted). Returns 0 or FG_ENOMEM (then
 * text is still the caller's). */
int pd_jitmap_parse(pd_jitmap **out, char *text, size_t len);
/* The same on a copy of buf (tests, fuzzing). */
int pd_jitmap_parse_mem(pd_jitmap **out, const char *buf, size_t len);
/* Reads and parses the file at path. A file that does not exist or is
 * not a regular file gives *out = NULL and 0, as do errors reading it;
 * FG_ENOMEM otherwise. */
int pd_jitmap_load(pd_jitmap **out, const char *path);
/* The entry perf finds for an absolute address (its name is valid as
 * long as m), or NULL; m may be NULL. */
const struct pd_elfsym *pd_jitmap_find(const pd_jitmap *m, uint64_t addr);
/* How many lines became entries, and how many were skipped. */
void pd_jitmap_counts(const pd_jitmap *m, size_t *entries, size_t *skipped);
void pd_jitmap_free(pd_jitmap *m);

/* ---- demangle.c ---- */

/* A C++ name ("_Z...") demangled into arena without the return type
 * template instances carry ("work::churn<long>(std::map<...>&, int)"),
 * or name itself (not mangled, no demangler, not demangled); NULL, with
 * FG_ENOMEM set, when memory ran out. The demangler is libstdc++'s
 * __cxa_demangle, looked up on first use. */
const char *pd_demangle(fg_arena *arena, const char *name);

/* ---- machine.c ---- */

struct pd_map {
	uint64_t start, end, pgoff; /* end exclusive */
	pd_module *mod;
};

typedef struct pd_proc {
	struct pd_map *maps;      /* sorted by start, not overlapping */
	size_t n, alloc;
	uint64_t gen;             /* changes whenever code is mapped (reader.c) */
	bool execd;               /* an exec of it (or of the process it was
				     forked from) was seen */
} pd_proc;

typedef struct pd_thread {
	int32_t pid, tid;
	const char *comm;         /* interned; NULL: never named */
} pd_thread;

typedef struct pd_machine {
	fg_strmap threads;        /* 4-byte tid -> pd_thread * */
	fg_strmap procs;          /* 4-byte pid -> pd_proc * */
	fg_strmap names;          /* interned comms */
	fg_arena arena;           /* threads */
	uint64_t epoch;           /* changes whenever a process' maps do */
	int32_t last_pid;         /* the process asked for last */
	pd_proc *last_proc;
	pd_thread *last_thread;   /* the thread found last */
} pd_machine;

void pd_machine_init(pd_machine *m);
void pd_machine_release(pd_machine *m);
/* The thread (created with its process' maps on first sight). NULL:
 * FG_ENOMEM. */
pd_thread *pd_machine_thread(pd_machine *m, int32_t pid, int32_t tid);
pd_proc *pd_machine_proc(pd_machine *m, int32_t pid);
int pd_machine_comm(pd_machine *m, int32_t pid, int32_t tid, const char *comm, size_t len);
int pd_machine_fork(pd_machine *m, int32_t pid, int32_t ppid, int32_t tid, int32_t ptid);
/* An exec in pid: its maps are dropped (the new program's follow). */
int pd_machine_exec(pd_machine *m, int32_t pid);
/* Adds a map to pid's process, replacing what it overlaps. */
int pd_machine_mmap(pd_machine *m, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		    pd_module *mod);
/* The map of pid holding addr, or NULL. */
const struct pd_map *pd_machine_find_map(pd_machine *m, int32_t pid, uint64_t addr);

/* ---- unwind.c ---- */

/* perf's x86_64 user register numbers (asm/perf_regs.h) */
enum { PD_REG_BP = 6, PD_REG_SP = 7, PD_REG_IP = 8, PD_NREGS = 24 };

/* A sample's user state, as PERF_SAMPLE_REGS_USER and STACK_USER give
 * it: regs[i] is valid when bit i of mask is set; the stack copy starts
 * at regs[PD_REG_SP] and holds stack_len valid bytes. */
struct pd_user_state {
	uint64_t regs[PD_NREGS];
	uint64_t mask;
	const unsigned char *stack;
	uint64_t stack_len;
	/* the copy's valid bytes from stack_len up to stack_full were left
	 * in the recording: more(more_ctx, at + i, len, dst) reads bytes i ..
	 * i + len of the copy (0 on success); stack_full 0: none left */
	uint64_t stack_full;
	uint64_t at;
	int (*more)(void *ctx, uint64_t off, size_t len, unsigned char *dst);
	void *more_ctx;
	/* or NULL; else reach[i] gets how many bytes of the copy were read
	 * before frame i was known (pd_unwind's pcs[i]) */
	uint64_t *reach;
};

typedef struct pd_unwinder pd_unwinder;

/* Unwinder over the processes of m, its modules from s (both must
 * outlive it). Returns 0 or FG_ENOMEM. */
int pd_unwinder_new(pd_unwinder **out, pd_symbols *s, pd_machine *m);
void pd_unwinder_free(pd_unwinder *u);
/* Unwinds the user stack of a sample of thread tid of pid from its
 * state: pcs[0 .. *n) get the frames' addresses, leaf first, callers'
 * return addresses minus one (the call instruction, where perf looks
 * up their symbols). Frames that cannot be unwound are left out: *n may
 * be 0. Returns 0 or FG_ENOMEM. */
int pd_unwind(pd_unwinder *u, int32_t pid, int32_t tid, const struct pd_user_state *st,
	      uint64_t *pcs, size_t max, size_t *n);
/* How many bytes of its stack copy the last sample unwound read. */
uint64_t pd_unwind_used(const pd_unwinder *u);
/* Whether the last sample unwound reached the outermost frame (one
 * without a return address, or whose return address is 0). */
bool pd_unwind_outermost(const pd_unwinder *u);
/* Drops what was kept for process pid (it exited). */
void pd_unwinder_forget(pd_unwinder *u, int32_t pid);

/* ---- compressed.c ---- */

struct pd_chunk_list;

/* A block of records: read from a stream, or decompressed out of one
 * compressed record (perf record -z); led by the bytes of a record the
 * chunk before ended inside of. */
typedef struct pd_chunk {
	unsigned char *data;
	size_t len, cap;
	uint64_t off;             /* read: the stream offset of data[0];
				     inflated: the file offset of its
				     compressed record */
	bool inflated;
	size_t refs;              /* records of it waiting in the reader's queue */
	struct pd_chunk_list *list;
	struct pd_chunk *prev, *next;
} pd_chunk;

/* Chunks still in use, oldest first; and a few no longer used, kept
 * for the next ones (linked by next). */
typedef struct pd_chunk_list {
	pd_chunk *first, *last;
	pd_chunk *spares;
	size_t nspares;
} pd_chunk_list;

/* A new chunk at the end of list with room for want bytes (at most 64
 * MiB), *out, starting with the last tail_len bytes of the chunk before,
 * which is freed unless records of it are queued. 0 or FG_ENOMEM. */
int pd_chunk_new(pd_chunk_list *list, uint64_t off, size_t tail_len, size_t want, pd_chunk **out);
/* One queued record of c was handled: c is freed once none is left,
 * unless it is the newest chunk (its tail may continue in the next). */
void pd_chunk_unref(pd_chunk *c);
void pd_chunks_release(pd_chunk_list *list);

/* The zstd stream of a recording's compressed records and the chunks
 * decompressed from it. */
typedef struct pd_inflater {
	void *stream;             /* ZSTD_DStream, made on first use */
	pd_chunk_list chunks;
} pd_inflater;

void pd_inflater_init(pd_inflater *z);
void pd_inflater_release(pd_inflater *z);
/* Decompresses the data of the compressed record at file offset off
 * (src, len: the part of the stream it holds) into a new chunk, *out,
 * which starts with the last tail_len bytes of the chunk before. The
 * chunk before is freed unless records of it are queued. Returns 0,
 * FG_ENOMEM, or FG_EPARSE with *why (static) saying what is wrong with
 * the data; the caller words the message. */
int pd_inflate(pd_inflater *z, uint64_t off, const unsigned char *src, size_t len, size_t tail_len,
	       pd_chunk **out, const char **why);

/* ---- byte access ---- */

static inline uint64_t pd_u64(const unsigned char *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, 8);
	return v;
}

static inline uint32_t pd_u32(const unsigned char *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
}

static inline uint16_t pd_u16(const unsigned char *p)
{
	uint16_t v;
	__builtin_memcpy(&v, p, 2);
	return v;
}

#endif
