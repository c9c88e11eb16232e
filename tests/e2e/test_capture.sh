# Capture: the size cap, the sampling limit, lost samples, signals (the
# graph of what was recorded, no process or temporary file left), -o -
# keeping the program's output out of the graph, the exit statuses,
# perf's failures told in our words, --perfdata re-rendering. What both
# recorders do their own way (the status lines, the cap, lost samples,
# signals) is checked with each: the default (the native recorder on
# x86_64) and real perf (--recorder perf); perf's command lines, banners
# and failures with perf.
# ctest: RESOURCE_LOCK cpu
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
# every process of this test runs a program of this unique name, so that
# what outlives a run can be found
cg=./cg-capture-$$
# (gcc 12 leaves leaf functions without a frame even when told not to, so
# frame-pointer stacks miss a leaf's caller: main;a for main;outer;a)
cc -O2 -g -fno-omit-frame-pointer -o "$cg" "$FG_SRC/examples/callgraph/callgraph.c"
# without frame pointers: the native recorder copies whole stacks, 64 KB
# a sample as perf's dwarf call graphs do
cc -O2 -g -o "$cg-nofp" "$FG_SRC/examples/callgraph/callgraph.c"
cat > stubborn.c <<'EOF'
#include <signal.h>
#include <stdint.h>
static volatile uint64_t sink;
int main(void) { signal(SIGTERM, SIG_IGN); for (;;) sink = sink * 31 + 7; }
EOF
cc -O1 -o "$cg-stubborn" stubborn.c

# nothing of ours may be left: no process running our programs, no
# temporary file (recordings, half-written outputs, control fifos)
check_clean() {
	local what=$1 left
	# (this test's processes only: other tests run beside it)
	check_no_processes_left "$what" && pass
	left=$(find . -name '.flamegraph-*' -o -name '.*.tmp*' | head -5)
	[ -z "$left" ] && pass || { fail "$what: temporary files left: $left"; rm -rf $left; }
}

# --- before anything runs: -F above the kernel's limit ----------------------
limit=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
printf '#!/bin/sh\necho ran >> %s/perf-ran\nexec perf "$@"\n' "$PWD" > logperf
chmod +x logperf
PERF=$PWD/logperf check_exit "-F above the limit" 1 flamegraph -F $((limit + 1)) -o high.svg -- sh -c "touch program-ran"
check_contains "-F above the limit: names the limit" err "above this kernel's limit of $limit Hz \(kernel.perf_event_max_sample_rate\)"
[ ! -e perf-ran ] && [ ! -e program-ran ] && [ ! -e high.svg ] && pass || fail "-F above the limit: something ran"

# --- a plain run: summary line, nothing left, quiet on a non-terminal --------
check_exit "plain run" 0 flamegraph --call-graph fp -o plain.svg --folded plain.folded -- "$cg" 600
check_contains "summary: samples, lost, stacks, seconds, size" err "note: wrote plain.svg \([0-9]+ samples, 0 lost, [0-9]+ stacks; [0-9.]+ s recorded, [0-9.]+ (KB|MB)\)$"
check_not_contains "no status line when stderr is not a terminal" err $'\r'
check_contains "plain run: the call tree" plain.folded "main;(outer;)?a [0-9]+$"
check_clean "plain run"
check_exit "plain run with perf" 0 flamegraph --recorder perf --call-graph fp -o plainp.svg --folded plainp.folded -- "$cg" 600
check_contains "perf: the summary" err "note: wrote plainp.svg \([0-9]+ samples, 0 lost, [0-9]+ stacks; [0-9.]+ s recorded, [0-9.]+ (KB|MB)\)$"
check_not_contains "perf's banners are consumed" err "Woken up|Captured and wrote|Events enabled"
check_contains "perf: the call tree" plainp.folded "main;(outer;)?a [0-9]+$"
check_clean "plain run with perf"

