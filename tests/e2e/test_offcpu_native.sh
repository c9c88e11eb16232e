# --off-cpu and --hot-cold with the native recorder, with no perf on PATH:
# a program sleeps 300 ms in nap_here() (nanosleep) and blocks 200 ms in
# read_pipe() (a pipe read its child answers after 200 ms), then computes.
# The off-CPU graph holds both waits under main with about those weights,
# from the stream and from a recording kept and read after it; the
# hot/cold graph holds them beside the computing; where perf is
# installed, perf script reads the kept recording (and the perf route
# weighs its waits as the native one), and --recorder perf gives the
# same waits and weights. Without --recorder and without perf, --off-cpu
# is recorded natively.
# ctest: RESOURCE_LOCK cpu
[ "$(uname -m)" = x86_64 ] || { echo "the native recorder records x86_64 only"; exit 77; }

cat > prog.c <<'C'
#include <time.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) void nap_here(void)
{
	struct timespec t = { 0, 300000000 };
	nanosleep(&t, 0);
	sink++;
}
__attribute__((noinline)) void read_pipe(void)
{
	int fds[2];
	char c = 0;
	if (pipe(fds))
		return;
	if (fork() == 0) {
		struct timespec t = { 0, 200000000 };
		nanosleep(&t, 0);
		(void)!write(fds[1], "x", 1);
		_exit(0);
	}
	(void)!read(fds[0], &c, 1);
	sink += (unsigned long)c;
}
__attribute__((noinline)) void compute(void)
{
	struct timespec a, b;
	unsigned long x = 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005UL + 1;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 200000000L);
	sink += x;
}
int main(void) { nap_here(); read_pipe(); compute(); return 0; }
C
cc -O2 -g -o prog prog.c

# a PATH without perf: every program of the PATH but perf, as links
. "$FG_SRC/tests/lib/noperf.sh"
noperf_path noperf || finish
NOPERF=$PWD/noperf
fgn() { PATH=$NOPERF flamegraph --recorder native "$@"; }

# the scheduler's tracepoint may be closed to this user: the refusal says
# what to do, and the test has nothing more to check
if ! fgn --off-cpu -o probe.svg -- sleep 0.05 2>probe.err; then
	if grep -q "sched_switch" probe.err; then
		grep -Eq "sudo (sysctl|mount|chmod)|as root" probe.err && pass ||
			fail "the tracepoint's refusal does not say what to do: $(cat probe.err)"
		echo "the scheduler tracepoint cannot be opened here: $(cat probe.err)"
		exit 77
	fi
	fail "--off-cpu on true: $(cat probe.err)"
	finish
fi

# microseconds under main;FUNC;SYSCALL in folded $1 (FUNC;SYSCALL: $2,
# an extended regular expression)
weight() {
	awk -v k=";main;$2" '$0 ~ k { s += $NF } END { print s + 0 }' "$1"
}
# the sleep, under the program's own frame whatever libc names itself
nap="nap_here;"
# the parent's wait in read(2) on the pipe, in the C library's read: its
# debug file names it __GI___libc_read; without that file (no libc6-dbg)
# the library's exported symbols name it read
readkey="read_pipe;(__GI___libc_read|read);"
# NAME FOLDED KEY LOW HIGH: the weight of KEY is within [LOW, HIGH] us
# (no KEY: nothing to check)
check_weight() {
	local w
	[ -n "$3" ] || return 0
	w=$(weight "$2" "$3")
	awk -v w="$w" -v lo="$4" -v hi="$5" 'BEGIN { exit !(w >= lo && w <= hi) }' && pass ||
		{ fail "$1: $w us under main;$3, not within $4..$5"; sed 's/^/    | /' "$2" | cut -c1-200 >&2; }
}

for mode in stream file; do
	extra=""
	[ $mode = file ] && extra="--perfdata-out kept.data"
	# shellcheck disable=SC2086
	check_exit "native --off-cpu ($mode)" 0 fgn --off-cpu $extra --folded off.$mode.folded -o off.$mode.svg -- ./prog
	# the sleeps are timed by the kernel: a wait lasts at least as long,
	# and on a busy machine a little longer
	check_weight "native --off-cpu ($mode): nanosleep" off.$mode.folded "$nap" 295000 400000
	check_weight "native --off-cpu ($mode): pipe read" off.$mode.folded "$readkey" 190000 350000
	check_not_contains "native --off-cpu ($mode): no on-CPU stacks" off.$mode.folded "compute"
