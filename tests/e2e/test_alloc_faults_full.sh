# test_alloc_faults.sh on every allocation point, not every 7th
# (about 1 100 runs of the programs, under a minute on an idle machine).
# ctest: LABELS faults slow
FAULT_STEP=1
. "$FG_SRC/tests/lib/alloc-faults-run.sh"
