# The dependency rule of docs/ARCHITECTURE.md, checked on the #include
# lines of src/ and include/ by tests/tools/check-layers; then the checker
# itself, on small trees with one violation each, must fail and name it.
layers=$FG_SRC/tests/tools/check-layers

check_exit "the source tree follows the dependency rule" 0 bash "$layers" "$FG_SRC"
check_contains "the checker says what it checked" out 'no violation'
check_not_contains "no violation printed" out '^src/|^include/|^cycle'

# A tree that follows the rule: util <- stages <- run <- cli, public
# headers in include/flamegraph/, the project stage with a folder per
# build system (one of which uses another's reader).
clean_tree() {
	rm -rf "$1"
	mkdir -p "$1"/src/util "$1"/src/cli "$1"/include/flamegraph "$1"/src/lib/project/cmake \
		"$1"/src/lib/project/make "$1"/src/lib/project/autotools "$1"/src/lib/run "$1"/src/lib/fold
	printf '#include "util/strbuf.h"\n' >"$1"/src/util/strbuf.c
	printf '/* strbuf */\n' >"$1"/src/util/strbuf.h
	printf '#include "flamegraph/error.h"\n' >"$1"/src/util/error.c
	printf '/* errors */\n' >"$1"/include/flamegraph/error.h
	printf '#include "flamegraph/api.h"\n' >"$1"/include/flamegraph/manifest.h
	printf '#include "flamegraph/manifest.h"\n' >"$1"/include/flamegraph/builder.h
	printf '/* api */\n' >"$1"/include/flamegraph/api.h
	printf '#include "flamegraph/folded.h"\n' >"$1"/include/flamegraph/render.h
	printf '/* folded */\n' >"$1"/include/flamegraph/folded.h
	printf '#include "flamegraph/manifest.h"\n#include "util/strbuf.h"\n' >"$1"/src/lib/project/project.h
	printf '#include "flamegraph/builder.h"\n' >"$1"/src/lib/project/system.h
	printf '#include "lib/project/project.h"\n#include "lib/project/system.h"\n' >"$1"/src/lib/project/open.c
	printf '#include "lib/project/project.h"\n#include "lib/project/cmake/cmake.h"\n' >"$1"/src/lib/project/cmake/read.c
	printf '#include "lib/project/system.h"\n' >"$1"/src/lib/project/cmake/cmake.h
	printf '#include "lib/project/make/make.h"\n' >"$1"/src/lib/project/make/read.c
	printf '#include "lib/project/project.h"\n' >"$1"/src/lib/project/make/make.h
	printf '#include "lib/project/make/make.h"\n' >"$1"/src/lib/project/autotools/read.c
	printf '#include "flamegraph/folded.h"\n#include "internal.h"\n' >"$1"/src/lib/fold/folded.c
	printf '/* private */\n' >"$1"/src/lib/fold/internal.h
	printf '#include "flamegraph/builder.h"\n#include "flamegraph/render.h"\n' >"$1"/src/lib/run/profile.c
	printf '#include "flamegraph/builder.h"\n#include "util/strbuf.h"\n' >"$1"/src/cli/prog.c
}

# expect_violation WHAT TREE PATTERN: the checker fails on TREE, and its
# report matches PATTERN
expect_violation() {
	check_exit "$1: the checker fails" 1 bash "$layers" "$2"
	check_contains "$1: the violation is named" out "$3"
	check_contains "$1: the summary counts it" out 'violation\(s\) of the dependency rule'
}

t=$TMPDIR/layers
clean_tree "$t"
check_exit "a clean fixture passes" 0 bash "$layers" "$t"

clean_tree "$t"
mkdir -p "$t"/src/alloc
printf '#include <stdlib.h>\n#include "util/strbuf.h"\n' >"$t"/src/alloc/interpose.c
expect_violation "the interposer including our code" "$t" \
	'^src/alloc/interpose.c:2: the allocation interposer includes src/util/strbuf.h'

