# Hybrid stacks (src/lib/perfdata/hybrid.c) on a real recording: a
# program built with frame pointers that spends its time in the C
# library's memcpy, strlen, memchr and qsort (tests/e2e/perfdata/
# libc_hot.c) is recorded with dwarf call graphs and 64 KB stack copies;
# bench-hybrid emulates from each sample the one a recorder of
# frame-pointer chains with small copies takes (the kernel's walk from
# rbp through the copy, the copy cut to FG_HYBRID_STACK_DEFAULT bytes,
# rbp, rsp and rip kept), and the recorder's rare samples with a whole
# copy that teach the outermost frames (after a thread's tenth sample,
# then four a second) and its growth of the copy when the frame pointer
# lies beyond it, and compares the stacks made from those with
# those unwound from the whole copy: at least 80% of the samples' weight
# must have the same stacks. The cut samples lie deep in qsort, where the
# C library uses rbp as a general register and the walk finds no frame:
# they are whole only when a whole sample showed their path, and runs of
# this program give 98 to 100% with glibc 2.36 (qsort's merge sort), 82
# to 100% with glibc 2.41 (its introsort, with 1.5 KB of stack of its
# own). With 16 bytes of copy that never grows (the chain alone, which
# misses the callers of memcpy and strlen), below 70% (53 to 58%).
# ctest: RESOURCE_LOCK cpu
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
hybrid=$FG_BIN/bench/bench-hybrid
[ -x "$hybrid" ] || { echo "bench-hybrid not built"; exit 77; }
cc -O2 -g -fno-omit-frame-pointer -o libc_hot "$FG_SRC/tests/e2e/perfdata/libc_hot.c"
if ! perf record -q --no-bpf-event -F 997 --call-graph dwarf,65528 -o hot.data -- ./libc_hot 2 \
	>/dev/null 2>record.err; then
	echo "perf cannot record here:"; cat record.err; exit 77
fi
size=$(sed -n 's/^#define FG_HYBRID_STACK_DEFAULT \([0-9][0-9]*\).*/\1/p' \
	"$FG_SRC/src/lib/perfdata/hybrid.h")
check_eq "the default copy size is found" yes "$([ -n "$size" ] && echo yes)"
check_exit "the stacks of $size-byte copies are those of 64 KB ones" 0 "$hybrid" --whole 10,250 --min 80 hot.data "$size"
cat out
check_exit "a 16-byte copy does not give them" 1 "$hybrid" --whole 10,250 --no-grow --min 70 hot.data 16
cat out
# the program's time is in the C library: the test tests what it says
perf report -i hot.data --stdio --no-children --sort dso 2>/dev/null | grep -E '^ +[0-9]' > dso.txt || true
libc=$(awk '/libc\.so/ { gsub("%", "", $1); s += $1 } END { printf "%d", s }' dso.txt)
echo "in the C library: $libc% of the samples"
awk -v p="$libc" 'BEGIN { exit !(p >= 50) }' && pass || fail "only $libc% of the samples in the C library"
rm -f hot.data
