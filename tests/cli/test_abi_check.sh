# The library as an embedder gets it (cmake --install): every public
# header compiles alone in C and in C++ (extern "C"), a C and a C++
# program build against the installed headers and shared library and run
# (options set up with the versioned _init functions; options of an
# unknown version, alone or embedded, refused), a program compiled against
# version 1 of options now at version 2 runs, no private header
# is installed, and the exported symbols are the list kept in
# tests/abi/symbols.txt: a change of the exported surface is a decision,
# made by updating that list with it.
if grep -qs '^FG_SANITIZE:BOOL=ON' "$FG_BIN/CMakeCache.txt"; then
	echo "sanitizer build: the install is tested with the plain build" >&2
	exit 77
fi
prefix=$PWD/p
check_exit "cmake --install" 0 cmake --install "$FG_BIN" --prefix "$prefix"
inc=$prefix/include
lib=$(dirname "$(find "$prefix" -name 'libflamegraph.so' | head -1)")
[ -f "$lib/libflamegraph.so" ] && pass || fail "no installed libflamegraph.so"
[ ! -e "$inc/flamegraph/toml.h" ] && pass || fail "the manifest's private TOML reader is installed"

# each header alone, in both languages; a header that declares functions
# gives them C linkage in C++
for h in "$inc"/flamegraph/*.h; do
	name=$(basename "$h")
	if grep -q '^FG_API_BEGIN' "$h"; then
		grep -q 'extern "C"' "$h" && pass || fail "$name declares functions without extern \"C\""
	fi
	printf '#include <flamegraph/%s>\nint fg_abi_check_%s;\n' "$name" "${name%.h}" > one.c
	check_exit "$name compiles alone in C" 0 cc -std=c11 -Wall -Werror -fsyntax-only -I "$inc" one.c
	cp one.c one.cpp
	check_exit "$name compiles alone in C++" 0 c++ -std=c++17 -Wall -Werror -fsyntax-only -I "$inc" one.cpp
done

# a program in each language: the versioned options and a stage
cat > app.c <<'C'
#include <stdio.h>
#include <string.h>
#include <flamegraph/flamegraph.h>

/* err must be FG_EINVAL with a message that names the _init to call */
static int refused(int err, const char *init)
{
	if (err != FG_EINVAL || !strstr(fg_error_last(), init)) {
		fprintf(stderr, "app: accepted, not refused (%d): %s\n", err, fg_error_last());
		return 1;
	}
	printf("refused: %s\n", fg_error_last());
	return 0;
}

