# flamegraph-build --alloc on the CMake example: stress2 built as for a CPU
# graph, run under the allocation interposer (no perf), its allocations
# exact: sort_phase allocates 60000 32-bit values a round. Then --compare
# with --alloc: a change that makes sort_phase allocate twice as much
# fails the gate (exit 6), in a differential allocation graph.
cp -r "$FG_SRC/examples/cmake" proj
rm -rf proj/build
(cd proj && git init -q && git add . && git -c user.email=t@example.com -c user.name=t commit -qm init)
fgb() { flamegraph-build --manifest-path "$PWD/proj" "$@"; }

check_exit "--bin stress2 --alloc" 0 fgb --bin stress2 --alloc -o alloc.svg --folded alloc.folded -- --rounds 7
check_contains "stress2 ran" out "stress2: 7 rounds"
check_eq "sort_phase: 7 rounds of 240000 bytes" "1680000" \
	"$(awk '$1 ~ /;main;sort_phase$/ { s += $2 } END { print s + 0 }' alloc.folded)"
check_contains "table_new's table" alloc.folded "^stress2;.*main;table_new [0-9]+$"
check_contains "the title" alloc.svg "Allocation Flame Graph — bytes"
check_contains "summary" err "wrote alloc.svg \\(bytes: [0-9]+ allocations"
cp alloc.svg "$FG_ARTIFACTS/alloc-stress2.svg" 2>/dev/null || true
check_exit "--alloc=count --format folded" 0 fgb --bin stress2 --alloc=count --format folded -o count.folded -- --rounds 7
check_eq "sort_phase: 7 calls" "7" "$(awk '$1 ~ /;main;sort_phase$/ { s += $2 } END { print s + 0 }' count.folded)"

# --compare with --alloc: sort_phase allocates twice as much in the working tree
sed -i 's/uint32_t \*v = malloc(n \* sizeof(\*v));/uint32_t *v = malloc(2 * n * sizeof(*v));/' proj/src/stress2.c
grep -q 'malloc(2 \* n' proj/src/stress2.c && pass || fail "the change to stress2.c was not made"
check_exit "--compare HEAD --alloc --fail-above 10" 6 fgb --bin stress2 --alloc --compare HEAD --fail-above 10 -o diff.svg -- --rounds 5
check_contains "the gate names sort_phase" err "gate failed: .*sort_phase"
check_contains "differential allocation graph" diff.svg "Differential Allocation Flame Graph — bytes"
check_contains "sort_phase grew, in bytes" diff.svg "<title>sort_phase \\(2,400,000 bytes"
check_exit "--compare HEAD --alloc without a gate" 0 fgb --bin stress2 --alloc --compare HEAD -o diff2.svg -- --rounds 5

# sampled, the estimates vary from run to run: the gate judges five runs
# a side, as for CPU time (sort_phase's blocks of 240 KB and 480 KB are
# taken almost surely at one sample per 16 KB)
check_exit "--compare HEAD --alloc --alloc-sample 16K --fail-above 10" 6 fgb --bin stress2 --alloc --alloc-sample 16K --compare HEAD --fail-above 10 -o diffs.svg -- --rounds 5
check_contains "sampled gate: sort_phase named" err "gate failed: .*sort_phase"
check_gate_runs "sampled gate: five runs a side (ten with a second look)" "$(grep -c 'stress2: 5 rounds' out)"
