/* Unit tests of what the autotools and plain-Make readers read from
 * text: Makefile variables (continuations, comments, +=, :=, ?=,
 * references inside names, substitution references), the programs of a
 * generated automake Makefile by kind, and make's dry-run output
 * (commands split at shell operators, $(CC) rules, libtool lines, -o in
 * odd places, cd, Entering directory, in-tree archives). Runs nothing. */
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

#include "flamegraph/error.h"
#include "lib/project/autotools/autotools.h"
#include "lib/project/make/make.h"
#include "lib/project/make/vars.h"
#include "util/strvec.h"

static char *expand(const fg_makevars *mv, const char *text, char *buf, size_t n)
{
	char *s = fg_makevars_expand(mv, text);
	assert_non_null(s);
	snprintf(buf, n, "%s", s);
	free(s);
	return buf;
}

static void test_vars(void **state)
{
	static const char mk[] =
		"# a comment = not a variable\n"
		"CC = gcc\n"
		"CFLAGS = -O2 \\\n"
		"\t-Wall   \\\n"
		"    -g # trailing comment\n"
		"CFLAGS += -fPIC\n"
		"OPT ?= first\n"
		"OPT ?= second\n"
		"X = a\n"
		"NOW := $(X)b\n"
		"X = c\n"
		"LATER = $(X)b\n"
		"V = 0\n"
		"am__v_CC_0 = quiet\n"
		"am__v_CC_1 = loud\n"
		"SRCS = a.c b.c dir/c.c\n"
		"hot.o: CFLAGS += -fomit-frame-pointer\n"
		"all: prog\n"
		"\t$(CC) -o $@ $^ # recipe = skipped\n"
		"define BLOCK\n"
		"IN_BLOCK = yes\n"
		"endef\n"
		"override Y = ${X}$$HOME\n"
		"export Z = $(shell uname) $(SELF)\n"
		"SELF = $(SELF) again\n"
		"HASH = a\\#b\n";
	fg_makevars *mv = NULL;
	char buf[256];
	(void)state;

	assert_int_equal(fg_makevars_parse(&mv, mk, sizeof(mk) - 1), 0);
	/* as make does: the blank before a comment stays, += adds one */
	assert_string_equal(expand(mv, "$(CFLAGS)", buf, sizeof(buf)), "-O2 -Wall -g  -fPIC");
	assert_string_equal(expand(mv, "$(OPT)", buf, sizeof(buf)), "first");
	assert_string_equal(expand(mv, "$(NOW) $(LATER)", buf, sizeof(buf)), "ab cb");
	assert_string_equal(expand(mv, "$(am__v_CC_$(V))", buf, sizeof(buf)), "quiet");
	assert_string_equal(expand(mv, "$(SRCS:.c=.o)", buf, sizeof(buf)), "a.o b.o dir/c.o");
	assert_string_equal(expand(mv, "$(SRCS:%.c=%.lo)", buf, sizeof(buf)), "a.lo b.lo dir/c.lo");
	assert_string_equal(expand(mv, "$(Y)", buf, sizeof(buf)), "c$HOME");
	/* a function is not evaluated; a self-reference ends */
	assert_string_equal(expand(mv, "[$(Z)]", buf, sizeof(buf)), "[  again]");
	assert_null(fg_makevars_raw(mv, "IN_BLOCK"));
	assert_null(fg_makevars_raw(mv, "hot.o"));
	assert_string_equal(fg_makevars_raw(mv, "CC"), "gcc");
	assert_string_equal(expand(mv, "$(CC", buf, sizeof(buf)), "$(CC");
	fg_strvec words = FG_STRVEC_INIT;
	assert_int_equal(fg_makevars_words(mv, "SRCS", &words), 0);
	assert_int_equal(words.n, 3);
	assert_string_equal(words.v[2], "dir/c.c");
	fg_strvec_clear(&words);
	fg_makevars_free(mv);
}

static fg_project *project(fg_manifest_type type, const char *file)
{
	fg_manifest_loc loc = { type, (char *)file, (char *)"/src/proj", NULL };
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	fg_project *p = NULL;

	opts.build_dir = "/src/proj/build/flamegraph/release";
	assert_int_equal(fg_project_new(&p, &loc, &opts), 0);
	return p;
}