done
[ -s kept.data ] && pass || fail "--perfdata-out kept no recording"
# the kept recording carries the tracepoint's format: perf script prints
# the switches' fields, and perf's route weighs them as the native one
if command -v perf >/dev/null; then
	check_exit "perf script -i kept.data" 0 perf script -i kept.data
	check_contains "perf script -i kept.data: the switches' fields" out \
		"sched:sched_switch: prev_comm=prog prev_pid=[0-9]+ prev_prio=[0-9]+ prev_state=S"
	check_exit "--perfdata kept.data --off-cpu (perf script)" 0 flamegraph --perfdata kept.data \
		--off-cpu --folded kept.folded -o kept.svg
	# perf script prints times in microseconds, the native reader has
	# their nanoseconds: a wait's rounding may differ by 1 us
	for key in "$nap" ${readkey:+"$readkey"}; do
		p=$(weight kept.folded "$key")
		n=$(weight off.file.folded "$key")
		awk -v n="$n" -v p="$p" 'BEGIN { d = n - p; if (d < 0) d = -d; exit !(p > 0 && d <= 1) }' && pass ||
			fail "the kept recording through perf script: main;$key weighs $p us, natively $n us"
	done
else
	skip_part "perf script -i" "perf is not installed"
fi

check_exit "native --hot-cold" 0 fgn --hot-cold --folded hc.folded -o hc.svg -- ./prog
check_weight "native --hot-cold: nanosleep" hc.folded "$nap" 295000 400000
check_weight "native --hot-cold: pipe read" hc.folded "$readkey" 190000 350000
check_contains "native --hot-cold: the waits under [off-cpu]" hc.folded "^prog;\[off-cpu\];.*main;nap_here"
check_contains "native --hot-cold: the computing under [on-cpu]" hc.folded "^prog;\[on-cpu\];.*main;compute [0-9]"
# cpu-clock's periods are nanoseconds: the computing weighs tens of
# milliseconds at least (less than 200 on a machine shared with others)
oncpu=$(awk '/\[on-cpu\];.*main;compute/ { s += $NF } END { print s + 0 }' hc.folded)
awk -v w="$oncpu" 'BEGIN { exit !(w >= 20000 && w <= 260000) }' && pass ||
	fail "native --hot-cold: compute weighs $oncpu us"
check_svgs_wellformed off.stream.svg hc.svg

# without --recorder and without perf: the native recorder records it
check_exit "--off-cpu, no --recorder, no perf" 0 env PATH="$NOPERF" flamegraph --off-cpu \
	--folded def.folded -o def.svg -- ./prog
check_weight "--off-cpu, no --recorder: nanosleep" def.folded "$nap" 295000 400000
check_not_contains "--off-cpu, no --recorder: no perf advice" err "perf was not found"

# the same waits as perf's recording of the same program
if command -v perf >/dev/null && perf record -q --no-bpf-event -e sched:sched_switch -c 1 -o perf.probe -- true 2>/dev/null; then
	rm -f perf.probe
	check_exit "perf --off-cpu" 0 flamegraph --recorder perf --off-cpu --folded p.folded -o p.svg -- ./prog
	check_weight "perf --off-cpu: nanosleep" p.folded "$nap" 295000 400000
	check_weight "perf --off-cpu: pipe read" p.folded "$readkey" 190000 350000
	for key in "$nap" ${readkey:+"$readkey"}; do
		n=$(weight off.stream.folded "$key")
		p=$(weight p.folded "$key")
		# each run waits as long as the machine lets it: the fork and the
		# child's wake-up take longer on a busy one
		awk -v n="$n" -v p="$p" 'BEGIN { d = n - p; if (d < 0) d = -d; exit !(p > 0 && d <= 100000) }' && pass ||
			fail "native and perf differ under main;$key: $n us and $p us"
	done
	# hot/cold: the same waits under [off-cpu], the computing under [on-cpu]
	check_exit "perf --hot-cold" 0 flamegraph --recorder perf --hot-cold --folded ph.folded -o ph.svg -- ./prog
	for key in "$nap" ${readkey:+"$readkey"}; do
		n=$(weight hc.folded "$key")
		p=$(weight ph.folded "$key")
		awk -v n="$n" -v p="$p" 'BEGIN { d = n - p; if (d < 0) d = -d; exit !(p > 0 && d <= 100000) }' && pass ||
			fail "native and perf --hot-cold differ under main;$key: $n us and $p us"
	done
	check_contains "perf --hot-cold: the computing under [on-cpu]" ph.folded "^prog;\[on-cpu\];.*main;compute [0-9]"
	# the same frames: each stack of perf's graph is in the native one
	cut -d' ' -f1 p.folded | sort >p.stacks
	cut -d' ' -f1 off.stream.folded | sort >n.stacks
	missing=$(comm -23 p.stacks n.stacks)
	[ -z "$missing" ] && pass || fail "stacks of perf's off-CPU graph missing from the native one: $missing"
else
	skip_part "the comparison with perf" "perf cannot record scheduler events here"
fi
check_no_processes_left "off-CPU runs" && pass
finish