# the status line on a terminal (script(1) gives the run a pty)
if command -v script >/dev/null; then
	# (a recording read from a file: a stream has no reading step after
	# it; the native recorder's file is perf.data's pipe form, which does
	# not say how many samples it holds: the count alone)
	for rec in native perf; do
		opt=
		reading='[0-9]+ samples, [0-9.]+ s'
		if [ $rec = perf ]; then
			opt="--recorder perf"
			reading='[0-9]+% \([0-9]+ of [0-9]+ samples\)'
		fi
		script -qec "flamegraph $opt --no-stream --call-graph fp -o tty.$rec.svg -- $cg 1200" /dev/null > tty.$rec.txt 2>&1 || true
		check_contains "terminal ($rec): a status line while recording" tty.$rec.txt $'\r.*recording .*cg-capture.*: [0-9.]+ s, [0-9.]+ (bytes|KB|MB)'
		check_contains "terminal ($rec): a status line while reading the recording" tty.$rec.txt $'\r.*reading the recording: '"$reading"
		check_clean "terminal run ($rec)"
	done
fi

# --- -o -: only the graph on stdout ------------------------------------------
got=0
flamegraph --call-graph fp -o - -- sh -c "echo workload-says-hi; exec $cg 400" > stdout.svg 2> stdout.err || got=$?
check_eq "-o -: exit" 0 "$got"
xmllint --noout stdout.svg && pass || fail "-o -: stdout is not a well-formed SVG"
check_not_contains "-o -: the program's output is not in the graph" stdout.svg "workload-says-hi"
check_contains "-o -: the program's output went to stderr" stdout.err "workload-says-hi"

# --- exit statuses ------------------------------------------------------------
# (at 1 Hz: a second of CPU time before the first sample, so a loaded machine
# cannot give the quick run one)
check_exit "no samples: 4" 4 flamegraph -F 1 -o none.svg -- "$cg" quick
check_exit "crash: 5" 5 flamegraph --call-graph fp -o crash.svg -- "$cg" crash 400
[ -s crash.svg ] && pass || fail "crash: no graph"
check_exit "non-zero exit: 5" 5 flamegraph --call-graph fp -o fail.svg -- sh -c "$cg 300 >/dev/null; exit 7"
check_contains "non-zero exit: said" err "exited with status 7"
check_clean "exit statuses"

# --- perf's failures, in our words --------------------------------------------
cat > paranoid-perf <<'EOF'
#!/bin/sh
[ "$1" = record ] || exec perf "$@"
cat >&2 <<'MSG'
Error:
Access to performance monitoring and observability operations is limited.
Consider adjusting /proc/sys/kernel/perf_event_paranoid setting to open
access to performance monitoring and observability operations for processes
without CAP_PERFMON, CAP_SYS_PTRACE or CAP_SYS_ADMIN Linux capability.
MSG
exit 255
EOF
cat > broken-perf <<'EOF'
#!/bin/sh
[ "$1" = record ] || exec perf "$@"
echo "failed to mmap with 12 (Cannot allocate memory)" >&2
exit 255
EOF
chmod +x paranoid-perf broken-perf
PERF=$PWD/paranoid-perf check_exit "perf refused (paranoid): 3" 3 flamegraph -o p.svg -- "$cg" 300
check_contains "paranoid: the sysctl" err "kernel.perf_event_paranoid=1"
PERF=$PWD/broken-perf check_exit "perf failed otherwise: 3" 3 flamegraph -o p.svg -- "$cg" 300
check_contains "other failure: perf's reason" err "error: perf record exited with status 255: failed to mmap with 12"
check_not_contains "other failure: no paranoid hint" err "paranoid"
check_clean "perf failures"

