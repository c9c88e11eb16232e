# flamegraph options, each checked by its effect, with the default
# recorder (the native one on x86_64) and real perf where the option is
# perf's: --pid, --perfdata re-rendering, --perfdata-out, -c, -F, -z,
# --post-process, --skip-after, --open, --no-inline, --call-graph fp.
# ctest: RESOURCE_LOCK cpu
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
cc -O2 -g -o callgraph "$FG_SRC/examples/callgraph/callgraph.c"

# started in the background: returns once the program (its exec done) is
# running, however slow the machine is, with its pid in $started
start_bg() {
	local name=$1
	shift
	"$@" > /dev/null &
	started=$!
	for _ in $(seq 200); do
		[ "$(cat "/proc/$started/comm" 2>/dev/null)" = "$name" ] && return 0
		sleep 0.05
	done
	fail "$name did not start"
}

# --pid on a running workload: recording ends when it exits
start_bg callgraph ./callgraph 1500
wpid=$started
check_exit "--pid" 0 flamegraph --pid "$wpid" -F 499 --format folded -o pid.folded
wstatus=0
wait "$wpid" || wstatus=$?
check_eq "--pid: the workload ran to its end" 0 "$wstatus"
check_contains "--pid captured the workload's stacks" pid.folded "main;outer;a [0-9]+$"

# --pid A,B: both programs in one graph, each under its own name; the
# recording ends when the last one exits
cp callgraph cg-one
cp callgraph cg-two
start_bg cg-one ./cg-one 1500
p1=$started
start_bg cg-two ./cg-two 2000
p2=$started
check_exit "--pid A,B" 0 flamegraph --pid "$p1,$p2" -F 499 --format folded -o pids.folded
wait "$p1" "$p2" || true
check_contains "--pid A,B: the first program" pids.folded "^cg-one;.*main;outer;a [0-9]+$"
check_contains "--pid A,B: the second program" pids.folded "^cg-two;.*main;outer;a [0-9]+$"
check_exit "--pid with one not running" 1 flamegraph --pid "$$,999999999" -o none.svg
check_contains "--pid: the missing one named" err "999999999"

# --perfdata-out keeps the recording; --perfdata re-renders it
check_exit "--perfdata-out" 0 flamegraph --perfdata-out kept.data --folded first.folded -o first.svg -F 499 -- ./callgraph 600
[ -s kept.data ] && pass || fail "--perfdata-out did not keep kept.data"
check_exit "--perfdata re-render" 0 flamegraph --perfdata kept.data --format folded -o again.folded
check_same_file "--perfdata gives the same stacks" first.folded again.folded
check_exit "--perfdata with a title" 0 flamegraph --perfdata kept.data --title "Re-rendered graph" -o titled.svg
check_contains "--title reaches the SVG" titled.svg "Re-rendered graph"

# perf script text as --perfdata is collapsed directly: the stacks of
# --perf-script (perf's own unwinding, which may differ from the native
# reader's in a few stacks)
perf script -i kept.data > kept.txt 2>/dev/null
check_exit "--perfdata with perf script text" 0 flamegraph --perfdata kept.txt --format folded -o text.folded
check_exit "--perfdata --perf-script" 0 flamegraph --perfdata kept.data --perf-script --format folded \
	-o script.folded
check_same_file "text input gives perf script's stacks" script.folded text.folded

# -c passes custom perf record arguments (the event proves it); -c alone
# chooses perf
check_exit "-c custom args" 0 flamegraph -c "record -e task-clock -F 299 --call-graph dwarf,16384" --perfdata-out custom.data --format folded -o custom.folded -- ./callgraph 500
perf evlist -i custom.data > events.txt 2>/dev/null
check_contains "-c event recorded" events.txt "task-clock"
check_contains "-c graph has stacks" custom.folded "main;outer;a [0-9]+$"

# -F changes the sample rate: 99 Hz takes far fewer samples than 1999 Hz
# (counted from "wrote FILE (N samples"; the stacks may weigh by period)
flamegraph -F 99 --call-graph fp --format folded -o low.folded -- ./callgraph 800 2> low.err
flamegraph -F 1999 --call-graph fp --format folded -o high.folded -- ./callgraph 800 2> high.err
low=$(sed -n 's/.*wrote low.folded (\([0-9]*\) samples.*/\1/p' low.err)
high=$(sed -n 's/.*wrote high.folded (\([0-9]*\) samples.*/\1/p' high.err)
[ "${high:-0}" -gt $((${low:-0} * 5)) ] && [ "${low:-0}" -gt 0 ] && pass ||
	fail "-F 1999 took ${high:-?} samples vs ${low:-?} at -F 99"