clean_tree "$t"
printf '#include "lib/project/project.h"\n' >>"$t"/src/util/strbuf.c
expect_violation "util including lib" "$t" \
	'^src/util/strbuf.c:2: util includes src/lib/project/project.h'

clean_tree "$t"
printf '#include "cli/prog.c"\n' >>"$t"/src/util/error.c
expect_violation "util including cli" "$t" '^src/util/error.c:2: util includes src/cli/prog.c'

clean_tree "$t"
printf '#include "flamegraph/folded.h"\n' >>"$t"/src/util/strbuf.h
expect_violation "util including a stage's public header" "$t" \
	'^src/util/strbuf.h:2: util includes include/flamegraph/folded.h, the public header of stage fold'

clean_tree "$t"
printf '#include "cli/prog.c"\n' >>"$t"/src/lib/fold/folded.c
expect_violation "lib including cli" "$t" \
	'^src/lib/fold/folded.c:3: the library includes src/cli/prog.c'

clean_tree "$t"
printf '#include "lib/project/project.h"\n' >>"$t"/src/lib/fold/folded.c
expect_violation "a stage including another's private header" "$t" \
	'^src/lib/fold/folded.c:3: stage fold includes src/lib/project/project.h, a private header of stage project'

clean_tree "$t"
printf '#include "../fold/internal.h"\n' >>"$t"/src/lib/run/profile.c
expect_violation "a relative include of another stage's private header" "$t" \
	'^src/lib/run/profile.c:3: stage run includes src/lib/fold/internal.h, a private header'

clean_tree "$t"
printf '#include "flamegraph/builder.h"\n' >>"$t"/src/lib/fold/folded.c
printf '#include "flamegraph/folded.h"\n' >>"$t"/src/lib/project/project.h
expect_violation "a cycle through public headers" "$t" '^cycle between stage folders: project, fold$'
check_contains "the cycle's edges are shown" out 'project -> fold: src/lib/project/project.h:3 includes include/flamegraph/folded.h'

clean_tree "$t"
printf '#include "flamegraph/render.h"\n' >>"$t"/include/flamegraph/folded.h
expect_violation "a cycle of two public headers" "$t" '^cycle between stage folders: fold, render$'

clean_tree "$t"
mkdir -p "$t"/src/lib/render
printf '#include "flamegraph/render.h"\n' >"$t"/src/lib/render/render.c
printf '#include "flamegraph/builder.h"\n' >>"$t"/src/lib/fold/folded.c
printf '#include "flamegraph/render.h"\n' >>"$t"/src/lib/project/cmake/read.c
expect_violation "a cycle of three stages" "$t" '^cycle between stage folders: project, fold, render$'

clean_tree "$t"
printf '#include "lib/run/profile.h"\n' >>"$t"/src/lib/fold/folded.c
printf '/* orchestration */\n' >"$t"/src/lib/run/profile.h
expect_violation "a stage including the orchestration" "$t" \
	'^src/lib/fold/folded.c:3: stage fold includes src/lib/run/profile.h of the orchestration'

# the programs: a whole job through its entry point, filters through their
# stage, nothing private of the library
clean_tree "$t"
printf '/* profile */\n' >"$t"/include/flamegraph/profile.h
printf '/* pipeline */\n' >"$t"/include/flamegraph/pipeline.h
printf '#include "flamegraph/error.h"\n#include "flamegraph/profile.h"\n' >"$t"/src/cli/flamegraph.c
printf '#include "flamegraph/error.h"\n#include "flamegraph/pipeline.h"\n' >"$t"/src/cli/flamegraph-build.c
printf '#include "flamegraph/render.h"\n' >"$t"/src/cli/flamegraph-render.c
check_exit "programs through their entry points and stages pass" 0 bash "$layers" "$t"
printf '#include "flamegraph/builder.h"\n' >>"$t"/src/cli/flamegraph-build.c
expect_violation "flamegraph-build calling a stage itself" "$t" \
	'^src/cli/flamegraph-build.c:3: the program includes include/flamegraph/builder.h: a program of a whole job includes its entry point.s header \(pipeline.h\)'