# --- the size cap -------------------------------------------------------------
# the cap holds within a buffer's worth (perf's ring buffers are sized
# to a quarter of it), and the program is stopped at it, not a second on
# (however long a loaded machine takes to fill the cap: from the cap to
# the end of the recording, not from the start)
stopped_at_once() { # WHAT: the seconds recorded at most 0.5 past the cap's
	local cap rec
	cap=$(sed -nE 's/.*reached its [0-9.]+ MB cap after ([0-9.]+) s.*/\1/p' err | head -n 1)
	rec=$(sed -nE 's/.*; ([0-9.]+) s recorded.*/\1/p' err | head -n 1)
	awk -v c="${cap:-x}" -v r="${rec:-x}" 'BEGIN { exit !(c != "x" && r != "x" && r - c <= 0.5) }' &&
		pass || fail "$1: the program was not stopped at the cap (cap after ${cap:-?} s, ${rec:-?} s recorded)"
}
# (the native recorder's samples are about 2 KB, perf's dwarf ones up to
# 64 KB: a 1.5 s run reaches a 1 MB cap with the one, 8 MB with the other)
for rec in native perf; do
	opt=() keep=1
	[ $rec = native ] || opt=(--recorder perf) keep=8
	check_exit "--max-size stops the program ($rec)" 0 flamegraph "${opt[@]}" --max-size 8M -o cap.$rec.svg -- "$cg" 20000
	check_contains "--max-size ($rec): the subtitle says so" cap.$rec.svg "recording stopped at its 8.0 MB cap: covers the first [0-9.]+ s"
	check_contains "--max-size ($rec): the warning says so" err "warning: the recording reached its 8.0 MB cap after [0-9.]+ s"
	stopped_at_once "--max-size 8M ($rec)"
	sz=$(sed -nE 's/.* s recorded, ([0-9.]+) MB\).*/\1/p' err)
	check_eq "--max-size 8M ($rec): at most 10 MB streamed" yes "$(awk -v s="${sz:-99}" 'BEGIN { print (s <= 10.0) ? "yes" : "no" }')"
	rm -f cap.data
	check_exit "--max-size to a file ($rec)" 0 flamegraph "${opt[@]}" --max-size 2M --perfdata-out cap.data -o cap3.$rec.svg -- "$cg" 20000
	check_eq "--max-size 2M ($rec): the file at most 2.5 MiB" yes "$([ "$(stat -c %s cap.data)" -le $((5 << 19)) ] && echo yes || stat -c %s cap.data)"
	stopped_at_once "--max-size 2M ($rec)"
	check_exit "--max-size --keep-running ($rec)" 0 flamegraph "${opt[@]}" --max-size ${keep}M --keep-running -o cap2.$rec.svg -- "$cg" 1500
	check_contains "--keep-running ($rec): covers the first seconds of the whole run" cap2.$rec.svg "covers the first [0-9.]+ s of (1\.[5-9]|2\.[0-4]) s"
	check_clean "size cap ($rec)"
done
check_exit "--max-size none" 0 flamegraph --recorder perf -v --no-stream --max-size none --call-graph fp -o nocap.svg -- "$cg" 200
check_contains "--max-size none: perf records" err "running: .*perf record "
check_not_contains "--max-size none: no cap given to perf" err "running: .*perf record .*--max-size"
check_exit "--no-stream: a cap by default" 0 flamegraph --recorder perf -v --no-stream --call-graph fp -o defcap.svg -- "$cg" 200
check_contains "--no-stream: perf gets the default cap" err "running: .*perf record .*--max-size=[0-9]+K"
check_exit "--max-size garbage" 1 flamegraph --max-size 12Q -o x.svg -- "$cg" 200
check_contains "--max-size garbage: the form" err "error: --max-size: '12Q' is not a size"
check_clean "size cap"

