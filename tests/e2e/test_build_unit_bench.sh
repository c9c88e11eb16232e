# flamegraph-build --unit-bench (cargo-flamegraph's): a bench executable run
# directly, the arguments after -- its filter through the manifest's
# template; and -z/--compression-level with and without a level, each
# recording mode reading the compressed recording.
require_perf
mkdir -p proj/bench
cat > proj/flamegraph.toml <<'TOML'
[package]
name = "micro"

[build]
system = "cc"

[[bench]]
name = "micro"
sources = ["bench/micro.c"]
args = ["--rounds=40"]
filter = "--only={}"

[[bin]]
name = "plain"
sources = ["bench/micro.c"]
TOML
cat > proj/bench/micro.c <<'C'
/* two benchmarks; --only=NAME runs one, --rounds=N sets the work */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile double sink;

static __attribute__((noinline)) void bench_alpha(int n)
{
	for (int i = 0; i < n * 100000; i++)
		sink += i * 0.5;
}

static __attribute__((noinline)) void bench_beta(int n)
{
	for (int i = 0; i < n * 100000; i++)
		sink += i / 3.0;
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	int rounds = 10;

	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--only=", 7))
			only = argv[i] + 7;
		else if (!strncmp(argv[i], "--rounds=", 9))
			rounds = atoi(argv[i] + 9);
	}
	if (!only || !strcmp(only, "alpha")) {
		bench_alpha(rounds);
		printf("ran alpha\n");
	}
	if (!only || !strcmp(only, "beta")) {
		bench_beta(rounds);
		printf("ran beta\n");
	}
	return 0;
}
C
fgb() { flamegraph-build --manifest-path "$PWD/proj" "$@"; }

# the filter goes through the template, after the manifest's arguments
check_exit "--unit-bench micro -- beta" 0 fgb --unit-bench micro -F 499 --call-graph fp -o b.svg --folded b.folded -- beta
check_contains "unit-bench ran the one benchmark" out "^ran beta$"
check_not_contains "unit-bench ran no other" out "alpha"
# a benchmark sets up no frame of its own (a leaf that needs none: gcc
# leaves it out even with -mno-omit-leaf-frame-pointer), so the frame
# pointer walk loses its caller: under main, or under the libc frame that
# called main ([libc.so.6] where libc keeps no symbol for it)
under_main="(;main|;__libc_start_call_main|;\[libc\.so\.6\])"
check_contains "unit-bench graph: bench_beta" b.folded "$under_main;bench_beta [0-9]+$"
check_not_contains "unit-bench graph: no bench_alpha" b.folded "bench_alpha"
# without NAME: the only bench; --unit-bench=NAME as cargo-flamegraph spells it
check_exit "--unit-bench without NAME" 0 fgb --unit-bench -F 499 --call-graph fp -o a.svg --folded a.folded -- alpha
check_contains "unit-bench without NAME ran alpha" out "^ran alpha$"
check_not_contains "unit-bench without NAME: no beta" out "beta"
check_exit "--unit-bench=micro" 0 fgb --unit-bench=micro -F 499 --call-graph fp -o a2.svg -- alpha
check_contains "--unit-bench=micro ran alpha only" out "^ran alpha$"
# --bench with arguments replaces the manifest's: both benchmarks run
check_exit "--bench micro -- --rounds=20" 0 fgb --bench micro -F 499 --call-graph fp -o all.svg --folded all.folded -- --rounds=20
check_contains "--bench ran alpha" out "^ran alpha$"
check_contains "--bench ran beta" out "^ran beta$"
# names: completions list the bench executables
check_exit "--list-names unit-bench" 0 fgb --list-names unit-bench
check_eq "--list-names unit-bench lists micro" "micro" "$(cat out)"
# a bin is no bench; a bench with no filter template refuses a filter
check_exit "--unit-bench plain" 1 fgb --unit-bench plain -o x.svg
check_contains "--unit-bench plain: says what it is" err "'plain' is a bin, not a bench: use --bin plain"
check_exit "--unit-test and --unit-bench" 1 fgb --unit-test --unit-bench -o x.svg
check_contains "both: says to choose" err "give one of them"
sed -i '/^filter = /d' proj/flamegraph.toml
check_exit "--unit-bench without a filter template" 1 fgb --unit-bench micro -o x.svg -- beta
check_contains "no template: says what to add" err "bench 'micro' declares no filter — add filter = .*\[\[bench\]\]"
check_eq "nothing written" "no" "$([ -e x.svg ] && echo yes || echo no)"

# -z: perf compresses the recording (zstd), and every reader takes it:
# the stream, the native reader of a file, perf script
for mode in --stream --no-stream --perf-script; do
	check_exit "-z $mode" 0 fgb --bin plain -z $mode -F 499 --call-graph fp -v -o z.svg --folded z$mode.folded \
		-- --rounds=40
	check_contains "-z $mode: level 1 asked of perf" err "perf record .*--compression-level=1 "
	# (a sample may end in the kernel: an interrupt in the benchmark)
	check_contains "-z $mode: both benchmarks in the graph" z$mode.folded "$under_main;bench_alpha(;[^;]+)* [0-9]+$"
	check_contains "-z $mode: both benchmarks in the graph" z$mode.folded "$under_main;bench_beta(;[^;]+)* [0-9]+$"
	# lost samples are counted as they are without -z (perf script's
	# path reads no record itself)
	[ $mode = --perf-script ] || check_contains "-z $mode: lost samples counted" err "wrote z.svg \([0-9]+ samples, [0-9]+ lost"
done
check_exit "-z 3 with a kept recording" 0 fgb --bin plain -z 3 -F 499 --call-graph fp -v -o z3.svg --perfdata-out z3.data
check_contains "-z 3: level 3" err "perf record .*--compression-level=3 "
perf report --header-only -i z3.data > header.txt 2>&1 || true
check_contains "-z 3: the kept recording is zstd-compressed" header.txt "comp_type.*(Zstd|zstd)|compressed"
check_exit "--compression-level=30" 1 fgb --bin plain --compression-level=30 -o x.svg
check_contains "level out of range: the range" err "give a zstd level from 1 to 22"
