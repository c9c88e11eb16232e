# The tracker and the program's own signal handlers
# (tests/e2e/alloc/signals.c; 777 bytes leaked in leak() in every mode):
# a handler that chains to the one installed before it, as it would see
# it without the tracker (SIG_DFL: not called); sigaction's report; a
# cleanup handler that restores SIG_DFL and raises again (the recording
# is still written); and a handler that allocates and frees, run by a
# SIGALRM every 50 us while the program allocates: its frees are all
# counted (no block of it shows as leaked), and each of its allocations
# is in the graph or counted apart as unrecorded.
cc -O1 -g -fno-omit-frame-pointer -o signals "$FG_SRC/tests/e2e/alloc/signals.c"

leaked_in_leak() {
	awk '$1 ~ /;leak$/ { s += $NF } END { print s + 0 }' "$1"
}

check_exit "without the tracker: chain exits 0" 0 ./signals chain
check_exit "chained SIGTERM handler: the program exits 0, as without the tracker" 0 \
	flamegraph --alloc=leaked --format folded -o chain.folded -- ./signals chain
check_eq "chain: its block" 777 "$(leaked_in_leak chain.folded)"
check_exit "sigaction reports SIGTERM at SIG_DFL" 0 \
	flamegraph --alloc=leaked --format folded -o query.folded -- ./signals query

check_exit "cleanup handler that raises again: killed by SIGTERM" 5 \
	flamegraph --alloc=leaked --format folded -o reraise.folded -- ./signals reraise
check_contains "reraise: how it died" err "was killed by SIGTERM"
check_eq "reraise: its block" 777 "$(leaked_in_leak reraise.folded)"

# a handler that allocates 48 bytes and frees them
check_exit "SIGALRM handler: leaked" 0 \
	flamegraph --alloc=leaked --format folded -o alarm-leaked.folded -- ./signals handler
check_eq "SIGALRM handler: only leak()'s block leaked" "777" \
	"$(awk '{ s += $NF } END { print s + 0 }' alarm-leaked.folded)"
check_exit "SIGALRM handler: bytes" 0 \
	flamegraph --alloc=bytes --format folded -o alarm-bytes.folded -- ./signals handler
runs=$(cat out)
in_graph=$(awk '$1 ~ /;on_alarm$/ { s += $NF } END { print s + 0 }' alarm-bytes.folded)
unrecorded=$(sed -n 's/.*warning: \([0-9]*\) allocations\{0,1\} (.*) made by signal handlers.*/\1/p' err)
echo "handler runs: $runs; in the graph: $in_graph bytes ($((in_graph / 48)) allocations); unrecorded: ${unrecorded:-0}"
check_eq "SIGALRM handler: every allocation in the graph or counted apart" "$runs" \
	"$((in_graph / 48 + ${unrecorded:-0}))"
