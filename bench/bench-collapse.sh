#!/usr/bin/env bash
# Collapse throughput: FlameGraph's example-perf-stacks.txt.gz repeated to
# about 150 MB, folded with 1 thread and with all threads. Prints MB/s and
# peak RSS (which must not grow with the input: compare the 150 MB and the
# 3 MB runs). Without SHARED_DIR (or with an empty one) the input is the
# project's own recording, tests/data/perf-threads.txt.gz.
# Usage: bench-collapse.sh BUILD_DIR [SHARED_DIR [MB]]
set -euo pipefail
build=$1
shared=${2:-}
target_mb=${3:-150}
prog=${FG_COLLAPSE_PROG:-$build/flamegraph-collapse-perf}
if [ -n "$shared" ]; then
	src="$shared/conformance/flamegraph-pl/example-perf-stacks.txt.gz"
else # the project's own recording (tests/data), for a clone with nothing beside it
	src="$(cd "$(dirname "$0")/.." && pwd)/tests/data/perf-threads.txt.gz"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/fgbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

zcat "$src" > "$work/one.txt"
one=$(stat -c %s "$work/one.txt")
reps=$(( (target_mb * 1000000 + one - 1) / one ))
for _ in $(seq "$reps"); do cat "$work/one.txt"; done > "$work/big.txt"
size=$(stat -c %s "$work/big.txt")
cores=$(nproc)
echo "input: $reps x $(basename "$src" .gz) = $((size / 1000000)) MB; $cores cores"

# run NAME FILE ARGS...: best of five wall times (and the CPU time of that
# run: on a shared machine wall time also counts waiting), peak RSS. Wall
# time from $EPOCHREALTIME: /usr/bin/time's 10 ms steps are 5% of a run.
run() {
	local name=$1 file=$2 best="" cpu="" t c rss t0 t1
	shift 2
	cat "$file" > /dev/null # warm the page cache
	for _ in 1 2 3 4 5; do
		t0=$EPOCHREALTIME
		/usr/bin/time -f '%e %U %S %M' -o "$work/time" "$prog" "$@" "$file" > "$work/out" 2> /dev/null
		t1=$EPOCHREALTIME
		read -r t u s rss < "$work/time"
		t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
		c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; cpu=$c; fi
	done
	awk -v n="$name" -v s="$(stat -c %s "$file")" -v t="$best" -v c="$cpu" -v r="$rss" \
		'BEGIN { printf "%-30s %6.3f s wall %7.0f MB/s   %6.2f s CPU   peak RSS %6.1f MB\n",
			 n, t, (t > 0 ? s / 1e6 / t : 0), c, r / 1024 }'
}

run "collapse-perf -n 1" "$work/big.txt" -n 1
cp "$work/out" "$work/out1"
run "collapse-perf -n $cores (all)" "$work/big.txt"
same=true
cmp -s "$work/out1" "$work/out" && echo "outputs of -n 1 and -n $cores: identical" ||
	{ echo "outputs of -n 1 and -n $cores: DIFFERENT"; same=false; }
run "-n 1, 3 MB input (for RSS)" "$work/one.txt" -n 1
# a benchmark of wrong output is no benchmark: fail the run (and `make bench`)
$same
