/* ELF checks on real files: this test program itself (built by the
 * project with -O2 -g -fno-omit-frame-pointer by GNU ld), a non-ELF file,
 * a missing file; stripped programs built with and without frame
 * pointers, judged by their unwind tables; and the warning texts for each
 * finding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/builder.h"
#include "flamegraph/elfcheck.h"
#include "flamegraph/error.h"
#include "flamegraph/record.h"
#include "util/input.h"

static void self_has_debug_info_and_frame_pointers(void **state)
{
	fg_elfcheck_report r;

	assert_int_equal(fg_elfcheck_file("/proc/self/exe", &r), 0);
	assert_true(r.is_elf);
	assert_true(r.has_debug_info);
	assert_int_equal(r.frame_pointers, FG_FP_PRESENT);
	assert_false(r.fp_from_unwind);
	assert_non_null(strstr(r.producer, "-fno-omit-frame-pointer"));
}

static void memory_image_matches_file(void **state)
{
	fg_elfcheck_report f, m;
	char *data = NULL;
	size_t len = 0;

	assert_int_equal(fg_read_file("/proc/self/exe", &data, &len), 0);
	assert_int_equal(fg_elfcheck_file("/proc/self/exe", &f), 0);
	assert_int_equal(fg_elfcheck_memory(data, len, &m), 0);
	assert_int_equal(f.rosegment, m.rosegment);
	assert_int_equal(f.has_debug_info, m.has_debug_info);
	assert_int_equal(f.frame_pointers, m.frame_pointers);
	assert_string_equal(f.linker, m.linker);
	free(data);
}

static void not_elf_and_missing(void **state)
{
	char path[] = "/tmp/fg-elfcheck-XXXXXX";
	fg_elfcheck_report r;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\necho hi\n", 18), 18);
	close(fd);
	assert_int_equal(fg_elfcheck_file(path, &r), 0);
	assert_false(r.is_elf);
	unlink(path);
	assert_int_equal(fg_elfcheck_file("/nonexistent/prog", &r), FG_ENOTFOUND);
	assert_non_null(strstr(fg_error_last(), "/nonexistent/prog"));
	assert_int_equal(fg_elfcheck_memory("garbage", 7, &r), 0);
	assert_false(r.is_elf);
}

static char seen[4][512];
static unsigned nseen;

static void collect(void *ctx, const char *msg)
{
	(void)ctx;
	if (nseen < 4)
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", msg);
}

/* fg_build_linker_of names the linker family from the check's .comment
 * reading ("LLD 14.0.6" is "LLD"): the two never disagree. */
static void linker_of_follows_the_check(void **state)
{
	fg_elfcheck_report r;
	char buf[32] = "x", path[] = "/tmp/fg-linker-XXXXXX";
	int fd;

	assert_int_equal(fg_elfcheck_file("/proc/self/exe", &r), 0);
	assert_int_equal(fg_build_linker_of("/proc/self/exe", buf, sizeof(buf)), 0);
	if (strstr(r.linker, "LLD"))
		assert_string_equal(buf, "LLD");
	else if (strstr(r.linker, "mold"))
		assert_string_equal(buf, "mold");
	else
		assert_string_equal(buf, "GNU ld");
	/* no ELF file: an error, and no linker */
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	assert_int_equal(fg_build_linker_of(path, buf, sizeof(buf)), FG_EIO);
	assert_string_equal(buf, "");
	unlink(path);
	assert_int_equal(fg_build_linker_of("/nonexistent/prog", buf, sizeof(buf)), FG_ENOTFOUND);
}

/* A program linked by ld.lld, when the machine has it: "LLD". */
static void linker_of_lld(void **state)
{
	char dir[] = "/tmp/fg-lld-XXXXXX", cmd[1024], src[256], exe[256], buf[32];
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/p.c", dir);
	snprintf(exe, sizeof(exe), "%s/p", dir);
	assert_non_null(f = fopen(src, "w"));
	fputs("int main(void) { return 0; }\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -fuse-ld=lld -o %s %s 2>/dev/null", exe, src);
	if (system(cmd) == 0) {
		assert_int_equal(fg_build_linker_of(exe, buf, sizeof(buf)), 0);
		assert_string_equal(buf, "LLD");
	}
	unlink(exe);
	unlink(src);
	rmdir(dir);
}

/* A program of a dozen functions that each keep a value across a call,
 * so each has a frame with or without frame pointers. */
static const char many_frames_src[] =
	"#define F(n, next) __attribute__((noinline)) unsigned long f##n(unsigned long x) "
	"{ unsigned long r = next(x * 3 + n); return r ^ next(r + x); }\n"
	"__attribute__((noinline)) unsigned long leaf(unsigned long x) { return x * 7; }\n"
	"F(11, leaf) F(10, f11) F(9, f10) F(8, f9) F(7, f8) F(6, f7) F(5, f6) F(4, f5)\n"
	"F(3, f4) F(2, f3) F(1, f2) F(0, f1)\n"
	"int main(int argc, char **argv) { (void)argv; return (int)(f0((unsigned long)argc) & 1); }\n";

/* Compiles many_frames_src with cc and flags, stripped of everything but
 * what it runs with (.eh_frame stays), into dir/name; false without a
 * compiler. */
static bool build_stripped(const char *dir, const char *name, const char *flags, char *exe,
			   size_t cap)
{
	char src[256], cmd[1024];
	FILE *f;

	snprintf(src, sizeof(src), "%s/many.c", dir);
	snprintf(exe, cap, "%s/%s", dir, name);
	assert_non_null(f = fopen(src, "w"));
	fputs(many_frames_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc %s -o %s %s 2>/dev/null && strip --strip-all %s", flags, exe,
		 src, exe);
	return system(cmd) == 0;
}

