#!/usr/bin/env bash
# Render-stage throughput: FlameGraph's example stacks, collapsed, 50 times
# over (~32 MB of folded text), parsed, merged and rendered to SVG; plus
# the render time and size for a profile with 100k distinct frames.
# Without SHARED_DIR the input is the project's own folded stacks
# (tests/data/expected/threads.folded).
# Usage: bench-render.sh BUILD_DIR [SHARED_DIR]
set -euo pipefail
build=$1 shared=${2:-}
if [ -n "$shared" ]; then
	input=$shared/conformance/inferno/collapse-perf/results/example-perf-stacks-collapsed.txt
else
	input="$(cd "$(dirname "$0")/.." && pwd)/tests/data/expected/threads.folded"
fi
"$build/bench/bench-render" "$input" 50
# The same through the program, as a user runs it (file in, SVG out).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq 50); do cat "$input"; done >"$tmp/in.folded"
size=$(stat -c %s "$tmp/in.folded")
start=$(date +%s.%N)
"$build/flamegraph-render" -o "$tmp/out.svg" "$tmp/in.folded"
end=$(date +%s.%N)
awk -v s="$size" -v a="$start" -v b="$end" \
	'BEGIN { printf "flamegraph-render program, %.1f MB file: %.3f s = %.1f MB/s\n", s / 1e6, b - a, s / 1e6 / (b - a) }'
