# flamegraph-diff-folded as a CI regression gate: --fail-above judges each
# function's inclusive cost (percent of its cost before; --gate-on share:
# its share, in percentage points), --watch narrows it, --report text|md
# prints the largest changes, exit 6 when the gate fails. Several runs a
# side (BEFORE... -- AFTER...) add Welch's t-test: a change over the
# threshold fails only when it is significant.
printf 'p;main;fill 100\np;main;sort;cmp 100\np;main;sort 20\np;main;rec;rec;rec 10\n' > old.folded
# sort's work quadruples
printf 'p;main;fill 100\np;main;sort;cmp 400\np;main;sort 80\np;main;rec;rec;rec 10\n' > new.folded

# by share, as before the gate judged time
check_exit "gate fails" 6 flamegraph-diff-folded --fail-above 5 --gate-on share -o d.folded old.folded new.folded
check_contains "the header" err "^function +before +after +share +change +CI +p$"
sed -n 2p err > first.txt
check_contains "sort first, over" first.txt "^sort +120 +480 +52\.17% -> 81\.36% +\+29\.18 pp +- +-  over$"
check_contains "shrinking fill listed, not over" err "^fill +100 +100 +43\.48% -> 16\.95% +-26\.53 pp +- +-$"
check_contains "recursion counted once per stack" err "^rec +10 +10 +4\.35% -> "
check_contains "verdict names the functions" err "^gate failed: 2 functions grew by more than 5\.00 percentage points: sort, cmp$"
check_contains "one run: says no test was made" err "^one run a side: no significance test"
check_contains "the differential stacks are still written" d.folded "^p;main;sort;cmp 100 400$"

# by time, the default: fill's cost did not change, though its share fell
check_exit "time gate fails" 6 flamegraph-diff-folded --fail-above 5 -o d.folded old.folded new.folded
check_contains "time: sort +300%" err "^sort +120 +480 +52\.17% -> 81\.36% +\+300\.0% +- +-  over$"
check_contains "time: fill unchanged" err "^fill +100 +100 +43\.48% -> 16\.95% +\+0\.0% "
check_contains "time: verdict" err "^gate failed: 2 functions grew by more than 5\.00%: sort, cmp$"
# main is (nearly) the whole program: judged as such, by default at twice --fail-above
check_contains "time: main goes with the whole program" err "^main .*  with the whole program$"
check_contains "time: the whole program's line" err "^whole program: 230 -> 590 a run, \+156\.5%: over 10\.00%$"
check_contains "time: the whole program fails" err "^gate failed: the whole program's time grew by more than 10\.00%$"

check_exit "itself passes" 0 flamegraph-diff-folded --fail-above 0 --gate-on share -o same.folded old.folded old.folded
check_contains "itself: passed" err "^gate passed: no function's share grew by more than 0\.00 percentage points$"
check_exit "higher threshold passes" 0 flamegraph-diff-folded --fail-above 30 --gate-on share -o d.folded old.folded new.folded
check_exit "watch a function that shrank" 0 flamegraph-diff-folded --fail-above 5 --gate-on share --watch fill -o d.folded old.folded new.folded
check_exit "watch the one that grew" 6 flamegraph-diff-folded --fail-above 5 --watch fill --watch cmp -o d.folded old.folded new.folded
check_contains "watch: only cmp judged" err "gate failed: 1 function grew .*: cmp$"

check_exit "markdown to a file" 6 flamegraph-diff-folded --fail-above 5 --gate-on share --report md --report-out report.md --top 2 \
	-o d.folded old.folded new.folded
