#!/usr/bin/env bash
# The native perf.data reader against `perf script`: records a
# frame-pointer profile (perf record -g) of the compressor-style workload
# (bench/workloads/lzpack.c, LZPACK_SECONDS, default 3) and of the
# multi-threaded test program, and a dwarf call graph profile (perf
# record --call-graph dwarf, the programs built without frame pointers;
# DWARF_SECONDS, default 1: dwarf recordings grow by some 50 MB a second)
# of both, then prints for each recording, on the
# same perf.data: `perf script` alone, `perf script | flamegraph-collapse-
# perf`, and `flamegraph-collapse-perf perf.data` (native): CPU seconds
# (user + system, of all processes; the best of RUNS, default 3) and wall
# seconds of that run, the speed-up in CPU time, and peak RSS; and whether
# the native folded stacks are perf script's. The native reader's cache
# of uncompressed debug files ($XDG_CACHE_HOME) is the benchmark's own:
# the first run fills it, the best of the runs reads it.
# Usage: bench-perfdata.sh BUILD_DIR [SHARED_DIR]
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
secs=${LZPACK_SECONDS:-3}
runs=${RUNS:-3}
command -v perf >/dev/null || { echo "bench-perfdata: perf not installed, skipped"; exit 0; }
[ -x /usr/bin/time ] || { echo "bench-perfdata: /usr/bin/time not installed, skipped"; exit 0; }

# recordings go to a folder of the benchmark's own, removed at the end
work=$(mktemp -d "$build/bench-perfdata.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work XDG_CACHE_HOME=$work/cache
cd "$work"
cc -O2 -g -fno-omit-frame-pointer -o lzpack "$here/workloads/lzpack.c"
cc -O2 -g -fno-omit-frame-pointer -pthread -o threads "$here/../tests/e2e/perfdata/threads.c"
collapse=$build/flamegraph-collapse-perf

# best CMD...: "CPU WALL KB" of the run (of $runs) with the least CPU
# time: CPU seconds of every process it ran (perf stat's task-clock,
# which counts the addr2line processes perf script starts for inlined
# frames, as user + system time of the waited-for child does not), wall
# seconds, peak RSS of the largest process; its stdout in best.out
best() {
	local i wall kb cpu bcpu=999999 bwall=0 bkb=0
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -f '%e %M' -o time.txt perf stat -x, -e task-clock -o stat.txt -- \
			"$@" >run.out 2>/dev/null
		read -r wall kb <time.txt
		cpu=$(awk -F, '$3 == "task-clock" || $3 ~ /^task-clock/ { printf "%.3f", $1 / 1000 }' stat.txt)
		if awk -v a="$cpu" -v b="$bcpu" 'BEGIN { exit !(a < b) }'; then
			bcpu=$cpu bwall=$wall bkb=$kb
			mv run.out best.out
		fi
	done
	echo "$bcpu $bwall $bkb"
}

pipeline() { perf script -i "$1" 2>/dev/null | "$collapse"; }

report() { # report NAME DATA [KIND]
	local name=$1 data=$2 kind=${3:-frame pointers} samples mb
	local c_script w_script kb_script c_pipe w_pipe kb_pipe c_native w_native kb_native
	samples=$(perf script -F tid -i "$data" 2>/dev/null | wc -l)
	mb=$(awk -v b="$(stat -c %s "$data")" 'BEGIN { printf "%.1f", b / 1048576 }')
	read -r c_script w_script kb_script < <(best perf script -i "$data")
	read -r c_pipe w_pipe kb_pipe < <(best bash -c "$(declare -f pipeline); collapse=$collapse; pipeline $data")
	cp best.out text.folded
	read -r c_native w_native kb_native < <(best "$collapse" "$data")
	cp best.out native.folded
	echo "$name: $samples samples, $mb MB perf.data ($kind)"
	printf '  %-34s cpu %6.2f s  wall %6.2f s  peak RSS %7d KB (largest process)\n' "perf script" \
		"$c_script" "$w_script" "$kb_script"
	printf '  %-34s cpu %6.2f s  wall %6.2f s  peak RSS %7d KB (largest process)\n' \
		"perf script | collapse" "$c_pipe" "$w_pipe" "$kb_pipe"
	printf '  %-34s cpu %6.2f s  wall %6.2f s  peak RSS %7d KB\n' \
		"flamegraph-collapse-perf perf.data" "$c_native" "$w_native" "$kb_native"
	awk -v a="$c_script" -v b="$c_native" 'BEGIN {
		if (b > 0) printf "  native: %.1fx less CPU time than perf script alone\n", a / b
		else print "  native: too fast to time (under 10 ms of CPU)" }'
	if cmp -s text.folded native.folded; then
		echo "  folded stacks: identical to perf script's"
	else
		echo "  folded stacks: differ from perf script's ($(diff text.folded native.folded | grep -c '^[<>]') lines)"
	fi
}

perf record -q -F 997 -g -o lz.data -- ./lzpack "$secs" >/dev/null 2>&1
report "lzpack ${secs}s, 997 Hz" lz.data
perf record -q -F 4999 -g -o threads.data -- ./threads 2000 4 >/dev/null 2>&1
report "threads 2s x4, 4999 Hz" threads.data
rm -f lz.data threads.data

dsecs=${DWARF_SECONDS:-1}
cc -O2 -g -o lzpack-dw "$here/workloads/lzpack.c"
cc -O2 -g -pthread -o threads-dw "$here/../tests/e2e/perfdata/threads.c"
perf record -q -F 997 --call-graph dwarf,65528 -g -o lz-dw.data -- ./lzpack-dw "$dsecs" \
	>/dev/null 2>&1
report "lzpack ${dsecs}s, 997 Hz" lz-dw.data "dwarf call graphs"
rm -f lz-dw.data
perf record -q -F 997 --call-graph dwarf,65528 -g -o threads-dw.data -- \
	./threads-dw "$((dsecs * 1000))" 3 >/dev/null 2>&1
report "threads ${dsecs}s x3, 997 Hz" threads-dw.data "dwarf call graphs"
