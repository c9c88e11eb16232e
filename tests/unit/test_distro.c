/* The programs' advice on perf for the system they run on: its family
 * read from os-release (ID, then ID_LIKE's words in order), and the
 * command that fixes each reason a perf cannot record there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/common/distro.h"
#include "flamegraph/error.h"

static void families(void **state)
{
	static const struct { const char *text; fg_distro want; } cases[] = {
		{ "ID=debian\nVERSION_ID=\"13\"\n", FG_DISTRO_DEBIAN },
		{ "NAME=\"Ubuntu\"\nID=ubuntu\nID_LIKE=debian\n", FG_DISTRO_UBUNTU },
		/* a derivative: the first family its ID_LIKE names */
		{ "ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", FG_DISTRO_UBUNTU },
		{ "ID=raspbian\nID_LIKE=debian\n", FG_DISTRO_DEBIAN },
		{ "ID=fedora\nVERSION_ID=41\n", FG_DISTRO_FEDORA },
		{ "ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n", FG_DISTRO_FEDORA },
		{ "ID=arch\n", FG_DISTRO_ARCH },
		{ "ID='manjaro'\nID_LIKE=arch", FG_DISTRO_ARCH },
		/* no key ends where another starts: ID_LIKE is not ID */
		{ "ID_LIKE=debian\nID=exampleos\n", FG_DISTRO_DEBIAN },
		{ "ID=exampleos\nID_LIKE=\"example\"\n", FG_DISTRO_UNKNOWN },
		{ "VERSION_ID=1\n", FG_DISTRO_UNKNOWN },
		{ "", FG_DISTRO_UNKNOWN },
		/* a name that only starts like a family's is none */
		{ "ID=debianish\n", FG_DISTRO_UNKNOWN },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		fg_distro got = fg_distro_parse(cases[i].text, strlen(cases[i].text));
		if (got != cases[i].want)
			fail_msg("case %zu (%s): family %d, not %d", i, cases[i].text, (int)got,
				 (int)cases[i].want);
	}
}

static void fixes(void **state)
{
	static const struct { fg_distro d; int reason; const char *want; } cases[] = {
		{ FG_DISTRO_DEBIAN, FG_REASON_PERF_MISSING,
		  "install perf: sudo apt-get install linux-perf (or set PERF to its path)" },
		{ FG_DISTRO_UBUNTU, FG_REASON_PERF_MISSING,
		  "install perf: sudo apt-get install linux-tools-common linux-tools-6.8.0-45-generic "
		  "(or set PERF to its path)" },
		{ FG_DISTRO_UBUNTU, FG_REASON_PERF_NO_KERNEL,
		  "install the running kernel's perf: sudo apt-get install linux-tools-common "
		  "linux-tools-6.8.0-45-generic" },
		{ FG_DISTRO_DEBIAN, FG_REASON_PERF_NO_KERNEL,
		  "install the running kernel's perf: sudo apt-get install linux-perf" },
		{ FG_DISTRO_FEDORA, FG_REASON_PERF_MISSING, "install perf: sudo dnf install perf (or set PERF to its path)" },
		{ FG_DISTRO_FEDORA, FG_REASON_PERF_TOO_OLD, "install perf 5.10 or newer: sudo dnf upgrade perf" },
		{ FG_DISTRO_ARCH, FG_REASON_PERF_MISSING, "install perf: sudo pacman -S perf (or set PERF to its path)" },
		{ FG_DISTRO_ARCH, FG_REASON_PERF_TOO_OLD, "install perf 5.10 or newer: sudo pacman -Syu perf" },
		/* none known: the library's own advice stays */
		{ FG_DISTRO_UNKNOWN, FG_REASON_PERF_MISSING, NULL },
		{ FG_DISTRO_DEBIAN, FG_REASON_NONE, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		fg_strbuf b = FG_STRBUF_INIT;
		int rc = fg_distro_perf_fix(&b, cases[i].d, cases[i].reason, "6.8.0-45-generic");
		if (cases[i].want) {
			assert_int_equal(rc, 0);
			assert_string_equal(b.buf, cases[i].want);
		} else {
			assert_int_equal(rc, -1);
		}
		fg_strbuf_release(&b);
	}
}

/* fg_error_set forgets the reason of the error before */
static void reason_is_the_last_errors(void **state)
{
	(void)state;
	fg_error_set(FG_EINVAL, "something else");
	assert_int_equal(fg_error_last_reason(), FG_REASON_NONE);
	fg_error_clear();
	assert_int_equal(fg_error_last_reason(), FG_REASON_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(families),
		cmocka_unit_test(fixes),
		cmocka_unit_test(reason_is_the_last_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