static const struct fg_target *target(const fg_project *p, const char *name)
{
	for (size_t i = 0; i < fg_project_target_count(p); i++)
		if (!strcmp(fg_target_name(fg_project_target(p, i)), name))
			return fg_project_target(p, i);
	fail_msg("no target %s", name);
	return NULL;
}

static void test_automake(void **state)
{
	static const char mk[] =
		"EXEEXT = \n"
		"PACKAGE = crunch\n"
		"bin_PROGRAMS = crunch$(EXEEXT) $(am__EXEEXT_1)\n"
		"am__EXEEXT_1 = tools/extra$(EXEEXT)\n"
		"pkglibexec_PROGRAMS = helper$(EXEEXT)\n"
		"check_PROGRAMS = test_crunch$(EXEEXT)\n"
		"noinst_PROGRAMS = demo$(EXEEXT) bench-speed$(EXEEXT)\n"
		"EXTRA_PROGRAMS = crunch$(EXEEXT)\n"
		"crunch_DEPENDENCIES = ../lib/libcrunch.la libver.a\n"
		"BUILT_SOURCES = version.h\n";
	const char *dir = "/src/proj/build/flamegraph/release/src";
	fg_project *p = project(FG_MANIFEST_AUTOTOOLS, "/src/proj/configure.ac");
	const fg_autotools_state *st;
	const struct fg_target *t;
	(void)state;

	assert_int_equal(fg_autotools_read_makefile(p, dir, mk, sizeof(mk) - 1), 0);
	assert_int_equal(fg_project_target_count(p), 6);
	t = target(p, "crunch");
	assert_int_equal(fg_target_kind_of(t), FG_TARGET_BIN);
	assert_string_equal(fg_target_exe(t), "/src/proj/build/flamegraph/release/src/crunch");
	assert_int_equal(fg_target_kind_of(target(p, "extra")), FG_TARGET_BIN);
	assert_int_equal(fg_target_kind_of(target(p, "helper")), FG_TARGET_BIN);
	t = target(p, "test_crunch");
	assert_int_equal(fg_target_kind_of(t), FG_TARGET_TEST);
	fg_run_spec spec = FG_RUN_SPEC_INIT;
	assert_int_equal(fg_target_run_spec(&spec, t, NULL, 0, false), 0);
	assert_string_equal(spec.cwd, dir);
	assert_int_equal(spec.nenv, 1);
	assert_string_equal(spec.env[0], "srcdir=/src/proj/src");
	fg_run_spec_release(&spec);
	assert_int_equal(fg_target_kind_of(target(p, "demo")), FG_TARGET_EXAMPLE);
	assert_int_equal(fg_target_kind_of(target(p, "bench-speed")), FG_TARGET_BENCH);
	st = p->state;
	assert_int_equal(st->goals[0].deps.n, 1);
	assert_string_equal(st->goals[0].deps.v[0], "/src/proj/build/flamegraph/release/lib");
	assert_string_equal(st->goals[0].built.v[0], "version.h");
	assert_string_equal(st->goals[1].goal, "tools/extra");
	/* a guessed kind: another kind flag takes it, a declared one not */
	const fg_target *sel = NULL;
	assert_int_equal(fg_project_select(&sel, p, FG_TARGET_BIN, "demo"), 0);
	assert_int_equal(fg_project_select(&sel, p, FG_TARGET_TEST, "crunch"), FG_ENOTFOUND);
	fg_error_clear();
	fg_project_free(p);
}

/* In-tree libraries automake's _DEPENDENCIES leaves out: a configure
 * substitution in _LDADD, -L folders of the build, a library of the
 * program's own folder; a -L outside the build is not one. */
