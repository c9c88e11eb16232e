#!/usr/bin/env bash
# Re-records the perf script inputs in this folder from the project's own
# programs (the files are kept in git: tests must not depend on the machine
# they run on). Needs perf and a build in BUILD_DIR (default: build).
#
#   perf-threads.txt.gz   dwarf call graphs of flamegraph-collapse-perf -n 2
#                         folding a generated stream: two threads of our own
#                         code, libc, inlined frames and kernel frames
#   perf-fp.txt.gz        frame-pointer call graphs of examples/callgraph
#                         (main -> outer -> a, b; a does twice b's work),
#                         user and kernel frames
# and the folded stacks the collapser made of them, checked by hand when
# they were recorded (expected/*.folded, see tests/cli/test_collapse_golden.sh)
# Usage: tests/data/record.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export TMPDIR=$work
perf record -q --no-bpf-event -F 4999 --call-graph dwarf,16384 -g -o threads.data -- \
	sh -c "'$build/bench/bench-collapse_gen' 400000000 2>/dev/null |
	       '$build/flamegraph-collapse-perf' -n 2 --all > /dev/null"
# paths of this machine's build folder are replaced by a neutral one
perf script -i threads.data 2>/dev/null | sed "s|$build|/opt/flamegraph/bin|g" |
	gzip -9n > "$here/perf-threads.txt.gz"
cc -O2 -g -fno-omit-frame-pointer -o callgraph "$here/../../examples/callgraph/callgraph.c"
perf record -q --no-bpf-event -F 1999 -g -o fp.data -- ./callgraph 400 > /dev/null
perf script -i fp.data 2>/dev/null | sed "s|$work|/opt/flamegraph/examples|g" |
	gzip -9n > "$here/perf-fp.txt.gz"
ls -l "$here/perf-threads.txt.gz" "$here/perf-fp.txt.gz"
# the expected outputs: review them (git diff) before committing
mkdir -p "$here/expected"
collapse=$build/flamegraph-collapse-perf
$collapse "$here/perf-fp.txt.gz" > "$here/expected/fp.folded"
$collapse --all --tid "$here/perf-fp.txt.gz" > "$here/expected/fp-all-tid.folded"
$collapse "$here/perf-threads.txt.gz" > "$here/expected/threads.folded"
# (--no-inline changes nothing here: perf script's own "(inlined)" frames
# are frames of their own; the Java "a->b" form it drops is in
# perf-java-inline.txt, written by hand with its expected outputs)
$collapse --pid "$here/perf-threads.txt.gz" > "$here/expected/threads-pid.folded"
$collapse --addrs --kernel "$here/perf-threads.txt.gz" > "$here/expected/threads-addrs-kernel.folded"
wc -l "$here"/expected/*.folded
