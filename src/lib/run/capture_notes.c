#include <signal.h>
#include <string.h>

#include "lib/run/capture_notes.h"
#include "util/banned.h"

/* Large: a rate that fills a disk in minutes, or a cap reached within a
 * minute of one busy thread. */
#define LARGE_RATE (100ull * 1024 * 1024)
#define CAP_SECONDS 60

void fg_capture_note_plan(fg_strbuf *out, const fg_record_plan *plan, const fg_record_opts *rec,
			  const char *dir)
{
	char rate[32], cap[32];
	bool soon = plan->max_size && plan->bytes_per_second * CAP_SECONDS > plan->max_size;

	if (plan->bytes_per_second < LARGE_RATE && !soon)
		return;
	fg_record_format_size(rate, sizeof(rate), plan->bytes_per_second);
	fg_record_format_size(cap, sizeof(cap), plan->max_size);
	fg_strbuf_addf(out, "recording into %s at about %s/s per busy thread (%s call graphs at %u Hz)",
		       dir, rate, fg_call_graph_name(rec->call_graph), fg_record_freq(rec));
	if (plan->max_size)
		fg_strbuf_addf(out, "; it stops at %s%s — change that with `opts.record.max_size`, or record "
			       "elsewhere with TMPDIR", cap,
			       plan->max_size_default ? ", half the free space there" : "");
	if (rec->call_graph == FG_CALL_GRAPH_DWARF)
		fg_strbuf_addstr(out, "; `opts.record.call_graph=fp` records about 1% as much");
}

static void sep(fg_strbuf *out)
{
	if (out->len)
		fg_strbuf_addstr(out, " — ");
}

void fg_capture_subtitle(fg_strbuf *out, const char *user, const fg_profile_result *res,
			 uint64_t recorded)
{
	char cap[32];

	if (user && *user)
		fg_strbuf_addstr(out, user);
	if (res->capped) {
		fg_record_format_size(cap, sizeof(cap), res->max_size);
		sep(out);
		fg_strbuf_addf(out, "recording stopped at its %s cap: covers the first %.1f s", cap,
			       res->seconds_at_cap);
		if (res->seconds_run > res->seconds_at_cap + 0.05)
			fg_strbuf_addf(out, " of %.1f s", res->seconds_run);
	}
	if (res->lost_known && res->lost) {
		double pct = 100.0 * (double)res->lost / (double)(recorded + res->lost);
		sep(out);
		fg_strbuf_addf(out, "%.*f%% of samples lost (%llu of %llu): record with `opts.record.call_graph=fp`, "
			       "a lower `opts.record.freq` or a bigger `opts.record.buffer_bytes`", pct < 0.1 ? 2 : 1, pct,
			       (unsigned long long)res->lost, (unsigned long long)(recorded + res->lost));
	}
	if (res->interrupted && res->interrupt_signal) {
		sep(out);
		fg_strbuf_addf(out, "interrupted (%s) after %.1f s",
			       res->interrupt_signal == SIGINT ? "Ctrl-C" :
			       res->interrupt_signal == SIGTERM ? "SIGTERM" :
			       res->interrupt_signal == SIGHUP ? "SIGHUP" : "a signal",
			       res->seconds_run);
	}
}

void fg_capture_note_debug(fg_strbuf *out, const fg_perfdata *pd)
{
	fg_strbuf list = FG_STRBUF_INIT;
	const char *path, *base = "";
	uint64_t addresses, first = 0;
	size_t iter = 0, n = 0;
	bool libc = false;

	while (pd && fg_perfdata_missing_debug(pd, &iter, &path, &addresses)) {
		base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		libc |= !strncmp(base, "libc.so", 7);
		if (!n++)
			first = addresses;
		fg_strbuf_addf(&list, "%s%llu in %s", n > 1 ? ", " : "", (unsigned long long)addresses,
			       path);
	}
	if (n == 1)
		fg_strbuf_addf(out, "%llu sampled addresses in %s show as [%s], without a symbol: it "
			       "keeps only its exported symbols, and its separate debug file is not "
			       "installed", (unsigned long long)first, path, base);
	else if (n > 1)
		fg_strbuf_addf(out, "sampled addresses show as their library's name, without a symbol "
			       "(%s): these keep only their exported symbols, and their separate "
			       "debug files are not installed", list.buf);
	if (n)
		fg_strbuf_addf(out, " — install %s (Debian and Ubuntu: %sthe library's -dbg or "
			       "-dbgsym package; Fedora: dnf debuginfo-install) to name them",
			       n > 1 ? "them" : "it", libc ? "libc6-dbg for the C library, else " : "");
	fg_strbuf_release(&list);
}

void fg_capture_note_cut(fg_strbuf *out, const fg_perfdata *pd)
{
	uint64_t samples = 0, cut = 0;

	if (pd)
		fg_perfdata_hybrid_counts(pd, &samples, &cut);
	/* a cut stack keeps its frame-pointer frames: a few are no matter */
	if (cut < 10 || cut * 50 <= samples)
		return;
	fg_strbuf_addf(out, "%.1f%% of the samples (%llu of %llu) had a stack copy too short to "
		       "reach a frame with a frame pointer: their stacks are the frame-pointer "
		       "walk's alone, and frames of code built without frame pointers may be "
		       "missing there — `opts.record.recorder=perf` copies whole stacks",
		       100.0 * (double)cut / (double)samples, (unsigned long long)cut,
		       (unsigned long long)samples);
}
