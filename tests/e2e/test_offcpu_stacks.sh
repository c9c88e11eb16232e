# Off-CPU stacks reach main. A program built -O2 -g (no frame pointers)
# sleeps in wait_here() through usleep(), then computes. perf attaches to
# the program we start; had it attached before the exec, its maps would be
# ours (the launcher's), and the unwinder would stop at the C library's
# system call wrapper — in some runs with address-space randomisation, in
# every run without it. So each mode is run several times, randomised and
# not (setarch -R), and every graph must hold the sleep under
# main;wait_here;usleep.
# ctest: RESOURCE_LOCK cpu
# ctest: LABELS slow
if ! perf record -q --no-bpf-event -e sched:sched_switch -c 1 -o perf.probe -- true 2>/dev/null; then
	echo "perf cannot record scheduler events here (not root, or no tracefs)" >&2
	exit 77
fi
rm -f perf.probe
if ! setarch -R true 2>/dev/null; then
	echo "setarch -R is not allowed here" >&2
	exit 77
fi
cat > prog.c <<'EOF'
#include <time.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) void wait_here(void) { usleep(150000); sink++; }
__attribute__((noinline)) void compute(void)
{
	struct timespec a, b;
	unsigned long x = 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005UL + 1;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 150000000L);
	sink += x;
}
int main(void) { wait_here(); compute(); return 0; }
EOF
cc -O2 -g -o prog prog.c

# the microseconds of the sleep under main;wait_here;usleep in folded $1
sleep_us() {
	awk '/;main;wait_here;usleep;/ { s += $NF } END { print s + 0 }' "$1"
}

# MODE-NAME RUNS OPTIONS...: off-CPU graphs, each run's sleep rooted in main
offcpu_runs() {
	local name=$1 runs=$2 aslr i us
	shift 2
	for aslr in on off; do
		for i in $(seq "$runs"); do
			local f="$name.$aslr.$i.folded"
			if [ $aslr = on ]; then
				check_exit "$name run $i" 0 flamegraph "$@" --folded "$f" -o "$name.svg" -- ./prog
			else
				check_exit "$name run $i (setarch -R)" 0 setarch -R flamegraph "$@" --folded "$f" -o "$name.svg" -- ./prog
			fi
			us=$(sleep_us "$f")
			awk -v s="$us" 'BEGIN { exit !(s >= 140000) }' && pass ||
				{ fail "$name run $i, randomisation $aslr: only $us us of the sleep under main;wait_here;usleep"
				  sed 's/^/    | /' "$f" | head -5 >&2; }
		done
	done
}

offcpu_runs off-cpu 5 --off-cpu
offcpu_runs off-cpu-file 2 --off-cpu --no-stream
offcpu_runs hot-cold 2 --hot-cold
offcpu_runs hot-cold-file 1 --hot-cold --no-stream
offcpu_runs off-cpu-threads 1 --off-cpu --per-thread

# on-CPU: the compute loop is rooted in main too, and the graph is not
# empty (no sample of the program's is taken for the launcher's)
for aslr in on off; do
	for mode in "" --no-stream; do
		if [ $aslr = on ]; then
			check_exit "on-CPU $mode" 0 flamegraph $mode --folded on.folded -o on.svg -- ./prog
		else
			check_exit "on-CPU $mode (setarch -R)" 0 setarch -R flamegraph $mode --folded on.folded -o on.svg -- ./prog
		fi
		check_contains "on-CPU $mode, randomisation $aslr: compute under main" on.folded "^prog;.*main;compute( |;)"
	done
done

# where the program cannot be traced (we are traced ourselves, here by
# strace) it is held before its exec instead: the graph is still the
# program's alone, none of the launcher's samples in it
if command -v strace >/dev/null; then
	# (a sanitizer build's leak check stops the world with ptrace, which
	# strace already holds: it is left out there)
	lsan=
	grep -q __asan_init "$(command -v flamegraph)" && lsan=detect_leaks=0
	check_exit "on-CPU under strace" 0 env ${lsan:+ASAN_OPTIONS=$lsan} \
		strace -f -o /dev/null flamegraph --folded st.folded -o st.svg -- ./prog
	check_contains "under strace: compute under main" st.folded "^prog;.*main;compute( |;)"
	check_not_contains "under strace: nothing of the launcher" st.folded "^flamegraph;"
fi
