/* Unit tests of the hybrid stacks (src/lib/perfdata/hybrid.c): frames
 * unwound by the CFI rules over a small copy, spliced with the kernel's
 * frame-pointer chain, on synthetic stacks of a program built with frame
 * pointers calling into a C library without them:
 *
 *   _start -> __libc_start_main -> __libc_start_call_main -> main ->
 *   work -> memcpy
 *
 * main and work keep frame pointers; the C library's functions do not.
 * The addresses: work's call of memcpy returns to RA_WORK, main's call
 * of work to RA_MAIN, __libc_start_call_main's call of main to RA_SCM,
 * and so on; frames in pd_unwind's form are those return addresses
 * minus one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <linux/perf_event.h>

#include "flamegraph/error.h"
#include "flamegraph/recorder.h"
#include "lib/perfdata/hybrid.h"
#include "lib/recorder/internal.h"

#define IP_MEMCPY 0x7f0000001000u /* the sample, in memcpy */
#define IP_WORK 0x555500002004u   /* a sample in work itself */
#define RA_WORK 0x555500002010u   /* in work, after its call of memcpy */
#define RA_MAIN 0x555500001010u   /* in main, after its call of work */
#define RA_SCM 0x7f0000008010u    /* in __libc_start_call_main, after main */
#define RA_SM 0x7f0000008110u     /* in __libc_start_main */
#define RA_START 0x555500000910u  /* in _start */
#define GARBAGE 0x4141414141u     /* read through main's saved rbp */

/* The whole stack of a sample in memcpy, as the rules give it with a
 * copy that holds it all. */
static const uint64_t whole[] = { IP_MEMCPY, RA_WORK - 1, RA_MAIN - 1, RA_SCM - 1, RA_SM - 1,
				  RA_START - 1 };

#define N(a) (sizeof(a) / sizeof(*(a)))

