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
# --skip-after: a stack through main or _dl_sysdep_start starts there, no
# process frame above it (inferno's --skip-after); the others keep theirs
golden fp-skip-after perf-fp.txt.gz --skip-after main --skip-after _dl_sysdep_start
check_contains "skip-after: starts at main" "$data/expected/fp-skip-after.folded" "^main;a 175587750$"
check_not_contains "skip-after: nothing above main" "$data/expected/fp-skip-after.folded" ";main;"
check_contains "skip-after: other stacks keep the process frame" "$data/expected/fp-skip-after.folded" "^callgraph;_dl_start_user;_dl_start 500250$"
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
# several files are one stream: the recording cut in two at an event
# boundary (one part compressed) gives the whole one's stacks, serially and
# in parallel; a file given twice doubles every count
zcat "$data/perf-fp.txt.gz" > fp.txt
cut=$(awk 'NR > 1000 && $0 == "" { print NR; exit }' fp.txt)
head -n "$cut" fp.txt > fp-1.txt
tail -n +"$((cut + 1))" fp.txt | gzip -c > fp-2.txt.gz
check_eq "the cut is inside the recording" yes "$([ -s fp-1.txt ] && [ "$(zcat fp-2.txt.gz | wc -l)" -gt 100 ] && echo yes)"
check_exit "two files" 0 flamegraph-collapse-perf fp-1.txt fp-2.txt.gz
check_same_file "two files: the whole recording's stacks" "$data/expected/fp.folded" out
check_exit "two files, two threads" 0 flamegraph-collapse-perf -n 2 fp-1.txt fp-2.txt.gz
check_same_file "two files, two threads: the same" "$data/expected/fp.folded" out
check_exit "two files through collapse-guess" 0 flamegraph-collapse-guess fp-1.txt fp-2.txt.gz
check_same_file "collapse-guess, two files: the same" "$data/expected/fp.folded" out
check_exit "one file twice" 0 flamegraph-collapse-perf "$data/perf-fp.txt.gz" "$data/perf-fp.txt.gz"
check_same_file "one file twice: every count doubled" <(awk '{ $NF = 2 * $NF; print }' "$data/expected/fp.folded") out
# DTrace: a stack cut between two files is still one stack
printf '\n              prog`write_out+0x8\n              prog`emit+0x14\n' > dt-1.txt
printf '              prog`main+0x20\n                5\n\n              prog`spin+0x10\n              prog`main+0x30\n               12\n' > dt-2.txt
check_exit "dtrace: two files" 0 flamegraph-collapse-dtrace dt-1.txt dt-2.txt
check_eq "dtrace: two files, one stream" "prog\`main;prog\`emit;prog\`write_out 5|prog\`main;prog\`spin 12" "$(paste -sd'|' out)"
# --per-thread: each thread of the recording under NAME-TID (the collapser's
# main thread and its two workers), every sample kept
check_exit "--per-thread" 0 flamegraph-collapse-perf --per-thread "$data/perf-threads.txt.gz"
cut -d';' -f1 out | sort -u > roots.txt
check_eq "one root per thread of the collapser" "3" "$(grep -c '^flamegraph-coll-[0-9]*$' roots.txt)"
awk '{ n += $NF } END { print n }' out > per.txt
awk '{ n += $NF } END { print n }' "$data/expected/threads.folded" > all.txt
check_eq "--per-thread keeps every sample" "$(cat all.txt)" "$(cat per.txt)"
