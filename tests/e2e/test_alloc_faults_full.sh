# test_alloc_faults.sh on every allocation point, not every 7th (every
# 3rd of flamegraph-build --alloc --compare, whose runs build and run the
# program twice): about 1 500 runs of the programs.
# ctest: LABELS faults slow
FAULT_STEP=1
. "$FG_SRC/tests/lib/alloc-faults-run.sh"
