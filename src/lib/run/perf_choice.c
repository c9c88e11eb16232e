/* Which perf records. Debian's /usr/bin/perf is a script that runs
 * perf_X.Y, the perf of the running kernel's version X.Y, and Ubuntu's
 * runs /usr/lib/linux-tools/RELEASE/perf; both fail when that kernel's
 * package is not installed (a kernel from backports, a container or
 * chroot on a newer kernel). perf records and reads on other kernels than
 * its own, so then the newest perf installed beside the wrapper records,
 * and a note says so and what to install for the kernel's own. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/run/run.h"
#include "util/process.h"
#include "util/strbuf.h"
#include "util/banned.h"

/* Whether path is a script (a wrapper), not perf itself. */
static bool is_script(const char *path)
{
	char head[2] = { 0 };
	FILE *f = fopen(path, "rb");
	bool script;

	if (!f)
		return false;
	script = fread(head, 1, 2, f) == 2 && head[0] == '#' && head[1] == '!';
	fclose(f);
	return script;
}

static bool executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/* The newest executable dir/PREFIX*SUFFIX by version order (strverscmp
 * of the part after prefix), or NULL; malloc'd. */
static char *newest(const char *dir, const char *prefix, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	fg_strbuf path = FG_STRBUF_INIT;
	char *best = NULL, *best_name = NULL;
	size_t plen = strlen(prefix);

	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, plen) || !e->d_name[plen] || e->d_name[0] == '.')
			continue;
		fg_strbuf_reset(&path);
		if (fg_strbuf_addf(&path, "%s/%s%s", dir, e->d_name, suffix) || !executable(path.buf))
			continue;
		if (best_name && strverscmp(e->d_name + plen, best_name + plen) <= 0)
			continue;
		free(best);
		free(best_name);
		best = fg_strdup(path.buf);
		best_name = fg_strdup(e->d_name);
		if (!best || !best_name)
			break;
	}
	closedir(d);
	fg_strbuf_release(&path);
	free(best_name);
	return best;
}

/* The note: which wrapper, the kernel, its perf's package (prefix and
 * version) and the perf that records instead. */
static void say_other_kernel(fg_strbuf *note, const char *wrapper, const char *kernel,
			     const char *package, const char *version, const char *pick)
{
	fg_strbuf_addf(note, "%s holds no perf for the running kernel %s (the package %s%s): "
		       "recording with %s, which reads any kernel's events — install %s%s for "
		       "the kernel's own", wrapper, kernel, package, version, pick, package, version);
}

/* When wrapper (the perf found on PATH) is Debian's or Ubuntu's script
 * and holds no perf for the running kernel: the perf to record with
 * instead (malloc'd) and, in note, why and what to install; else NULL. */
static char *perf_for_other_kernel(const char *wrapper, fg_strbuf *note)
{
	struct utsname u;
	char dir[4096], version[64], *slash, *pick = NULL;
	fg_strbuf own = FG_STRBUF_INIT;
	size_t n;

	if (uname(&u) || !is_script(wrapper) || strlen(wrapper) >= sizeof(dir))
		return NULL;
	memcpy(dir, wrapper, strlen(wrapper) + 1);
	if (!(slash = strrchr(dir, '/')))
		return NULL;
	*slash = '\0';
	/* Debian: "6.12.48+deb13-amd64" runs perf_6.12 */
	n = strspn(u.release, "0123456789.");
	if (n >= sizeof(version))
		return NULL;
	memcpy(version, u.release, n);
	version[n] = '\0';
	if (strchr(version, '.') != strrchr(version, '.'))
		*strrchr(version, '.') = '\0';
	if (!fg_strbuf_addf(&own, "%s/perf_%s", dir, version) && !executable(own.buf) &&
	    (pick = newest(dir, "perf_", ""))) {
		say_other_kernel(note, wrapper, u.release, "linux-perf-", version, pick);
		goto done;
	}
	/* Ubuntu: /usr/lib/linux-tools/RELEASE/perf */
	fg_strbuf_reset(&own);
	if (!fg_strbuf_addf(&own, "/usr/lib/linux-tools/%s/perf", u.release) &&
	    !executable(own.buf) && (pick = newest("/usr/lib/linux-tools", "", "/perf")))
		say_other_kernel(note, wrapper, u.release, "linux-tools-", u.release, pick);
done:
	fg_strbuf_release(&own);
	return pick;
}

int fg_run_check_tool(run *r)
{
	const char *tool = r->rec.tool && *r->rec.tool ? r->rec.tool :
			   fg_recorder_tool(r->rec.recorder);
	char *path = fg_which(tool);
	fg_strbuf note = FG_STRBUF_INIT;

	if (!path)
		return fg_run_fail_tool_missing(tool, &r->rec);
	/* only the perf found on PATH: a path the user gave is theirs */
	if (r->rec.recorder == FG_RECORDER_PERF && !r->rec.tool_origin &&
	    (r->tool_path = perf_for_other_kernel(path, &note))) {
		r->rec.tool = r->tool_path;
		if (note.len)
			fg_run_emit(r, FG_PROFILE_NOTE, note.buf, 0);
	}
	fg_strbuf_release(&note);
	free(path);
	if (r->rec.root) {
		if (!(path = fg_which("sudo")))
			return fg_error_set(FG_ERECORD, "`opts.record.root` needs sudo, which was not found — "
					    "install sudo or run as root without `opts.record.root`");
		free(path);
	}
	return 0;
}