static void assert_stack(const uint64_t *got, size_t n, const uint64_t *want, size_t nwant)
{
	size_t i;

	assert_int_equal(n, nwant);
	for (i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
}

/* A sample in memcpy: rbp is still work's frame, so the kernel's walk
 * reads main's return address first and never sees work's (RA_WORK).
 * The rules unwind memcpy, then work; work's return address is the
 * chain's first: the stack is the rules' three frames, then the chain's
 * rest. */
static void test_leaf_without_frame_pointer(void **state)
{
	const uint64_t fp[] = { IP_MEMCPY, RA_MAIN, RA_SCM };
	const uint64_t cfi[] = { IP_MEMCPY, RA_WORK - 1, RA_MAIN - 1, UINT64_MAX };
	const uint64_t want[] = { IP_MEMCPY, RA_WORK - 1, RA_MAIN - 1, RA_SCM - 1 };
	uint64_t out[16];
	size_t n, at;

	(void)state;
	assert_int_equal(pd_hybrid_splice(fp, N(fp), cfi, N(cfi), false, out, 16, &n, &at),
			 PD_SPLICE_JOINED);
	assert_stack(out, n, want, N(want));
	assert_int_equal(at, 2);
}

/* A sample in work: the chain is right from the start; the rules' first
 * return address is its first entry. */
static void test_frame_pointers_all_the_way(void **state)
{
	const uint64_t fp[] = { IP_WORK, RA_MAIN, RA_SCM };
	const uint64_t cfi[] = { IP_WORK, RA_MAIN - 1, UINT64_MAX };
	const uint64_t want[] = { IP_WORK, RA_MAIN - 1, RA_SCM - 1 };
	uint64_t out[16];
	size_t n, at;

	(void)state;
	assert_int_equal(pd_hybrid_splice(fp, N(fp), cfi, N(cfi), false, out, 16, &n, &at),
			 PD_SPLICE_JOINED);
	assert_stack(out, n, want, N(want));
	assert_int_equal(at, 1);
}

/* The copy ends inside memcpy's frame: nothing met the chain, which is
 * all there is after the sampled address (work is missing, as with frame
 * pointers alone). */
static void test_copy_too_small(void **state)
{
	const uint64_t fp[] = { IP_MEMCPY, RA_MAIN, RA_SCM };
	const uint64_t cfi[] = { IP_MEMCPY, UINT64_MAX };
	const uint64_t want[] = { IP_MEMCPY, RA_MAIN - 1, RA_SCM - 1 };
	uint64_t out[16];
	size_t n;

	(void)state;
	assert_int_equal(pd_hybrid_splice(fp, N(fp), cfi, N(cfi), false, out, 16, &n, NULL),
			 PD_SPLICE_CUT);
	assert_stack(out, n, want, N(want));
}

/* The copy ends inside work's frame (large locals): the rules found
 * memcpy and work, the chain starts at work's return address, beyond
 * them; both together are the stack. */
static void test_copy_ends_in_caller(void **state)
{
	const uint64_t fp[] = { IP_MEMCPY, RA_MAIN, RA_SCM };
	const uint64_t cfi[] = { IP_MEMCPY, RA_WORK - 1, UINT64_MAX };
	const uint64_t want[] = { IP_MEMCPY, RA_WORK - 1, RA_MAIN - 1, RA_SCM - 1 };
	uint64_t out[16];
	size_t n, at;

	(void)state;
	assert_int_equal(pd_hybrid_splice(fp, N(fp), cfi, N(cfi), false, out, 16, &n, &at),
			 PD_SPLICE_CUT);
	assert_stack(out, n, want, N(want));
	assert_int_equal(at, 1);
}

/* A chain of the sampled address alone (memcpy's rbp pointed nowhere):
 * the rules' frames, up to where the copy ended, say more. */
static void test_chain_empty(void **state)
{
	const uint64_t fp[] = { IP_MEMCPY };
	const uint64_t cfi[] = { IP_MEMCPY, RA_WORK - 1, UINT64_MAX };
	uint64_t out[16];
	size_t n;

	(void)state;
	assert_int_equal(pd_hybrid_splice(fp, N(fp), cfi, N(cfi), false, out, 16, &n, NULL),
			 PD_SPLICE_CUT);
	assert_stack(out, n, cfi, N(cfi));
}

/* The rules reached _start: their frames are the stack, whatever the
 * chain read after main (main's saved rbp). */
static void test_whole_copy(void **state)
{
	const uint64_t fp[] = { IP_MEMCPY, RA_MAIN, RA_SCM, GARBAGE };
	uint64_t out[16];
	size_t n;

	(void)state;
	assert_int_equal(pd_hybrid_splice(fp, N(fp), whole, N(whole), true, out, 16, &n, NULL),
			 PD_SPLICE_WHOLE);
	assert_stack(out, n, whole, N(whole));
}

/* A recursive function: its return address is in the chain twice; the
 * rules' innermost frame meets the chain's innermost entry. */
static void test_recursion(void **state)
{
	const uint64_t fp[] = { IP_MEMCPY, RA_WORK, RA_WORK, RA_MAIN };
	const uint64_t cfi[] = { IP_MEMCPY, RA_WORK - 1, RA_WORK - 1, UINT64_MAX };
	const uint64_t want[] = { IP_MEMCPY, RA_WORK - 1, RA_WORK - 1, RA_MAIN - 1 };
	uint64_t out[16];
	size_t n;

	(void)state;
	assert_int_equal(pd_hybrid_splice(fp, N(fp), cfi, N(cfi), false, out, 16, &n, NULL),
			 PD_SPLICE_JOINED);
	assert_stack(out, n, want, N(want));
}

/* The output is cut at max frames. */
static void test_max(void **state)
{
	const uint64_t fp[] = { IP_MEMCPY, RA_MAIN, RA_SCM };
	const uint64_t cfi[] = { IP_MEMCPY, RA_WORK - 1, RA_MAIN - 1, UINT64_MAX };
	uint64_t out[16];
	size_t n;

	(void)state;
	pd_hybrid_splice(fp, N(fp), cfi, N(cfi), false, out, 2, &n, NULL);
	assert_int_equal(n, 2);
	pd_hybrid_splice(fp, N(fp), cfi, N(cfi), true, out, 3, &n, NULL);
	assert_int_equal(n, 3);
}

/* The outermost frames: a whole stack of the process teaches them; a
 * later sample of it whose chain ends at __libc_start_call_main (here
 * with a made-up entry read through main's saved rbp after it) gets
 * them, the made-up entry dropped. Another process does not. */
static void test_outer_frames_appended(void **state)
{
	const uint64_t fp[] = { IP_MEMCPY, RA_MAIN, RA_SCM, GARBAGE };
	const uint64_t cfi[] = { IP_MEMCPY, RA_WORK - 1, RA_MAIN - 1, UINT64_MAX };
	const uint64_t want_before[] = { IP_MEMCPY, RA_WORK - 1, RA_MAIN - 1, RA_SCM - 1,
					 GARBAGE - 1 };
	pd_hybrid h;
	uint64_t out[16];
	size_t n;

	(void)state;
	memset(&h, 0, sizeof(h));
	/* nothing learnt yet: the chain as it is */
	assert_int_equal(pd_hybrid_stack(&h, 42, fp, N(fp), cfi, N(cfi), false, NULL, 0, out, 16,
					 &n), 0);
	assert_stack(out, n, want_before, N(want_before));
	assert_int_equal(h.stats.outer, 0);
	/* a whole one, which is also counted */
	assert_int_equal(pd_hybrid_stack(&h, 42, fp, N(fp), whole, N(whole), true, NULL, 900, out,
					 16, &n), 0);
	assert_stack(out, n, whole, N(whole));
	assert_int_equal(h.stats.whole, 1);
	assert_int_equal(h.stats.needed_max, 900);
	/* now the outer frames follow __libc_start_call_main's */
	assert_int_equal(pd_hybrid_stack(&h, 42, fp, N(fp), cfi, N(cfi), false, NULL, 0, out, 16,
					 &n), 0);
	assert_stack(out, n, whole, N(whole));
	assert_int_equal(h.stats.outer, 1);
	assert_int_equal(h.stats.joined, 2);
	/* another process: not its frames */
	assert_int_equal(pd_hybrid_stack(&h, 43, fp, N(fp), cfi, N(cfi), false, NULL, 0, out, 16,
					 &n), 0);
	assert_stack(out, n, want_before, N(want_before));
	/* the process exec'd: forgotten */
	pd_hybrid_forget(&h, 42);
	assert_int_equal(pd_hybrid_stack(&h, 42, fp, N(fp), cfi, N(cfi), false, NULL, 0, out, 16,
					 &n), 0);
	assert_stack(out, n, want_before, N(want_before));
	assert_int_equal(h.stats.samples, 5);
	pd_hybrid_release(&h);
}

/* The program's module (0x555500000000 in process 42) and the C
 * library's (0x7f0000000000) mapped at other places in process 43,
 * which runs the same program: what 42's whole stack taught serves 43,
 * at 43's addresses; a process with the C library but another program
 * shows other frames after the same place in the C library, which then
 * teaches nothing. */
static void test_outer_frames_shared(void **state)
{
	const uint64_t shift_prog = 0x1000000, shift_libc = 0x200000000;
	const uint64_t fp[] = { IP_MEMCPY, RA_MAIN, RA_SCM, GARBAGE };
	const uint64_t cfi[] = { IP_MEMCPY, RA_WORK - 1, RA_MAIN - 1, UINT64_MAX };
	const uint64_t fp43[] = { IP_MEMCPY + shift_libc, RA_MAIN + shift_prog, RA_SCM + shift_libc,
				  GARBAGE };
	const uint64_t cfi43[] = { IP_MEMCPY + shift_libc, RA_WORK - 1 + shift_prog,
				   RA_MAIN - 1 + shift_prog, UINT64_MAX };
	const uint64_t want43[] = { IP_MEMCPY + shift_libc, RA_WORK - 1 + shift_prog,
				    RA_MAIN - 1 + shift_prog, RA_SCM - 1 + shift_libc,
				    RA_SM - 1 + shift_libc, RA_START - 1 + shift_prog };
	const uint64_t other[] = { IP_MEMCPY, RA_WORK - 1 + 0x100, RA_MAIN - 1 + 0x100, RA_SCM - 1,
				   RA_SM - 1, RA_START - 1 + 0x100 };
	pd_module prog, prog2, libc;
	pd_machine m;
	pd_hybrid h;
	uint64_t out[16];
	size_t n;

	(void)state;
	memset(&prog, 0, sizeof(prog));
	memset(&prog2, 0, sizeof(prog2));
	memset(&libc, 0, sizeof(libc));
	memset(&h, 0, sizeof(h));
	pd_machine_init(&m);
	h.machine = &m;
	assert_int_equal(pd_machine_mmap(&m, 42, 0x555500000000u, 0x10000, 0, &prog), 0);
	assert_int_equal(pd_machine_mmap(&m, 42, 0x7f0000000000u, 0x10000, 0, &libc), 0);
	assert_int_equal(pd_machine_mmap(&m, 43, 0x555500000000u + shift_prog, 0x10000, 0, &prog), 0);
	assert_int_equal(pd_machine_mmap(&m, 43, 0x7f0000000000u + shift_libc, 0x10000, 0, &libc), 0);
	assert_int_equal(pd_machine_mmap(&m, 44, 0x555500000000u, 0x10000, 0, &prog2), 0);
	assert_int_equal(pd_machine_mmap(&m, 44, 0x7f0000000000u, 0x10000, 0, &libc), 0);
	assert_int_equal(pd_hybrid_learn(&h, 42, whole, N(whole)), 0);
	/* 43 never showed a whole stack: 42's outer frames, moved */
	assert_int_equal(pd_hybrid_stack(&h, 43, fp43, N(fp43), cfi43, N(cfi43), false, NULL, 0,
					 out, 16, &n), 0);
	assert_stack(out, n, want43, N(want43));
	assert_int_equal(h.stats.outer, 1);
	/* 44 runs another program: after the C library's return address,
	 * its own _start; the program's places are not 42's either */
	assert_int_equal(pd_hybrid_learn(&h, 44, other, N(other)), 0);
	pd_hybrid_forget(&h, 43);
	assert_int_equal(pd_hybrid_stack(&h, 43, fp43, N(fp43), cfi43, N(cfi43), false, NULL, 0,
					 out, 16, &n), 0);
	/* the chain after main's frame holds only the C library's return
	 * address, after which the two programs differ: nothing appended */
	assert_int_equal(n, 5);
	assert_stack(out, 4, want43, 4);
	assert_true(out[4] == GARBAGE - 1);
	/* and without any map of it: nothing to move */
	assert_int_equal(pd_hybrid_stack(&h, 45, fp, N(fp), cfi, N(cfi), false, NULL, 0, out, 16,
					 &n), 0);
	assert_int_equal(n, 5);
	pd_hybrid_release(&h);
	pd_machine_release(&m);
}

/* A thread of the same process, running T (with frame pointers), which
 * calls work: its chain ends at the return address into start_thread,
 * after which comes clone3's frame. The main thread's outer frames are
 * not its; it gets its own. */
static void test_thread_outer_frames(void **state)
{
	const uint64_t RA_T = 0x555500004010u, RA_THREAD = 0x7f0000009010u;
	const uint64_t RA_CLONE = 0x7f000000a010u;
	const uint64_t twhole[] = { IP_MEMCPY, RA_WORK - 1, RA_T - 1, RA_THREAD - 1, RA_CLONE - 1 };
	const uint64_t tfp[] = { IP_MEMCPY, RA_T, RA_THREAD, GARBAGE };
	const uint64_t tcfi[] = { IP_MEMCPY, RA_WORK - 1, RA_T - 1, UINT64_MAX };
	const uint64_t fp[] = { IP_MEMCPY, RA_MAIN, RA_SCM };
	const uint64_t cfi[] = { IP_MEMCPY, RA_WORK - 1, RA_MAIN - 1, UINT64_MAX };
	pd_hybrid h;
	uint64_t out[16];
	size_t n;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(pd_hybrid_stack(&h, 42, fp, N(fp), whole, N(whole), true, NULL, 0, out, 16,
					 &n), 0);
	assert_int_equal(pd_hybrid_stack(&h, 42, tfp, N(tfp), twhole, N(twhole), true, NULL, 0, out,
					 16, &n), 0);
	/* the thread's: joined at start_thread's return address, clone3 after */
	assert_int_equal(pd_hybrid_stack(&h, 42, tfp, N(tfp), tcfi, N(tcfi), false, NULL, 0, out, 16,
					 &n), 0);
	assert_stack(out, n, twhole, N(twhole));
	/* the main thread's still its own */
	assert_int_equal(pd_hybrid_stack(&h, 42, fp, N(fp), cfi, N(cfi), false, NULL, 0, out, 16,
					 &n), 0);
	assert_stack(out, n, whole, N(whole));
	assert_int_equal(h.stats.outer, 2);
	pd_hybrid_release(&h);
}

/* A joined sample needed the copy up to the frame that met the chain. */
static void test_needed_bytes(void **state)
{
	const uint64_t fp[] = { IP_MEMCPY, RA_MAIN, RA_SCM };
	const uint64_t cfi[] = { IP_MEMCPY, RA_WORK - 1, RA_MAIN - 1, UINT64_MAX };
	const uint64_t reach[] = { 0, 8, 120, 400 };
	pd_hybrid h;
	uint64_t out[16];
	size_t n;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(pd_hybrid_stack(&h, 1, fp, N(fp), cfi, N(cfi), false, reach, 512, out, 16,
					 &n), 0);
	assert_int_equal(h.last_needed, 120);
	/* cut: more than the copy, how much is not known */
	assert_int_equal(pd_hybrid_stack(&h, 1, fp, N(fp), cfi, 2, false, reach, 512, out, 16, &n),
			 0);
	assert_int_equal(h.last_needed, 0);
	assert_int_equal(h.stats.cut, 1);
	assert_int_equal(h.stats.needed_max, 120);
	pd_hybrid_release(&h);
}

/* A copy that ends past work's frame, where the chain was never met
 * (memcpy's rbp held something else: the chain is the sample alone):
 * the frames after work's return address are known from a whole stack,
 * and complete it. */
static void test_cut_completed(void **state)
{
	const uint64_t fp[] = { IP_MEMCPY };
	const uint64_t cfi[] = { IP_MEMCPY, RA_WORK - 1, UINT64_MAX };
	pd_hybrid h;
	uint64_t out[16];
	size_t n;

	(void)state;
	memset(&h, 0, sizeof(h));
	/* nothing learnt: the rules' frames as far as the copy went */
	assert_int_equal(pd_hybrid_stack(&h, 7, fp, N(fp), cfi, N(cfi), false, NULL, 0, out, 16,
					 &n), 0);
	assert_stack(out, n, cfi, N(cfi));
	assert_int_equal(h.stats.cut, 1);
	assert_int_equal(pd_hybrid_stack(&h, 7, fp, N(fp), whole, N(whole), true, NULL, 0, out, 16,
					 &n), 0);
	assert_int_equal(pd_hybrid_stack(&h, 7, fp, N(fp), cfi, N(cfi), false, NULL, 0, out, 16,
					 &n), 0);
	assert_stack(out, n, whole, N(whole));
	assert_int_equal(h.stats.completed, 1);
	pd_hybrid_release(&h);
}

/* Two whole stacks that go on differently after the same return
 * address: what follows it depends on the path, and is never appended. */
static void test_ambiguous_outer_frames(void **state)
{
	const uint64_t other[] = { IP_MEMCPY, RA_WORK - 1, RA_MAIN - 1, 0x555500003010u - 1 };
	const uint64_t fp[] = { IP_MEMCPY };
	const uint64_t cfi[] = { IP_MEMCPY, RA_WORK - 1, RA_MAIN - 1, UINT64_MAX };
	const uint64_t cfi_work[] = { IP_MEMCPY, RA_WORK - 1, UINT64_MAX };
	pd_hybrid h;
	uint64_t out[16];
	size_t n;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(pd_hybrid_learn(&h, 7, whole, N(whole)), 0);
	assert_int_equal(pd_hybrid_learn(&h, 7, other, N(other)), 0);
	assert_int_equal(pd_hybrid_stack(&h, 7, fp, N(fp), cfi, N(cfi), false, NULL, 0, out, 16,
					 &n), 0);
	assert_stack(out, n, cfi, N(cfi));
	assert_int_equal(h.stats.cut, 1);
	/* nor after work's, whose outer frames differ as well */
	assert_int_equal(pd_hybrid_stack(&h, 7, fp, N(fp), cfi_work, N(cfi_work), false, NULL, 0,
					 out, 16, &n), 0);
	assert_stack(out, n, cfi_work, N(cfi_work));
	assert_int_equal(h.stats.completed, 0);
	pd_hybrid_release(&h);
}

/* The user part of a call chain: after PERF_CONTEXT_USER, up to the
 * next marker. */
/* The native recorder asks for what the reader measured and needs. */
static void test_recorder_defaults(void **state)
{
	(void)state;
	assert_int_equal(FG_RECORDER_DEFAULT_STACK, FG_HYBRID_STACK_DEFAULT);
	/* the checks emulate the recorder's growth of the copy */
	assert_int_equal(PD_GROWN_STACK, RN_GROWN_STACK);
	assert_int_equal(PD_GROW_SHARE, RN_GROW_SHARE);
	assert_int_equal(PD_GROW_MIN, RN_GROW_MIN);
	assert_int_equal(PD_GROW_AFTER, RN_GROW_AFTER);
	assert_int_equal(FG_HYBRID_REGS_USER, 0x1c0);
}

static void test_chain_user(void **state)
{
	const uint64_t chain[] = { (uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000010u,
				   (uint64_t)PERF_CONTEXT_USER, IP_MEMCPY, RA_MAIN, RA_SCM };
	const uint64_t kernel_only[] = { (uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000010u };
	uint64_t fp[8];
	size_t n;

	(void)state;
	pd_chain_user((const unsigned char *)chain, N(chain), fp, 8, &n);
	assert_int_equal(n, 3);
	assert_int_equal(fp[0], IP_MEMCPY);
	assert_int_equal(fp[2], RA_SCM);
	pd_chain_user((const unsigned char *)chain, N(chain), fp, 2, &n);
	assert_int_equal(n, 2);
	pd_chain_user((const unsigned char *)kernel_only, N(kernel_only), fp, 8, &n);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorder_defaults),
		cmocka_unit_test(test_leaf_without_frame_pointer),
		cmocka_unit_test(test_frame_pointers_all_the_way),
		cmocka_unit_test(test_copy_too_small),
		cmocka_unit_test(test_copy_ends_in_caller),
		cmocka_unit_test(test_chain_empty),
		cmocka_unit_test(test_whole_copy),
		cmocka_unit_test(test_recursion),
		cmocka_unit_test(test_max),
		cmocka_unit_test(test_outer_frames_appended),
		cmocka_unit_test(test_outer_frames_shared),
		cmocka_unit_test(test_thread_outer_frames),
		cmocka_unit_test(test_needed_bytes),
		cmocka_unit_test(test_cut_completed),
		cmocka_unit_test(test_ambiguous_outer_frames),
		cmocka_unit_test(test_chain_user),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
