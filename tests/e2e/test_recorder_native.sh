# --recorder native: the kernel's perf events opened by flamegraph itself,
# with no perf on PATH. A program's own functions under main; its threads
# (each under its own root with --per-thread) and the child it forks;
# running processes (-p); SIGINT and SIGTERM keep the graph of what was
# recorded; --max-size stops the recording; --perfdata-out keeps a
# recording that the native reader and perf script (where perf is
# installed) read back; flamegraph-build --bin on examples/cmake; the
# options the native recorder does not take are refused before anything
# runs. No process or file of ours is left after any run.
# ctest: RESOURCE_LOCK cpu
. "$FG_SRC/tests/lib/noperf.sh"
native_recorder_or_skip

# a PATH without perf: every program of the PATH but perf, as links
noperf_path noperf || finish
NOPERF=$PWD/noperf
fgn() { PATH=$NOPERF flamegraph --recorder native "$@"; }

# every process of this test runs a program of this unique name
cg=./cg-native-$$
# with frame pointers: the recorder's small copies beside the kernel's walk
cc -O2 -g -fno-omit-frame-pointer -o "$cg" "$FG_SRC/examples/callgraph/callgraph.c"
cc -O2 -g -fno-omit-frame-pointer -pthread -o "$cg-threads" "$FG_SRC/examples/threads/threads.c"
# without them: whole copies
cc -O2 -g -o "$cg-nofp" "$FG_SRC/examples/callgraph/callgraph.c"
cat > forker.c <<'C'
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile uint64_t sink;
__attribute__((noinline)) static void spin_for(unsigned n) { for (unsigned i = 0; i < n; i++) sink = sink * 31 + i; }
__attribute__((noinline)) static void child_work(void) { spin_for(200000000u); }
__attribute__((noinline)) static void parent_work(void) { spin_for(100000000u); }
int main(void)
{
	pid_t p = fork();
	if (p == 0) {
		child_work();
		_exit(0);
	}
	parent_work();
	waitpid(p, NULL, 0);
	printf("%llu\n", (unsigned long long)(sink & 0xff));
	return 0;
}
C
cc -O1 -g -o "$cg-forker" forker.c

check_clean() {
	local what=$1 left
	check_no_processes_left "$what" && pass
	left=$(find . "$TMPDIR" -name '.flamegraph-*' | head -5)
	[ -z "$left" ] && pass || { fail "$what: files left: $left"; rm -rf $left; }
}

# --- the default recorder: native, with no perf anywhere ------------------------------
check_exit "no --recorder, no perf" 0 env PATH="$NOPERF" flamegraph --folded def.folded \
	-o def.svg -- "$cg" 300
check_contains "no --recorder: the call tree" def.folded "main;outer;a [0-9]+$"
check_not_contains "no --recorder: no perf advice" err "perf was not found"
check_clean "no --recorder"

# --- a program, with no perf anywhere --------------------------------------------
check_exit "command" 0 fgn -v -o cg.svg --folded cg.folded -- "$cg" 800
check_contains "command: the call tree under main" cg.folded "^cg-native-$$;.*main;outer;a [0-9]+$"
check_contains "command: b beside a" cg.folded "main;outer;b [0-9]+$"
check_not_contains "command: no perf ran" err "running: perf"
check_contains "command: summary, nothing lost" err "note: wrote cg.svg \([0-9]+ samples, 0 lost, [0-9]+ stacks; [0-9.]+ s recorded, [0-9.]+ (KB|MB)\)$"
samples=$(sed -n 's/.*(\([0-9]*\) samples.*/\1/p' err)
[ "${samples:-0}" -gt 100 ] && pass || fail "command: only ${samples:-no} samples in 0.8 s at 997 Hz"
# none of our own launcher's samples: it was held until the program's exec
check_not_contains "command: nothing of flamegraph's own" cg.folded "^flamegraph"
xmllint --noout cg.svg && pass || fail "command: the graph is not well-formed"
check_clean "command"

# --- threads, one root each -------------------------------------------------------
check_exit "threads" 0 fgn --per-thread -o th.svg --folded th.folded -- "$cg-threads" 15
for t in alpha beta gamma; do
	check_contains "threads: $t under its own root" th.folded "^$t-[0-9]+;.*${t}_work [0-9]+$"
done
check_clean "threads"

# --- a forked child is followed --------------------------------------------------
check_exit "fork" 0 fgn -o fk.svg --folded fk.folded -- "$cg-forker"
check_contains "fork: the parent's work" fk.folded "main;parent_work;spin_for [0-9]+$"
check_contains "fork: the child's work" fk.folded "main;child_work;spin_for [0-9]+$"
check_clean "fork"

# --- a running process ---------------------------------------------------------------
"$cg" 2500 >/dev/null &
prog=$!
wait_for_process "^$cg 2500 $" && pass || fail "-p: the program never ran"
check_exit "-p" 0 fgn -p $prog -o pid.svg --folded pid.folded
wait $prog || true
check_contains "-p: the running program's call tree" pid.folded "main;outer;a [0-9]+$"
check_clean "-p"