static void test_automake_deps(void **state)
{
	static const char mk[] =
		"top_builddir = ..\n"
		"CRUNCH_LIBS = $(top_builddir)/lib/libcrunch.la\n"
		"am__DEPENDENCIES_1 =\n"
		"bin_PROGRAMS = crunch demo\n"
		"crunch_DEPENDENCIES = $(am__DEPENDENCIES_1)\n"
		"crunch_LDADD = $(CRUNCH_LIBS) libhere.la\n"
		"demo_DEPENDENCIES =\n"
		"demo_LDADD = -L../util -lutil -L/usr/lib -lm\n"
		"demo_LDFLAGS = -L$(top_builddir)/extra\n";
	const char *dir = "/src/proj/build/flamegraph/release/src";
	fg_project *p = project(FG_MANIFEST_AUTOTOOLS, "/src/proj/configure.ac");
	const fg_autotools_state *st;
	(void)state;

	assert_int_equal(fg_autotools_read_makefile(p, dir, mk, sizeof(mk) - 1), 0);
	st = p->state;
	assert_int_equal(st->goals[0].deps.n, 1);
	assert_string_equal(st->goals[0].deps.v[0], "/src/proj/build/flamegraph/release/lib");
	assert_int_equal(st->goals[0].libs.n, 1);
	assert_string_equal(st->goals[0].libs.v[0], "libhere.la");
	assert_int_equal(st->goals[1].deps.n, 2);
	assert_string_equal(st->goals[1].deps.v[0], "/src/proj/build/flamegraph/release/util");
	assert_string_equal(st->goals[1].deps.v[1], "/src/proj/build/flamegraph/release/extra");
	assert_int_equal(st->goals[1].libs.n, 0);
	fg_project_free(p);
}

/* A configured Makefile.in written by hand: the programs its dry run
 * links, made with make in the folder of the nearest Makefile. */
static void test_handwritten(void **state)
{
	static const char top[] = "srcdir = .\nall:\n\tcd src && $(MAKE) all\n";
	const char *tmp = getenv("TMPDIR");
	char root[512], path[600], dry[4096];
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	fg_project *p = NULL;
	const fg_autotools_state *st;
	const struct fg_target *t;
	FILE *f;
	(void)state;

	snprintf(root, sizeof(root), "%s/fg-hw-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/build", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/build/src", root);
	assert_int_equal(mkdir(path, 0700), 0);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/build/%sMakefile", root, i ? "src/" : "");
		assert_non_null(f = fopen(path, "w"));
		fputs(i ? "all: spin\n" : top, f);
		fclose(f);
	}
	snprintf(dry, sizeof(dry),
		 "make: Entering directory '%s/build'\n"
		 "cd src && make all\n"
		 "make[1]: Entering directory '%s/build/src'\n"
		 "gcc -O2 -g -c %s/src/spin.c\n"
		 "gcc -O2 -g -c \\\n  %s/src/mix.c\n"
		 "gcc -O2 -g -o spin spin.o mix.o -lm\n"
		 "gcc -O2 -g spin.o mix.o -o tools/spin-bench -lm\n"
		 "make[1]: Leaving directory '%s/build/src'\n"
		 "make: Leaving directory '%s/build'\n", root, root, root, root, root, root);
	snprintf(path, sizeof(path), "%s/configure.ac", root);
	loc.type = FG_MANIFEST_AUTOTOOLS;
	loc.file = path;
	loc.root = root;
	char build[600];
	snprintf(build, sizeof(build), "%s/build", root);
	opts.build_dir = build;
	assert_int_equal(fg_project_new(&p, &loc, &opts), 0);
	assert_int_equal(fg_autotools_read_makefile(p, build, top, sizeof(top) - 1), 0);
	st = p->state;
	assert_true(st->handwritten);
	assert_int_equal(fg_autotools_read_links(p, dry, strlen(dry)), 0);
	assert_int_equal(fg_project_target_count(p), 2);
	t = target(p, "spin");
	assert_int_equal(fg_target_kind_of(t), FG_TARGET_BIN);
	snprintf(path, sizeof(path), "%s/build/src/spin", root);
	assert_string_equal(fg_target_exe(t), path);
	snprintf(path, sizeof(path), "%s/build/src", root);
	assert_string_equal(st->goals[0].dir, path);
	assert_string_equal(st->goals[0].goal, "spin");
	/* written to a folder without a Makefile: made from the one above */
	assert_int_equal(fg_target_kind_of(target(p, "spin-bench")), FG_TARGET_BENCH);
	assert_string_equal(st->goals[1].dir, path);
	assert_string_equal(st->goals[1].goal, "tools/spin-bench");
	/* nothing linked: an error that says what to do */
	fg_project_free(p);
	assert_int_equal(fg_project_new(&p, &loc, &opts), 0);
	assert_int_equal(fg_autotools_read_links(p, "gcc -c a.c\n", 11), FG_EPARSE);
	fg_error_clear();
	fg_project_free(p);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/build/%sMakefile", root, i ? "src/" : "");
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/build/src", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/build", root);
	rmdir(path);
	rmdir(root);
}

