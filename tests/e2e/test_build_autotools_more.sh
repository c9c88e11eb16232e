# flamegraph-build on autotools trees beyond the example: a configure.ac
# with Makefile.in files written by hand (no automake: the programs come
# from the link rules of a dry run), in-tree libraries that automake's
# _DEPENDENCIES leaves out (a configure substitution, -L../lib -lfoo),
# tools that are missing (a PATH without them), and a tree holding both
# a CMakeLists.txt and a configure.ac.
# ctest: LABELS slow
for tool in autoreconf automake libtoolize make cmake; do
	command -v $tool >/dev/null || { echo "$tool not installed (apt-get install autoconf automake libtool make cmake)"; exit 77; }
done
require_perf
snapshot() { find "$1" -mindepth 1 -path "$1/build" -prune -o -printf '%p %T@ %s %m\n' | LC_ALL=C sort; }

# ---- a Makefile.in written by hand, programs in a sub-folder ----------------
mkdir -p hw/src
cat > hw/configure.ac <<'EOF'
AC_INIT([hw], [1.0])
AC_CONFIG_SRCDIR([src/spin.c])
AC_PROG_CC
AC_CONFIG_FILES([Makefile src/Makefile])
AC_OUTPUT
EOF
cat > hw/Makefile.in <<'EOF'
# written by hand: no automake
srcdir = @srcdir@
VPATH = @srcdir@
all:
	cd src && $(MAKE) all
Makefile: $(srcdir)/Makefile.in config.status
	./config.status Makefile
EOF
cat > hw/src/Makefile.in <<'EOF'
srcdir = @srcdir@
VPATH = @srcdir@
CC = @CC@
CFLAGS = @CFLAGS@
LDFLAGS = @LDFLAGS@
all: hwspin hw-bench
hwspin: spin.o mix.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ spin.o mix.o -lm
hw-bench: bench.o mix.o
	$(CC) $(CFLAGS) $(LDFLAGS) bench.o mix.o -o hw-bench -lm
.c.o:
	$(CC) $(CFLAGS) -c $<
EOF
cat > hw/src/mix.c <<'EOF'
#include <math.h>
double hw_mix(double x, long n)
{
	for (long i = 0; i < n; i++)
		x = sqrt(x * 1.000001 + (double)(i & 7));
	return x;
}
EOF
cat > hw/src/spin.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
double hw_mix(double x, long n);
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20;
	printf("hwspin: %.3f\n", hw_mix(2.0, n * 1000000L) > 0 ? 1.0 : 0.0);
	return 0;
}
EOF
sed 's/hwspin/hw-bench/' hw/src/spin.c > hw/src/bench.c
snapshot hw > hw-before.txt
check_exit "hand-written Makefile.in: --list" 0 flamegraph-build --manifest-path hw --list
check_contains "hand-written: the linked program is a bin" out "^bin +hwspin$"
check_contains "hand-written: a bench by its name" out "^bench +hw-bench$"
check_contains "hand-written: configure generated in a copy" err "there is no configure script yet: running autoreconf -fi in a copy"
check_exit "hand-written: --bin hwspin" 0 flamegraph-build --manifest-path hw --bin hwspin -F 499 -o hw.svg --folded hw.folded -- 30
check_contains "hand-written: ran" out "^hwspin: 1.000$"
check_contains "hand-written: the project's functions, rooted in main" hw.folded "^hwspin;.*main;hw_mix"
check_eq "hand-written: built by make in the build folder" "yes" "$([ -x hw/build/flamegraph/release/src/hwspin ] && echo yes)"
readelf --debug-dump=info hw/build/flamegraph/release/src/hwspin 2>/dev/null | grep -m1 DW_AT_producer > hw-producer || true
check_contains "hand-written: with frame pointers" hw-producer "-fno-omit-frame-pointer"
check_exit "hand-written: --bench hw-bench" 0 flamegraph-build --manifest-path hw --bench hw-bench -F 499 -o hwb.svg -- 1
check_contains "hand-written: the bench ran" out "^hw-bench: 1.000$"
touch -d '-1 min' hw/build/flamegraph/release/Makefile
touch marker
check_exit "hand-written: --bin hwspin again" 0 flamegraph-build --manifest-path hw --bin hwspin -F 499 -o hw2.svg -- 1
check_contains "hand-written again: up to date" err "hwspin is up to date"
check_eq "hand-written again: the dry run ran no config.status" "" "$(find hw/build/flamegraph/release/Makefile -newer marker)"
snapshot hw > hw-after.txt
check_same_file "hand-written: the user's tree is unchanged" hw-before.txt hw-after.txt
# a Makefile whose dry run links nothing
mkdir -p nolink
printf 'AC_INIT([nolink], [1.0])\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n' > nolink/configure.ac
printf 'all:\n\t@echo nothing to build\n' > nolink/Makefile.in
check_exit "hand-written, links nothing" 1 flamegraph-build --manifest-path nolink --list
check_contains "links nothing: says so, suggests bear" err "Makefile.in written by hand, links no program in its dry run .*bear -- make"

