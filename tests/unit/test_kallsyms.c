/* Kernel symbols of the perf.data reader (kallsyms.c): the text symbols
 * of a kallsyms file, each ending where the next begins, the last listed
 * of several at one address, module names, lines out of order, a last
 * line without its newline, and addresses no symbol covers; the index
 * kept of perf's build-id cache copies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/perfdata.h"
#include "lib/perfdata/internal.h"

static char path[4096];

static const char kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"   /* absolute, zero: skipped */
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 t irq_entry\n"
	"ffffffff81001000 T irq_entry_alias\n"     /* same address: the last wins */
	"ffffffff81002000 d some_data\n"           /* not text: covered by the one before */
	"ffffffff81003000 T do_syscall_64\n"
	"ffffffffc0001000 t ext4_read\t[ext4]\n"
	"ffffffffc0000800 t ext4_early\t[ext4]\n"  /* out of order */
	"garbage line\n"
	"ffffffffc0002000 T last_one";              /* no newline */

static int write_file(void **state)
{
	const char *tmp = getenv("TMPDIR");
	FILE *f;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/kallsyms.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if ((fd = mkstemp(path)) < 0 || !(f = fdopen(fd, "w")))
		return -1;
	fputs(kallsyms, f);
	return fclose(f);
}

static int remove_file(void **state)
{
	(void)state;
	return unlink(path);
}

/* "name module" of the kernel address, or "-" when nothing covers it */
static void resolve(pd_symbols *s, uint64_t addr, char *out, size_t size)
{
	const fg_perfdata_frame *f;
	size_t n;

	assert_int_equal(pd_symbols_resolve(s, &s->kernel, addr, &f, &n), 0);
	assert_int_equal(n, 1);
	assert_true(f->kernel);
	assert_int_equal(f->addr, addr);
	snprintf(out, size, "%s %s", f->sym ? f->sym : "-", f->module ? f->module : "-");
}

static void test_symbols(void **state)
{
	static const struct {
		uint64_t addr;
		const char *want;
	} cases[] = {
		{ 0xffffffff81000010, "_text [kernel.kallsyms]" },
		{ 0xffffffff81001010, "irq_entry_alias [kernel.kallsyms]" },
		{ 0xffffffff81002010, "irq_entry_alias [kernel.kallsyms]" },
		{ 0xffffffff81003005, "do_syscall_64 [kernel.kallsyms]" },
		{ 0xffffffffc0000900, "ext4_early [ext4]" },
		{ 0xffffffffc0001004, "ext4_read [ext4]" },
		{ 0xffffffffc0002001, "last_one [kernel.kallsyms]" },
		{ 0xffffffff80000000, "- [kernel.kallsyms]" },
		{ 0xffffffffc0010000, "- [kernel.kallsyms]" },
	};
	fg_perfdata_opts o = FG_PERFDATA_OPTS_INIT;
	pd_symbols s;
	char got[256];
	size_t i;

	(void)state;
	o.kallsyms = path;
	pd_symbols_init(&s, &o);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		resolve(&s, cases[i].addr, got, sizeof(got));
		assert_string_equal(got, cases[i].want);
	}
	/* resolved again: the same, from the cache */
	resolve(&s, cases[1].addr, got, sizeof(got));
	assert_string_equal(got, cases[1].want);
	pd_symbols_release(&s);
}

/* No kallsyms to read: kernel addresses stay unnamed, no error. */
static void test_missing(void **state)
{
	fg_perfdata_opts o = FG_PERFDATA_OPTS_INIT;
	pd_symbols s;
	char got[256];

	(void)state;
	o.kallsyms = "/nonexistent/kallsyms";
	pd_symbols_init(&s, &o);
	resolve(&s, 0xffffffff81000010, got, sizeof(got));
	assert_string_equal(got, "- [kernel.kallsyms]");
	pd_symbols_release(&s);
}

