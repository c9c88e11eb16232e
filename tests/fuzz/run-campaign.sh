#!/usr/bin/env bash
# Runs one libFuzzer target for a while and prints its figures:
#   tests/fuzz/run-campaign.sh TARGET SECONDS [LIBFUZZER-FLAG...]
# TARGET is a name from tests/fuzz/fuzz_<name>.c (collapse_perf, toml, ...).
# Needs a fuzz build (default build-fuzz; set FG_FUZZ_BUILD to use another):
#   cmake -S . -B build-fuzz -DFG_FUZZ=ON -DCMAKE_C_COMPILER=clang -DFG_BUILD_TESTS=OFF
#   cmake --build build-fuzz -j2
# The corpus grows in BUILD/fuzz-corpus/TARGET (kept between campaigns);
# crashes land in BUILD/fuzz-crashes/TARGET/ and the full log in
# BUILD/fuzz-logs/TARGET.log. Exits 1 when libFuzzer found a crash.
# To go on past a known bug: add -fork=1 -ignore_crashes=1.
set -euo pipefail
# The whole script is one function, read in full before it runs: bash
# reads a script as it executes it, so editing this file during a
# half-hour campaign would otherwise change what the running one does next.
main() {
	if [ $# -lt 2 ]; then
		echo "usage: $0 TARGET SECONDS [LIBFUZZER-FLAG...]" >&2
		exit 2
	fi
	target=$1 secs=$2
	shift 2
	src=$(cd "$(dirname "$0")/../.." && pwd)
	build=${FG_FUZZ_BUILD:-$src/build-fuzz}
	shared=${FG_SHARED:-$src/../shared}
	prog=$build/fuzz/fuzz-$target
	if [ ! -x "$prog" ]; then
		echo "run-campaign: $prog not found — build the fuzz targets first (see tests/fuzz/README.md)" >&2
		exit 1
	fi
	# campaigns started together would remake the seed folders under each other
	mkdir -p "$build"
	flock "$build/fuzz-seeds.lock" bash "$src/tests/fuzz/collect-seeds.sh" "$shared/conformance" "$build/fuzz-seeds" >/dev/null
	corpus=$build/fuzz-corpus/$target crashes=$build/fuzz-crashes/$target
	mkdir -p "$corpus" "$crashes" "$build/fuzz-logs"
	log=$build/fuzz-logs/$target.log
	case $target in
	collapse_perf*|collapse_guess) dict=(-dict="$src/tests/fuzz/perf.dict") ;;
	collapse_dtrace) dict=(-dict="$src/tests/fuzz/dtrace.dict") ;;
	render|diff) dict=(-dict="$src/tests/fuzz/folded.dict") ;;
	toml|tomlproj) dict=(-dict="$src/tests/fuzz/toml.dict") ;;
	compdb|cmake_reply) dict=(-dict="$src/tests/fuzz/$target.dict") ;;
	*) dict=() ;;
	esac
	# the first folder receives new inputs; the others are only read, and
	# libFuzzer stops at a missing one. crashes/ is left out: a reproducer of a
	# bug not fixed yet would end the campaign at once (CTest replays them).
	dirs=("$corpus")
	for d in "$build/fuzz-seeds/$target" "$src/tests/fuzz/corpus/$target"; do
		[ -d "$d" ] && dirs+=("$d")
	done
	rc=0
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	"$prog" -max_total_time="$secs" -max_len="${FG_FUZZ_MAX_LEN:-65536}" -timeout=30 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/" "${dict[@]}" "$@" \
		"${dirs[@]}" > "$log" 2>&1 || rc=$?
	last=$(grep -aE '^#[0-9]+' "$log" | tail -1 || true)
	execs=$(grep -aE '^stat::number_of_executed_units' "$log" | tail -1 | awk '{print $2}' || true)
	speed=$(grep -aE '^stat::average_exec_per_sec' "$log" | tail -1 | awk '{print $2}' || true)
	# -fork mode prints no final stats: take them from the last status line
	[ -n "$execs" ] || execs=$(printf '%s\n' "$last" | grep -aoE '^#[0-9]+' | tr -d '#' || true)
	[ -n "$speed" ] || speed=$(printf '%s\n' "$last" | grep -aoE 'exec/s: [0-9]+' | awk '{print $2}' || true)
	crashes_seen=$(grep -acE '^==[0-9]+==ERROR|^INFO: log from the inner process' "$log" || true)
	[ "${crashes_seen:-0}" -gt 0 ] && echo "run-campaign: $target: $crashes_seen crash reports in $log (see $crashes/)" >&2
	cov=$(printf '%s\n' "$last" | grep -aoE 'cov: [0-9]+' | awk '{print $2}' || true)
	ft=$(printf '%s\n' "$last" | grep -aoE 'ft: [0-9]+' | awk '{print $2}' || true)
	printf '%s: %ss, %s execs, %s exec/s, cov %s, ft %s, corpus %s files\n' "$target" "$secs" \
		"${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "$(find "$corpus" -type f | wc -l)"
	if [ "$rc" -ne 0 ]; then
		echo "run-campaign: $target stopped with status $rc — see $log" >&2
		grep -aE 'SUMMARY|ERROR|invariant|Test unit written' "$log" | head -5 >&2 || true
		exit 1
	fi
}
main "$@"
exit
