# The allocation-failure sweep of the programs (sourced by
# tests/e2e/test_alloc_faults*.sh with FAULT_STEP set): a small program
# recorded with frame pointers and with dwarf call graphs, its perf
# script text and folded stacks, its allocation graph (run with the
# tracker, and from kept recordings), two example projects and a
# comparison of revisions (--alloc --compare); then every
# FAULT_STEP-th allocation point of each program on them is failed in
# turn by tests/lib/alloc-faults.sh, which accepts only the exact output
# or a non-zero exit with a message. Prints one line per program.
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
# the sanitizers replace malloc themselves: the shim would never be called
if grep -q __asan_init "$(command -v flamegraph-collapse-perf)"; then
	echo "skipped: sanitizer build (its allocator cannot be interposed)"
	exit 77
fi
cc -O2 -g -fno-omit-frame-pointer -o callgraph "$FG_SRC/examples/callgraph/callgraph.c"
if ! perf record -q --no-bpf-event -F 499 -g -o fp.data -- ./callgraph 300 >/dev/null 2>record.err; then
	echo "perf cannot record here:"
	cat record.err
	exit 77
fi
check_exit "record dwarf" 0 perf record -q --no-bpf-event -F 499 --call-graph dwarf,8192 \
	-o dwarf.data -- ./callgraph 300
perf script -i fp.data >fp.txt 2>/dev/null
check_exit "fold fp" 0 flamegraph-collapse-perf -o fp.folded fp.data
check_exit "fold dwarf" 0 flamegraph-collapse-perf -o dwarf.folded dwarf.data
cp -r "$FG_SRC/examples/toml" ex-toml
cp -r "$FG_SRC/examples/make" ex-make
cp -r "$FG_SRC/examples/toml" ex-git
(cd ex-git && git init -q && git add -A &&
	git -c user.name=test -c user.email=test@example.org commit -q -m "the example") ||
	fail "could not make a git repository of examples/toml"
# the uncompressed debug files cached on the first run are read after
sweep=$FG_SRC/tests/lib/alloc-faults.sh
: >table
sweep() {
	"$sweep" -s "$FAULT_STEP" "$@" >>"$top/table" 2>>"$top/bad" || true
}
top=$PWD
sweep -i fp.txt "collapse-perf (perf script text)" -- flamegraph-collapse-perf
sweep render -- flamegraph-render --deterministic fp.folded
sweep "render --format html" -- flamegraph-render --format html --deterministic fp.folded
sweep diff-folded -- flamegraph-diff-folded fp.folded dwarf.folded
# the native reader: its worker threads start with -n 2
sweep "collapse-perf fp.data" -- flamegraph-collapse-perf -n 2 fp.data
sweep "collapse-perf dwarf.data" -- flamegraph-collapse-perf -n 2 dwarf.data
sweep "collapse-perf dwarf.data, one thread" -- flamegraph-collapse-perf -n 1 dwarf.data
# the profile orchestration on a recording: read, fold, render
sweep "flamegraph --perfdata dwarf.data" -- flamegraph --perfdata dwarf.data --deterministic -o -
# allocation graphs: a program run with the tracker, then the kept
# recordings read again (the allocation stage alone)
sweep "flamegraph --alloc" -- flamegraph --alloc --deterministic -o - -- ./callgraph 30
check_exit "alloc recordings kept" 0 flamegraph --alloc --perfdata-out alloc-kept -o /dev/null -- ./callgraph 30
sweep "flamegraph --perfdata DIR --alloc=peak" -- flamegraph --perfdata alloc-kept --alloc=peak --deterministic --format pprof -o alloc.pb
# the native recorder (no perf run): a program whose output is always
# the same, recorded and read as it comes, and into a file read after
if [ "$(uname -m)" = x86_64 ]; then
	cat >steady.c <<'C'
#include <stdio.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void work(void) { for (unsigned long i = 0; i < 40000000ul; i++) sink += i; }
int main(void) { work(); puts("steady"); return 0; }
C
	cc -O1 -g -o steady steady.c
	sweep "flamegraph --recorder native" -- flamegraph --recorder native -o native.svg -- ./steady
	sweep "flamegraph --recorder native --no-stream" -- flamegraph --recorder native --no-stream -o native.svg -- ./steady
else
	echo "flamegraph --recorder native: x86_64 only" >>table
	echo "flamegraph --recorder native --no-stream: x86_64 only" >>table
fi
# comparing revisions: a project's HEAD exported, built and run with the
# tracker beside its working tree, and the two diffed (no perf needed).
# Each run builds and runs twice: the full sweep takes every 3rd point.
compare_step=$((FAULT_STEP > 3 ? FAULT_STEP : 3))
(cd ex-git && "$sweep" -s "$compare_step" "build --alloc --compare HEAD (examples/toml)" -- \
	flamegraph-build --bin crunch --alloc --compare HEAD --deterministic -o - -- --rounds 1 --size 20 \
	>>"$top/table" 2>>"$top/bad" || true)
(cd ex-toml && sweep "build --list (examples/toml)" -- flamegraph-build --list)
(cd ex-make && sweep "build --list (examples/make)" -- flamegraph-build --list)
cat table
# with -o, a run that fails leaves no file behind (nor a partial one)
for at in 10 30 50 70 90; do
	rm -f part.folded
	if FG_FAULT_AT=$at LD_PRELOAD=$FG_TEST_BIN/failalloc.so \
		flamegraph-collapse-perf -o part.folded dwarf.data 2>/dev/null; then
		check_same_file "-o part.folded, point $at" dwarf.folded part.folded
	elif [ -e part.folded ]; then
		fail "-o part.folded was written although point $at failed the run"
	fi
done
[ ! -s bad ] || fail "$(cat bad)"
# every program was swept: a normal run that failed is no pass
check_eq "programs swept" 15 "$(wc -l <table)"