static void test_included(void **state)
{
	static const char mk[] =
		"DEPS = a.d b.d\n"
		"include config.mk\n"
		"  -include $(DEPS) \\\n"
		"\tlast.mk # a comment\n"
		"sinclude $(wildcard *.mk)\n"
		"includes = not-a-directive\n"
		"all:\n"
		"\tinclude-not-in-a-recipe x.mk\n";
	fg_strvec files = FG_STRVEC_INIT;
	(void)state;

	assert_int_equal(fg_make_included(mk, sizeof(mk) - 1, &files), 0);
	assert_int_equal(files.n, 4);
	assert_string_equal(files.v[0], "config.mk");
	assert_string_equal(files.v[1], "a.d");
	assert_string_equal(files.v[2], "b.d");
	assert_string_equal(files.v[3], "last.mk");
	fg_strvec_clear(&files);
}

static void test_help(void **state)
{
	static const char help[] =
		"Optional Features:\n"
		"  --disable-option-checking  ignore unrecognized --enable/--with options\n"
		"  --enable-FEATURE[=ARG]  include FEATURE [ARG=yes]\n"
		"  --enable-silent-rules   less verbose build output (undo: \"make V=1\")\n"
		"  --enable-fast-mix       use the shift-only mixing step\n"
		"  --disable-checksum      do not print the checksum line\n"
		"  --enable-shared[=PKGS]  build shared libraries [default=yes]\n"
		"Optional Packages:\n"
		"  --with-zlib=DIR         where zlib is\n"
		"  --with-libiconv-prefix[=DIR]  search for libiconv in DIR\n"
		"  --prefix=PREFIX         install here\n";
	fg_project *p = project(FG_MANIFEST_AUTOTOOLS, "/src/proj/configure");
	fg_strvec args = FG_STRVEC_INIT;
	const char *feats[] = { "fast-mix", "zlib" }, *defs[] = { "disable-checksum", "CC=clang", "prefix=/opt" };
	(void)state;

	assert_int_equal(fg_autotools_read_help(p, help, sizeof(help) - 1), 0);
	assert_int_equal(p->bool_options.n, 3);
	assert_string_equal(p->bool_options.v[0], "fast-mix");
	assert_string_equal(p->bool_options.v[2], "zlib");
	p->opts.features = feats;
	p->opts.nfeatures = 2;
	p->opts.defines = defs;
	p->opts.ndefines = 3;
	assert_int_equal(fg_autotools_configure_args(p, "-fno-omit-frame-pointer", &args), 0);
	assert_int_equal(args.n, 7);
	assert_string_equal(args.v[0], "CFLAGS=-O2 -g -fno-omit-frame-pointer");
	assert_string_equal(args.v[2], "--enable-fast-mix");
	assert_string_equal(args.v[3], "--with-zlib");
	assert_string_equal(args.v[4], "--disable-checksum");
	assert_string_equal(args.v[5], "CC=clang");
	assert_string_equal(args.v[6], "--prefix=/opt");
	fg_strvec_clear(&args);
	const char *bad[] = { "fastmix" };
	p->opts.features = bad;
	p->opts.nfeatures = 1;
	assert_int_equal(fg_autotools_configure_args(p, "-fno-omit-frame-pointer", &args), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "did you mean 'fast-mix'"));
	fg_strvec_clear(&args);
	p->opts.nfeatures = 0;
	p->opts.ndefines = 0;
	p->opts.no_default_features = true;
	assert_int_equal(fg_autotools_configure_args(p, "-fno-omit-frame-pointer", &args), 0);
	assert_int_equal(args.n, 3);
	assert_string_equal(args.v[2], "--disable-checksum");
	fg_strvec_clear(&args);
	fg_error_clear();
	fg_project_free(p);
}

static int collect(void *ctx, fg_strvec *words)
{
	fg_strbuf *sb = ctx;
	for (size_t i = 0; i < words->n; i++)
		fg_strbuf_addf(sb, "%s%s", i ? " " : "", words->v[i]);
	fg_strbuf_addch(sb, '|');
	return 0;
}

