/* Link-layout and debug-info checks on an executable (the read-only
 * segment split lld and mold make, frame pointers, debug info), with
 * libelf, before it is profiled:
 *
 *  - rosegment: a read-only PT_LOAD followed by an executable PT_LOAD whose
 *    file offset is not page-aligned (ld.lld's default, mold too); older
 *    perf/libunwind then mis-map code and stacks come out flat;
 *  - no debug info: neither .debug_info nor .debug_line;
 *  - no frame pointers: the DWARF producer string (DW_AT_producer, kept in
 *    .debug_str / .debug_line_str) shows -fomit-frame-pointer, or an
 *    optimising GCC/clang without -fno-omit-frame-pointer (they omit frame
 *    pointers at -O1 and above). Only meaningful with debug info, and for
 *    clang only with -grecord-command-line (else it records no flags).
 *    Where no producer string says (a stripped program, clang without
 *    -grecord-command-line), an x86_64 program's unwind tables (.eh_frame,
 *    else .debug_frame) do: in the middle of a function built with frame
 *    pointers the CFA is given from rbp, built without it is given from
 *    rsp. Frame pointers are kept when at least 70% of the functions with
 *    a frame there give it from rbp, omitted at 20% or less; a share in
 *    between, or fewer than 4 such functions, leaves the verdict unknown. */
#ifndef FLAMEGRAPH_ELFCHECK_H
#define FLAMEGRAPH_ELFCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "flamegraph/api.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

typedef enum fg_frame_pointers {
	FG_FP_UNKNOWN = 0, /* no producer string nor unwind tables to judge by */
	FG_FP_PRESENT,     /* built with -fno-omit-frame-pointer (or -O0) */
	FG_FP_OMITTED,     /* built without frame pointers */
} fg_frame_pointers;

typedef struct fg_elfcheck_report {
	bool is_elf;           /* false: not an ELF file (a script...): no checks */
	bool rosegment;        /* the lld/mold layout described above */
	char linker[64];       /* "LLD 14.0.6", "mold 1.10.1", "GNU ld" or "" */
	bool has_debug_info;   /* .debug_info or .debug_line present */
	/* true: frame_pointers comes from the unwind tables, not the producer
	 * strings, and fp_units and no_fp_units count functions. It sits in
	 * the padding byte before frame_pointers, so the struct has the size
	 * and the other fields the offsets of one without it. */
	bool fp_from_unwind;
	fg_frame_pointers frame_pointers; /* what most compile units say (or the unwind tables) */
	unsigned fp_units;     /* producer strings that keep frame pointers
	                          (fp_from_unwind: functions whose CFA comes from rbp) */
	unsigned no_fp_units;  /* producer strings that omit them
	                          (fp_from_unwind: functions whose CFA does not) */
	char producer[256];    /* a producer string that agrees with the verdict, or "" */
} fg_elfcheck_report;

/* Checks the ELF file at path. FG_ENOTFOUND / FG_EIO when it cannot be
 * opened; a file that is not ELF is not an error (report->is_elf false). */
int fg_elfcheck_file(const char *path, fg_elfcheck_report *report);

/* Same, on an ELF image in memory (tests, fuzzing). */
int fg_elfcheck_memory(const void *data, size_t len, fg_elfcheck_report *report);

/* Which build system's fix to quote in the warnings. */
typedef enum fg_fix_style {
	FG_FIX_GENERIC = 0, /* compiler/linker flags */
	FG_FIX_CMAKE,       /* -DCMAKE_EXE_LINKER_FLAGS=... */
	FG_FIX_TOML,        /* flamegraph.toml [build] ldflags/cflags */
} fg_fix_style;

/* The warning messages (with the exact fix) that a report calls for, for
 * profiling with --call-graph fp when `fp_mode`. Calls cb once per
 * warning; returns how many. */
typedef void (*fg_elfcheck_warn_cb)(void *ctx, const char *msg);
unsigned fg_elfcheck_warnings(const fg_elfcheck_report *report, const char *path,
			      bool fp_mode, fg_fix_style style,
			      fg_elfcheck_warn_cb cb, void *ctx);

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
