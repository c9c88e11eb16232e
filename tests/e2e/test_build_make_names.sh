# compile_commands.json projects built under bear: targets are named after
# the executables the project's own build made (main in cli/tool_os.c,
# program `tool`), the source stem stays a second name, and a guessed kind
# is only a hint. Then two Debian source packages built with their own
# Makefiles: lz4 (programs/lz4 is linked from lz4cli.c, a dozen objects and
# the library) and bzip2 (bzip2 from bzip2.c and the seven objects of
# libbz2, bzip2recover from its own file).
# ctest: LABELS thirdparty
command -v bear >/dev/null || { echo "bear not installed"; exit 77; }
require_perf

mkdir -p mk/cli mk/lib
cat > mk/lib/util.h <<'C'
unsigned long churn(unsigned long n);
C
cat > mk/lib/util.c <<'C'
#include "util.h"
__attribute__((noinline)) unsigned long mix(unsigned long x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}
unsigned long churn(unsigned long n)
{
	unsigned long h = 0;
	for (unsigned long i = 0; i < n * 100; i++)
		h ^= mix(h + i);
	return h;
}
C
cat > mk/cli/tool_os.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "../lib/util.h"
int main(int argc, char **argv)
{
	printf("%lu\n", churn(argc > 1 ? strtoul(argv[1], 0, 10) : 2000));
	return 0;
}
C
cat > mk/cli/bench_tool.c <<'C'
#include <stdio.h>
#include "../lib/util.h"
int main(void) { printf("%lu\n", churn(1500)); return 0; }
C
printf 'CFLAGS = -O2 -g\nall: tool tool-bench\ntool: cli/tool_os.o lib/util.o\n\t$(CC) -o $@ $^\ntool-bench: cli/bench_tool.o lib/util.o\n\t$(CC) -o $@ $^\n' > mk/Makefile
(cd mk && bear -- make -s >/dev/null 2>&1)
check_exit "bear made the database" 0 test -s mk/compile_commands.json
check_exit "--list" 0 flamegraph-build --manifest-path mk/compile_commands.json --list
check_contains "--list: the program's real name" out "^bin +tool$"
check_contains "--list: the bench by its name on disk" out "^bench +tool-bench$"
check_not_contains "--list: no stem names" out "tool_os|bench_tool"
check_exit "--bin tool" 0 flamegraph-build --manifest-path mk/compile_commands.json --bin tool --call-graph fp -o tool.svg --folded tool.folded -- 3000
check_contains "--bin tool: its functions, rooted in main" tool.folded "^tool;.*main;.*mix [0-9]+$"
check_exit "--bin tool_os (the source stem)" 0 flamegraph-build --manifest-path mk/compile_commands.json --bin tool_os --call-graph fp -o stem.svg -- 500
check_exit "--bin tool-bench (a guessed bench)" 0 flamegraph-build --manifest-path mk/compile_commands.json --bin tool-bench --call-graph fp -o b.svg --folded b.folded
check_contains "--bin tool-bench: its functions" b.folded "main;.*mix [0-9]+$"
# features and profiles have nothing to act on: refused, not ignored
for opt in "--features fast" "--dev" "--profile profiling" "--all-features"; do
	check_exit "$opt refused" 1 flamegraph-build --manifest-path mk/compile_commands.json $opt --bin tool
	check_contains "$opt refused: what to do instead" err "${opt%% *} cannot apply to .*compile_commands.json: .*regenerate it"
done
check_exit "--bin tol (a typo)" 1 flamegraph-build --manifest-path mk/compile_commands.json --bin tol
check_contains "--bin tol: did you mean" err "did you mean 'tool'"

# lz4 with its own Makefile under bear -----------------------------------------
if fetch_source lz4; then
	dir=$source_dir
	cp -r "$dir" lz4
	# Debian links the program with the library (-llz4): the library first
	(cd lz4 && bear -- make -s -j2 lib-release >/dev/null 2>&1 &&
		bear --append -- make -s -j2 -C programs lz4 >/dev/null 2>&1) || true
	check_exit "lz4: its Makefile built lz4" 0 test -x lz4/programs/lz4
	check_exit "lz4 --list" 0 flamegraph-build --manifest-path lz4/compile_commands.json --list
	check_contains "lz4 --list: lz4, not lz4cli" out "^bin .*\blz4\b"
	check_not_contains "lz4 --list: no lz4cli" out "lz4cli"
	awk 'BEGIN { srand(3); for (i = 0; i < 200000; i++)
		printf "row %d value %d the quick brown fox\n", i % 613, int(rand() * 40) }' > input.txt
	check_exit "lz4 --bin lz4 -- -b1" 0 flamegraph-build --manifest-path lz4/compile_commands.json --bin lz4 \
		--call-graph fp -o lz4.svg --folded lz4.folded -- -b1 -i1 input.txt
	check_contains "lz4 graph: its compressor, rooted in main" lz4.folded "^lz4;.*main;.*LZ4_compress"
else
	fail "apt-get source lz4 failed"
fi

# bzip2 with its own Makefile under bear ---------------------------------------
if fetch_source bzip2; then
	dir=$source_dir
	cp -r "$dir" bzip2
	# Debian's Makefile links bzip2 with libbz2.so, made from seven objects
	(cd bzip2 && bear -- make -s -j2 bzip2 bzip2recover >/dev/null 2>&1) || true
	check_exit "bzip2: its Makefile built bzip2" 0 test -x bzip2/bzip2
	check_exit "bzip2 --list" 0 flamegraph-build --manifest-path bzip2/compile_commands.json --list
	check_contains "bzip2 --list: both programs by name" out "^bin +bzip2, bzip2recover$"
	awk 'BEGIN { srand(5); for (i = 0; i < 60000; i++)
		printf "%d,%d,%x sample line of text\n", i, int(rand() * 1e6), int(rand() * 65536) }' > small.txt
	check_exit "bzip2 --bin bzip2" 0 flamegraph-build --manifest-path bzip2/compile_commands.json --bin bzip2 \
		--call-graph fp -o bzip2.svg --folded bzip2.folded -- -k -f -9 small.txt
	check_contains "bzip2 graph: its block sort, rooted in main" bzip2.folded "^bzip2;.*main;compress;.*BZ2_blockSort"
	check_exit "bzip2 compressed the file" 0 test -s small.txt.bz2
else
	fail "apt-get source bzip2 failed"
fi