static void test_split(void **state)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	(void)state;

	assert_int_equal(fg_make_split_line("cd sub && gcc -c 'a b.c' -o x.o; echo \"done; ok\" | cat",
					    collect, &sb), 0);
	assert_string_equal(sb.buf, "cd sub|gcc -c a b.c -o x.o|echo done; ok|cat|");
	fg_strbuf_reset(&sb);
	assert_int_equal(fg_make_split_line("(cd x; ar rcs libx.a a.o) || exit 1", collect, &sb), 0);
	assert_string_equal(sb.buf, "cd x|ar rcs libx.a a.o|exit 1|");
	fg_strbuf_reset(&sb);
	/* an unterminated quote: not a command */
	assert_int_equal(fg_make_split_line("gcc 'oops", collect, &sb), 0);
	assert_int_equal(sb.len, 0);
	fg_strbuf_release(&sb);
}

static const fg_make_link *link_of(const fg_project *p, const char *name)
{
	const fg_make_state *st = p->state;
	const struct fg_target *t = target(p, name);
	return &st->links[t - p->targets];
}

static void test_dryrun(void **state)
{
	static const char out[] =
		"make: Entering directory '/src/proj'\n"
		"gcc -Wall -O2 -g -c blocksort.c\n"
		"gcc -Wall -O2 -g -c \\\n"
		"    bzlib.c\n"
		"rm -f libbz2.a\n"
		"ar cq libbz2.a blocksort.o bzlib.o\n"
		"ranlib libbz2.a\n"
		"gcc -Wall -O2 -g -c bzip2.c\n"
		"gcc -Wall -O2 -g  -o bzip2 bzip2.o -L. -lbz2\n"
		"cc -O2 -o fgsum tools/sum.c -lm\n"
		"ccache cc -c -o src/a.o src/a.c\n"
		"cc src/a.o -oprog-a -pthread -Wl,--as-needed -lz\n"
		"make[1]: Entering directory '/src/proj/sub'\n"
		"/bin/bash ../libtool  --tag=CC   --mode=compile gcc -O2 -c -o util.lo util.c\n"
		"/bin/bash ../libtool  --tag=CC   --mode=link gcc -O2 -o libutil.la util.lo -rpath /usr/lib\n"
		"/bin/bash ../libtool  --tag=CC   --mode=link gcc -O2 -o tool main.c libutil.la\n"
		"cd /src/proj/other && gcc -c x.c && gcc -o ../bin/x x.o\n"
		"make[1]: Leaving directory '/src/proj/sub'\n"
		"gcc -shared -o libbz2.so.1.0 blocksort.o bzlib.o\n"
		"./bzip2 -1 < sample1.ref > sample1.rb2\n"
		"make: Leaving directory '/src/proj'\n";
	fg_project *p = project(FG_MANIFEST_MAKE, "/src/proj/Makefile");
	const fg_make_state *st;
	const fg_make_link *l;
	(void)state;

	assert_int_equal(fg_make_read_dryrun(p, "/src/proj", out, sizeof(out) - 1), 0);
	assert_int_equal(fg_project_target_count(p), 5);
	st = p->state;
	/* libbz2.a (ar) and libutil.la (libtool), made from our objects */
	assert_int_equal(st->narchives, 2);
	assert_string_equal(st->archives[0].orig, "/src/proj/libbz2.a");
	assert_string_equal(st->archives[0].path, "/src/proj/build/flamegraph/release/lib/libbz2.a");
	assert_int_equal(st->archives[0].nunits, 2);
	assert_string_equal(p->units[st->archives[0].units[1]].source, "/src/proj/bzlib.c");
	/* -L. -lbz2 is the in-tree archive */
	l = link_of(p, "bzip2");
	assert_string_equal(l->driver, "gcc");
	assert_int_equal(l->nunits, 1);
	assert_string_equal(p->units[l->units[0]].source, "/src/proj/bzip2.c");
	assert_int_equal(l->narchives, 1);
	assert_int_equal(l->archives[0], 0);
	assert_int_equal(l->libs.n, 1);
	assert_string_equal(l->libs.v[0], "-L/src/proj");
	assert_string_equal(fg_target_exe(target(p, "bzip2")), "/src/proj/build/flamegraph/release/bzip2");
	/* compiled and linked in one command */
	l = link_of(p, "fgsum");
	assert_int_equal(l->nunits, 1);
	assert_string_equal(p->units[l->units[0]].source, "/src/proj/tools/sum.c");
	assert_string_equal(l->libs.v[0], "-lm");
	/* -o glued to its value, after the inputs; ccache dropped */
	l = link_of(p, "prog-a");
	assert_string_equal(l->driver, "cc");
	assert_int_equal(l->nunits, 1);
	assert_string_equal(p->units[l->units[0]].source, "/src/proj/src/a.c");
	assert_int_equal(l->libs.n, 3);
	assert_string_equal(l->libs.v[0], "-pthread");
	assert_string_equal(l->libs.v[1], "-Wl,--as-needed");
	assert_string_equal(l->libs.v[2], "-lz");
	/* libtool lines, in the folder make entered */
	l = link_of(p, "tool");
	assert_int_equal(l->narchives, 1);
	assert_string_equal(st->archives[l->archives[0]].orig, "/src/proj/sub/libutil.la");
	assert_string_equal(p->units[l->units[0]].source, "/src/proj/sub/main.c");
	/* cd in the line */
	assert_string_equal(fg_target_exe(target(p, "x")), "/src/proj/build/flamegraph/release/bin/x");
	assert_string_equal(p->units[link_of(p, "x")->units[0]].source, "/src/proj/other/x.c");
	/* our compile of a unit: the project's flags, then ours */
	const struct fg_unit *u = &p->units[link_of(p, "bzip2")->units[0]];
	assert_string_equal(u->argv.v[u->argv.n - 1], "-fno-omit-frame-pointer");
	fg_project_free(p);
}

