# The regression gate as CI uses it, with its defaults (5 interleaved runs
# a side, judged by inclusive CPU time, Welch's t-test, the whole
# program's growth taken out of each function's change): on
# examples/gate, three phases of fixed work (alpha 20%, beta 40%, gamma
# 40%), HEAD against itself passes at 2% with the runs interleaved and the
# whole program on a line of its own; a commit that makes gamma faster
# fails nothing else at 5%, although every other share grew; usage
# errors. The sweeps of 10 whole gates each are test_build_gate_self (HEAD
# against itself at 2%) and test_build_gate_slow (alpha 15% slower at 5%).
# (alone: a neighbour's build beside a sanitizer suite hid a 15% slowdown
# in the noise of five runs a side)
# ctest: RUN_SERIAL
# ctest: LABELS slow gate
. "$FG_SRC/tests/lib/gate-project.sh"

# nothing changed: passes at 2%, with the second look the defaults give
# when five runs a side cannot tell (the first look alone would raise a
# false alarm in about one gate of twenty)
check_exit "HEAD against itself" 0 fgb --compare HEAD --fail-above 2 --report-out self.txt -o self.svg
check_contains "five runs a side, interleaved" err "profiling phases at .*\(run 5 of (5|10)\)"
check_gate_runs "the runs" "$(grep -c '^phases: 6 rounds' out)"
check_contains "passed" self.txt "^gate passed: no function's inclusive time grew by more than 2\.00% significantly$"
check_contains "the test it used" self.txt "^significance: Welch's t-test over (5 \+ 5|10 \+ 10) runs"
check_contains "the whole program, judged at twice the threshold" self.txt "^whole program: [0-9.]+ ms -> [0-9.]+ ms a run, [-+][0-9.]+% \[[-+][0-9.]+%, [-+][0-9.]+%\], p [<0-9.]+: not over 4\.00%$"
# the before and after runs alternate
grep -oE "profiling phases (at|in) [^(]*\(run [0-9]+" err | sed -E 's/profiling phases (at|in) .*\(run /\1 /' | head -n 10 | tr '\n' ' ' > order.txt
check_eq "interleaved: before, after, before..." "at 1 in 1 at 2 in 2 at 3 in 3 at 4 in 4 at 5 in 5 " "$(cat order.txt)"
# (the table lists the ten largest changes: which functions, the noise
# decides)
check_contains "the table has the time per run and the shares" self.txt "^[A-Za-z_][A-Za-z0-9_.]* +[0-9.]+ ms +[0-9.]+ ms +[0-9.]+% -> [0-9.]+% "
# main is the whole program: never over by itself
check_not_contains "main is not over" self.txt "^main .* over$"

# gamma 30% faster (alpha as it was): nothing else fails, in time
sed -i 's/#define PHASE_GAMMA_WORK 8000/#define PHASE_GAMMA_WORK 5600/' proj/src/phases.c
gitc commit -qam "gamma does 30% less work"
for i in 1 2; do
	check_exit "gamma faster, gate $i" 0 fgb --compare "$base" --fail-above 5 --top 0 --report-out fast$i.txt -o fast.svg
	check_contains "gate $i: gamma shrank" fast$i.txt "^gamma_ .* -[0-9.]+% "
	check_contains "gate $i: passed" fast$i.txt "^gate passed"
	check_contains "gate $i: the whole program got faster" fast$i.txt "^whole program: .* a run, -[0-9.]+% "
done
# ...while beta's share grew by about 5 points, which a share gate calls a regression
awk '$1 == "beta" { b = $6; a = $8; sub(/%/, "", b); sub(/%/, "", a); print (a - b > 2.5) ? "grew" : "flat " b " " a }' fast1.txt > share.txt
check_eq "beta's share grew" "grew" "$(cat share.txt)"

# usage errors say what to do
check_exit "--repeat without --compare" 1 fgb --repeat 3
check_contains "--repeat without --compare: what to add" err "add --compare REV"
check_exit "--max-repeat without --compare" 1 fgb --max-repeat 10
check_contains "--max-repeat without --compare: what to add" err "add --compare REV"
check_exit "--max-repeat 0" 1 fgb --compare HEAD --fail-above 5 --max-repeat 0
check_contains "--max-repeat 0: the range" err "give 1 to 1000"
check_exit "--max-repeat under --repeat" 1 fgb --compare HEAD --fail-above 5 --repeat 5 --max-repeat 3
check_contains "--max-repeat under --repeat: what to give" err "is under --repeat 5 — give at least as many"
check_exit "--repeat 0" 1 fgb --compare HEAD --repeat 0
check_contains "--repeat 0: the range" err "give 1 to 1000"
check_exit "--gate-on without --fail-above" 1 fgb --compare HEAD --gate-on share
check_contains "--gate-on alone: what to add" err "add --fail-above PCT"
check_exit "--gate-on bad" 1 fgb --compare HEAD --fail-above 5 --gate-on speed
check_contains "--gate-on bad: the choices" err "--gate-on: 'speed' is not one of"
check_exit "--fail-above-total without --fail-above" 1 fgb --compare HEAD --fail-above-total 5
check_contains "--fail-above-total alone: what to add" err "add --fail-above PCT"
