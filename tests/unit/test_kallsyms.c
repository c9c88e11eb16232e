/* Kernel symbols of the perf.data reader (kallsyms.c): the text symbols
 * of a kallsyms file, each ending where the next begins, the last listed
 * of several at one address, module names, lines out of order, a last
 * line without its newline, and addresses no symbol covers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_missing),
	};

	return cmocka_run_group_tests(tests, write_file, remove_file);
}