# --- lost samples: a ring buffer far too small for dwarf at 10 kHz -------------
# (64 KB samples: perf's dwarf ones, the native recorder's of a program
# without frame pointers)
# (the kernel lowers its rate limit on a busy machine: stay under it)
fast=$((limit < 10000 ? limit : 10000))
# (beside other work the recorder may lose every sample, which is said
# and exits 4: tried again, as what is checked here is a graph with some
# lost)
# Where the recorder may run ahead of ordinary work (root) it keeps up
# even with this buffer, so that right is taken away: as for a user
# without it.
lowly=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	lowly=(setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice)
fi
for rec in native perf; do
	opt=()
	[ $rec = native ] || opt=(--recorder perf)
	if check_lossy_run "tiny buffer ($rec)" "${lowly[@]}" flamegraph "${opt[@]}" --buffer-size 128K -F $fast --max-size 64M -o lost.$rec.svg -- "$cg-nofp" 300; then
		lost=$(sed -n "s/.*wrote lost.$rec.svg ([0-9]* samples, \([0-9]*\) lost.*/\1/p" err)
		[ "${lost:-0}" -gt 0 ] && pass || fail "tiny buffer ($rec): no lost samples counted ($(cat err))"
		check_contains "lost ($rec): the subtitle" lost.$rec.svg "[0-9.]+% of samples lost \([0-9]+ of [0-9]+\): record with --call-graph fp"
		check_contains "lost ($rec): the warning" err "samples were lost \(the ring buffer overflowed\)"
	fi
	check_clean "lost samples ($rec)"
done

# --- signals ---------------------------------------------------------------------
# the program runs once the recorder records (it is started held until
# then): a signal before that finds nothing recorded yet
cat > running.py <<'PY'
import os, time
def wait_running(path, timeout=30):
    want, t = os.path.realpath(path), time.time()
    while time.time() - t < timeout:
        for d in os.listdir("/proc"):
            try:
                if d.isdigit() and os.readlink("/proc/%s/exe" % d) == want:
                    return
            except OSError:
                pass
        time.sleep(0.05)
PY
for rec in native perf; do
	opt=()
	[ $rec = native ] || opt=(--recorder perf)
	# SIGTERM from timeout(1) (to the program and then its process
	# group). perf gets the signal too, and it must have started and set
	# up its own handling by then, or it dies of it with nothing written:
	# the program is not started before the recorder records, so
	# timeout(1) is signalled (it passes the signal on as when its time is
	# up) once the program runs, however long perf took to start
	timeout --preserve-status -s TERM 120 flamegraph "${opt[@]}" -o term.$rec.svg --folded term.$rec.folded -- "$cg" 30000 >out 2>err &
	pid=$!
	wait_for_process "^$cg 30000 $" && pass || fail "timeout -s TERM ($rec): the program never ran"
	sleep 0.5
	kill -TERM $pid
	rc=0
	wait $pid || rc=$?
	check_eq "timeout -s TERM ($rec)" 143 $rc
	check_contains "timeout ($rec): the graph of what was recorded" term.$rec.folded "main;outer;a [0-9]+$"
	check_contains "timeout ($rec): the subtitle says interrupted" term.$rec.svg "interrupted \(SIGTERM\) after [0-9.]+ s"
	# what the run said, when it wrote no graph
	[ -s term.$rec.folded ] || { echo "timeout -s TERM ($rec): flamegraph's stderr:" >&2; cat err >&2; }
	check_clean "timeout -s TERM ($rec)"

	# SIGINT, SIGHUP to flamegraph alone: it stops the program itself
	python3 - "$rec" "$cg" "${opt[@]}" <<'PY' > alone.txt 2>&1 && pass || { fail "signals to flamegraph alone ($rec)"; cat alone.txt >&2; }
import signal, subprocess, sys, time
from running import wait_running
for sig, want in ((signal.SIGINT, 130), (signal.SIGHUP, 129)):
    out = "alone-%s-%d" % (sys.argv[1], sig)
    p = subprocess.Popen(["flamegraph"] + sys.argv[3:] + ["--call-graph", "fp", "-o", out + ".svg", "--folded",
                          out + ".folded", "--", sys.argv[2], "30000"], stderr=subprocess.DEVNULL)
    wait_running(sys.argv[2])
    time.sleep(0.8)
    p.send_signal(sig)
    rc = p.wait(timeout=30)
    ok = rc == want and ";a " in open(out + ".folded").read()
    print(sig, rc, ok)
    if not ok:
        sys.exit(1)