# ---- in-tree libraries automake's _DEPENDENCIES leaves out --------------------
cp -r "$FG_SRC/examples/autotools" deps
rm -rf deps/build
sed -i 's|^crunch_LDADD = .*|crunch_LDADD = $(CRUNCH_LIBS)|; s|^crunch_demo_LDADD = .*|crunch_demo_LDADD = -L../lib -lcrunch|' deps/src/Makefile.am
sed -i "s|^LT_INIT\$|LT_INIT\nAC_SUBST([CRUNCH_LIBS], ['\$(top_builddir)/lib/libcrunch.la'])|" deps/configure.ac
check_exit "LDADD through a substitution: --bin crunch" 0 flamegraph-build --manifest-path deps --bin crunch -F 499 -o deps.svg --folded deps.folded -- 2
check_contains "substitution: automake left its dependencies out" deps/build/flamegraph/release/src/Makefile "^crunch_DEPENDENCIES = \\\$\(am__DEPENDENCIES_1\)$"
check_contains "substitution: the library was built and ran" out "^crunch 1.0: 2 rounds$"
check_contains "substitution: the library's functions" deps.folded "main;crunch_digest"
check_exit "-L../lib -lcrunch: --example crunch-demo (fresh folder)" 0 flamegraph-build --manifest-path deps --dev --example crunch-demo -F 499 -o demo.svg
check_contains "-L -l: automake listed no dependency" deps/build/flamegraph/dev/src/Makefile "^crunch_demo_DEPENDENCIES = *$"
check_contains "-L -l: the library was built and ran" out "^crunch 1.0: [0-9a-f]{16}$"

# ---- missing tools: a PATH of symlinks to all but them -------------------------
path_without() {
	local dir=$1 d f; shift
	mkdir -p "$dir"
	for d in $(echo "$PATH" | tr ':' ' '); do
		for f in "$d"/*; do
			local n=${f##*/} skip=
			for x in "$@"; do [ "$n" = "$x" ] && skip=1; done
			[ -n "$skip" ] || [ -e "$dir/$n" ] || [ ! -x "$f" ] || ln -s "$f" "$dir/$n"
		done
	done
}
path_without noautoreconf autoreconf
path_without noautomake automake
path_without nolibtool libtoolize
path_without nomake make
cp -r "$FG_SRC/examples/autotools" tools
rm -rf tools/build
check_exit "autoreconf missing" 1 env PATH="$PWD/noautoreconf" flamegraph-build --manifest-path tools --list
check_contains "autoreconf missing: names the package" err "autoreconf is not installed.*apt-get install autoconf"
check_exit "automake missing" 1 env PATH="$PWD/noautomake" flamegraph-build --manifest-path tools --list
check_contains "automake missing: names the package" err "automake is not installed.*apt-get install automake"
check_exit "libtoolize missing" 1 env PATH="$PWD/nolibtool" flamegraph-build --manifest-path tools --list
check_contains "libtool missing: names the package" err "libtoolize is not installed.*apt-get install libtool"
check_eq "missing tools: nothing configured" "no" "$([ -e tools/build/flamegraph/release/config.status ] && echo yes || echo no)"
rm -rf hw/build
check_exit "make missing (hand-written Makefile.in)" 1 env PATH="$PWD/nomake" flamegraph-build --manifest-path hw --list
check_contains "make missing: names the package" err "make is not installed — install it \(Debian/Ubuntu: apt-get install make\)"
check_exit "make missing (automake)" 1 env PATH="$PWD/nomake" flamegraph-build --manifest-path deps --bin crunch -o nomake.svg
check_contains "make missing (automake): names the package" err "make is not installed — install it \(Debian/Ubuntu: apt-get install make\)"
check_eq "make missing: no graph" "no" "$([ -e nomake.svg ] && echo yes || echo no)"
check_not_contains "make missing: nothing recorded" err "wrote |samples|perf record"

# ---- a CMakeLists.txt beside the configure.ac ----------------------------------
cp -r "$FG_SRC/examples/autotools" both
rm -rf both/build
cat > both/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(crunch C)
add_library(crunch lib/crunch.c)
target_include_directories(crunch PUBLIC lib)
add_executable(crunch-cm src/main.c)
target_link_libraries(crunch-cm crunch)
EOF
check_exit "both: CMake found first" 0 flamegraph-build --manifest-path both --list
check_contains "both: the CMake target" out "^bin +crunch-cm$"
check_exit "both: --manifest-path configure.ac" 0 flamegraph-build --manifest-path both/configure.ac --bin crunch -F 499 -o both.svg -- 2
check_contains "both: says where the autotools build goes" err "configure.ac: building with autotools in build/flamegraph/autotools/release, apart from the cmake build found first in "
check_contains "both: the autotools program ran" out "^crunch 1.0: 2 rounds$"
check_eq "both: configured in its own folder" "yes" "$([ -f both/build/flamegraph/autotools/release/config.status ] && echo yes)"
check_eq "both: CMake's folder has no configure output" "no" "$([ -e both/build/flamegraph/release/config.status ] && echo yes || echo no)"
check_exit "both: CMake again, its folder intact" 0 flamegraph-build --manifest-path both --bin crunch-cm -F 499 -o both-cm.svg -- 2
check_contains "both: the CMake program ran" out "^crunch 1.0: 2 rounds$"
check_not_contains "both: CMake needs no folder of its own" err "apart from"
finish
