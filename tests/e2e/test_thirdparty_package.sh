# -p/--package: a CMake project that vendors another one with
# add_subdirectory (its own project() call, as third-party code usually
# comes); -p NAME restricts target selection to that sub-project.
require_perf
cp -r "$FG_SRC/examples/cmake" proj
rm -rf proj/build
mkdir -p proj/third_party/zapper
cat > proj/third_party/zapper/CMakeLists.txt <<'EOF'
project(zapper C)
add_executable(zap zap.c)
add_executable(zapcheck zap.c)
target_compile_definitions(zapcheck PRIVATE ZAP_CHECK=1)
enable_testing()
add_test(NAME zap_selftest COMMAND zapcheck 2)
# a test whose command is a script, as real projects have them
add_test(NAME zap_script COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/run.sh $<TARGET_FILE:zap>)
EOF
printf '#!/bin/sh\necho "running $1"\nexec "$1" 1\n' > proj/third_party/zapper/run.sh
cat > proj/third_party/zapper/zap.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) static unsigned long zap_spin(unsigned long rounds)
{
	volatile unsigned long x = 1;
	for (unsigned long i = 0; i < rounds * 30000000ul; i++)
		x = x * 6364136223846793005ul + i;
	return x;
}
int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
#ifdef ZAP_CHECK
	printf("zapcheck: %lu\n", zap_spin(n));
#else
	printf("zap: %lu\n", zap_spin(n));
#endif
	return 0;
}
EOF
echo 'add_subdirectory(third_party/zapper)' >> proj/CMakeLists.txt
fgb() { flamegraph-build --manifest-path "$PWD/proj" "$@"; }

check_exit "--list" 0 fgb --list
check_contains "all targets without -p" out "^bin +stress2, zap$"
check_exit "-p zapper --list" 0 fgb -p zapper --list
check_contains "-p: its bins only" out "^bin +zap$"
check_contains "-p: its tests only" out "^test +zapcheck, zap_selftest \(ctest\), zap_script \(ctest\)$"
check_contains "-p: no example of the top project" out "^example +\(none\)$"
# by folder too
check_exit "-p by folder" 0 fgb --package third_party/zapper/ --list
check_contains "-p by folder: its bins" out "^bin +zap$"

# without -p two bins: ambiguous; with -p the single bin is chosen
check_exit "no selector, two bins" 1 fgb -o none.svg
check_contains "several bins message" err "several bin targets"
check_exit "-p zapper (its only bin)" 0 fgb -p zapper -o zap.svg --folded zap.folded -- 2
check_contains "zap ran" out "^zap: "
check_contains "zap graph" zap.folded "^zap;.*main;zap_spin"
# a CTest test of the sub-project
check_exit "-p zapper --test zap_selftest" 0 fgb -p zapper --test zap_selftest -o zt.svg --folded zt.folded
check_contains "selftest ran" out "^zapcheck: "
check_contains "selftest graph" zt.folded "^zapcheck;.*zap_spin"
# a script test: perf follows the script's children; the script is no ELF
# file of ours, so no debug-info warning about /bin/sh
check_exit "-p zapper --test zap_script" 0 fgb -p zapper --test zap_script -o zs.svg --folded zs.folded
check_contains "script test: says what runs" err "profiling CTest test zap_script: [^ ]*sh [^ ]*/run.sh [^ ]*/zap "
check_contains "script ran the program" out "^running .*/zap$"
check_contains "script test graph: the child" zs.folded "^zap;.*zap_spin"
check_not_contains "script test: no ELF warning about sh" err "debug info"
# the top project's targets are out of reach with -p
check_exit "-p zapper --bin stress2" 1 fgb -p zapper --bin stress2
check_contains "restricted message" err "no bin target named 'stress2' in package zapper of .* \(or drop -p\)"
check_exit "-p zapper --test table_suite" 1 fgb -p zapper --test table_suite
# and -p with the top project's name keeps everything
check_exit "-p stress --list" 0 fgb -p stress --list
check_contains "-p top project: all bins" out "^bin +stress2, zap$"

# an unknown package lists the packages
check_exit "unknown package" 1 fgb -p nosuch --list
check_contains "unknown package message" err "error: no package 'nosuch' in .*CMakeLists.txt — its packages \(CMake projects\) are: stress, zapper"
