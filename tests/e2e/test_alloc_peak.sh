# The peak view is exact: the blocks live at the moment the process's
# live total was largest, to the byte, by allocating function, whatever
# the threads (tests/e2e/alloc/peaks.c): 32 threads holding 40 blocks of
# 100 bytes each at a barrier; one malloc(3000), freed; a phase that
# holds 1 MiB and frees it, then one that holds 1 MiB + 7 000 bytes.
cc -O1 -g -fno-omit-frame-pointer -pthread -o peaks "$FG_SRC/tests/e2e/alloc/peaks.c"

# the peak's bytes allocated by function $1 (the stacks' last frame)
peak_of() {
	awk -v f="$1" '{ n = split($1, s, ";"); if (s[n] == f) b += $NF } END { print b + 0 }' "$2"
}

for run in 1 2 3; do
	check_exit "threads ($run)" 0 flamegraph --alloc=peak --format folded -o threads.folded -- ./peaks threads
	check_eq "threads ($run): every thread's blocks at the peak" "128000" "$(peak_of hold threads.folded)"
done
check_contains "threads: one process" err "; [0-9]+ stacks, 1 process"

check_exit "a single block" 0 flamegraph --alloc=peak --format folded -o single.folded -- ./peaks single
check_eq "a single block: the peak is it" "3000" "$(peak_of one single.folded)"
check_contains "a single block: the summary's peak" err "peak 2.9 KB"

check_exit "two phases" 0 flamegraph --alloc=peak --format folded -o phases.folded -- ./peaks phases
check_eq "two phases: the second one's blocks" "1055576" "$(peak_of hold phases.folded)"
check_contains "two phases: in the second phase" phases.folded ";phase;phase2;hold 1055576$"
check_not_contains "two phases: none of the first" phases.folded "phase1"

# the peak view drawn again from kept recordings is the same
check_exit "kept, peak" 0 flamegraph --alloc=peak --perfdata-out kept --format folded -o k1.folded -- ./peaks phases
check_exit "kept, drawn again" 0 flamegraph --alloc=peak --perfdata kept --format folded -o k2.folded
check_same_file "kept: the same peak" k1.folded k2.folded
