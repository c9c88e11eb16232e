# test_alloc_faults.sh on every allocation point, not every 7th
# (about 1 000 runs of the programs).
# ctest: LABELS faults slow
FAULT_STEP=1
. "$FG_SRC/tests/lib/alloc-faults-run.sh"
