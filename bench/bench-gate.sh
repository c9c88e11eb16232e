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
# for the cost of a few dozen runs. Each gate is drawn as flamegraph-build
# runs one: RUNS a side judged with --first-look, and when that cannot
# tell yet (exit 7) as many again a side (at most half the pool) judged
# all together; the columns in brackets say how many gates took that
# second look, and the verdicts of the first RUNS alone.
# Usage: bench-gate.sh BUILD_DIR
# Env: BENCH_GATE_POOL (runs per pool, default 20), BENCH_GATE_ROUNDS
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
pool=${BENCH_GATE_POOL:-20}
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
# judge THRESHOLD A B FIRST INDEX...: diff-folded over the runs INDEX of
# pool A (the first half) and of pool B (the second half), with
# --first-look when FIRST is set; prints "pass", "undecided" or the
# verdict's failure lines (the whole program's, then the functions')
judge() {
	local t=$1 a=$2 b=$3 first=$4 n before after rc=0
	shift 4
	n=$(($# / 2))
	before=$(echo "${@:1:n}" | sed "s|\([0-9]\+\)|$work/$a.\1.folded|g")
	after=$(echo "${@:n+1}" | sed "s|\([0-9]\+\)|$work/$b.\1.folded|g")
	# shellcheck disable=SC2086
	"$build/flamegraph-diff-folded" ${first:+--first-look} --fail-above "$t" -o /dev/null $before -- $after \
		2>"$work/gate.err" || rc=$?
	case $rc in
	0) echo pass ;;
	7) echo undecided ;;
	*) grep '^gate failed' "$work/gate.err" | tr '\n' ' ' ;;
	esac
}
# gate RUNS THRESHOLD A B: draws RUNS runs of pool A and RUNS of pool B
# (distinct when A = B) and prints the verdict of a gate as
# flamegraph-build takes it (a second look with more runs when the
# first cannot tell), "second look" when it took one, and on a line of
# its own the verdict of the first RUNS alone
gate() {
	local n=$1 t=$2 a=$3 b=$4 m picks first
	m=$((2 * n < pool / 2 ? 2 * n : pool / 2))
	[ "$m" -ge "$n" ] || m=$n
	read -ra picks <<<"$(shuf -i 1-"$pool" -n $((2 * m)) | tr '\n' ' ')"
	first=$(judge "$t" "$a" "$b" 1 "${picks[@]:0:n}" "${picks[@]:m:n}")
	if [ "$first" = undecided ] && [ "$m" -gt "$n" ]; then
		echo "$(judge "$t" "$a" "$b" "" "${picks[@]}") second look"
	else
		[ "$first" != undecided ] || first=$(judge "$t" "$a" "$b" "" "${picks[@]:0:n}" "${picks[@]:m:n}")
		echo "$first"
	fi
	judge "$t" "$a" "$b" "" "${picks[@]:0:n}" "${picks[@]:m:n}"
}
# count VAR VERDICT: adds 1 to VAR when the verdict failed, to VAR_w
# when the whole program's line did, to VAR_s when it took a second look
count() {
	case $2 in *"gate failed"*) eval "$1=\$(($1 + 1))" ;; esac
	case $2 in *"whole program's time grew"*) eval "$1_w=\$(($1_w + 1))" ;; esac
	case $2 in *"second look"*) eval "$1_s=\$(($1_s + 1))" ;; esac
}
# rates BASE SLOW PATTERN: the table of a pair of pools (SLOW: "" for
# none). Each cell: how many of the gates failed (the gate as it runs:
# a second look where the first cannot tell), in brackets how many of
# them the whole program's line made (--fail-above-total, twice the
# threshold), how many took a second look, and how many failed judging
# the first runs alone.
rates() {
	local base=$1 slow=$2 pattern=$3 v
	local fp fp_w fp_s fp1 fd fd_w fd_s fd1 hit hit_s hit1 fp1_w fp1_s fd1_w fd1_s
	printf '%-10s %-5s %-32s %-32s %s\n' threshold runs "false pos. (whole; 2nd; 1 look)" \
		"+2.5% drift (whole; 2nd; 1 look)" "${slow:+detected (${pattern:-any failure}) (2nd; 1 look)}"
	for t in $thresholds; do
		for n in $runs; do
			[ $((2 * n)) -le "$pool" ] || continue
			fp=0 fp_w=0 fp_s=0 fp1=0 fd=0 fd_w=0 fd_s=0 fd1=0 hit=0 hit_s=0 hit1=0
			fp1_w=0 fp1_s=0 fd1_w=0 fd1_s=0
			for _ in $(seq 1 "$trials"); do
				v=$(gate "$n" "$t" "$base" "$base")
				count fp "$(head -1 <<<"$v")"
				count fp1 "$(tail -1 <<<"$v")"
				v=$(gate "$n" "$t" "$base" "$base-drift")
				count fd "$(head -1 <<<"$v")"
				count fd1 "$(tail -1 <<<"$v")"
				[ -n "$slow" ] || continue
				v=$(gate "$n" "$t" "$base" "$slow")
				head -1 <<<"$v" | grep -q "gate failed.*$pattern" && hit=$((hit + 1))
				head -1 <<<"$v" | grep -q "second look" && hit_s=$((hit_s + 1))
				tail -1 <<<"$v" | grep -q "gate failed.*$pattern" && hit1=$((hit1 + 1))
			done
			printf '%-10s %-5s %-32s %-32s %s\n' "$t%" "$n" "$fp / $trials ($fp_w; $fp_s; $fp1)" \
				"$fd / $trials ($fd_w; $fd_s; $fd1)" "${slow:+$hit / $trials ($hit_s; $hit1)}"
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
