# flamegraph-build --compare REV: REV is exported and built beside the
# working tree (which is never touched), both are profiled with the same
# target and arguments, and the differential graph shows what grew in red.
# ctest: RESOURCE_LOCK cpu
# ctest: LABELS slow
require_perf
cp -r "$FG_SRC/examples/cmake" proj
rm -rf proj/build
gitc() { git -C proj -c user.email=t@example.com -c user.name=t "$@"; }
gitc init -q
gitc add .
gitc commit -qm "base"
# the second commit makes sort_phase sort ten times as many numbers
sed -i 's/sort_phase(60000,/sort_phase(600000,/' proj/src/stress2.c
check_eq "the change applied" "1" "$(grep -c 'sort_phase(600000,' proj/src/stress2.c)"
gitc commit -qam "sort ten times more"
base_id=$(gitc rev-parse HEAD~1)
head_before=$(gitc rev-parse HEAD)
fgb() { flamegraph-build --manifest-path "$PWD/proj" "$@"; }

check_exit "--compare HEAD~1" 0 fgb --bin stress2 --compare HEAD~1 --compare-outputs \
	-o diff.svg --folded diff.folded -- --rounds 8
check_contains "exported REV under the build dir" err "exported ${base_id:0:12} .* to $PWD/proj/build/flamegraph/compare/${base_id:0:12}"
check_eq "the export holds REV's code" "1" "$(grep -c 'sort_phase(60000,' "proj/build/flamegraph/compare/${base_id:0:12}/src/stress2.c")"
check_eq "REV built in its own build dir" "yes" \
	"$([ -x "proj/build/flamegraph/compare/${base_id:0:12}/build/flamegraph/release/stress2" ] && echo yes)"
check_contains "both runs took the arguments" out "stress2: 8 rounds.*"
check_eq "two runs" "2" "$(grep -c 'stress2: 8 rounds' out)"
check_contains "says what it compared" err "HEAD~1 @ ${base_id:0:8} → (main|master) @ ${head_before:0:8}"
check_contains "subtitle in the graph" diff.svg "HEAD~1 @ ${base_id:0:8} → (main|master) @ ${head_before:0:8}"
check_contains "differential title" diff.svg "Differential Flame Graph"
# the differential folded text: "stack BEFORE AFTER"; sorting grew
check_contains "differential folded lines" diff.folded "^stress2;.* [0-9.]+ [0-9.]+$"
awk '/sort_phase/ { b += $(NF-1); a += $NF } END { print (a > 4 * b && b > 0) ? "grew" : "flat " b " " a }' diff.folded > sort.txt
check_eq "sort_phase grew in the folded counts" "grew" "$(cat sort.txt)"
# fill_table's own cost moves with the allocator's state, which the bigger
# sort changes (up to 2x between the runs); what the graph must show is
# that sort_phase grew far more than fill_table did
awk '/fill_table/ { fb += $(NF-1); fa += $NF } /sort_phase/ { sb += $(NF-1); sa += $NF }
	END { if (fb == 0 || fa == 0 || sb == 0) { print "missing " fb " " fa " " sb; exit }
	      print (sa / sb > 3 * (fa / fb)) ? "sort grew most" : "fill " fb " " fa " sort " sb " " sa }' diff.folded > fill.txt
check_eq "sort_phase grew far more than fill_table" "sort grew most" "$(cat fill.txt)"
# in the SVG the frames of the sort are red: rgb(255,g,g) with little g
grep -oE '<title>(sort_work|sift_down) [^<]*</title><rect [^>]*fill="rgb\(255,[0-9]+,[0-9]+\)"' diff.svg |
	grep -oE 'rgb\(255,[0-9]+' | cut -d, -f2 | sort -n | head -1 > red.txt
check_eq "sort frames are strongly red" "yes" "$([ -s red.txt ] && [ "$(cat red.txt)" -lt 120 ] && echo yes)"
"$FG_SRC/tests/tools/svg-frames" diff.svg > frames.txt
check_contains "diff graph frames" frames.txt "sort_work"
cp diff.svg "$FG_ARTIFACTS/compare-diff.svg" 2>/dev/null || true
# the plain graphs on request
check_contains "before graph has REV's subtitle" diff.before.svg "HEAD~1 @ ${base_id:0:8}"
check_contains "after graph" diff.after.svg "sort_work"
check_not_contains "plain graphs are not differential" diff.after.svg "rgb\(255,0,0\)"

