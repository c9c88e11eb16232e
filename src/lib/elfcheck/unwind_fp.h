/* Frame pointers judged from a program's unwind tables (.eh_frame, else
 * .debug_frame), for programs whose debug info does not say how they were
 * built (stripped ones above all). See unwind_fp.c for the rule. */
#ifndef FG_LIB_ELFCHECK_UNWIND_FP_H
#define FG_LIB_ELFCHECK_UNWIND_FP_H

#include <libelf.h>

#include "flamegraph/elfcheck.h"

/* What the unwind tables of one ELF file show. */
typedef struct fg_unwind_fp {
	unsigned functions; /* functions judged: with a frame mid-function (see unwind_fp.c) */
	unsigned rbp_cfa;   /* of them, those whose CFA comes from rbp there */
} fg_unwind_fp;

/* At least this many functions for a verdict; and the shares (in percent
 * of them, rbp-based) at or above which frame pointers are kept, at or
 * below which they are omitted. Measured (unwind_fp.c): programs built
 * with frame pointers 85-100%, Debian's built without 0-6% for most,
 * up to 45% for a few that use alloca or realigned stacks a lot. */
#define FG_UNWIND_FP_MIN_FUNCTIONS 4
#define FG_UNWIND_FP_KEPT_PCT 70
#define FG_UNWIND_FP_OMITTED_PCT 20

/* Counts the functions of e (x86_64 ELF only: elsewhere counts stays 0)
 * and gives the verdict: FG_FP_UNKNOWN for another machine, too few
 * functions, or a share between the two thresholds. counts may be NULL. */
fg_frame_pointers fg_unwind_frame_pointers(Elf *e, fg_unwind_fp *counts);

#endif
