# The collapser against outputs checked by hand once and kept
# (tests/data/expected/, written by tests/data/record.sh): perf script text
# of our own recordings, frame-pointer and dwarf, with kernel frames,
# inlined frames, libc and two threads, under the options that change the
# folded text. A change of behaviour shows here as a diff to review.
data=$FG_SRC/tests/data
golden() { # NAME INPUT OPTIONS...
	local name=$1 input=$2
	shift 2
	check_exit "$name" 0 flamegraph-collapse-perf "$@" "$data/$input"
	check_same_file "$name folded" "$data/expected/$name.folded" out
}
golden fp perf-fp.txt.gz
golden fp-all-tid perf-fp.txt.gz --all --tid
golden threads perf-threads.txt.gz
golden threads-pid perf-threads.txt.gz --pid
# Java frames perf script joins with "->" (caller->inlined callee), written
# by hand: kept as frames of their own marked _[i], or with --no-inline
# folded into the caller (three samples of Loop::run)
golden java-inline perf-java-inline.txt
golden java-inline-noinline perf-java-inline.txt --no-inline
check_contains "java: inlined frames marked" "$data/expected/java-inline.folded" "^java;thread_native_entry;Interpreter;org/demo/Loop:::run;org/demo/Work:::step_\[i\];org/demo/Sum:::add_\[i\] 1000000$"
check_eq "java --no-inline: one stack" "java;thread_native_entry;Interpreter;org/demo/Loop:::run 3000000" "$(cat "$data/expected/java-inline-noinline.folded")"
golden threads-addrs-kernel perf-threads.txt.gz --addrs --kernel
# what the hand check found, kept as checks of their own: a does twice b's
# work, kernel frames are marked, a thread without a pid shows '?'
awk '/;main;a / { a = $NF } /;main;b / { b = $NF } END { print (a > 1.5 * b && a < 2.5 * b) ? "2:1" : a " " b }' \
	"$data/expected/fp.folded" > ratio.txt
check_eq "fp: a twice b" "2:1" "$(cat ratio.txt)"
check_contains "kernel frames marked" "$data/expected/fp-all-tid.folded" ";do_syscall_64_\[k\];"
check_contains "thread without pid" "$data/expected/fp-all-tid.folded" "^callgraph-\?/[0-9]+;"
# the same through the format detector and from stdin
check_exit "collapse-guess" 0 flamegraph-collapse-guess "$data/perf-fp.txt.gz"
check_same_file "collapse-guess folded" "$data/expected/fp.folded" out
check_exit "stdin" 0 sh -c "zcat '$data/perf-threads.txt.gz' | flamegraph-collapse-perf"
check_same_file "stdin folded" "$data/expected/threads.folded" out
# --per-thread: each thread of the recording under NAME-TID (the collapser's
# main thread and its two workers), every sample kept
check_exit "--per-thread" 0 flamegraph-collapse-perf --per-thread "$data/perf-threads.txt.gz"
cut -d';' -f1 out | sort -u > roots.txt
check_eq "one root per thread of the collapser" "3" "$(grep -c '^flamegraph-coll-[0-9]*$' roots.txt)"
awk '{ n += $NF } END { print n }' out > per.txt
awk '{ n += $NF } END { print n }' "$data/expected/threads.folded" > all.txt
check_eq "--per-thread keeps every sample" "$(cat all.txt)" "$(cat per.txt)"
