#!/usr/bin/env bash
# Streaming collapse: a ~2 GB `perf script` stream, made on the fly by
# bench-collapse_gen (never a file on disk), piped through
# flamegraph-collapse-perf. Prints MB/s and the collapser's peak RSS, which
# must stay small (target < 100 MB) however long the stream is. Two
# streams: FlameGraph's example profile repeated, and synthetic events with
# tens of thousands of distinct stacks. Checks that the repeated example
# gives exactly N times the counts of one copy.
# Without SHARED_DIR (or with an empty one) the repeated profile is the
# project's own recording, tests/data/perf-threads.txt.gz.
# Usage: bench-collapse-stream.sh BUILD_DIR [SHARED_DIR [MB]]
set -euo pipefail
build=$1
shared=${2:-}
target_mb=${3:-2000}
prog=${FG_COLLAPSE_PROG:-$build/flamegraph-collapse-perf}
gen="$build/bench/bench-collapse_gen"
[ -x "$gen" ] || gen="$build/bench-collapse_gen"
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
bytes=$((reps * one))
echo "stream: $((bytes / 1000000)) MB through a pipe; $(nproc) cores"

# run NAME BYTES GEN_ARGS -- PROG_ARGS: wall time of the whole pipeline
# (less the generator's set-up before its first byte), CPU time and peak
# RSS of the collapser
run() {
	local name=$1 n=$2 t0 t1 u s rss setup
	shift 2
	local genargs=() progargs=()
	while [ "$1" != "--" ]; do genargs+=("$1"); shift; done
	shift
	progargs=("$@")
	t0=$EPOCHREALTIME
	"$gen" "$n" "${genargs[@]}" 2> "$work/written" |
		/usr/bin/time -f '%U %S %M' -o "$work/time" "$prog" "${progargs[@]}" > "$work/out"
	t1=$EPOCHREALTIME
	read -r u s rss < "$work/time"
	read -r n setup < "$work/written"
	awk -v n="$name" -v b="$n" -v t0="$t0" -v t1="$t1" -v u="$u" -v s="$s" -v r="$rss" -v g="$setup" \
		'BEGIN { t = t1 - t0 - g; printf "%-34s %7.2f s wall %6.0f MB/s   %6.2f s CPU   peak RSS %6.1f MB\n",
			 n, t, b / 1e6 / t, u + s, r / 1024 }'
}

run "example x $reps, -n 1" "$bytes" "$work/one.txt" -- -n 1
"$prog" -n 1 "$work/one.txt" | awk -v k="$reps" '{ $NF = $NF * k; print }' > "$work/expect"
# a wrong result makes the figures meaningless: the benchmark fails
if cmp -s "$work/expect" "$work/out"; then
	echo "counts: exactly $reps x one copy"
else
	echo "bench-collapse-stream: counts DIFFERENT from $reps x one copy" >&2
	exit 1
fi
run "example x $reps, -n $(nproc)" "$bytes" "$work/one.txt" -- -n "$(nproc)"
if ! cmp -s "$work/expect" "$work/out"; then
	echo "bench-collapse-stream: counts with -n $(nproc) DIFFERENT from $reps x one copy" >&2
	exit 1
fi
run "synthetic, -n 1" "$bytes" -- -n 1
echo "synthetic: $(wc -l < "$work/out") distinct stacks"
run "synthetic, -n $(nproc)" "$bytes" -- -n "$(nproc)"
