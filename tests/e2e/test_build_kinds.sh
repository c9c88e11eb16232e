# The kinds --list gives CMake programs, as users expect them: a program
# the project installs is a bin wherever its source lives (libwebp
# installs cwebp from examples/) and whatever tests run it; a program only
# tests run is a test; the others' kinds are guesses from their folders,
# which any kind flag accepts with a note. CTest's generated test names
# are grouped under the program they run. A refusal is for a declared
# kind, in plain grammar ("an example").
require_perf
mkdir -p proj/examples proj/tools proj/tests
cat >proj/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.13)
project(kinds C)
add_executable(encoder examples/encoder.c)
install(TARGETS encoder DESTINATION bin)
add_executable(viewer examples/viewer.c)
add_executable(helper tools/helper.c)
install(TARGETS helper RUNTIME DESTINATION libexec)
add_executable(suite tests/suite.c)
enable_testing()
add_test(NAME encoder_runs COMMAND encoder 1)
foreach(i RANGE 1 40)
  add_test(NAME suite_case_${i} COMMAND suite ${i})
endforeach()
CM
for f in examples/encoder examples/viewer tools/helper tests/suite; do
	name=${f#*/}
	cat >"proj/$f.c" <<C
#include <stdlib.h>
__attribute__((noinline)) static unsigned long ${name}_work(unsigned long n)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < n; i++)
		x += i;
	return x;
}
int main(int argc, char **argv)
{
	return ${name}_work(20000000UL * (argc > 1 ? strtoul(argv[1], 0, 10) : 1)) == 1;
}
C
done
fb() { flamegraph-build --manifest-path proj "$@"; }

check_exit "--list" 0 fb --list
cp out list.txt
check_contains "installed, in examples/ and run by a test: a bin" list.txt "^bin +encoder, helper$"
check_contains "run only by tests: a test; 40 CTest names in one group" list.txt \
	"^test +suite, encoder_runs \(ctest\), suite: 40 ctest tests \(suite_case_1, suite_case_2, suite_case_3, \.\.\.\)$"
check_contains "not installed, in examples/: an example" list.txt "^example +viewer$"
check_eq "--list stays short" 4 "$(wc -l <list.txt)"
check_exit "--list-names test: every name, for completion" 0 fb --list-names test
check_eq "--list-names test: 42 names" 42 "$(wc -l <out)"

check_exit "--bin encoder (installed from examples/)" 0 fb --bin encoder --call-graph fp -F 499 -o enc.svg --folded enc.folded
check_not_contains "--bin encoder: nothing guessed" err "a guess"
check_contains "--bin encoder: its function" enc.folded "main;encoder_work"
check_exit "--test viewer (an example by its folder: a guess)" 0 fb --test viewer --call-graph fp -F 499 -o view.svg --folded view.folded
check_contains "--test viewer: says what it guessed" err "viewer is listed as an example \(a guess from its name and how it is built\); profiling it as asked"
check_contains "--test viewer: its function" view.folded "main;viewer_work"
check_exit "--example encoder (declared: installed)" 1 fb --example encoder
check_contains "--example encoder: plain grammar" err "'encoder' is a bin, not an example: use --bin encoder"
check_exit "--bin encodr (a typo)" 1 fb --bin encodr
check_contains "--bin encodr: did you mean" err "did you mean 'encoder'"
