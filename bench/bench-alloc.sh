#!/usr/bin/env bash
# What allocation graphs cost: an allocation-heavy three-thread workload
# (bench/workloads/allocs.c, ROUNDS rounds, default 2000: 9.6 M
# allocation calls) alone, under `flamegraph --alloc` (the whole run:
# the program with the interposer, then reading its recording and
# writing the graph; stacks walked by each frame's .eh_frame rule), under
# `flamegraph --alloc --alloc-sample SAMPLE` (default 512K: about one
# allocation recorded per 512 KB allocated), under `--alloc
# --alloc-unwind fp` (frame pointers alone) alone and sampled, and under
# heaptrack when it is installed (its run and its recording, not
# heaptrack_print). Each is run RUNS times
# (default 5), the three alternating, and the median CPU time (user +
# system of the process and every process it waited for) is printed with
# its ratio to the program alone.
# Usage: bench-alloc.sh BUILD_DIR [SHARED_DIR]
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
rounds=${ROUNDS:-2000}
sample=${SAMPLE:-512K}
runs=${RUNS:-5}
work=$(mktemp -d "$build/bench-alloc.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work
cd "$work"
cc -O2 -g -fno-omit-frame-pointer -pthread -o allocs "$here/workloads/allocs.c"
have_heaptrack=false
command -v heaptrack >/dev/null && have_heaptrack=true

python3 - "$build/flamegraph" "$rounds" "$runs" "$have_heaptrack" "$sample" <<'PY'
import os, statistics, subprocess, sys
fg, rounds, runs, have_ht, sample = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "true", sys.argv[5]
cmds = {
    "alone": ["./allocs", rounds],
    "--alloc": [fg, "--alloc", "-o", "alloc.svg", "--", "./allocs", rounds],
    "sampled": [fg, "--alloc", "--alloc-sample", sample, "-o", "sampled.svg", "--", "./allocs", rounds],
    "fp": [fg, "--alloc", "--alloc-unwind", "fp", "-o", "fp.svg", "--", "./allocs", rounds],
    "fp sampled": [fg, "--alloc", "--alloc-unwind", "fp", "--alloc-sample", sample, "-o", "fps.svg", "--", "./allocs", rounds],
}
if have_ht:
    cmds["heaptrack"] = ["heaptrack", "-o", "ht", "./allocs", rounds]
def cpu(cmd):
    with open(os.devnull, "w") as null:
        p = subprocess.Popen(cmd, stdout=null, stderr=null)
        _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit(f"bench-alloc: {' '.join(cmd)} failed (status {status})")
    for f in os.listdir("."):
        if f.startswith("ht."):
            os.unlink(f)
    return ru.ru_utime + ru.ru_stime
times = {k: [] for k in cmds}
for _ in range(runs):
    for k, c in cmds.items():
        times[k].append(cpu(c))
base = statistics.median(times["alone"])
print(f"allocs {rounds} rounds (3 threads), CPU-time medians of {runs} alternating runs:")
print(f"  (sampled: --alloc --alloc-sample {sample}; fp: --alloc --alloc-unwind fp)")
for k in ("alone", "--alloc", "sampled", "fp", "fp sampled", "heaptrack"):
    if k not in times:
        print(f"  {k:<11} skipped (heaptrack is not installed)")
        continue
    m = statistics.median(times[k])
    print(f"  {k:<11} {m:7.3f} s CPU  {m / base:5.2f}x the program alone")
if "heaptrack" in times:
    print(f"  heaptrack / --alloc: {statistics.median(times['heaptrack']) / statistics.median(times['--alloc']):.2f}x")
PY
