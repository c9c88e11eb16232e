#!/usr/bin/env bash
# End-to-end cost of our pipeline over perf's own: records a workload with
# --call-graph fp (about 1M samples by default: -F 20000 for 50 s), then
# times `perf script` alone against `flamegraph --perfdata`, which reads
# perf.data natively (stages read, collapse, render; no perf script runs).
# Target: the whole native path takes less than perf script alone.
# Usage: bench-pipeline.sh BUILD_DIR [SHARED_DIR]
# Env: BENCH_SECONDS (default 50), BENCH_FREQ (default 20000).
set -euo pipefail
build=$(cd "${1:?usage: bench-pipeline.sh BUILD_DIR [SHARED_DIR]}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
secs=${BENCH_SECONDS:-50}
freq=${BENCH_FREQ:-20000}
command -v perf >/dev/null || { echo "bench-pipeline: perf not installed, skipped"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cc -O2 -g -fno-omit-frame-pointer -o "$work/callgraph" "$src/examples/callgraph/callgraph.c"
perf record -q -F "$freq" --call-graph fp -g -o "$work/perf.data" -- \
	"$work/callgraph" "$((secs * 1000))" >/dev/null 2>&1
samples=$(perf script -i "$work/perf.data" 2>/dev/null | grep -c '^[^[:space:]]' || true)
size=$(stat -c %s "$work/perf.data")

now() { date +%s.%N; }
t0=$(now)
perf script -i "$work/perf.data" > "$work/script.txt" 2>/dev/null
t1=$(now)
script_bytes=$(stat -c %s "$work/script.txt")
rm -f "$work/script.txt"
t2=$(now)
"$build/flamegraph" -v --perfdata "$work/perf.data" -o "$work/out.svg" 2> "$work/verbose.txt"
t3=$(now)
stage() { sed -n "s/.*timing: $1 took \([0-9.]*\) s/\1/p" "$work/verbose.txt"; }

grep -q 'timing: read took' "$work/verbose.txt" ||
	{ echo "bench-pipeline: flamegraph -v printed no read stage" >&2; exit 1; }
awk -v s="$samples" -v size="$size" -v sb="$script_bytes" -v alone="$(echo "$t1 - $t0" | bc)" \
    -v total="$(echo "$t3 - $t2" | bc)" -v rd="$(stage read)" -v col="$(stage collapse)" \
    -v ren="$(stage render)" 'BEGIN {
	printf "samples:                    %d (perf.data %.1f MB, perf script text %.1f MB)\n", s, size / 1e6, sb / 1e6
	printf "perf script alone:          %.2f s\n", alone
	printf "flamegraph --perfdata:      %.2f s (read %.2f s, collapse %.2f s, render %.2f s)\n", total, rd, col, ren
	printf "end to end vs script alone: %+.1f%% (target < 0)\n", 100 * (total - alone) / alone
	printf "native read throughput:     %.0f MB/s of perf.data (read and collapse)\n",
	       (rd + col > 0 ? size / 1e6 / (rd + col) : 0)
}'
