#!/usr/bin/env bash
# Recording on a busy machine: lz4's benchmark (lz4 -b1, Debian's lz4
# source built by flamegraph-build through its CMake files) and the
# multi-threaded example (examples/threads), each recorded streamed (the
# default) and with --no-stream, first on an otherwise idle machine, then
# beside two same-priority spinners (one per core, `sh -c 'while :; do :;
# done'`), then beside a nice -20 spinner (root only). Prints per run:
# samples, lost (and %), and the share of samples whose stack is complete
# (rooted in main for lz4, in main or start_thread for the threads), and
# the shares of the two widest functions, to compare with the idle run.
# Usage: bench-busy.sh BUILD_DIR [RUNS]   (RUNS per cell, default 2)
# BUSY_LOADS="idle spin2 nice20" picks the loads.
set -euo pipefail
build=$(cd "$1" && pwd)
runs=${2:-2}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
loads=${BUSY_LOADS:-idle spin2 nice20}
command -v perf >/dev/null || { echo "bench-busy: perf not installed, skipped"; exit 0; }

# lz4 is built once into a folder of the benchmark's own, kept between
# runs; recordings go to a scratch folder removed at the end
keep=$build/bench-busy
mkdir -p "$keep"
work=$(mktemp -d "$keep/run.XXXXXX")
spinners=()
stop_spinners() {
	local p
	for p in "${spinners[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${spinners[@]}"; do wait "$p" 2>/dev/null || true; done
	spinners=()
}
trap 'stop_spinners; rm -rf "$work"' EXIT
export TMPDIR=$work

if [ ! -d "$keep/lz4" ]; then
	lz4_src=$("$src/tests/lib/fetch-source.sh" lz4)
	cp -r "$lz4_src" "$keep/lz4.tmp" && mv "$keep/lz4.tmp" "$keep/lz4"
fi
# 8 MB of text: our own sources, repeated
if [ ! -f "$keep/data.txt" ]; then
	for i in $(seq 40); do cat "$src"/README.md "$src"/src/lib/*/*.c; done > "$keep/data.tmp"
	truncate -s 8000000 "$keep/data.tmp" && mv "$keep/data.tmp" "$keep/data.txt"
fi
cc -O2 -g -pthread -o "$work/threads" "$src/examples/threads/threads.c"
# the build first, unrecorded: the runs below find it up to date
"$build/flamegraph-build" --manifest-path "$keep/lz4/build/cmake" --bench lz4 -o "$work/warm.svg" -- \
	-b1 -i1 "$keep/data.txt" > /dev/null 2>&1

start_load() {
	case $1 in
	idle) ;;
	spin2)
		sh -c 'while :; do :; done' & spinners+=($!)
		sh -c 'while :; do :; done' & spinners+=($!) ;;
	nice20)
		[ "$(id -u)" -eq 0 ] || return 1
		nice -n -20 sh -c 'while :; do :; done' & spinners+=($!) ;;
	esac
	sleep 0.3
}

# prints one row: load mode program samples lost lost% complete% top shares
row() {
	local load=$1 mode=$2 prog=$3 err=$4 folded=$5 root=$6
	local summary samples lost
	summary=$(grep 'note: wrote ' "$err" | tail -n 1)
	samples=$(sed -n 's/.*(\([0-9]*\) samples.*/\1/p' <<< "$summary")
	lost=$(sed -n 's/.*samples, \([0-9]*\) lost.*/\1/p' <<< "$summary")
	awk -v load="$load" -v mode="$mode" -v prog="$prog" -v s="${samples:-0}" -v l="${lost:-0}" -v root="$root" '
		{ n = $NF; total += n
		  if ($1 ~ root) ok += n
		  k = split($1, f, ";"); leaf[f[k]] += n }
		END {
			for (x in leaf) { if (leaf[x] > b1) { b2 = b1; n2 = n1; b1 = leaf[x]; n1 = x }
					  else if (leaf[x] > b2) { b2 = leaf[x]; n2 = x } }
			printf "%-7s %-10s %-8s %7d %6d %6.2f%% %8.1f%%   %s %.1f%%, %s %.1f%%\n",
				load, mode, prog, s, l, s + l ? 100 * l / (s + l) : 0,
				total ? 100 * ok / total : 0, n1, total ? 100 * b1 / total : 0,
				n2, total ? 100 * b2 / total : 0 }' "$folded"
}

printf "%-7s %-10s %-8s %7s %6s %7s %9s   %s\n" load mode program samples lost lost% complete "widest leaves"
for load in $loads; do
	if ! start_load "$load"; then
		echo "$load: needs root, skipped"
		continue
	fi
	for mode in stream no-stream; do
		opt=()
		[ $mode = no-stream ] && opt=(--no-stream)
		for i in $(seq "$runs"); do
			"$build/flamegraph-build" --manifest-path "$keep/lz4/build/cmake" --bench lz4 "${opt[@]}" \
				-o "$work/lz4.svg" --folded "$work/lz4.folded" -- -b1 -i3 "$keep/data.txt" \
				> /dev/null 2> "$work/lz4.err" || { tail -n 3 "$work/lz4.err"; continue; }
			row "$load" "$mode" lz4 "$work/lz4.err" "$work/lz4.folded" ';main;'
			"$build/flamegraph" "${opt[@]}" -o "$work/th.svg" --folded "$work/th.folded" -- \
				"$work/threads" 60 > /dev/null 2> "$work/th.err" || { tail -n 3 "$work/th.err"; continue; }
			row "$load" "$mode" threads "$work/th.err" "$work/th.folded" ';(main|start_thread);'
		done
	done
	stop_spinners
done
