# Out of memory never crashes, hangs or changes the output: every 7th
# allocation our code makes in flamegraph-collapse-perf (perf script
# text; perf.data with frame pointers and dwarf, worker threads on and
# off), flamegraph --perfdata, flamegraph --alloc (a program run with the
# tracker, and kept recordings read again), flamegraph-build --alloc
# --compare HEAD (every 7th point there too), flamegraph-render (SVG and HTML),
# flamegraph-diff-folded and flamegraph-build --list (examples/toml, examples/make) is failed in
# turn, and each run must end with the exact output or a non-zero exit
# with a message (tests/lib/alloc-faults.sh, docs/ARCHITECTURE.md "Out of
# memory").
# test_alloc_faults_full.sh fails every point.
FAULT_STEP=7
. "$FG_SRC/tests/lib/alloc-faults-run.sh"