PY
	check_clean "signals to flamegraph alone ($rec)"

	# a second signal aborts at once, even while the program ignores
	# SIGTERM (without it the run would end about 1.9 s later, when the
	# program is killed 2 s after it was first signalled)
	python3 - "$rec" "$cg-stubborn" "${opt[@]}" <<'PY' > twice.txt 2>&1 && pass || { fail "second signal ($rec)"; cat twice.txt >&2; }
import os, signal, subprocess, sys, time
from running import wait_running
out = "twice.%s.svg" % sys.argv[1]
p = subprocess.Popen(["flamegraph"] + sys.argv[3:] + ["-o", out, "--", sys.argv[2]], stderr=subprocess.DEVNULL)
wait_running(sys.argv[2])
time.sleep(0.8)
p.send_signal(signal.SIGTERM)
time.sleep(0.3)
t = time.time()
p.send_signal(signal.SIGTERM)
rc = p.wait(timeout=30)
print(rc, time.time() - t)
sys.exit(0 if rc == -signal.SIGTERM and time.time() - t < 1.2 and not os.path.exists(out) else 1)
PY
	check_clean "second signal ($rec)"

	# other catchable signals abort at once, and clean up (SIGQUIT while
	# recording)
	python3 - "$rec" "$cg" "${opt[@]}" <<'PY' > quit.txt 2>&1 && pass || { fail "SIGQUIT ($rec)"; cat quit.txt >&2; }
import signal, subprocess, sys, time
from running import wait_running
p = subprocess.Popen(["flamegraph"] + sys.argv[3:] + ["-o", "quit.%s.svg" % sys.argv[1], "--", sys.argv[2], "30000"],
                     stderr=subprocess.DEVNULL)
wait_running(sys.argv[2])
time.sleep(0.8)
p.send_signal(signal.SIGQUIT)
sys.exit(0 if p.wait(timeout=30) == -signal.SIGQUIT else 1)
PY
	[ ! -e quit.$rec.svg ] && pass || fail "SIGQUIT ($rec): a graph was written"
	check_clean "SIGQUIT ($rec)"
done

# every program removes its half-written output on a signal: each waits on
# a fifo that never ends while its output is open
mkfifo in.fifo
for prog in flamegraph-collapse-perf flamegraph-collapse-dtrace flamegraph-collapse-guess flamegraph-render "flamegraph-diff-folded in.fifo"; do
	exec 3<>in.fifo
	$prog -o "out-${prog%% *}.txt" in.fifo 2>/dev/null &
	pid=$!
	for _ in $(seq 50); do compgen -G ".out-${prog%% *}.txt.tmp*" >/dev/null && break; sleep 0.1; done
	compgen -G ".out-${prog%% *}.txt.tmp*" >/dev/null && pass || fail "$prog: no temporary output while reading"
	kill -TERM "$pid"
	rc=0
	wait "$pid" 2>/dev/null || rc=$?
	check_eq "$prog: killed by SIGTERM" 143 "$rc"
	exec 3>&-
	check_clean "$prog killed while reading"
done

# --- --perfdata: re-render a kept recording with flamegraph-build --------------
mkdir proj && cp -r "$FG_SRC/examples/toml/." proj/
rm -rf proj/build
check_exit "flamegraph-build --perfdata-out" 0 flamegraph-build --manifest-path proj --call-graph fp --bin crunch -o first.svg --folded first.folded --perfdata-out kept.data
mkdir elsewhere
cd elsewhere
check_exit "flamegraph-build --perfdata: no manifest needed" 0 flamegraph-build --perfdata ../kept.data --reverse --title again -o ../again.svg --folded ../again.folded
check_not_contains "--perfdata: nothing built" err "compiling|up to date"
cd ..
check_same_file "--perfdata: the same stacks" first.folded again.folded
check_contains "--perfdata: the new options" again.svg ">again<"
check_exit "--perfdata with --compare" 1 flamegraph-build --perfdata kept.data --compare HEAD
check_clean "--perfdata"
