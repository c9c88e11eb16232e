# Multi-threaded collapse gives byte-identical output: a recording of our
# own (tests/data/perf-threads.txt.gz: two threads, libc, inlined and
# kernel frames) repeated to ~38 MB (several 4 MB blocks), with -n 1, 2, 4,
# the default (all cores), and through gzip and stdin.
zcat "$FG_SRC/tests/data/perf-threads.txt.gz" > one.txt
for _ in 1 2 3 4 5 6 7 8; do cat one.txt; done > big.txt
check_exit "-n 1" 0 flamegraph-collapse-perf -n 1 --all big.txt
mv out n1
[ "$(wc -l < n1)" -gt 300 ] && pass || fail "-n 1: too few stacks"
# 8 copies: every count is 8 times the single-copy count
flamegraph-collapse-perf -n 1 --all one.txt | awk '{ $NF = $NF * 8; print }' > expect8
check_same_file "8 copies = 8 x counts" expect8 n1
for n in 2 4 0; do
	check_exit "-n $n" 0 flamegraph-collapse-perf -n "$n" --all big.txt
	check_same_file "-n $n equals -n 1" n1 out
done
gzip -c big.txt > big.txt.gz
check_exit "gzip, -n 3" 0 flamegraph-collapse-guess -n 3 --all big.txt.gz
check_same_file "gzip equals plain" n1 out
check_exit "stdin" 0 sh -c 'flamegraph-collapse-perf -n 2 --all < big.txt'
check_same_file "stdin equals file" n1 out
check_exit "-o" 0 flamegraph-collapse-perf -n 2 --all -o folded.txt big.txt
check_same_file "-o writes the same" n1 folded.txt
