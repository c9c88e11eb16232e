/* What the pipeline tells about a recording in words: the note before a
 * costly recording, and the subtitle line of a graph whose recording was
 * capped, lost samples or was interrupted. */
#ifndef FG_LIB_RUN_CAPTURE_NOTES_H
#define FG_LIB_RUN_CAPTURE_NOTES_H

#include <stdint.h>

#include "flamegraph/perfdata.h"
#include "flamegraph/profile.h"
#include "flamegraph/record.h"
#include "util/strbuf.h"

/* A note for out when the recording will be large: where it goes, at what
 * rate, where it stops and how to change that. Leaves out empty when the
 * rate is modest and the cap far. */
void fg_capture_note_plan(fg_strbuf *out, const fg_record_plan *plan, const fg_record_opts *rec,
			  const char *dir);

/* The subtitle: the user's (may be NULL), then what the graph does not
 * cover. recorded: the samples in the recording. */
void fg_capture_subtitle(fg_strbuf *out, const char *user, const fg_profile_result *res,
			 uint64_t recorded);

/* The note for a library whose sampled addresses no symbol names because
 * its debug file is missing (fg_perfdata_missing_debug): which, how many,
 * what to install. Nothing when there is none (or pd is NULL). */
void fg_capture_note_debug(fg_strbuf *out, const fg_perfdata *pd);
/* The share of the native recorder's samples whose small stack copy was
 * too short, when more than 2% and at least 10, with advice (nothing
 * otherwise). */
void fg_capture_note_cut(fg_strbuf *out, const fg_perfdata *pd);

#endif