static void test_dryrun_nothing(void **state)
{
	static const char out[] = "python3 build.py\necho done\n";
	fg_project *p = project(FG_MANIFEST_MAKE, "/src/proj/Makefile");
	(void)state;

	assert_int_equal(fg_make_read_dryrun(p, "/src/proj", out, sizeof(out) - 1), FG_EPARSE);
	assert_non_null(strstr(fg_error_last(), "bear -- make"));
	fg_error_clear();
	fg_project_free(p);
}

static void test_extra_goals(void **state)
{
	static const char db[] =
		"# Variables\n"
		"check = a variable, not a rule\n"
		"bench: before the files part\n"
		"# Files\n"
		"\n"
		"# Not a target:\n"
		"tests:\n"
		"#  Implicit rule search has not been done.\n"
		"\n"
		"bench_programs:= x\n"
		"benchmark: benchmark.o libx.a\n"
		"\n"
		"check: test_programs\n"
		"#  Phony target (prerequisite of .PHONY).\n"
		"\n"
		"test_programs: t1 t2\n"
		"test_programs_extra: t3\n";
	fg_strvec tests = FG_STRVEC_INIT, benches = FG_STRVEC_INIT;
	(void)state;

	assert_int_equal(fg_make_extra_goals(db, sizeof(db) - 1, &tests, &benches), 0);
	assert_int_equal(tests.n, 2);
	assert_string_equal(tests.v[0], "check");
	assert_string_equal(tests.v[1], "test_programs");
	assert_int_equal(benches.n, 1);
	assert_string_equal(benches.v[0], "benchmark");
	fg_strvec_clear(&tests);
	fg_strvec_clear(&benches);
	/* no database: no goals */
	assert_int_equal(fg_make_extra_goals("check: x\n", 9, &tests, &benches), 0);
	assert_int_equal(tests.n + benches.n, 0);
}

