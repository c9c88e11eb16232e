#!/usr/bin/env bash
# How often the regression gate cries wolf, and how often it catches a
# real regression, by threshold and runs a side. Records a pool of runs
# of examples/cmake's stress2 as it is (BASE) and with sort_phase sorting
# 15% more numbers (SLOW: about 16% more of its time, 3% of the whole),
# then draws gates from the pools: BASE against BASE (any failure is a
# false positive), the same with every run after made 2.5% slower (a
# machine that drifts between the sides: any failure is a false positive
# too) and BASE against SLOW (detected: the gate fails naming sort_phase).
# The pools are recorded interleaved; drawing from them gives many gates
# for the cost of a few dozen runs.
# Usage: bench-gate.sh BUILD_DIR
# Env: BENCH_GATE_POOL (runs per pool, default 16), BENCH_GATE_ROUNDS
# (stress2 --rounds, one set of pools each, default "20 80": about 0.35
# and 1.4 s of CPU a run; set and empty: examples/cmake is left out),
# BENCH_GATE_TRIALS (gates drawn per cell,
# default 40), BENCH_GATE_THRESHOLDS (default "2 5 10"), BENCH_GATE_RUNS
# (runs a side, default "3 5 8"), BENCH_GATE_KEEP (set: keep the recorded
# runs and print where they are).
# Another project, the same rates: BENCH_GATE_PROJECT (a project dir
# flamegraph-build can build, copied; BENCH_GATE_MANIFEST: the build's
# folder under it, default .), BENCH_GATE_BIN (its target),
# BENCH_GATE_ARGS (the program's arguments; relative paths are from the
# bench's work dir, BENCH_GATE_INPUT is copied there first), and for its
# SLOW variant BENCH_GATE_SLOW_FILE (a file under the project) and
# BENCH_GATE_SLOW_SED (a sed script that changes it; without them only
# the false positives are measured), BENCH_GATE_SLOW_NAME (a function the
# verdict must name to count as detected; default: any failure).
set -euo pipefail
build=$(cd "${1:?usage: bench-gate.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
pool=${BENCH_GATE_POOL:-16}
rounds_list=${BENCH_GATE_ROUNDS-20 80}
trials=${BENCH_GATE_TRIALS:-40}
thresholds=${BENCH_GATE_THRESHOLDS:-2 5 10}
runs=${BENCH_GATE_RUNS:-3 5 8}
command -v perf >/dev/null || { echo "bench-gate: perf not installed, skipped"; exit 0; }
perf record -q --no-bpf-event -o /dev/null -- true 2>/dev/null ||
	{ echo "bench-gate: perf cannot record here, skipped"; exit 0; }
work=$(mktemp -d)
[ -n "${BENCH_GATE_KEEP:-}" ] && echo "keeping $work" || trap 'rm -rf "$work"' EXIT

# record NAME DIR BIN I ARGS...: one run's folded stacks
record() {
	local name=$1 dir=$2 bin=$3 i=$4
	shift 4
	(cd "$work" && "$build/flamegraph-build" --manifest-path "$dir" --bin "$bin" --format folded \
		-o "$work/$name.$i.folded" -- "$@" >/dev/null 2>"$work/record.err") ||
		{ cat "$work/record.err" >&2; exit 1; }
	# the same run on a machine 2.5% slower
	awk '{ $NF = int($NF * 1.025 + 0.5); print }' "$work/$name.$i.folded" > "$work/$name-drift.$i.folded"
}
# gate RUNS THRESHOLD A B: draws RUNS runs of pool A and RUNS of pool B
# (distinct when A = B) and prints "pass" or the verdict's failure lines
# (the whole program's, then the functions')
gate() {
	local n=$1 t=$2 a=$3 b=$4 picks before after
	picks=$(shuf -i 1-"$pool" -n $((2 * n)) | tr '\n' ' ')
	before=$(echo "$picks" | cut -d' ' -f1-"$n" | sed "s|\([0-9]\+\)|$work/$a.\1.folded|g")
	after=$(echo "$picks" | cut -d' ' -f$((n + 1))-$((2 * n)) | sed "s|\([0-9]\+\)|$work/$b.\1.folded|g")
	# shellcheck disable=SC2086
	"$build/flamegraph-diff-folded" --fail-above "$t" -o /dev/null $before -- $after 2>"$work/gate.err" &&
		echo pass || grep '^gate failed' "$work/gate.err" | tr '\n' ' '
}
# count VAR VERDICT: adds 1 to VAR when the verdict failed, and to
# VAR_w when the whole program's line did
count() {
	case $2 in *"gate failed"*) eval "$1=\$(($1 + 1))" ;; esac
	case $2 in *"whole program's time grew"*) eval "$1_w=\$(($1_w + 1))" ;; esac
}
# rates BASE SLOW PATTERN: the table of a pair of pools (SLOW: "" for
# none); in brackets after the false positives, how many of them the
# whole program's line made (--fail-above-total, twice the threshold)
rates() {
	local base=$1 slow=$2 pattern=$3 fp fp_w fd fd_w hit
	printf '%-10s %-6s %-18s %-24s %s\n' threshold runs "false positives" "false pos., +2.5% drift" \
		"${slow:+detected (${pattern:-any failure})}"
	for t in $thresholds; do
		for n in $runs; do
			[ $((2 * n)) -le "$pool" ] || continue
			fp=0 fp_w=0 fd=0 fd_w=0 hit=0
			for _ in $(seq 1 "$trials"); do
				count fp "$(gate "$n" "$t" "$base" "$base")"
				count fd "$(gate "$n" "$t" "$base" "$base-drift")"
				[ -z "$slow" ] ||
					{ gate "$n" "$t" "$base" "$slow" | grep -q "gate failed.*$pattern" && hit=$((hit + 1)); }
			done
			printf '%-10s %-6s %-18s %-24s %s\n' "$t%" "$n" "$fp / $trials ($fp_w)" \
				"$fd / $trials ($fd_w)" "${slow:+$hit / $trials}"
		done
	done
}
# cpu NAME: milliseconds of CPU a run of pool NAME, median
cpu() {
	for f in "$work/$1".[0-9]*.folded; do awk '{ s += $NF } END { printf "%.0f\n", s / 1e6 }' "$f"; done |
		sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

cp -r "$src/examples/cmake" "$work/base"
rm -rf "$work/base/build"
cp -r "$work/base" "$work/slow"
sed -i 's/sort_phase(60000,/sort_phase(69000,/' "$work/slow/src/stress2.c"
grep -q 'sort_phase(69000,' "$work/slow/src/stress2.c" || { echo "bench-gate: cannot make SLOW" >&2; exit 1; }
for rounds in $rounds_list; do
	t0=$(date +%s)
	for i in $(seq 1 "$pool"); do
		record base "$work/base" stress2 "$i" --rounds "$rounds"
		record slow "$work/slow" stress2 "$i" --rounds "$rounds"
	done
	secs=$(( $(date +%s) - t0 ))
	echo "examples/cmake: $pool runs each of BASE and SLOW, stress2 --rounds $rounds" \
		"($(cpu base) and $(cpu slow) ms of CPU a run, medians), recorded in ${secs} s"
	rates base slow sort_phase
done

if [ -n "${BENCH_GATE_PROJECT:-}" ]; then
	name=$(basename "$BENCH_GATE_PROJECT")
	cp -r "$BENCH_GATE_PROJECT" "$work/obase"
	[ -z "${BENCH_GATE_INPUT:-}" ] || cp "$BENCH_GATE_INPUT" "$work/"
	oslow=""
	if [ -n "${BENCH_GATE_SLOW_FILE:-}" ]; then
		cp -r "$BENCH_GATE_PROJECT" "$work/oslow"
		cp "$work/oslow/$BENCH_GATE_SLOW_FILE" "$work/slow.orig"
		sed -i "${BENCH_GATE_SLOW_SED:?set BENCH_GATE_SLOW_SED}" "$work/oslow/$BENCH_GATE_SLOW_FILE"
		! cmp -s "$work/slow.orig" "$work/oslow/$BENCH_GATE_SLOW_FILE" ||
			{ echo "bench-gate: BENCH_GATE_SLOW_SED changed nothing" >&2; exit 1; }
		oslow=other-slow
	fi
	t0=$(date +%s)
	for i in $(seq 1 "$pool"); do
		# shellcheck disable=SC2086
		record other "$work/obase/${BENCH_GATE_MANIFEST:-.}" "${BENCH_GATE_BIN:?set BENCH_GATE_BIN}" "$i" ${BENCH_GATE_ARGS:-}
		# shellcheck disable=SC2086
		[ -z "$oslow" ] || record other-slow "$work/oslow/${BENCH_GATE_MANIFEST:-.}" "$BENCH_GATE_BIN" "$i" ${BENCH_GATE_ARGS:-}
	done
	secs=$(( $(date +%s) - t0 ))
	echo "$name: $pool runs each of BASE${oslow:+ and SLOW}, $BENCH_GATE_BIN ${BENCH_GATE_ARGS:-}" \
		"($(cpu other)${oslow:+ and $(cpu other-slow)} ms of CPU a run, medians), recorded in ${secs} s"
	rates other "$oslow" "${BENCH_GATE_SLOW_NAME:-}"
fi
