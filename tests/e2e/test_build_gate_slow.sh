# The regression gate with its defaults on examples/gate: a commit that
# makes alpha (20% of the time) 15% slower fails at 5% with alpha first
# (beta and gamma never over) in at least 8 of 10 whole gates (10 of 10 on
# a quiet machine), with a second look
# (5 more runs a side) where the first 5 cannot tell yet; the differential
# graph is written too. About 5 s a gate; HEAD against itself is test_build_gate_self.
# ctest: RUN_SERIAL
# ctest: LABELS slow gate
. "$FG_SRC/tests/lib/gate-project.sh"

sed -i 's/#define PHASE_ALPHA_WORK 4000/#define PHASE_ALPHA_WORK 4600/' proj/src/phases.c
check_eq "the change applied" "1" "$(grep -c 'PHASE_ALPHA_WORK 4600' proj/src/phases.c)"
gitc commit -qam "alpha does 15% more work"
verdict='^\*\*gate failed\*\*: [0-9]+ functions? grew by more than 5\.00%, significantly: alpha(, .+)?$'
for i in 1 2 3 4 5 6 7 8 9 10; do
	rm -f slow.svg
	rc=0
	fgb --compare "$base" --fail-above 5 --report md --report-out slow$i.md -o slow.svg >gate.out 2>gate.err || rc=$?
	check_exit "gate $i: it ran and wrote its report" 0 test -s slow$i.md
	runs=$(grep -c '^phases: 6 rounds' gate.out || true)
	# 5 a side, or 10 when the first 5 could not tell alpha from noise
	[ "$runs" = 20 ] && echo "$i" >> second.txt
	check_contains "gate $i: the report says how many runs" slow$i.md "over $((runs / 2)) \+ $((runs / 2)) runs"
	sed -n 3p slow$i.md > first.txt
	# caught: exit 6, alpha first and over, the verdict naming alpha first
	# (a callee that alpha calls 15% more often, mix, may follow it)
	[ $rc = 6 ] && grep -Eq '^\| `alpha` \| [0-9.]+ ms \| [0-9.]+ ms \| .* \| \*\*\+[0-9.]+%\*\* over \| \[\+[0-9.]+%, \+[0-9.]+%\] \| (<)?0\.[0-9]+ \|$' first.txt &&
		grep -Eq "$verdict" slow$i.md && echo "$i" >> caught.txt
	# beta and gamma did not change: never over, caught or not
	check_not_contains "gate $i: beta is not over" slow$i.md '^\| `beta` .* over \|'
	check_not_contains "gate $i: gamma is not over" slow$i.md '^\| `gamma_` .* over \|'
	[ $rc = 6 ] && check_exit "gate $i: the differential graph is written too" 0 test -s slow.svg
done
caught=$(cat caught.txt 2>/dev/null | wc -l)
echo "alpha caught, first, in $caught of 10 gates; a second look in $(cat second.txt 2>/dev/null | wc -l)"
# Caught 10 of 10 times on a quiet machine; 8 of 10 once in CI's
# fresh-clone stage, on a noisy host
[ "$caught" -ge 8 ] && pass || fail "alpha 15% slower caught, first, in only $caught of 10 gates at 5% (at least 8 wanted)"
