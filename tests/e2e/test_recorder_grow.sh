# The native recorder's stack copy grows when it falls short: a hot
# function with 3 KB of locals and no frame pointer (tests/e2e/perfdata/
# big_locals.c), under callers that keep one, puts its samples' frame
# pointer beyond the 1536-byte copy. The recorder says so in a note and
# copies 4096 bytes from then on, and the graph shows the function under
# its caller (which the frame-pointer walk alone skips). A program whose
# frames are all small gets no growth and the small copy throughout.
# ctest: RESOURCE_LOCK cpu
. "$FG_SRC/tests/lib/noperf.sh"
native_recorder_or_skip

noperf_path noperf || finish
fgn() { PATH=$PWD/noperf flamegraph --recorder native -F 997 "$@"; }

cc -O2 -g -fomit-frame-pointer -c -o big_locals.o "$FG_SRC/tests/e2e/perfdata/big_locals.c"
cc -O2 -g -fno-omit-frame-pointer -o big_locals "$FG_SRC/tests/e2e/perfdata/big_locals_main.c" big_locals.o

check_exit "the program is recorded" 0 fgn --format folded -o big.folded --perfdata-out big.data -- ./big_locals 1.5
check_contains "the note says the copy grew" err "beyond their 1536-byte stack copy: the copy grows to 4096 bytes"
# churn's weight: nearly all of it under stir, which called it (the
# samples before the copy grew lack stir)
churn=$(awk '/;churn( |;|$)/ { s += $NF } END { print s + 0 }' big.folded)
under=$(awk '/;main;work;stir;churn( |;|$)/ { s += $NF } END { print s + 0 }' big.folded)
echo "churn's weight: $churn, under main;work;stir: $under"
awk -v a="$under" -v b="$churn" 'BEGIN { exit !(b > 0 && a >= 0.85 * b) }' &&
	pass || fail "churn's weight under main;work;stir: $under of $churn"
# the recording holds samples of both copies: the small one, then the
# grown one (the stack size is in each sample's attribute)
if command -v perf >/dev/null; then
	perf evlist -v -i big.data >evlist.txt 2>/dev/null || true
	check_contains "the recording has the small copy's event" evlist.txt "sample_stack_user: 1536"
	check_contains "and the grown copy's" evlist.txt "sample_stack_user: 4096"
fi

# small frames throughout: no growth
cc -O2 -g -fno-omit-frame-pointer -o callgraph "$FG_SRC/examples/callgraph/callgraph.c"
check_exit "a program of small frames is recorded" 0 fgn --format folded -o cg.folded -- ./callgraph
check_not_contains "its copy does not grow" err "the copy grows"
rm -f big.data
finish
