#!/usr/bin/env bash
# How small a user stack copy whole stacks need beside the kernel's
# frame-pointer chain (src/lib/perfdata/hybrid.h): records dwarf call
# graphs with 64 KB copies (perf record --call-graph dwarf,65528, 997
# Hz, HYBRID_SECONDS each, default 1) of lz4's benchmark (lz4 -b1,
# Debian's lz4 source, built here with frame pointers; left out when the
# source cannot be fetched), of the bench workload (bench/workloads/
# lzpack.c), of the multi-threaded test program and of a program that
# spends its time in the C library's string and sorting routines
# (tests/e2e/perfdata/libc_hot.c), all built with -fno-omit-frame-pointer,
# and prints for each, by copy size (HYBRID_SIZES, default 512 1024 1536
# 1792 2048 4096 bytes), the share of the samples' weight whose stacks,
# emulated from a frame-pointer chain and that much copy, are those of
# the 64 KB copy, and the bytes a sample takes (bench-hybrid). With
# WHOLE=FIRST,EVERY, the native recorder's rare whole samples are emulated
# too (bench-hybrid --whole).
# Usage: bench-hybrid.sh BUILD_DIR [SHARED_DIR]
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
secs=${HYBRID_SECONDS:-1}
read -r -a sizes <<< "${HYBRID_SIZES:-512 1024 1536 1792 2048 4096}"
opts=()
[ -n "${WHOLE:-}" ] && opts+=(--whole "$WHOLE")
command -v perf >/dev/null || { echo "bench-hybrid: perf not installed, skipped"; exit 0; }

# lz4 is built once into a folder of the benchmark's own, kept between
# runs; recordings go to a scratch folder removed at the end (a dwarf
# recording grows by some 60 MB a second)
keep=$build/bench-hybrid
mkdir -p "$keep"
work=$(mktemp -d "$keep/run.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work
cd "$work"
fp=(-O2 -g -fno-omit-frame-pointer)
if [ ! -x "$keep/lz4" ]; then
	if lz4_src=$("$src/tests/lib/fetch-source.sh" lz4 2>/dev/null); then
		# the library's sources with the program's, as one program
		cc "${fp[@]}" -I"$lz4_src/lib" "$lz4_src"/lib/{lz4,lz4hc,lz4frame,xxhash}.c \
			"$lz4_src"/programs/*.c -o "$keep/lz4.tmp" -pthread && mv "$keep/lz4.tmp" "$keep/lz4"
	fi
fi
# 8 MB of text: our own sources, repeated
if [ ! -f "$keep/data.txt" ]; then
	for i in $(seq 40); do cat "$src"/README.md "$src"/src/lib/*/*.c; done > "$keep/data.tmp"
	truncate -s 8000000 "$keep/data.tmp" && mv "$keep/data.tmp" "$keep/data.txt"
fi
cc "${fp[@]}" -o lzpack "$here/workloads/lzpack.c"
cc "${fp[@]}" -pthread -o threads "$src/tests/e2e/perfdata/threads.c"
cc "${fp[@]}" -o libc_hot "$src/tests/e2e/perfdata/libc_hot.c"

one() { # one NAME COMMAND...
	local name=$1
	shift
	if ! perf record -q --no-bpf-event -F 997 --call-graph dwarf,65528 -o rec.data -- "$@" \
		>/dev/null 2>record.err; then
		echo "bench-hybrid: $name: perf cannot record here: $(head -n 1 record.err)"
		return 0
	fi
	echo "-- $name"
	"$build/bench/bench-hybrid" "${opts[@]}" rec.data "${sizes[@]}"
	rm -f rec.data
}

[ -x "$keep/lz4" ] && one "lz4 -b1" timeout $((secs + 10)) "$keep/lz4" -b1 -i"$secs" "$keep/data.txt"
one "lzpack ${secs}s" ./lzpack "$secs"
one "threads" ./threads $((secs * 300)) 3
one "libc_hot ${secs}s" ./libc_hot "$secs"
