#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cli/common/diag.h"
#include "cli/common/distro.h"
#include "flamegraph/error.h"
#include "util/banned.h"

static fg_distro family_of(fg_view word)
{
	static const struct { const char *id; fg_distro d; } ids[] = {
		{ "debian", FG_DISTRO_DEBIAN }, { "ubuntu", FG_DISTRO_UBUNTU },
		{ "fedora", FG_DISTRO_FEDORA }, { "arch", FG_DISTRO_ARCH },
	};

	for (size_t i = 0; i < sizeof(ids) / sizeof(*ids); i++)
		if (fg_view_eq(word, ids[i].id))
			return ids[i].d;
	return FG_DISTRO_UNKNOWN;
}

/* KEY's value in the os-release text, quotes removed; empty if unset */
static fg_view field(const char *text, size_t len, const char *key)
{
	const char *p = text, *end = text + len, *nl;
	size_t klen = strlen(key);

	for (; p < end; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			nl = end;
		fg_view line = fg_view_of(p, (size_t)(nl - p));
		if (line.len > klen && !memcmp(line.ptr, key, klen) && line.ptr[klen] == '=') {
			fg_view v = fg_view_trim(fg_view_of(line.ptr + klen + 1, line.len - klen - 1));
			if (v.len >= 2 && (v.ptr[0] == '"' || v.ptr[0] == '\'') && v.ptr[v.len - 1] == v.ptr[0])
				v = fg_view_of(v.ptr + 1, v.len - 2);
			return v;
		}
		if (nl == end)
			break;
	}
	return fg_view_of("", 0);
}

/* the first word of v that names a family */
static fg_distro first_known(fg_view v)
{
	size_t i = 0;

	while (i < v.len) {
		size_t start;
		while (i < v.len && v.ptr[i] == ' ')
			i++;
		start = i;
		while (i < v.len && v.ptr[i] != ' ')
			i++;
		fg_distro d = family_of(fg_view_of(v.ptr + start, i - start));
		if (d != FG_DISTRO_UNKNOWN)
			return d;
	}
	return FG_DISTRO_UNKNOWN;
}

fg_distro fg_distro_parse(const char *text, size_t len)
{
	fg_distro d = first_known(field(text, len, "ID"));

	return d != FG_DISTRO_UNKNOWN ? d : first_known(field(text, len, "ID_LIKE"));
}

fg_distro fg_distro_detect(void)
{
	const char *env = getenv("FG_OS_RELEASE");
	const char *const paths[] = { env && *env ? env : "/etc/os-release", "/usr/lib/os-release" };
	char buf[8192];

	for (size_t i = 0; i < (env && *env ? 1 : 2); i++) {
		FILE *f = fopen(paths[i], "r");
		size_t n;
		if (!f)
			continue;
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		return fg_distro_parse(buf, n);
	}
	return FG_DISTRO_UNKNOWN;
}

int fg_distro_perf_fix(fg_strbuf *out, fg_distro d, int reason, const char *kernel)
{
	const char *verb = reason == FG_REASON_PERF_TOO_OLD ? "install perf 5.10 or newer" :
			   reason == FG_REASON_PERF_NO_KERNEL ? "install the running kernel's perf" :
			   "install perf";

	if (reason != FG_REASON_PERF_MISSING && reason != FG_REASON_PERF_NO_KERNEL &&
	    reason != FG_REASON_PERF_TOO_OLD)
		return -1;
	switch (d) {
	case FG_DISTRO_DEBIAN:
		fg_strbuf_addf(out, "%s: sudo apt-get install linux-perf", verb);
		break;
	case FG_DISTRO_UBUNTU:
		fg_strbuf_addf(out, "%s: sudo apt-get install linux-tools-common linux-tools-%s", verb, kernel);
		break;
	case FG_DISTRO_FEDORA:
		fg_strbuf_addf(out, "%s: sudo dnf %s perf", verb,
			       reason == FG_REASON_PERF_TOO_OLD ? "upgrade" : "install");
		break;
	case FG_DISTRO_ARCH:
		fg_strbuf_addf(out, "%s: sudo pacman -S%s perf", verb, reason == FG_REASON_PERF_TOO_OLD ? "yu" : "");
		break;
	default:
		return -1;
	}
	if (reason == FG_REASON_PERF_MISSING)
		fg_strbuf_addstr(out, " (or set PERF to its path)");
	return 0;
}

int fg_distro_explain_last_error(void)
{
	const char *msg = fg_error_last(), *dash = strstr(msg, " — ");
	fg_strbuf fix = FG_STRBUF_INIT;
	struct utsname u;
	int rc = -1;

	if (!dash || uname(&u) != 0)
		return -1;
	if (!fg_distro_perf_fix(&fix, fg_distro_detect(), fg_error_last_reason(), u.release) &&
	    !fg_strbuf_failed(&fix)) {
		fg_errorf("%.*s — %s", (int)(dash - msg), msg, fix.buf);
		rc = 0;
	}
	fg_strbuf_release(&fix);
	return rc;
}