static void test_goal_dryrun(void **state)
{
	static const char all[] =
		"make: Entering directory '/src/proj'\n"
		"echo '  GEN  ' src/config.h; CC=\"cc\" CFLAGS=\"-O2 -DX\" scripts/detect.sh > src/config.h\n"
		"cc -O2 -c -o src/util.o src/util.c\n"
		"ar cr libx.a src/util.o\n"
		"cc -O2 -c -o gzip.o gzip.c\n"
		"cc -o gzip gzip.o libx.a\n"
		"echo \"$flags\" > .build-config\n";
	static const char check[] =
		"make: Entering directory '/src/proj'\n"
		"cc -O2 -c -o src/util.o src/util.c\n"
		"ar cr libx.a src/util.o\n"
		"cc -O2 -c -o t_one.o t_one.c\n"
		"cc -o t_one t_one.o libx.a -lz\n"
		"cc -O2 -c -o benchmark.o benchmark.c\n"
		"cc -o benchmark benchmark.o libx.a -lz\n"
		"cc -O3 -DCHECK -c -o gzip.o gzip.c\n"
		"cc -o gzip gzip.o libx.a -lcheck\n"
		"./t_one\n";
	fg_project *p = project(FG_MANIFEST_MAKE, "/src/proj/Makefile");
	const fg_make_state *st;
	const fg_make_link *l;
	(void)state;

	assert_int_equal(fg_make_read_dryrun(p, "/src/proj", all, sizeof(all) - 1), 0);
	assert_int_equal(fg_make_read_goal_dryrun(p, "/src/proj", FG_TARGET_TEST, check,
						  sizeof(check) - 1), 0);
	assert_int_equal(fg_project_target_count(p), 3);
	assert_int_equal(fg_target_kind_of(target(p, "gzip")), FG_TARGET_BIN);
	assert_int_equal(fg_target_kind_of(target(p, "t_one")), FG_TARGET_TEST);
	/* a test goal's program named as a benchmark is a bench */
	assert_int_equal(fg_target_kind_of(target(p, "benchmark")), FG_TARGET_BENCH);
	/* the default goal's program keeps its own link, not the goal's */
	l = link_of(p, "gzip");
	assert_int_equal(l->libs.n, 0);
	st = p->state;
	assert_int_equal(st->narchives, 1);
	l = link_of(p, "t_one");
	assert_int_equal(l->narchives, 1);
	assert_string_equal(l->libs.v[0], "-lz");
	/* the shared object compiled once */
	assert_int_equal(p->nunits, 5);
	/* the header a command writes, to be run again into our folder */
	assert_int_equal(st->nheaders, 1);
	assert_string_equal(st->headers[0].orig, "/src/proj/src/config.h");
	assert_string_equal(st->headers[0].path, "/src/proj/build/flamegraph/release/gen/src/config.h");
	assert_string_equal(st->headers[0].dir, "/src/proj");
	assert_int_equal(st->headers[0].argv.n, 1);
	assert_string_equal(st->headers[0].argv.v[0], "scripts/detect.sh");
	assert_int_equal(st->headers[0].env.n, 2);
	assert_string_equal(st->headers[0].env.v[1], "CFLAGS=-O2 -DX");
	/* a goal that links nothing new: no error, nothing added */
	assert_int_equal(fg_make_read_goal_dryrun(p, "/src/proj", FG_TARGET_BENCH, "./t_one\n", 8), 0);
	assert_int_equal(fg_project_target_count(p), 3);
	fg_project_free(p);
}

static bool has(const fg_strvec *v, const char *word)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], word))
			return true;
	return false;
}

static const struct fg_unit *unit_of(const fg_project *p, const char *source)
{
	for (size_t i = 0; i < p->nunits; i++)
		if (!strcmp(p->units[i].source, source))
			return &p->units[i];
	fail_msg("no unit %s", source);
	return NULL;
}

/* Compiles and links through libtool in each way it is written: options
 * as one word or two, the bare mode word and its prefixes, libtool's own
 * options before the mode, modes that build nothing, and libtool's link
 * flags made into the driver's. */