int main(void)
{
	fg_profile_opts po;
	fg_build_and_profile_opts bo;
	fg_record_opts rec;
	fg_render_opts ro;
	fg_collapse_opts co;
	fg_regress_opts go;
	fg_perfdata_opts pdo;
	fg_diff_opts dfo;
	fg_folded *f = NULL, *d = NULL;
	fg_collapser *c = NULL;
	fg_regress *r = NULL;
	fg_perfdata *pd = NULL;
	char **argv = NULL;
	const char *cmd[] = { "touch", "ran" };
	int bad = 0;

	if (fg_profile_opts_init(&po, FG_PROFILE_OPTS_VERSION) ||
	    fg_build_and_profile_opts_init(&bo, FG_BUILD_AND_PROFILE_OPTS_VERSION) ||
	    fg_record_opts_init(&rec, FG_RECORD_OPTS_VERSION) ||
	    fg_render_opts_init(&ro, FG_RENDER_OPTS_VERSION) ||
	    fg_collapse_opts_init(&co, FG_COLLAPSE_OPTS_VERSION) ||
	    fg_regress_opts_init(&go, FG_REGRESS_OPTS_VERSION) ||
	    fg_perfdata_opts_init(&pdo, FG_PERFDATA_OPTS_VERSION) ||
	    fg_diff_opts_init(&dfo, FG_DIFF_OPTS_VERSION)) {
		fprintf(stderr, "app: %s\n", fg_error_last());
		return 1;
	}
	/* a version the library does not know is refused, not misread */
	if (fg_profile_opts_init(&po, FG_PROFILE_OPTS_VERSION + 1) != FG_EINVAL ||
	    fg_render_opts_init(&ro, FG_RENDER_OPTS_VERSION + 1) != FG_EINVAL)
		return 2;
	/* the outer _init sets up the options it embeds */
	printf("embedded versions %u %u %u %u\n", po.record.version, po.render.version,
	       bo.project.version, bo.gate_opts.version);
	printf("freq %u, width %u, format %d, rows %zu\n", fg_record_freq(&po.record),
	       po.render.image_width, (int)po.format, bo.report_top);
	if (fg_folded_new(&f) || fg_folded_feed(f, "main;work 3\nmain;rest 1\n", 24) ||
	    fg_folded_finish(f))
		return 3;
	printf("%zu stacks\n", fg_folded_count(f));
	/* options set up by an older program (version 0: before versions)
	 * are refused by the functions handed them, alone or embedded */
	po.version = rec.version = ro.version = co.version = go.version = pdo.version = 0;
	dfo.version = 0;
	bo.version = 0;
	bad |= refused(fg_profile_run(&po, NULL), "fg_profile_opts_init");
	bad |= refused(fg_build_and_profile(&bo, NULL), "fg_build_and_profile_opts_init");
	bad |= refused(fg_record_command(&argv, &rec), "fg_record_opts_init");
	bad |= refused(fg_render_svg(f, &ro, stdout), "fg_render_opts_init");
	bad |= refused(fg_collapser_new(&c, FG_FORMAT_PERF, &co), "fg_collapse_opts_init");
	bad |= refused(fg_regress_compare(&r, f, f, &go), "fg_regress_opts_init");
	bad |= refused(fg_perfdata_open(&pd, "perf.data", &pdo), "fg_perfdata_opts_init");
	bad |= refused(fg_diff_folded(&d, f, f, &dfo), "fg_diff_opts_init");
	/* an embedded struct: refused where it is handed on, and by the
	 * entry point before anything runs */
	fg_profile_opts_init(&po, FG_PROFILE_OPTS_VERSION);
	po.record.version = 0;
	bad |= refused(fg_record_command(&argv, &po.record), "fg_record_opts_init");
	fg_profile_opts_init(&po, FG_PROFILE_OPTS_VERSION);
	po.argv = cmd;
	po.argc = 2;
	po.output = "never.svg";
	po.render.version = 0;
	bad |= refused(fg_profile_run(&po, NULL), "fg_render_opts_init");
	fg_build_and_profile_opts_init(&bo, FG_BUILD_AND_PROFILE_OPTS_VERSION);
	bo.manifest_path = "no-such-project";
	bo.gate_opts.version = 0; /* the gate's: refused before the build, not after */
	bad |= refused(fg_build_and_profile(&bo, NULL), "fg_regress_opts_init");
	fg_folded_free(f);
	return bad ? 4 : 0;
}
C
cp app.c app.cpp
check_exit "a C program builds against the install" 0 \
	cc -std=c11 -Wall -Werror -I "$inc" -o app-c app.c -L "$lib" -lflamegraph
check_exit "a C++ program builds against the install" 0 \
	c++ -std=c++17 -Wall -Werror -I "$inc" -o app-cpp app.cpp -L "$lib" -lflamegraph
for p in app-c app-cpp; do
	check_exit "$p runs" 0 env LD_LIBRARY_PATH="$lib" ./$p
	check_contains "$p: the defaults, named once" out '^freq 997, width 1200, format 0, rows 10$'
	check_contains "$p: embedded options set up by the outer _init" out '^embedded versions 1 1 1 1$'
	check_contains "$p: an older program's options refused, in the library's words" out \
		'^refused: fg_render_opts version 0 is not 1: set the options up with fg_render_opts_init$'
	[ "$(grep -c '^refused: ' out)" = 11 ] && pass || fail "$p: not every old-version struct was refused"
	[ ! -e ran ] && [ ! -e never.svg ] && pass || fail "$p: a run with refused options ran"
	check_contains "$p: the library works" out '^2 stacks$'
done

# a program compiled against version 1 of the options that are now at
# version 2 (the comparison's and flamegraph-build's): its structs are
# those of a version 1 header, smaller, and end where memory ends (an
# unreadable page follows each), so the library runs the job reading
# only version 1's fields, or crashes
cat > app-v1.c <<'C'
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <flamegraph/flamegraph.h>

/* the two structs as the version 1 header declared them */
typedef struct {
	unsigned version;
	const char *rev;
	bool side_outputs;
	const char *build_dir;
	const fg_manifest_loc *loc;
	const fg_project_opts *project;
	void (*before_run)(void *ctx, const fg_profile_opts *po);
	int (*after_run)(void *ctx, const fg_profile_opts *po, const fg_profile_result *res,
			 int err);
	void *run_ctx;
	size_t repeat;
	fg_folded ***before_out, ***after_out;
} compare_v1;