check_eq "markdown table" "| function | before | after | share | change | 95% CI | p |
|---|---:|---:|---:|---:|---:|---:|
| \`sort\` | 120 | 480 | 52.17% -> 81.36% | **+29.18 pp** over | - | - |
| \`cmp\` | 100 | 400 | 43.48% -> 67.80% | **+24.32 pp** over | - | - |

**gate failed**: 2 functions grew by more than 5.00 percentage points: sort, cmp

one run a side: no significance test — several runs a side tell a change from noise" "$(cat report.md)"
check_eq "nothing on stderr with --report-out" "" "$(cat err)"
check_exit "report without a threshold" 0 flamegraph-diff-folded --report text -o d.folded old.folded new.folded
check_contains "no threshold: nothing judged" err "^no threshold set: nothing is judged$"

# several runs a side: main;steady holds still, main;grows takes 20%
# more in every run, main;noisy swings by more than it changes
for i in 1 2 3 4 5; do
	printf 'main;steady %d\nmain;grows %d\nmain;noisy %d\n' $((1000 + i)) $((500 + 3 * i)) $(((i % 2) * 900 + 100)) > b$i.folded
	printf 'main;steady %d\nmain;grows %d\nmain;noisy %d\n' $((1002 - i)) $((600 + 2 * i)) $(((i % 2) * 1200 + 50)) > a$i.folded
done
check_exit "runs: grows fails" 6 flamegraph-diff-folded --fail-above 5 --top 0 -o runs.folded b1.folded b2.folded b3.folded b4.folded b5.folded -- a1.folded a2.folded a3.folded a4.folded a5.folded
check_contains "runs: grows first, with its interval and p" err "^grows +509 +606 +[0-9.]+% -> [0-9.]+% +\+19\.1% +\[\+1[0-9]\.[0-9]%, \+[12][0-9]\.[0-9]%\] +(<0\.0001|0\.[0-9]+)  over$"
check_contains "runs: noisy is not significant" err "^noisy +[0-9.]+ +[0-9.]+ .* +\+[0-9.]+% +\[-[0-9.]+%, \+[0-9.]+%\] +[01]\.[0-9]+  not significant$"
check_contains "runs: the verdict" err "^gate failed: 1 function grew by more than 5\.00%, significantly: grows$"
check_contains "runs: says which are noise" err "^not significant \(noise at 5 \+ 5 runs\):.* noisy"
check_contains "runs: says how it tested" err "^significance: Welch's t-test over 5 \+ 5 runs, p adjusted \(Holm\) over [0-9]+ judged functions, significant below 0\.05; 95% confidence intervals; a function fails when its time grew beyond the whole program's significant growth too$"
check_contains "runs: the output adds the runs up" runs.folded "^main;steady 5015 4995$"
check_contains "runs: the whole program, not over" err "^whole program: 2152 -> 2375 a run, \+10\.4% \[-[0-9.]+%, \+[0-9.]+%\], p 0\.[0-9]+: not over 10\.00%$"
check_exit "runs: noisy alone passes" 0 flamegraph-diff-folded --fail-above 5 --watch noisy -o runs.folded b1.folded b2.folded -- a1.folded a2.folded a3.folded
check_exit "runs: nothing before --" 1 flamegraph-diff-folded --fail-above 5 -- a1.folded a2.folded
check_contains "runs: what is expected" err "expected the runs before, '--', then the runs after"

# the machine drifts between the sides: every function 3% slower after
# (the interleaved runs vary by about 0.5%); nothing fails at 2%, the
# whole program's growth is shown and taken out of each function's
for i in 1 2 3 4 5; do
	printf 'p;main;a %d\np;main;b %d\np;main;c %d\np;main;c;d %d\n' $((2000 + 10 * i)) $((4000 - 10 * i)) $((3000 + 7 * i)) $((1000 - 5 * i)) > db$i.folded
	awk '{ $NF = int($NF * 1.03 + 0.5); print }' db$i.folded > da$i.folded
done
dbefore="db1.folded db2.folded db3.folded db4.folded db5.folded"
dafter="da1.folded da2.folded da3.folded da4.folded da5.folded"
# shellcheck disable=SC2086
check_exit "drift: passes at 2%" 0 flamegraph-diff-folded --fail-above 2 --top 0 -o /dev/null $dbefore -- $dafter
check_contains "drift: a grew, with the whole program" err "^a +2030 +2091 .* +\+3\.0% .*  with the whole program$"
check_contains "drift: the whole program's growth" err "^whole program: 10006 -> 10306 a run, \+3\.0% \[\+[0-9.]+%, \+[0-9.]+%\], p (<0\.0001|0\.0[0-9]+): not over 4\.00%$"
check_contains "drift: the verdict" err "^gate passed: no function's inclusive time grew by more than 2\.00% significantly$"
check_contains "drift: those that moved with it" err "^with the whole program \(not over once its growth is taken out\): .*\ba\b"
# a threshold for the whole program at 2%: a real slowdown of everything fails it
# shellcheck disable=SC2086
check_exit "drift: --fail-above-total 2 fails" 6 flamegraph-diff-folded --fail-above 2 --fail-above-total 2 -o /dev/null $dbefore -- $dafter
check_contains "drift: the whole program over" err "^gate failed: the whole program's time grew by more than 2\.00%, significantly$"
# on top of the drift, a 10% slower: a fails alone, first; so does b (40%
# of the whole) made 10% slower, however much it moves the whole program
for f in a b; do
	for i in 1 2 3 4 5; do
		awk -v f="p;main;$f" '{ k = $1 == f ? 1.133 : 1.03; $NF = int($NF * k + 0.5); print }' db$i.folded > ds$i.folded
	done
	# shellcheck disable=SC2086
	check_exit "drift: $f 10% slower fails" 6 flamegraph-diff-folded --fail-above 5 -o /dev/null $dbefore -- ds1.folded ds2.folded ds3.folded ds4.folded ds5.folded
	check_contains "drift: $f named alone" err "^gate failed: 1 function grew by more than 5\.00%, significantly: $f$"
	sed -n 2p err > first.txt
	check_contains "drift: $f first" first.txt "^$f .*  over$"
done
# c (with d under it) 20% faster: a and b grew by 3%, judged as they are
# (the whole program got faster), and do not fail at 5%
for i in 1 2 3 4 5; do
	awk '{ k = $1 ~ /;c/ ? 0.8 : 1.03; $NF = int($NF * k + 0.5); print }' db$i.folded > df$i.folded
done
# shellcheck disable=SC2086
check_exit "c faster: nothing else fails" 0 flamegraph-diff-folded --fail-above 5 -o /dev/null $dbefore -- df1.folded df2.folded df3.folded df4.folded df5.folded
check_exit "--fail-above-total without --fail-above" 1 flamegraph-diff-folded --fail-above-total 5 old.folded new.folded
check_contains "--fail-above-total alone: what to add" err "add --fail-above PCT"
check_exit "--fail-above-total bad" 1 flamegraph-diff-folded --fail-above 5 --fail-above-total lots old.folded new.folded
check_contains "--fail-above-total bad: the message" err "--fail-above-total: 'lots' is not a percentage"

# errors say what to do
check_exit "misspelt watch" 1 flamegraph-diff-folded --fail-above 5 --watch sortt old.folded new.folded
check_contains "misspelt watch: the near name" err "error: the watched function 'sortt' is in neither profile — did you mean 'sort'\?"
check_exit "watch without threshold" 1 flamegraph-diff-folded --watch sort old.folded new.folded
check_contains "watch without threshold: what to add" err "add --fail-above PCT"
check_exit "bad threshold" 1 flamegraph-diff-folded --fail-above five old.folded new.folded
check_contains "bad threshold message" err "--fail-above: 'five' is not a percentage"
check_exit "bad threshold, share" 1 flamegraph-diff-folded --fail-above five --gate-on share old.folded new.folded
check_contains "bad threshold message, share" err "--fail-above: 'five' is not a number of percentage points"
check_exit "negative threshold" 1 flamegraph-diff-folded --fail-above -3 old.folded new.folded
check_exit "bad report format" 1 flamegraph-diff-folded --fail-above 5 --report html old.folded new.folded
check_contains "bad report format message" err "--report: 'html' is not one of"
check_exit "bad --gate-on" 1 flamegraph-diff-folded --fail-above 5 --gate-on speed old.folded new.folded
check_contains "bad --gate-on message" err "--gate-on: 'speed' is not one of"
check_exit "report over an input" 1 flamegraph-diff-folded --fail-above 5 --report-out old.folded old.folded new.folded
check_contains "report over an input: refused" err "is also an input"
check_eq "the input survived" "4" "$(wc -l < old.folded)"

# --first-look: the first runs of more to come. A clear change is judged
# now (exit 6 or 0); one over the threshold that is not clear yet (p not
# under 0.001) is exit 7, and judged at the usual 0.05 once more runs come
fl() { # NAME ALPHA...: one folded file a run, alpha's and beta's cost
	local name=$1 i=0
	shift
	for a in "$@"; do
		i=$((i + 1))
		printf 'p;main;alpha %s\np;main;beta 1000\n' "$a" > "$name$i.folded"
	done
}
fl fb 100 101 99 100 100 102 98 100 101 99
fl fclear 115 116 114 115 115
fl fnoisy 130 100 125 104 118 122 103 128 101 119
check_exit "first look, clear: fails now" 6 flamegraph-diff-folded --first-look --fail-above 5 -o /dev/null fb1.folded fb2.folded fb3.folded fb4.folded fb5.folded -- fclear1.folded fclear2.folded fclear3.folded fclear4.folded fclear5.folded
check_contains "first look, clear: alpha" err "^gate failed: 1 function grew by more than 5\.00%, significantly: alpha$"
check_exit "first look, unchanged: passes now" 0 flamegraph-diff-folded --first-look --fail-above 5 -o /dev/null fb1.folded fb2.folded fb3.folded fb4.folded fb5.folded -- fb6.folded fb7.folded fb8.folded fb9.folded fb10.folded
check_exit "first look, noisy: not clear yet" 7 flamegraph-diff-folded --first-look --fail-above 5 -o /dev/null fb1.folded fb2.folded fb3.folded fb4.folded fb5.folded -- fnoisy1.folded fnoisy2.folded fnoisy3.folded fnoisy4.folded fnoisy5.folded
check_contains "first look, noisy: what to do" err "note: a first look: \`alpha\` changed by more than the threshold, but not clearly yet \(p between 0\.001 and 0\.2\) — record as many runs again a side and judge them all$"
# the same five runs judged as they are: not significant, it passes; with
# ten runs a side, the second look, it fails
check_exit "noisy, five runs judged: passes" 0 flamegraph-diff-folded --fail-above 5 -o /dev/null fb1.folded fb2.folded fb3.folded fb4.folded fb5.folded -- fnoisy1.folded fnoisy2.folded fnoisy3.folded fnoisy4.folded fnoisy5.folded
check_contains "noisy, five runs: alpha is not significant" err "^alpha .* not significant$"
check_exit "noisy, ten runs a side: fails" 6 flamegraph-diff-folded --fail-above 5 -o /dev/null fb*.folded -- fnoisy*.folded
check_exit "--first-look without --fail-above" 1 flamegraph-diff-folded --first-look old.folded new.folded
check_contains "--first-look alone: what to add" err "add --fail-above PCT"
