#!/usr/bin/env bash
# Re-records the perf script inputs in this folder from the project's own
# programs (the files are kept in git: tests must not depend on the machine
# they run on). Needs perf and a build in BUILD_DIR (default: build).
#
#   perf-threads.txt.gz   dwarf call graphs of flamegraph-collapse-perf -n 2
#                         folding a generated stream: two threads of our own
#                         code, libc, inlined frames and kernel frames
# Usage: tests/data/record.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export TMPDIR=$work
perf record -q -F 4999 --call-graph dwarf,16384 -g -o threads.data -- \
	sh -c "'$build/bench/bench-collapse_gen' 400000000 2>/dev/null |
	       '$build/flamegraph-collapse-perf' -n 2 --all > /dev/null"
# paths of this machine's build folder are replaced by a neutral one
perf script -i threads.data 2>/dev/null | sed "s|$build|/opt/flamegraph/bin|g" |
	gzip -9n > "$here/perf-threads.txt.gz"
ls -l "$here/perf-threads.txt.gz"
