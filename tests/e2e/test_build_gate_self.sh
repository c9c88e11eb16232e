# The regression gate with its defaults (5 interleaved runs a side, 5 more
# when those cannot tell a change over the threshold yet, judged
# by inclusive CPU time, Welch's t-test, the whole program's growth taken
# out of each function's change): on examples/gate (three phases of fixed
# work, alpha 20%, beta 40%, gamma 40%), HEAD against itself passes at 2%
# in each of 10 whole gates. (In CI a machine that drifted by +2.5% between
# the sides, for main and all under it, once failed such a gate: the drift
# now shows on the whole program's line, judged at twice the threshold.)
# About 5 s a gate; the sweep of 15% slower gates is test_build_gate_slow.
# ctest: RUN_SERIAL
# ctest: LABELS slow gate
. "$FG_SRC/tests/lib/gate-project.sh"

for i in 1 2 3 4 5 6 7 8 9 10; do
	check_exit "HEAD against itself at 2%, gate $i" 0 fgb --compare HEAD --fail-above 2 --report-out self$i.txt -o self.svg
	runs=$(grep -c '^phases: 6 rounds' out)
	# 5 a side, or 10 when the first 5 could not tell a change from noise
	if [ "$runs" = 20 ]; then
		check_contains "gate $i: the second look says why" err "note: 5 runs a side cannot tell .+ from noise yet: 5 more a side$"
		echo "$i" >> second.txt
	else
		check_eq "gate $i: ten runs" "10" "$runs"
		check_not_contains "gate $i: no second look" err "cannot tell"
	fi
	check_contains "gate $i: the report says how many" self$i.txt "over $((runs / 2)) \+ $((runs / 2)) runs"
	check_contains "gate $i: passed" self$i.txt "^gate passed: no function's inclusive time grew by more than 2\.00% significantly$"
	check_contains "gate $i: the whole program's line" self$i.txt "^whole program: [0-9.]+ ms -> [0-9.]+ ms a run, [-+][0-9.]+% \[[-+][0-9.]+%, [-+][0-9.]+%\], p [<0-9.]+: not over 4\.00%$"
done
check_eq "10 of 10 gates passed" "10" "$(cat self*.txt | grep -c '^gate passed')"
# what each gate saw of the whole program, and how many looked twice, for the log
grep -h '^whole program' self*.txt >&2
echo "a second look in $(cat second.txt 2>/dev/null | wc -l) of 10 gates" >&2