static void test_dryrun_libtool(void **state)
{
	static const char out[] =
		"make: Entering directory '/src/proj'\n"
		"libtool --mode compile --tag CC gcc -O2 -c -o a.lo a.c\n"
		"/usr/bin/libtool compile gcc -O2 -c b.c\n"
		"sh ./libtool co gcc -O2 -c -static -o s.lo s.c\n"
		"/bin/sh ../proj/libtool --quiet --tag=CC --mode=compile gcc -prefer-pic "
		"-Wc,-fno-common,-DW -Xcompiler -DX -c -o c.lo c.c\n"
		"libtool --silent --no-silent --preserve-dup-deps -W none --tag=CC --mode=compile "
		"ccache gcc -no-suppress -shared -c -o d.lo d.c\n"
		"libtool --tag=CC --mode=link gcc -O2 -o libc.la c.lo d.lo -rpath /usr/lib "
		"-version-info 2:0:1 -no-undefined\n"
		"libtool link gcc -static -o prog a.lo b.lo libc.la -export-dynamic -no-install "
		"-avoid-version -rpath /usr/local/lib -R /opt/lib -dlopen mod.la -lm\n"
		"libtool l gcc -o short s.lo\n"
		"libtool --mode=link gcc -all-static -XCClinker -pthread -o sprog a.lo\n"
		"libtool --mode=install /usr/bin/install -c prog /usr/bin/prog\n"
		"libtool --mode=execute gcc -o run_exec e.c\n"
		"libtool --mode=clean rm -f a.lo\n"
		"libtool --finish gcc -o run_finish e.c\n"
		"libtool --mode=uninstall gcc -o run_uninstall e.c\n"
		"libtool --mode=bogus gcc -o run_bogus e.c\n";
	fg_project *p = project(FG_MANIFEST_MAKE, "/src/proj/Makefile");
	const fg_make_state *st;
	const fg_make_link *l;
	const struct fg_unit *u;
	(void)state;

	assert_int_equal(fg_make_read_dryrun(p, "/src/proj", out, sizeof(out) - 1), 0);
	/* the install, execute, clean, finish, uninstall and unknown modes add nothing */
	assert_int_equal(fg_project_target_count(p), 3);
	assert_int_equal(p->nunits, 5);
	/* --tag CC and --mode compile as two words each; the bare mode word */
	u = unit_of(p, "/src/proj/a.c");
	assert_string_equal(u->argv.v[0], "gcc");
	assert_true(has(&u->argv, "-O2"));
	assert_false(has(&u->argv, "CC"));
	assert_false(has(&u->argv, "compile"));
	unit_of(p, "/src/proj/b.c");
	/* libtool's compile options go; -Wc, and -Xcompiler reach the compiler */
	u = unit_of(p, "/src/proj/s.c");
	assert_false(has(&u->argv, "-static"));
	u = unit_of(p, "/src/proj/c.c");
	assert_false(has(&u->argv, "-prefer-pic"));
	assert_true(has(&u->argv, "-fno-common"));
	assert_true(has(&u->argv, "-DW"));
	assert_true(has(&u->argv, "-DX"));
	assert_false(has(&u->argv, "-Xcompiler"));
	u = unit_of(p, "/src/proj/d.c");
	assert_string_equal(u->argv.v[0], "gcc");
	assert_false(has(&u->argv, "-no-suppress"));
	assert_false(has(&u->argv, "-shared"));
	/* the libtool library: an archive of its objects, -rpath and its version gone */
	st = p->state;
	assert_int_equal(st->narchives, 1);
	assert_string_equal(st->archives[0].orig, "/src/proj/libc.la");
	assert_int_equal(st->archives[0].nunits, 2);
	/* -static is libtool's (libtool libraries linked statically), not the
	 * driver's; -export-dynamic is -rdynamic, -R a run path */
	l = link_of(p, "prog");
	assert_int_equal(l->nunits, 2);
	assert_int_equal(l->narchives, 1);
	assert_int_equal(l->libs.n, 3);
	assert_string_equal(l->libs.v[0], "-rdynamic");
	assert_string_equal(l->libs.v[1], "-Wl,-rpath,/opt/lib");
	assert_string_equal(l->libs.v[2], "-lm");
	/* "l" is link */
	l = link_of(p, "short");
	assert_int_equal(l->nunits, 1);
	/* -all-static is the driver's -static; -XCClinker hands it a flag */
	l = link_of(p, "sprog");
	assert_int_equal(l->libs.n, 2);
	assert_string_equal(l->libs.v[0], "-static");
	assert_string_equal(l->libs.v[1], "-pthread");
	fg_project_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vars),
		cmocka_unit_test(test_automake),
		cmocka_unit_test(test_automake_deps),
		cmocka_unit_test(test_handwritten),
		cmocka_unit_test(test_included),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_dryrun),
		cmocka_unit_test(test_dryrun_libtool),
		cmocka_unit_test(test_dryrun_nothing),
		cmocka_unit_test(test_extra_goals),
		cmocka_unit_test(test_goal_dryrun),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
