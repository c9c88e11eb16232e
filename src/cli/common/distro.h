/* The system the program runs on, from os-release, for advice that
 * depends on it: the command that installs perf (man 5 os-release). */
#ifndef FG_CLI_COMMON_DISTRO_H
#define FG_CLI_COMMON_DISTRO_H

#include <stddef.h>

#include "util/strbuf.h"

typedef enum fg_distro {
	FG_DISTRO_UNKNOWN = 0,
	FG_DISTRO_DEBIAN,
	FG_DISTRO_UBUNTU,
	FG_DISTRO_FEDORA,
	FG_DISTRO_ARCH,
} fg_distro;

/* The family of the os-release text (len bytes): the first of ID, then of
 * ID_LIKE's words in their order, that names one (Linux Mint's
 * ID_LIKE="ubuntu debian" is Ubuntu's). */
fg_distro fg_distro_parse(const char *text, size_t len);

/* The family of this system: the file FG_OS_RELEASE names, else
 * /etc/os-release, else /usr/lib/os-release; FG_DISTRO_UNKNOWN when none
 * can be read. */
fg_distro fg_distro_detect(void);

/* Adds to out the command that fixes an error of reason (enum
 * fg_error_reason: perf missing, a wrapper without the running kernel's
 * perf, a perf too old) on the family d, kernel being the running
 * kernel's release (uname -r). Returns 0, or -1 when it knows none: an
 * unknown family, or a reason that is not perf's. */
int fg_distro_perf_fix(fg_strbuf *out, fg_distro d, int reason, const char *kernel);

/* fg_errorf of fg_error_last() with this system's command in place of
 * the general advice after its " — ", when the last error's reason has
 * one here; returns 0 if it printed, -1 if not. */
int fg_distro_explain_last_error(void);

#endif
