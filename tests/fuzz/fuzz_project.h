/* Shared pieces of the manifest reader targets (fuzz_compdb.c,
 * fuzz_cmake_reply.c, fuzz_tomlproj.c): a scratch project folder and a
 * bare project pointing into it.
 *
 * The readers resolve paths against the file system (realpath, "does this
 * source exist"), so the scratch folder holds empty files named like the
 * examples' sources: seeds taken from examples/ then reach the code past
 * those checks. */
#ifndef FG_TESTS_FUZZ_FUZZ_PROJECT_H
#define FG_TESTS_FUZZ_FUZZ_PROJECT_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/project/project.h"
#include "util/strbuf.h"
#include "fuzz_common.h"

static char fz_root[4096];

/* Creates root/rel (and its folders) as an empty file. */
static void fz_touch(const char *rel)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	int fd;

	fg_strbuf_addf(&sb, "%s/%s", fz_root, rel);
	for (char *s = sb.buf + strlen(fz_root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(sb.buf, 0700);
		*s = '/';
	}
	if ((fd = open(sb.buf, O_WRONLY | O_CREAT, 0600)) < 0)
		fz_fail("cannot create a file in the scratch folder");
	close(fd);
	fg_strbuf_release(&sb);
}

/* The scratch project folder, made on first use. */
static const char *fz_scratch(void)
{
	static const char *const files[] = {
		/* examples/make */
		"src/primes.c", "src/common.c", "src/common.h", "src/hot.c", "src/geometry.c",
		"tools/checksum_main.c", "tests/test_common.c",
		/* examples/cmake */
		"src/hash.c", "src/table.c", "src/sortwork.c", "src/stress2.c",
		"examples/wordfreq.c", "tests/unit_tests.c", "bench/bench_hash.c",
		/* and names a mutation likes to produce */
		"main.c", "a.c", "b.c", "lib/x.o", "lib/libx.a", NULL
	};

	struct stat st;

	if (fz_root[0])
		return fz_root;
	/* one folder per user in the temporary folder (a test's own under
	 * ctest, which goes with it), made once and kept: libFuzzer ends its
	 * runs with _Exit (no atexit cleanup), and the files are empty and
	 * the same for every process, so processes and jobs can share it */
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp || strlen(tmp) > sizeof(fz_root) - 64)
		tmp = "/tmp";
	snprintf(fz_root, sizeof(fz_root), "%s/fg-fuzz-scratch-%u", tmp, (unsigned)getuid());
	if (mkdir(fz_root, 0700) != 0 && (lstat(fz_root, &st) != 0 || !S_ISDIR(st.st_mode) ||
					  st.st_uid != getuid()))
		fz_fail("cannot create the scratch folder in the temporary folder");
	for (size_t i = 0; files[i]; i++)
		fz_touch(files[i]);
	return fz_root;
}

/* A bare project as the readers get it from fg_project_open: manifest
 * `file` (a name inside the scratch folder), root, build folder (never
 * created: nothing is built). */
static fg_project *fz_project(const char *file, const fg_project_opts *opts)
{
	fg_project *p = fg_calloc(1, sizeof(*p));
	fg_strbuf sb = FG_STRBUF_INIT;
	const char *root = fz_scratch();

	if (!p)
		return NULL;
	p->opts = *opts;
	fg_strbuf_addf(&sb, "%s/%s", root, file);
	p->loc.file = fg_strbuf_detach(&sb, NULL);
	fg_strbuf_addf(&sb, "%s/build/flamegraph/release", root);
	p->build_dir = fg_strbuf_detach(&sb, NULL);
	p->loc.root = fg_strdup(root);
	p->name = fg_strdup("scratch");
	p->profile = fg_strdup("release");
	if (!p->loc.file || !p->build_dir || !p->loc.root || !p->name || !p->profile) {
		fg_project_free(p);
		return NULL;
	}
	return p;
}

/* A failed read must say why (except when memory ran out). */
static void fz_check_error(int err)
{
	const char *msg = fg_error_last();

	if (err && err != FG_ENOMEM && (!msg || !*msg))
		fz_fail("a reader error without a message");
}

/* Target names are what users type after --bin/--test: never empty,
 * never repeated within one kind's namespace of a reader. */
static void fz_check_targets(const fg_project *p, bool distinct)
{
	for (size_t i = 0; i < p->ntargets; i++) {
		const struct fg_target *t = &p->targets[i];
		if (!t->name || (!t->ctest && !t->name[0] && distinct))
			fz_fail("a target without a name");
		if ((int)t->kind < 0 || t->kind >= FG_TARGET_KIND_COUNT)
			fz_fail("a target of no known kind");
		for (size_t k = 0; distinct && k < i; k++)
			if (!strcmp(p->targets[k].name, t->name))
				fz_fail("two targets with one name");
	}
}

#endif