# -z compresses perf.data (perf built with zstd), the stacks stay; -z
# alone chooses perf
if perf version --build-options 2>/dev/null | grep -q 'zstd: \[ on'; then
	check_exit "-z" 0 flamegraph -z 3 --perfdata-out z.data --format folded -o z.folded -F 499 -- ./callgraph 500
	perf report --header-only -i z.data 2>/dev/null > zhdr.txt
	check_contains "-z: perf.data is compressed" zhdr.txt "compressed"
	check_contains "-z: stacks" z.folded "main;outer;a [0-9]+$"
else
	check_exit "-z passes through to perf" 0 flamegraph -v -z 3 --ignore-status --format folded -o z.folded -F 499 -- ./callgraph 300
fi

# --post-process transforms the stacks (argv split like a shell, no shell)
check_exit "--post-process" 0 flamegraph --post-process "sed -e 's/;outer;/;OUTER_RENAMED;/'" --folded post.folded -o post.svg -F 499 -- ./callgraph 500
check_contains "--post-process changed the folded stacks" post.folded "main;OUTER_RENAMED;a [0-9]+$"
check_not_contains "--post-process left no original frame" post.folded ";outer;"
check_contains "--post-process reaches the SVG" post.svg "OUTER_RENAMED"
check_exit "--post-process failing command" 1 flamegraph --post-process "false" -o pp-fail.svg -F 499 -- ./callgraph 300
check_contains "--post-process failure message" err "post-process command 'false' failed"
[ ! -e pp-fail.svg ] && pass || fail "a failed --post-process still wrote the graph"

# --skip-after drops the callers above a function
check_exit "--skip-after" 0 flamegraph --skip-after outer --format folded -o skip.folded -F 499 -- ./callgraph 500
check_contains "--skip-after: stacks start at outer" skip.folded "^([^;]*;)?outer;a [0-9]+$"
check_not_contains "--skip-after: no main above outer" skip.folded "main;outer"

# --open runs the opener from $BROWSER with the graph's path
cat > opener.sh <<'SH'
#!/bin/sh
echo "opened $1" > opened.txt
SH
chmod +x opener.sh
check_exit "--open" 0 env BROWSER="$PWD/opener.sh" "$FG_BIN/flamegraph" --open -o open.svg -F 499 -- ./callgraph 300
check_contains "--open called the opener" opened.txt "^opened open.svg$"

# --no-inline: no inlined frames natively, and passed on to perf script;
# work's loop calls mix_inlined, inlined into it (dwarf call graphs)
cat > inl.c <<'EOF'
#include <stdlib.h>
static volatile unsigned long sink;
static inline __attribute__((always_inline)) unsigned long mix_inlined(unsigned long x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}
__attribute__((noinline)) static void work(long n)
{
	unsigned long x = 1;
	for (long i = 0; i < n; i++)
		x = mix_inlined(x);
	sink = x;
}
int main(int argc, char **argv)
{
	work(argc > 1 ? atol(argv[1]) : 200000);
	return 0;
}
EOF
cc -O2 -g -fno-omit-frame-pointer -o inl inl.c
check_exit "inlined frames" 0 flamegraph --format folded -o inl.folded -F 499 -- ./inl
check_contains "inlined frames: the inlined function is a frame" inl.folded ";main;work;mix_inlined [0-9]+$"
check_exit "--no-inline" 0 flamegraph -v --no-inline --format folded -o noinl.folded -F 499 -- ./inl
check_contains "--no-inline: its caller is the leaf" noinl.folded ";main;work [0-9]+$"
check_not_contains "--no-inline: no inlined frame" noinl.folded "mix_inlined"
check_exit "--no-inline --perf-script" 0 flamegraph -v --no-inline --perf-script --format folded \
	-o noinl2.folded -F 499 -- ./callgraph 300
check_contains "--no-inline passed to perf script" err "perf script -i .* --no-inline"

# --call-graph fp on a program built without frame pointers: the warning
check_exit "--call-graph fp" 0 flamegraph -v --call-graph fp --format folded -o fp.folded -F 499 -- ./callgraph 300
check_contains "fp warning with the fix" err "built without frame pointers.*-fno-omit-frame-pointer"
check_exit "--call-graph fp with perf" 0 flamegraph --recorder perf -v --call-graph fp --format folded -o fpp.folded -F 499 -- ./callgraph 300
check_contains "fp recorded with --call-graph fp" err "perf record -F 499 --call-graph fp -g"
cc -O2 -g -fno-omit-frame-pointer -o callgraph-fp "$FG_SRC/examples/callgraph/callgraph.c"
check_exit "--call-graph fp with frame pointers" 0 flamegraph --call-graph fp --format folded -o fp2.folded -F 499 -- ./callgraph-fp 300
check_not_contains "no fp warning with -fno-omit-frame-pointer" err "frame pointers"