/* No debug info to say how they were built: the unwind tables say it. */
static void stripped_judged_by_unwind_tables(void **state)
{
	char dir[] = "/tmp/fg-unwind-XXXXXX", exe[512], path[512];
	fg_elfcheck_report r;
	char *data = NULL;
	size_t len = 0;

	assert_non_null(mkdtemp(dir));
	if (!build_stripped(dir, "fp", "-O2 -fno-omit-frame-pointer", exe, sizeof(exe))) {
		rmdir(dir);
		skip();
	}
	assert_int_equal(fg_elfcheck_file(exe, &r), 0);
	assert_true(r.is_elf);
	assert_false(r.has_debug_info);
#if defined(__x86_64__)
	/* kept: every function with a frame gives its CFA from rbp */
	assert_int_equal(r.frame_pointers, FG_FP_PRESENT);
	assert_true(r.fp_from_unwind);
	assert_true(r.fp_units >= 4);
	assert_int_equal(r.no_fp_units, 0);
#else
	assert_int_equal(r.frame_pointers, FG_FP_UNKNOWN);
#endif
	unlink(exe);

	assert_true(build_stripped(dir, "nofp", "-O2 -fomit-frame-pointer", exe, sizeof(exe)));
	assert_int_equal(fg_elfcheck_file(exe, &r), 0);
	assert_false(r.has_debug_info);
#if defined(__x86_64__)
	/* omitted: none does */
	assert_int_equal(r.frame_pointers, FG_FP_OMITTED);
	assert_true(r.fp_from_unwind);
	assert_int_equal(r.fp_units, 0);
	assert_true(r.no_fp_units >= 4);
	/* the same program told it is for another machine: no verdict */
	assert_int_equal(fg_read_file(exe, &data, &len), 0);
	assert_true(len > 20);
	data[18] = (char)183; /* e_machine: EM_AARCH64 */
	data[19] = 0;
	assert_int_equal(fg_elfcheck_memory(data, len, &r), 0);
	assert_true(r.is_elf);
	assert_int_equal(r.frame_pointers, FG_FP_UNKNOWN);
	assert_false(r.fp_from_unwind);
	free(data);
	/* and the native recorder copies whole stacks of it, small ones of
	 * the program with frame pointers */
	assert_int_equal(fg_record_native_stack(FG_CALL_GRAPH_DWARF, exe), 65528);
	assert_int_equal(fg_record_native_stack(FG_CALL_GRAPH_FP, exe), 0);
	snprintf(path, sizeof(path), "%s/fp", dir);
	assert_true(build_stripped(dir, "fp", "-O2 -fno-omit-frame-pointer", path, sizeof(path)));
	assert_int_equal(fg_record_native_stack(FG_CALL_GRAPH_DWARF, path), 0);
	unlink(path);
#endif
	unlink(exe);
	snprintf(path, sizeof(path), "%s/many.c", dir);
	unlink(path);
	rmdir(dir);
}

static void warnings_carry_the_fix(void **state)
{
	fg_elfcheck_report r;

	memset(&r, 0, sizeof(r));
	r.is_elf = true;
	r.rosegment = true;
	snprintf(r.linker, sizeof(r.linker), "LLD 14.0.6");
	r.frame_pointers = FG_FP_OMITTED;
	nseen = 0;
	assert_int_equal(fg_elfcheck_warnings(&r, "prog", true, FG_FIX_GENERIC, collect, NULL), 3);
	assert_non_null(strstr(seen[0], "LLD 14.0.6"));
	assert_non_null(strstr(seen[0], "-Wl,--no-rosegment"));
	assert_non_null(strstr(seen[1], "no debug info"));
	assert_non_null(strstr(seen[1], "-g"));
	assert_non_null(strstr(seen[2], "-fno-omit-frame-pointer"));
	assert_null(strstr(seen[2], "unwind tables"));
	/* judged from the unwind tables: the warning says so */
	r.fp_from_unwind = true;
	nseen = 0;
	assert_int_equal(fg_elfcheck_warnings(&r, "prog", true, FG_FIX_GENERIC, collect, NULL), 3);
	assert_non_null(strstr(seen[2], "prog was built without frame pointers (as its unwind "
					 "tables show), so"));
	r.fp_from_unwind = false;
	nseen = 0;
	/* frame pointers only matter for --call-graph fp */
	assert_int_equal(fg_elfcheck_warnings(&r, "prog", false, FG_FIX_CMAKE, collect, NULL), 2);
	assert_non_null(strstr(seen[0], "CMAKE_EXE_LINKER_FLAGS=-Wl,--no-rosegment"));
	assert_non_null(strstr(seen[1], "RelWithDebInfo"));
	nseen = 0;
	assert_int_equal(fg_elfcheck_warnings(&r, "prog", false, FG_FIX_TOML, collect, NULL), 2);
	assert_non_null(strstr(seen[0], "ldflags"));
	r.is_elf = false;
	assert_int_equal(fg_elfcheck_warnings(&r, "prog", true, FG_FIX_GENERIC, collect, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(self_has_debug_info_and_frame_pointers),
		cmocka_unit_test(memory_image_matches_file),
		cmocka_unit_test(not_elf_and_missing),
		cmocka_unit_test(linker_of_follows_the_check),
		cmocka_unit_test(linker_of_lld),
		cmocka_unit_test(stripped_judged_by_unwind_tables),
		cmocka_unit_test(warnings_carry_the_fix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