# the user's working tree, index and HEAD are untouched
check_eq "HEAD unchanged" "$head_before" "$(gitc rev-parse HEAD)"
check_eq "tracked files unchanged" "" "$(gitc status --porcelain --untracked-files=no)"

# the regression gate with its defaults (by time, five interleaved runs a
# side): sort_phase's CPU time grew about tenfold
check_exit "gate: sorting grew" 6 fgb --bin stress2 --compare HEAD~1 --fail-above 10 --report md \
	--report-out gate.md -o gate.svg -- --rounds 4
check_gate_runs "gate: five runs a side (ten with a second look)" "$(grep -c 'stress2: 4 rounds' out)"
# at the top of the table: the sort, sort_phase, the sort_work it calls
# or the sift_down that does the work (their time grows by nearly the same
# percentage: page faults of the bigger array, which a busy neighbour
# slows, decide which grew more), first of the functions with 10 ms or
# more a run after. A kernel function of tiny time may come before it: a
# run ten times as long takes that many more interrupts, and 0.2 ms grown
# to 3.4 ms is a larger percentage.
awk -F'|' 'NR > 2 && $4 + 0 >= 10 { print; exit }' gate.md > first.txt
check_contains "gate: the sort first of the functions of real time, over" first.txt '^\| `(sort_phase|sort_work|sift_down)` \| [0-9.]+ ms \| [0-9.]+ ms \| .* \| \*\*\+[0-9.]+%\*\* over \| .* \|$'
check_contains "gate: sort_phase over" gate.md '^\| `sort_phase` \| .* \*\*\+[0-9.]+%\*\* over \|'
check_contains "gate: the verdict names it" gate.md '^\*\*gate failed\*\*: .*sort_phase'
check_exit "gate: the graph is still written" 0 test -s gate.svg
# the old judgement by share, one run a side
check_exit "gate by share: sorting grew" 6 fgb --bin stress2 --compare HEAD~1 --fail-above 10 --gate-on share \
	--repeat 1 --report-out share.txt -o gate.svg -- --rounds 4
check_contains "gate by share: sort_phase over, in points" share.txt '^sort_phase .* \+[0-9.]+ pp .*  over$'
# a revision compared with itself passes
check_exit "gate: HEAD against itself" 0 fgb --bin stress2 --compare HEAD --fail-above 15 -o self.svg -- --rounds 4
check_contains "gate: passed" err "^gate passed: no function's inclusive time grew by more than 15\.00% significantly$"
check_exit "gate options without --compare" 1 fgb --bin stress2 --fail-above 5
check_contains "gate without --compare: what to add" err "add --compare REV"

# a dirty working tree; the export and its build are reused
echo "/* local edit */" >> proj/src/stress2.c
check_exit "--compare dirty" 0 fgb --bin stress2 --compare "${base_id:0:10}" -o dirty.svg -- --rounds 3
check_contains "reuses the export" err "reusing the export of ${base_id:0:12}"
check_contains "REV build up to date" err "stress2 is up to date"
check_contains "dirty subtitle" dirty.svg "${base_id:0:8} → working tree \(dirty\)"
check_not_contains "id given: no 'id @ id'" dirty.svg "${base_id:0:10} @"

# --format folded writes the differential text itself
check_exit "--compare --format folded" 0 fgb --bin stress2 --compare HEAD~1 --format folded -o d.folded -- --rounds 3
check_contains "folded output is differential" d.folded "sort_phase;sort_work.* [0-9.]+ [0-9.]+$"

# errors, each saying what to do
echo "old" > keep.svg
check_exit "unknown revision" 1 fgb --bin stress2 --compare no-such-rev -o keep.svg
check_contains "unknown revision message" err "error: .*unknown revision 'no-such-rev'"
check_eq "no clobbering" "old" "$(cat keep.svg)"
check_exit "json" 1 fgb --bin stress2 --compare HEAD~1 --format json
check_contains "json message" err "no speedscope form — use --format svg or --format folded"
check_exit "--compare-outputs to stdout" 1 fgb --bin stress2 --compare HEAD~1 --compare-outputs -o -
check_contains "stdout message" err "give -o a file name"
cp -r "$FG_SRC/examples/cmake" nogit
rm -rf nogit/build
check_exit "not a git repository" 1 flamegraph-build --manifest-path "$PWD/nogit" --bin stress2 --compare HEAD
check_contains "no git message" err "--compare needs a git repository"
