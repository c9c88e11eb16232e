/* Autotools projects (src/lib/project/autotools): the reader (read.c),
 * where configure runs from (source.c), the configure (configure.c) and
 * the build (build.c).
 *
 * The project is configured out of tree into the flamegraph build folder
 * (from the user's tree when its `configure` is current, else from a copy
 * of the tree regenerated with `autoreconf -fi`: the user's tree is never
 * written), its targets are read from the generated Makefiles'
 * *_PROGRAMS variables, and a target is built with `make -C DIR PROGRAM`
 * after the in-tree libraries it depends on. */
#ifndef FG_LIB_PROJECT_AUTOTOOLS_AUTOTOOLS_H
#define FG_LIB_PROJECT_AUTOTOOLS_AUTOTOOLS_H

#include <stdbool.h>
#include <stddef.h>

#include "flamegraph/builder.h"
#include "lib/project/project.h"

/* The folder of our copy of the source tree, inside the build folder. */
#define FG_AUTOTOOLS_COPY "flamegraph-source"

/* How to build one target (per index into p->targets). */
typedef struct fg_autotools_goal {
	char *dir;          /* the build folder of its Makefile (absolute) */
	char *goal;         /* what `make -C dir` is given ("gzip", "src/foo") */
	fg_strvec deps;     /* build folders of the in-tree libraries it
			       links in other folders: `make -C` each
			       first. Read from its _DEPENDENCIES, _LDADD
			       and the -L folders of _LDFLAGS/LDADD, as
			       automake's _DEPENDENCIES leaves out
			       configure substitutions and -l */
	fg_strvec libs;     /* the in-tree libraries it links that its own
			       Makefile builds ("libfoo.la", or
			       "lib/libfoo.a" in a folder with no Makefile):
			       made before it, as its _DEPENDENCIES may not
			       list them */
	fg_strvec built;    /* its folder's BUILT_SOURCES, made before it */
} fg_autotools_goal;

/* The reader's state (p->state). */
typedef struct fg_autotools_state {
	char *srcdir;       /* where configure runs from: p->loc.root or
			       our copy (absolute) */
	bool copied;        /* srcdir is our copy */
	fg_strvec options;  /* configure --help's options without "--"
			       ("enable-foo", "with-bar", "prefix") */
	bool handwritten;   /* the top Makefile is no automake output (a
			       Makefile.in written by hand): its programs
			       come from its link rules */
	fg_autotools_goal *goals;
	size_t ngoals;
} fg_autotools_state;

/* The reader's state of p (made on first use; NULL: out of memory). */
fg_autotools_state *fg_autotools_state_of(fg_project *p);

/* Reads the options `configure --help` lists into st->options and the
 * feature names (NAME of --enable-NAME/--disable-NAME and
 * --with-NAME/--without-NAME, leaving out the generic ones autoconf,
 * automake and libtool add to every project) into p->bool_options.
 * FG_ENOMEM. */
int fg_autotools_read_help(fg_project *p, const char *text, size_t len);

/* Reads the targets of the configured build folder: every generated
 * Makefile below p->build_dir (our copy left out). FG_ENOTFOUND when
 * the build folder holds no Makefile; FG_EIO. */
int fg_autotools_read(fg_project *p);

/* The targets of one generated Makefile, its text in memory: `dir` is
 * its folder below p->build_dir (absolute). bin_PROGRAMS, sbin_, libexec_
 * and every other installed *_PROGRAMS -> bin; check_PROGRAMS -> test
 * (run in `dir`, with srcdir set, as `make check` runs them);
 * noinst_PROGRAMS and EXTRA_PROGRAMS -> example, or test/bench by name.
 * A program already read keeps its first kind. FG_ENOMEM. */
int fg_autotools_read_makefile(fg_project *p, const char *dir, const char *text, size_t len);

/* The programs of a configured build folder whose Makefiles were
 * written by hand (st->handwritten), from the output of `make -nB -w`
 * run in it (`text`): each program a link command writes, through the
 * plain-Make reader (makefile.h), kind guessed from its name, built with
 * `make -C DIR PROGRAM` in the folder of the nearest Makefile.
 * FG_EPARSE when the dry run links no program, FG_ENOMEM. */
int fg_autotools_read_links(fg_project *p, const char *text, size_t len);

/* Whether the feature-like option NAME ("foo" of --enable-foo) is one
 * autoconf, automake or libtool gives every project. */
bool fg_autotools_generic_option(const char *name);

/* The arguments of configure (implemented by the builder,
 * configure.c; runs nothing): CFLAGS and CXXFLAGS (the
 * user's $CFLAGS, else -O2 for release; -O0 added for dev; then "-g" and
 * `fp_flags`), LDFLAGS (the user's, -Wl,--no-rosegment when needed), CC,
 * --enable-X/--with-X per --features (--all-features: every --enable-X
 * listed; --no-default-features: every --disable-X/--without-X listed),
 * then -D NAME[=VALUE] as --NAME[=VALUE] (a NAME in capitals stays a
 * variable: CC=clang). Needs st->options (fg_autotools_read_help).
 * FG_EINVAL for an unknown feature, option or profile, with a "did you
 * mean". */
int fg_autotools_configure_args(fg_project *p, const char *fp_flags, fg_strvec *args);

/* Opening and building (system.c): fg_autotools_check_profile refuses
 * a profile other than release and dev (FG_EINVAL); fg_autotools_source decides where
 * configure runs from (the user's tree, or a copy regenerated with
 * autoreconf -fi); fg_autotools_configure (re)configures the build
 * folder when its arguments changed (FG_EBUILD with configure's last
 * lines and config.log's path when it fails); fg_autotools_build makes a
 * program (build.c). */
int fg_autotools_check_profile(const fg_project *p);
int fg_autotools_source(fg_project *p);
int fg_autotools_configure(fg_project *p);
/* When the configured build's Makefile was written by hand (no
 * automake), reads its programs from a dry run (make -nB -w) in the
 * build folder: fg_autotools_read_links. 0 for an automake build. */
int fg_autotools_dryrun(fg_project *p);
int fg_autotools_build(fg_project *p, const struct fg_target *t, fg_build_result *res);

#endif