clean_tree "$t"
printf '/* pipeline */\n' >"$t"/include/flamegraph/pipeline.h
printf '#include "flamegraph/pipeline.h"\n' >"$t"/src/cli/flamegraph-render.c
expect_violation "a filter calling the orchestration" "$t" \
	'^src/cli/flamegraph-render.c:1: the filter program includes include/flamegraph/pipeline.h'

# ... or reaching it through a helper of src/cli: its header, or the .c
# beside the header
clean_tree "$t"
mkdir -p "$t"/src/cli/common
printf '/* pipeline */\n' >"$t"/include/flamegraph/pipeline.h
printf '#include "cli/common/helper.h"\n' >"$t"/src/cli/flamegraph-diff-folded.c
printf '#include "cli/common/inner.h"\n' >"$t"/src/cli/common/helper.h
printf '#include "flamegraph/pipeline.h"\n' >"$t"/src/cli/common/inner.h
expect_violation "a filter reaching the orchestration through helpers' headers" "$t" \
	'^src/cli/flamegraph-diff-folded.c:1: the filter program reaches include/flamegraph/pipeline.h through src/cli/common/helper.h -> src/cli/common/inner.h -> include/flamegraph/pipeline.h'
printf '/* inner */\n' >"$t"/src/cli/common/inner.h
printf '#include "flamegraph/pipeline.h"\n' >"$t"/src/cli/common/helper.c
expect_violation "a filter reaching the orchestration through a helper's code" "$t" \
	'^src/cli/flamegraph-diff-folded.c:1: the filter program reaches include/flamegraph/pipeline.h through src/cli/common/helper.h -> src/cli/common/helper.c -> include/flamegraph/pipeline.h'
printf '/* helper */\n' >"$t"/src/cli/common/helper.c
check_exit "a filter whose helpers stay below the orchestration passes" 0 bash "$layers" "$t"

clean_tree "$t"
printf '#include "lib/project/project.h"\n' >>"$t"/src/cli/prog.c
expect_violation "a program including a private header of the library" "$t" \
	'^src/cli/prog.c:3: the program includes src/lib/project/project.h, a private header'

# the build systems: reached through their tables, one way between them
clean_tree "$t"
printf '#include "lib/project/cmake/cmake.h"\n' >>"$t"/src/lib/project/open.c
expect_violation "the project stage reaching into a build system's folder" "$t" \
	'^src/lib/project/open.c:3: includes src/lib/project/cmake/cmake.h, a header of build system cmake'

clean_tree "$t"
printf '/* autotools */\n' >"$t"/src/lib/project/autotools/autotools.h
printf '#include "lib/project/autotools/autotools.h"\n' >>"$t"/src/lib/project/make/read.c
expect_violation "two build systems using each other" "$t" '^cycle between build systems: autotools, make$'
check_contains "the build systems' cycle's edges are shown" out 'autotools -> make: src/lib/project/autotools/read.c:1 includes src/lib/project/make/make.h'

# Include guards name their header's path: include/flamegraph/X.h is
# FLAMEGRAPH_X_H, src/DIR/X.h FG_DIR_X_H, tests/DIR/X.h FG_TESTS_DIR_X_H
guards=$(cd "$FG_SRC" && find include src tests -name '*.h' | LC_ALL=C sort | while read -r h; do
	want=$(printf '%s' "$h" | tr 'a-z/.' 'A-Z__' | sed 's/^INCLUDE_//; s/^SRC_/FG_/; s/^TESTS_/FG_TESTS_/')
	got=$(sed -n 's/^#ifndef \([A-Z0-9_]*\)$/\1/p' "$h" | head -1)
	[ "$got" = "$want" ] || echo "$h: include guard ${got:-none}, expected $want"
done)
[ -z "$guards" ] && pass || fail "include guards that do not name their header's path:
$guards"
