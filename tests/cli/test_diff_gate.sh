# flamegraph-diff-folded as a CI regression gate: --fail-above judges each
# function's inclusive share (percentage points), --watch narrows it,
# --report text|md prints the largest changes, exit 6 when the gate fails.
printf 'p;main;fill 100\np;main;sort;cmp 100\np;main;sort 20\np;main;rec;rec;rec 10\n' > old.folded
# sort's work quadruples
printf 'p;main;fill 100\np;main;sort;cmp 400\np;main;sort 80\np;main;rec;rec;rec 10\n' > new.folded

check_exit "gate fails" 6 flamegraph-diff-folded --fail-above 5 -o d.folded old.folded new.folded
check_contains "the function that grew most comes first" err "^function +before +after +change$"
sed -n 2p err > first.txt
check_contains "sort first, over" first.txt "^sort +52\.17% +81\.36% +\+29\.18 pp  over$"
check_contains "shrinking fill listed, not over" err "^fill +43\.48% +16\.95% +-26\.53 pp$"
check_contains "recursion counted once per stack" err "^rec +4\.35% "
check_contains "verdict names the functions" err "^gate failed: 2 functions grew by more than 5\.00 percentage points: sort, cmp$"
check_contains "the differential stacks are still written" d.folded "^p;main;sort;cmp 100 400$"

check_exit "itself passes" 0 flamegraph-diff-folded --fail-above 0 -o same.folded old.folded old.folded
check_contains "itself: passed" err "^gate passed: no function's share grew by more than 0\.00 percentage points$"
check_exit "higher threshold passes" 0 flamegraph-diff-folded --fail-above 30 -o d.folded old.folded new.folded
check_exit "watch a function that shrank" 0 flamegraph-diff-folded --fail-above 5 --watch fill -o d.folded old.folded new.folded
check_exit "watch the one that grew" 6 flamegraph-diff-folded --fail-above 5 --watch fill --watch cmp -o d.folded old.folded new.folded
check_contains "watch: only cmp judged" err "gate failed: 1 function grew .*: cmp$"

check_exit "markdown to a file" 6 flamegraph-diff-folded --fail-above 5 --report md --report-out report.md --top 2 \
	-o d.folded old.folded new.folded
check_eq "markdown table" "| function | before | after | change |
|---|---:|---:|---:|
| \`sort\` | 52.17% | 81.36% | **+29.18 pp** over |
| \`fill\` | 43.48% | 16.95% | -26.53 pp |

**gate failed**: 2 functions grew by more than 5.00 percentage points: sort, cmp" "$(cat report.md)"
check_eq "nothing on stderr with --report-out" "" "$(cat err)"
check_exit "report without a threshold" 0 flamegraph-diff-folded --report text -o d.folded old.folded new.folded
check_contains "no threshold: nothing judged" err "^no threshold set: nothing is judged$"

# errors say what to do
check_exit "misspelt watch" 1 flamegraph-diff-folded --fail-above 5 --watch sortt old.folded new.folded
check_contains "misspelt watch: the near name" err "error: the watched function 'sortt' is in neither profile — did you mean 'sort'\?"
check_exit "watch without threshold" 1 flamegraph-diff-folded --watch sort old.folded new.folded
check_contains "watch without threshold: what to add" err "add --fail-above PCT"
check_exit "bad threshold" 1 flamegraph-diff-folded --fail-above five old.folded new.folded
check_contains "bad threshold message" err "--fail-above: 'five' is not a number of percentage points"
check_exit "negative threshold" 1 flamegraph-diff-folded --fail-above -3 old.folded new.folded
check_exit "bad report format" 1 flamegraph-diff-folded --fail-above 5 --report html old.folded new.folded
check_contains "bad report format message" err "--report: 'html' is not one of"
check_exit "report over an input" 1 flamegraph-diff-folded --fail-above 5 --report-out old.folded old.folded new.folded
check_contains "report over an input: refused" err "is also an input"
check_eq "the input survived" "4" "$(wc -l < old.folded)"
