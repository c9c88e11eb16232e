#!/usr/bin/env bash
# How often the regression gate cries wolf, and how often it catches a
# real regression, by threshold and runs a side. Records a pool of runs
# of examples/cmake's stress2 as it is (BASE) and with sort_phase sorting
# 15% more numbers (SLOW: about 16% more of its time, 3% of the whole),
# then draws gates from the pools: BASE against BASE (any failure is a
# false positive) and BASE against SLOW (detected: the gate fails naming
# sort_phase). The pools are recorded interleaved; drawing from them
# gives many gates for the cost of a few dozen runs.
# Usage: bench-gate.sh BUILD_DIR [SHARED_DIR]
# Env: BENCH_GATE_POOL (runs per pool, default 16), BENCH_GATE_ROUNDS
# (stress2 --rounds, one set of pools each, default "20 80": about 0.35
# and 1.4 s of CPU a run), BENCH_GATE_TRIALS
# (gates drawn per cell, default 40), BENCH_GATE_PROJECT (another
# CMake project dir with a bin target BENCH_GATE_BIN, for the false
# positive rate only; its own arguments in BENCH_GATE_ARGS), BENCH_GATE_KEEP
# (set: keep the recorded runs and print where they are).
set -euo pipefail
build=$(cd "${1:?usage: bench-gate.sh BUILD_DIR [SHARED_DIR]}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
pool=${BENCH_GATE_POOL:-16}
rounds_list=${BENCH_GATE_ROUNDS:-20 80}
trials=${BENCH_GATE_TRIALS:-40}
command -v perf >/dev/null || { echo "bench-gate: perf not installed, skipped"; exit 0; }
perf record -q --no-bpf-event -o /dev/null -- true 2>/dev/null ||
	{ echo "bench-gate: perf cannot record here, skipped"; exit 0; }
work=$(mktemp -d)
[ -n "${BENCH_GATE_KEEP:-}" ] && echo "keeping $work" || trap 'rm -rf "$work"' EXIT

cp -r "$src/examples/cmake" "$work/base"
rm -rf "$work/base/build"
cp -r "$work/base" "$work/slow"
sed -i 's/sort_phase(60000,/sort_phase(69000,/' "$work/slow/src/stress2.c"
grep -q 'sort_phase(69000,' "$work/slow/src/stress2.c" || { echo "bench-gate: cannot make SLOW" >&2; exit 1; }

# record NAME DIR BIN I ARGS...: one run's folded stacks
record() {
	local name=$1 dir=$2 bin=$3 i=$4
	shift 4
	"$build/flamegraph-build" --manifest-path "$dir" --bin "$bin" --format folded \
		-o "$work/$name.$i.folded" -- "$@" >/dev/null 2>"$work/record.err" ||
		{ cat "$work/record.err" >&2; exit 1; }
}
# gate RUNS THRESHOLD A B: draws RUNS runs of pool A and RUNS of pool B
# (distinct when A = B) and prints the gate's exit status and verdict line
gate() {
	local n=$1 t=$2 a=$3 b=$4 picks before after
	picks=$(shuf -i 1-"$pool" -n $((2 * n)) | tr '\n' ' ')
	before=$(echo "$picks" | cut -d' ' -f1-"$n" | sed "s|\([0-9]\+\)|$work/$a.\1.folded|g")
	after=$(echo "$picks" | cut -d' ' -f$((n + 1))-$((2 * n)) | sed "s|\([0-9]\+\)|$work/$b.\1.folded|g")
	# shellcheck disable=SC2086
	"$build/flamegraph-diff-folded" --fail-above "$t" -o /dev/null $before -- $after 2>"$work/gate.err" &&
		echo pass || grep -m1 '^gate failed' "$work/gate.err"
}

for rounds in $rounds_list; do
	t0=$(date +%s)
	for i in $(seq 1 "$pool"); do
		record base "$work/base" stress2 "$i" --rounds "$rounds"
		record slow "$work/slow" stress2 "$i" --rounds "$rounds"
	done
	secs=$(( $(date +%s) - t0 ))
	cpu=$(awk '{ s += $NF } END { printf "%.0f", s / 1e6 }' "$work/base.1.folded")
	echo "pools: $pool runs each of BASE and SLOW, stress2 --rounds $rounds (${cpu} ms of CPU a run), recorded in ${secs} s"
	printf '%-10s %-6s %-22s %-22s\n' threshold runs "false positives" "detected (sort_phase)"
	for t in 2 5 10; do
		for n in 3 5 8; do
			[ $((2 * n)) -le "$pool" ] || continue
			fp=0 hit=0
			for _ in $(seq 1 "$trials"); do
				gate "$n" "$t" base base | grep -q '^gate failed' && fp=$((fp + 1))
				gate "$n" "$t" base slow | grep -q '^gate failed.*sort_phase' && hit=$((hit + 1))
			done
			printf '%-10s %-6s %-22s %-22s\n' "$t%" "$n" "$fp / $trials" "$hit / $trials"
		done
	done
done

if [ -n "${BENCH_GATE_PROJECT:-}" ]; then
	for i in $(seq 1 "$pool"); do
		# shellcheck disable=SC2086
		record other "$BENCH_GATE_PROJECT" "${BENCH_GATE_BIN:?set BENCH_GATE_BIN}" "$i" ${BENCH_GATE_ARGS:-}
	done
	for t in 2 5; do
		fp=0
		for _ in $(seq 1 "$trials"); do
			gate 5 "$t" other other | grep -q '^gate failed' && fp=$((fp + 1))
		done
		echo "$(basename "$BENCH_GATE_PROJECT"): at $t%, 5 runs a side: $fp / $trials false positives"
	done
fi
