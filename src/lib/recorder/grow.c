/* The hybrid samples' copy grows when it falls short.
 *
 * A hybrid sample's copy only has to reach the frame the kernel's
 * frame-pointer walk starts from: the return address at rbp + 8 of the
 * sampled registers. Where the code near the sample keeps large locals
 * without a frame pointer (the C library's qsort with its buffer on the
 * stack, snprintf's kilobytes of frames), rbp lies beyond the copy, and
 * the frames between the copy's end and that frame are lost. Which
 * samples those are can be told from their registers alone, as the
 * records go by: rbp above rsp by more than the copy.
 *
 * The events are inherited into every thread and child process, and the
 * kernel changes an inherited event's settings for none of them; it
 * does switch a whole family on or off. So a second event with the
 * larger copy is opened beside the first on every CPU and task, off;
 * when too many samples fell short, it is switched on and the first
 * off, for the whole recording. It carries the side-band records too,
 * since the first, which carried them, stops. */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/recorder/internal.h"
#include "util/banned.h"

/* Whether the first event's samples are hybrid ones with a copy smaller
 * than the grown one (then the second event is worth opening). */
static bool can_grow(const rn_state *st)
{
	const struct perf_event_attr *a = &st->attr;

	return st->o->mode == FG_RECORDER_ON_CPU && !st->o->frame_pointers &&
	       (a->sample_type & PERF_SAMPLE_STACK_USER) && a->sample_regs_user == RN_REGS_HYBRID &&
	       !a->exclude_callchain_user && a->sample_stack_user < RN_GROWN_STACK;
}

int rn_grow_open(rn_state *st, pid_t pid, size_t i)
{
	struct perf_event_attr *g = &st->grown;
	int fd;

	if (!can_grow(st))
		return 0;
	*g = st->attr;
	g->sample_stack_user = RN_GROWN_STACK;
	g->disabled = 1;
	g->enable_on_exec = 0;
	fd = rn_sys_open(g, pid, st->cpus[i], -1);
	/* refused: the small copies go on alone */
	if (fd < 0)
		return 0;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, st->rings[i].fd) != 0) {
		close(fd);
		return 0;
	}
	return rn_event_keep(fd, &st->gfds, &st->gids, &st->ngids, &st->agids);
}

/* The user rbp and rsp of a sample of the first event (its layout from
 * the sample type): false when it has none. */
static bool sample_bp_sp(const rn_state *st, const unsigned char *p, uint16_t size, uint64_t *bp,
			 uint64_t *sp)
{
	uint64_t t = st->attr.sample_type, nr, abi;
	size_t off = sizeof(struct perf_event_header);

	off += 8 * (!!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_IP) +
		    !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ADDR) +
		    !!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) +
		    !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_PERIOD));
	if ((t & (PERF_SAMPLE_READ | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK)) ||
	    !(t & PERF_SAMPLE_CALLCHAIN) || off + 8 > size)
		return false;
	memcpy(&nr, p + off, 8);
	if (nr > (size - off) / 8)
		return false;
	off += 8 + 8 * (size_t)nr;
	/* abi, then bp, sp, ip: the registers of RN_REGS_HYBRID in order */
	if (off + 32 > size)
		return false;
	memcpy(&abi, p + off, 8);
	if (abi != PERF_SAMPLE_REGS_ABI_64)
		return false;
	memcpy(bp, p + off + 8, 8);
	memcpy(sp, p + off + 16, 8);
	return true;
}

void rn_grow_count(rn_state *st, const unsigned char *p, uint16_t size)
{
	uint64_t bp, sp, copy = st->attr.sample_stack_user;

	if (!st->ngids || st->grown_on || !sample_bp_sp(st, p, size, &bp, &sp))
		return;
	st->hybrid_samples++;
	/* a frame pointer past the copy, within a stack's reach (beyond
	 * it, rbp holds something else than a frame) */
	if (bp > sp && bp - sp + 16 > copy && bp - sp < ((uint64_t)8 << 20))
		st->short_samples++;
}

void rn_grow_check(rn_state *st)
{
	char note[256];

	if (!st->ngids || st->grown_on || st->hybrid_samples < RN_GROW_AFTER ||
	    st->short_samples < RN_GROW_MIN ||
	    st->short_samples * RN_GROW_SHARE <= st->hybrid_samples)
		return;
	/* the grown events first: no moment without side-band records */
	for (size_t i = 0; i < st->ngids; i++)
		(void)ioctl(st->gfds[i], PERF_EVENT_IOC_ENABLE, 0);
	for (size_t i = 0; i < st->nfds; i++)
		(void)ioctl(st->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	st->grown_on = true;
	snprintf(note, sizeof(note),
		 "%llu of the first %llu samples had frames beyond their %u-byte stack copy: "
		 "the copy grows to %u bytes from here on",
		 (unsigned long long)st->short_samples, (unsigned long long)st->hybrid_samples,
		 (unsigned)st->attr.sample_stack_user, (unsigned)RN_GROWN_STACK);
	rn_emit(st, FG_RECORDER_NOTE, note);
}

void rn_grow_close(rn_state *st)
{
	for (size_t i = 0; i < st->ngids; i++)
		close(st->gfds[i]);
	st->ngids = 0;
}
