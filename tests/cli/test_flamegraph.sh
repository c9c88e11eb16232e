# flamegraph: usage errors and the failures found before anything is
# recorded, each with its message and exit code; a failed run
# leaves the user's files alone. Needs no perf.
echo "keep me" > precious.svg

# --recorder perf with perf not installed (not on PATH): exit 3, names the
# packages, output untouched (on a system of no known family, all of
# them: test_perf_advice.sh checks each family's own command)
cc -O2 -g -o prog "$FG_SRC/examples/callgraph/callgraph.c"
FG_OS_RELEASE=$FG_SRC/tests/data/os-release/unknown \
	check_exit "perf not on PATH" 3 env PATH="$FG_BIN" "$FG_BIN/flamegraph" --recorder perf \
	-o precious.svg -- ./prog 10
check_contains "perf missing names Debian's package" err "linux-perf"
check_contains "perf missing names other distros" err "dnf install perf"
check_contains "perf missing: error prefix" err "^flamegraph: error: perf was not found"
check_eq "failed run keeps the old file" "keep me" "$(cat precious.svg)"
# PERF naming a file that is not there: says so, not "install perf"
PERF=/nonexistent check_exit "PERF=/nonexistent" 3 flamegraph -o precious.svg -- ./prog 10
check_contains "PERF=/nonexistent: names PERF and the path" err "^flamegraph: error: PERF names '/nonexistent', which is not an executable program — fix the path, or unset PERF"
check_not_contains "PERF=/nonexistent: no install advice" err "apt install"
check_eq "failed run keeps the old file" "keep me" "$(cat precious.svg)"

# the program does not exist
check_exit "program not found" 1 flamegraph -o precious.svg -- ./no-such-program
check_contains "program not found message" err "program './no-such-program' was not found"
check_exit "program not on PATH" 1 flamegraph -o precious.svg no-such-program-xyz
check_contains "not on PATH message" err "not found on PATH"

# -z/--compression-level: a level out of zstd's range, or not a number
check_exit "-z 30" 1 flamegraph -z 30 -o precious.svg -- ./prog 10
check_contains "-z 30: the range" err "^flamegraph: error: -z/--compression-level 30: give a zstd level from 1 to 22"
check_exit "--compression-level=x" 1 flamegraph --compression-level=x -o precious.svg -- ./prog 10
check_contains "--compression-level=x: the range" err "compression-level x: give a zstd level"
check_exit "--compression-level=" 1 flamegraph --compression-level= -o precious.svg -- ./prog 10
check_contains "--compression-level=: what to do" err "or leave out ="
check_eq "failed runs keep the old file" "keep me" "$(cat precious.svg)"

# unknown PID
check_exit "unknown PID" 1 flamegraph -o precious.svg --pid 999999999
check_contains "unknown PID message" err "no process with PID 999999999"
check_exit "PID not a number" 1 flamegraph --pid abc
check_contains "PID not a number message" err "'abc' is not a PID"

# unwritable output: refused before the program runs
check_exit "unwritable output" 1 flamegraph -o /nonexistent-dir/out.svg -- ./prog quick
check_contains "unwritable output names the path" err "/nonexistent-dir/out.svg"
check_exit "output is a directory" 1 flamegraph -o . -- ./prog quick
check_contains "directory output message" err "is a directory"

# usage errors
check_exit "nothing to profile" 1 flamegraph
check_contains "nothing to profile says what to do" err "give a command"
check_exit "-c conflicts with -F" 1 flamegraph -F 99 -c "record -g" -- ./prog quick
check_contains "-c/-F conflict message" err "conflict"
check_exit "bad call-graph" 1 flamegraph --call-graph frames -- ./prog quick
check_contains "bad call-graph lists choices" err "fp\|dwarf\|lbr"
check_exit "bad format" 1 flamegraph --format png -- ./prog quick
check_exit "command and --pid" 1 flamegraph --pid 1 -- ./prog quick
check_contains "only one target" err "only one of"
check_exit "missing perfdata" 1 flamegraph --perfdata nope.data
check_contains "missing perfdata message" err "cannot read nope.data"
if ! command -v sudo >/dev/null; then
	check_exit "--root without sudo" 3 flamegraph --root -o precious.svg -- ./prog quick
	check_contains "--root without sudo message" err "--root needs sudo"
fi
check_exit "perfdata without samples" 4 flamegraph --perfdata /dev/null -o precious.svg
check_contains "perfdata without samples message" err "holds no samples"
check_eq "failed run keeps the old file (2)" "keep me" "$(cat precious.svg)"

# --help documents the shared options, fp as the fast choice
check_exit "--help" 0 flamegraph --help
for opt in --freq --cmd --call-graph --root --compression-level --ignore-status --no-inline --lines \
	   --skip-after --post-process --open --verbose --folded --perfdata-out --format \
	   --title --subtitle --notes --deterministic --inverted --reverse --flamechart \
	   --min-width --image-width --palette --pid --perfdata --output; do
	check_contains "--help lists $opt" out -- "$opt"
done
check_contains "--help: fp is the fast, small-file choice" out "fp \(frame pointers: the fast, small-file choice\)"

# completions for the three shells
check_exit "bash completions" 0 flamegraph --completions bash
check_contains "bash completion offers call-graph modes" out "fp dwarf lbr"
bash -n out && pass || fail "bash completion script does not parse"
check_exit "zsh completions" 0 flamegraph --completions zsh
check_contains "zsh completion names options" out "call-graph"
check_exit "fish completions" 0 flamegraph --completions fish
check_contains "fish completion names options" out "complete -c flamegraph -l perfdata"

# no output may land on the --perfdata input or on another output
printf 'app 1 1.0: 1 cycles:\n\t1 leaf (/bin/app)\n\t2 main (/bin/app)\n\n' > stacks.txt
cp stacks.txt stacks.orig
mkdir -p sub
check_exit "-o is the input" 1 flamegraph --perfdata stacks.txt -o stacks.txt
check_contains "-o is the input: says so" err "stacks.txt is both the --perfdata input and the output \(-o\)"
check_exit "-o is the input by another path" 1 flamegraph --perfdata stacks.txt -o sub/../stacks.txt
check_exit "--folded is the input" 1 flamegraph --perfdata stacks.txt --folded ./stacks.txt
check_exit "--perfdata-out is the input" 1 flamegraph --perfdata stacks.txt --perfdata-out stacks.txt
cmp -s stacks.txt stacks.orig && pass || fail "the input was changed"
check_exit "-o and --folded the same new file" 1 flamegraph --perfdata stacks.txt -o both.out --folded both.out
check_contains "two outputs: says so" err "both.out is both the output \(-o\) and the --folded output"
check_eq "nothing written" "no" "$([ -e both.out ] && echo yes || echo no)"
check_exit "distinct outputs still work" 0 flamegraph --perfdata stacks.txt -o g.svg --folded g.folded
check_contains "folded written" g.folded "^app;main;leaf 1$"