/* Writes text as perf's build-id cache copy of kernel id under dir. */
static void write_copy(const char *dir, const char *hex, const char *text)
{
	char p[4096];
	FILE *f;

	snprintf(p, sizeof(p), "mkdir -p '%s/[kernel.kallsyms]/%s'", dir, hex);
	assert_int_equal(system(p), 0);
	snprintf(p, sizeof(p), "%s/[kernel.kallsyms]/%s/kallsyms", dir, hex);
	assert_non_null(f = fopen(p, "w"));
	fputs(text, f);
	fputs("\n", f); /* a copy perf is still writing ends inside a line */
	assert_int_equal(fclose(f), 0);
}

/* The symbols of a build-id cache copy, with the cache folder given. */
static void resolve_copy(const char *bid, const char *cache, uint64_t addr, char *out, size_t size)
{
	static const uint8_t id[20] = { 0xab, 0xcd };
	fg_perfdata_opts o = FG_PERFDATA_OPTS_INIT;
	pd_symbols s;

	o.buildid_dir = bid;
	o.cache_dir = cache;
	pd_symbols_init(&s, &o);
	assert_int_equal(pd_symbols_add_buildid(&s, "[kernel.kallsyms]", 17, id, 20), 0);
	resolve(&s, addr, out, size);
	pd_symbols_release(&s);
}

/* The index kept in the cache folder for a build-id cache copy: written
 * by the first run, read by the next with the same names; a copy written
 * again (another boot: the same length, other addresses) and a damaged
 * index are not trusted, and the index is written again. */
static void test_index(void **state)
{
	static const char hex[] = "abcd000000000000000000000000000000000000";
	const char *tmp = getenv("TMPDIR");
	char dir[2048], bid[4096], cache[4096], index[4200], got[256], cmd[4096];
	char moved[sizeof(kallsyms)];
	struct stat st;
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/kindex.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(bid, sizeof(bid), "%s/buildid", dir);
	snprintf(cache, sizeof(cache), "%s/cache/debug", dir);
	snprintf(index, sizeof(index), "%s/%s.ksyms", cache, hex);
	write_copy(bid, hex, kallsyms);
	resolve_copy(bid, cache, 0xffffffff81003005, got, sizeof(got));
	assert_string_equal(got, "do_syscall_64 [kernel.kallsyms]");
	assert_int_equal(stat(index, &st), 0);
	resolve_copy(bid, cache, 0xffffffffc0000900, got, sizeof(got));
	assert_string_equal(got, "ext4_early [ext4]");
	resolve_copy(bid, cache, 0xffffffff81001010, got, sizeof(got));
	assert_string_equal(got, "irq_entry_alias [kernel.kallsyms]");
	/* another boot: do_syscall_64 moved, the text as long as before */
	memcpy(moved, kallsyms, sizeof(kallsyms));
	memcpy(strstr(moved, "ffffffff81003000 T do_syscall_64"), "ffffffff81004000", 16);
	sleep(1); /* a modification time of its own, on any file system */
	write_copy(bid, hex, moved);
	resolve_copy(bid, cache, 0xffffffff81003005, got, sizeof(got));
	assert_string_equal(got, "irq_entry_alias [kernel.kallsyms]");
	resolve_copy(bid, cache, 0xffffffff81004005, got, sizeof(got));
	assert_string_equal(got, "do_syscall_64 [kernel.kallsyms]");
	/* a damaged index */
	assert_non_null(f = fopen(index, "r+"));
	assert_int_equal(ftruncate(fileno(f), 40), 0);
	fclose(f);
	resolve_copy(bid, cache, 0xffffffff81004005, got, sizeof(got));
	assert_string_equal(got, "do_syscall_64 [kernel.kallsyms]");
	assert_int_equal(stat(index, &st), 0);
	assert_true(st.st_size > 40);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_index),
	};

	return cmocka_run_group_tests(tests, write_file, remove_file);
}
