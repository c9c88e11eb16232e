# flamegraph-collapse-perf reads `perf script` output of any -F field set
# that includes ip and sym: with or without time, event, period, cpu and
# dso, down to the minimal comm,pid,tid,ip,sym (header lines with nothing
# after the thread, stack lines without a module). One real recording of
# examples/callgraph, printed with each field set. --no-demangle: perf
# 6.12 demangles C names as if they were C++ type codes (a is "signed
# char", b "bool"); the C program's names are printed as they are.
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
cc -O2 -g -fno-omit-frame-pointer -o callgraph "$FG_SRC/examples/callgraph/callgraph.c"
check_exit "record" 0 perf record -q --no-bpf-event --sample-cpu -F 499 --call-graph dwarf -o rec.data -- ./callgraph 1000

# the same stacks whatever the header holds, as long as there is no module
plain="comm,pid,tid,ip,sym comm,tid,ip,sym comm,pid,tid,cpu,ip,sym comm,pid,tid,time,ip,sym
	comm,pid,tid,event,ip,sym comm,pid,tid,cpu,time,event,ip,sym"
for fields in $plain comm,pid,tid,period,ip,sym comm,pid,tid,ip,sym,dso \
	comm,pid,tid,cpu,time,period,event,ip,sym,dso; do
	perf script -i rec.data --no-demangle -F "$fields" >"script.$fields" 2>/dev/null ||
		{ fail "perf script -F $fields failed"; continue; }
	check_exit "-F $fields" 0 flamegraph-collapse-perf "script.$fields"
	check_not_contains "-F $fields: no warning" err "warning"
	mv out "folded.$fields"
	check_contains "-F $fields: main calls outer calls a" "folded.$fields" "^callgraph;.*main;outer;a [0-9]+$"
done
for fields in $plain; do
	check_same_file "-F $fields: same stacks as comm,pid,tid,ip,sym" \
		folded.comm,pid,tid,ip,sym "folded.$fields"
done

# a period printed without an event name still weighs the sample
total() { awk '{ s += $NF } END { printf "%d", s }' "$1"; }
check_eq "period without event: weights as with everything" \
	"$(total folded.comm,pid,tid,cpu,time,period,event,ip,sym,dso)" \
	"$(total folded.comm,pid,tid,period,ip,sym)"
check_eq "without a period: one per sample, as with a module" \
	"$(total folded.comm,pid,tid,ip,sym,dso)" "$(total folded.comm,pid,tid,ip,sym)"
samples=$(total folded.comm,pid,tid,ip,sym)
# callgraph runs for a second of wall time: about 500 samples on an idle
# machine, fewer on a loaded one (24 of 400 ms under a load of 7)
[ "$samples" -gt 20 ] && pass || fail "only $samples samples recorded"

# the guessing collapser takes the minimal output for perf's
check_exit "guess -F comm,pid,tid,ip,sym" 0 flamegraph-collapse-guess script.comm,pid,tid,ip,sym
check_same_file "guess: same stacks" folded.comm,pid,tid,ip,sym out