# --- SIGINT and SIGTERM: the graph of what was recorded ---------------------------------
for sig in INT TERM; do
	want=$((128 + $(kill -l $sig)))
	rm -f sig.svg sig.folded
	PATH=$NOPERF timeout --preserve-status -s $sig 60 \
		flamegraph --recorder native -o sig.svg --folded sig.folded -- "$cg" 30000 >out 2>err &
	pid=$!
	wait_for_process "^$cg 30000 $" && pass || fail "SIG$sig: the program never ran"
	sleep 0.8
	kill -s $sig $pid
	rc=0
	wait $pid || rc=$?
	check_eq "SIG$sig: exit 128+N" $want $rc
	check_contains "SIG$sig: the graph of what was recorded" sig.folded "main;outer;a [0-9]+$"
	check_contains "SIG$sig: the subtitle says interrupted" sig.svg "interrupted \((SIG$sig|Ctrl-C)\) after [0-9.]+ s"
	check_clean "SIG$sig"
done

# --- the size cap ---------------------------------------------------------------------
check_exit "--max-size" 0 fgn --max-size 2M -o cap.svg -- "$cg" 20000
check_contains "--max-size: the subtitle says so" cap.svg "recording stopped at its 2.0 MB cap"
check_contains "--max-size: the program was stopped long before its 20 s" err "; ([0-9]|1[0-4])\.[0-9] s recorded"
check_clean "--max-size"

# --- a kept recording, read back -------------------------------------------------------
check_exit "--perfdata-out" 0 fgn -o keep.svg --perfdata-out keep.data -- "$cg" 500
[ -s keep.data ] && pass || fail "--perfdata-out: no recording kept"
check_exit "the native reader reads it" 0 flamegraph --perfdata keep.data -o back.svg --folded back.folded
check_contains "the native reader: the call tree" back.folded "main;outer;a [0-9]+$"
check_exit "flamegraph-render renders it" 0 flamegraph-render -o back2.svg back.folded
xmllint --noout back2.svg && pass || fail "flamegraph-render: the graph is not well-formed"
if command -v perf >/dev/null; then
	check_exit "perf script reads it" 0 perf script -i keep.data
	check_contains "perf script: unwound to main" out "main\+0x[0-9a-f]+ \(.*cg-native-$$\)"
	check_contains "perf script: a under outer" out "outer\+0x[0-9a-f]+ "
	# --no-demangle: perf 6.12 demangles C names as if they were C++
	# type codes (a is "signed char", b "bool"), in its own recordings
	# as in this one; the C program's names are printed as they are
	check_exit "perf report reads it" 0 perf report -i keep.data --stdio --no-demangle
	check_contains "perf report: a is there" out "\[\.\] a$"
	# hybrid samples: the user chain (no exclude_callchain_user), bp/sp/ip
	# and a small copy; a second, rare event with a whole copy (with the
	# timer, it starts at a short period, 10 ms, for its first sample)
	check_exit "perf evlist reads it" 0 perf evlist -v -i keep.data
	check_contains "the first event: hybrid samples" out \
		"sample_freq \}: (997|1003009), .*sample_regs_user: 0x1c0, sample_stack_user: 1536"
	grep -E "sample_freq }: (997|1003009)," out | grep -q exclude_callchain_user &&
		fail "the first event leaves the user chain out" || pass
	check_contains "the second event: rare, a whole copy, no user chain" out \
		"sample_freq \}: (4|10000000), .*exclude_callchain_user: 1, .*sample_stack_user: 32768"
else
	skip_part "perf script -i" "perf is not installed"
fi
rm -f keep.data
check_clean "--perfdata-out"

# --- a program without frame pointers: whole copies ------------------------------------
check_exit "no frame pointers" 0 fgn --folded nofp.folded -o nofp.svg -- "$cg-nofp" 300
check_contains "no frame pointers: a note says the copies are whole" err \
	"built without frame pointers: the native recorder copies 64 KB"
check_contains "no frame pointers: the call tree" nofp.folded "main;outer;a [0-9]+$"
check_exit "frame pointers: no such note" 0 fgn -o fp.svg -- "$cg" 300
check_not_contains "frame pointers: no such note" err "built without frame pointers"
check_clean "no frame pointers"

# --- flamegraph-build --bin on the CMake example ---------------------------------------
cp -r "$FG_SRC/examples/cmake" proj
rm -rf proj/build
check_exit "flamegraph-build --recorder native" 0 env PATH="$NOPERF" flamegraph-build \
	--manifest-path "$PWD/proj" --bin stress2 --recorder native -o stress2.svg \
	--folded stress2.folded -- --rounds 10
check_contains "flamegraph-build: fill_table under main" stress2.folded "main;fill_table"
check_contains "flamegraph-build: sort_phase" stress2.folded "sort_phase;sort_work"
check_clean "flamegraph-build"

# --- what it does not take: refused before anything runs ----------------------------------
for opts in "-c record" "--root" "-z"; do
	# shellcheck disable=SC2086
	check_exit "--recorder native $opts" 1 fgn $opts -o x.svg -- sh -c "touch ran"
	check_contains "--recorder native $opts: why, and what to do" err "error: .*--recorder perf"
done
[ ! -e ran ] && [ ! -e x.svg ] && pass || fail "refused options: something ran"
check_clean "refused options"