typedef struct {
	unsigned version;
	const char *manifest_path;
	fg_project_opts project;
	fg_pipeline_opts run;
	const char *list;
	void (*on_text)(void *ctx, const char *text);
	void *text_ctx;
	void (*before_run)(void *ctx, const fg_profile_opts *po);
	int (*after_run)(void *ctx, const fg_profile_opts *po, const fg_profile_result *res,
			 int err);
	void *run_ctx;
	compare_v1 compare;
	bool gate;
	fg_regress_opts gate_opts;
	enum fg_regress_format report_format;
	size_t report_top;
	const char *report_out;
	FILE *report_stream;
} build_and_profile_v1;

/* size bytes that end where a page nobody may read begins */
static void *at_the_edge(size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED || mprotect(m + page, page, PROT_NONE))
		return NULL;
	return m + page - size;
}

static void print_text(void *ctx, const char *text)
{
	(void)ctx;
	fputs(text, stdout);
}

int main(int argc, char **argv)
{
	compare_v1 *c = at_the_edge(sizeof(compare_v1));
	build_and_profile_v1 *b = at_the_edge(sizeof(build_and_profile_v1));
	const unsigned refused[] = { 0, FG_BUILD_AND_PROFILE_OPTS_VERSION + 1 };
	fg_pipeline_opts po;
	int err;

	if (argc != 2 || !c || !b || fg_pipeline_opts_init(&po, FG_PIPELINE_OPTS_VERSION))
		return 1;
	if ((err = fg_pipeline_compare_opts_init((fg_pipeline_compare_opts *)c, 1)) ||
	    (err = fg_build_and_profile_opts_init((fg_build_and_profile_opts *)b, 1))) {
		fprintf(stderr, "app-v1: %s\n", fg_error_last());
		return 2;
	}
	printf("v1 defaults: repeat %zu, rows %zu, versions %u %u\n", c->repeat, b->report_top,
	       b->compare.version, b->gate_opts.version);
	/* taken, then judged on what it asks: a JSON differential is none */
	po.profile.format = FG_OUTPUT_JSON;
	c->rev = "HEAD";
	err = fg_pipeline_compare(&po, (const fg_pipeline_compare_opts *)c, NULL, NULL);
	printf("compare v1: %d %s\n", err, fg_error_last());
	b->manifest_path = argv[1];
	b->list = "";
	b->on_text = print_text;
	if ((err = fg_build_and_profile((const fg_build_and_profile_opts *)b, NULL))) {
		fprintf(stderr, "app-v1: %s\n", fg_error_last());
		return 3;
	}
	/* 0 and a version from the future are refused, init and function */
	for (size_t i = 0; i < 2; i++) {
		unsigned v = refused[i];

		b->version = v;
		c->version = v;
		if (fg_build_and_profile_opts_init((fg_build_and_profile_opts *)b, v) != FG_EINVAL ||
		    fg_pipeline_compare_opts_init((fg_pipeline_compare_opts *)c, v) != FG_EINVAL ||
		    fg_pipeline_compare(&po, (const fg_pipeline_compare_opts *)c, NULL, NULL) != FG_EINVAL ||
		    fg_build_and_profile((const fg_build_and_profile_opts *)b, NULL) != FG_EINVAL)
			return 4;
		printf("refused: %s\n", fg_error_last());
	}
	return 0;
}
C
check_exit "a version 1 program builds against the install" 0 \
	cc -std=c11 -D_DEFAULT_SOURCE -Wall -Werror -I "$inc" -o app-v1 app-v1.c -L "$lib" -lflamegraph
check_exit "a version 1 program runs" 0 env LD_LIBRARY_PATH="$lib" ./app-v1 "$FG_SRC/examples/gate"
check_contains "app-v1: version 1's defaults, in version 1's layout" out \
	'^v1 defaults: repeat 1, rows 10, versions 1 1$'
check_contains "app-v1: a version 1 comparison taken" out '^compare v1: -[0-9]+ a differential graph has no speedscope form'
check_contains "app-v1: the job ran: the project's targets listed" out '^bin +phases$'
check_contains "app-v1: version 0 refused" out \
	'^refused: fg_build_and_profile_opts version 0 is not 1 to 2: set the options up with fg_build_and_profile_opts_init$'
check_contains "app-v1: a version from the future refused" out \
	'^refused: fg_build_and_profile_opts version 3 is not 1 to 2: set the options up with fg_build_and_profile_opts_init$'

# the exported surface
nm -D --defined-only "$lib/libflamegraph.so" | awk '{ print $3 }' | LC_ALL=C sort > exported.txt
if diff -u "$FG_SRC/tests/abi/symbols.txt" exported.txt > symbols.diff; then pass; else
	fail "the exported symbols changed (- kept list, + library): update tests/abi/symbols.txt if that is meant"
	sed 's/^/    | /' symbols.diff | head -40 >&2
fi
