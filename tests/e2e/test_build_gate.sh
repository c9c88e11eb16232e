# The regression gate as CI uses it, with its defaults (5 interleaved runs
# a side, judged by inclusive CPU time, Welch's t-test): on examples/gate,
# three phases of fixed work (alpha 20%, beta 40%, gamma 40%), HEAD
# against itself passes at 5% every time (at 2% a uniform drift of the
# machine between the sides, +2.5% for main and all under it, was once
# judged significant); a commit that makes alpha 15% slower fails at 5% with alpha first; a commit that makes gamma faster
# fails nothing else, although every other share grew.
# (alone: a neighbour's build beside a sanitizer suite hid a 15% slowdown
# in the noise of five runs a side)
# ctest: RUN_SERIAL
# ctest: LABELS slow
if ! perf record -q --no-bpf-event -o perf.probe -- true 2>/dev/null; then
	echo "perf cannot record here (perf_event_paranoid?)" >&2
	exit 77
fi
cp -r "$FG_SRC/examples/gate" proj
gitc() { git -C proj -c user.email=t@example.com -c user.name=t "$@"; }
gitc init -q
gitc add .
gitc commit -qm "base"
base=$(gitc rev-parse HEAD)
fgb() { flamegraph-build --manifest-path "$PWD/proj" --bin phases "$@"; }

# nothing changed: passes at 5%, in each of several whole gates
for i in 1 2 3 4; do
	check_exit "HEAD against itself, gate $i" 0 fgb --compare HEAD --fail-above 5 --report-out self$i.txt -o self.svg
	check_contains "gate $i: five runs a side, interleaved" err "profiling phases at .*\(run 5 of 5\)"
	check_eq "gate $i: ten runs" "10" "$(grep -c '^phases: 6 rounds' out)"
	check_contains "gate $i: passed" self$i.txt "^gate passed: no function's inclusive time grew by more than 5\.00% significantly$"
	check_contains "gate $i: the test it used" self$i.txt "^significance: Welch's t-test over 5 \+ 5 runs"
done
# the before and after runs alternate
grep -oE "profiling phases (at|in) [^(]*\(run [0-9]" err | sed -E 's/profiling phases (at|in) .*\(run /\1 /' | tr '\n' ' ' > order.txt
check_eq "interleaved: before, after, before..." "at 1 in 1 at 2 in 2 at 3 in 3 at 4 in 4 at 5 in 5 " "$(cat order.txt)"
# (the table lists the ten largest changes: which functions, the noise
# decides)
check_contains "the table has the time per run and the shares" self1.txt "^[A-Za-z_][A-Za-z0-9_.]* +[0-9.]+ ms +[0-9.]+ ms +[0-9.]+% -> [0-9.]+% "

# alpha 15% slower: the gate fails at 5%, alpha first and named
sed -i 's/#define PHASE_ALPHA_WORK 4000/#define PHASE_ALPHA_WORK 4600/' proj/src/phases.c
check_eq "the change applied" "1" "$(grep -c 'PHASE_ALPHA_WORK 4600' proj/src/phases.c)"
gitc commit -qam "alpha does 15% more work"
for i in 1 2; do
	check_exit "alpha slower, gate $i" 6 fgb --compare "$base" --fail-above 5 --report md --report-out slow$i.md -o slow.svg
	sed -n 3p slow$i.md > first.txt
	check_contains "gate $i: alpha first, over" first.txt '^\| `alpha` \| [0-9.]+ ms \| [0-9.]+ ms \| .* \| \*\*\+[0-9.]+%\*\* over \| \[\+[0-9.]+%, \+[0-9.]+%\] \| (<)?0\.[0-9]+ \|$'
	check_contains "gate $i: the verdict names alpha" slow$i.md '^\*\*gate failed\*\*: .*significantly: alpha'
	check_not_contains "gate $i: beta is not over" slow$i.md '^\| `beta` .* over \|'
	check_not_contains "gate $i: gamma is not over" slow$i.md '^\| `gamma_` .* over \|'
done
check_exit "the differential graph is written too" 0 test -s slow.svg

# gamma 30% faster (alpha as it was): nothing else fails, in time
sed -i 's/#define PHASE_ALPHA_WORK 4600/#define PHASE_ALPHA_WORK 4000/; s/#define PHASE_GAMMA_WORK 8000/#define PHASE_GAMMA_WORK 5600/' proj/src/phases.c
gitc commit -qam "gamma does 30% less work"
for i in 1 2; do
	check_exit "gamma faster, gate $i" 0 fgb --compare "$base" --fail-above 5 --top 0 --report-out fast$i.txt -o fast.svg
	check_contains "gate $i: gamma shrank" fast$i.txt "^gamma_ .* -[0-9.]+% "
	check_contains "gate $i: passed" fast$i.txt "^gate passed"
done
# ...while beta's share grew by about 5 points, which a share gate calls a regression
awk '$1 == "beta" { b = $6; a = $8; sub(/%/, "", b); sub(/%/, "", a); print (a - b > 2.5) ? "grew" : "flat " b " " a }' fast1.txt > share.txt
check_eq "beta's share grew" "grew" "$(cat share.txt)"

# usage errors say what to do
check_exit "--repeat without --compare" 1 fgb --repeat 3
check_contains "--repeat without --compare: what to add" err "add --compare REV"
check_exit "--repeat 0" 1 fgb --compare HEAD --repeat 0
check_contains "--repeat 0: the range" err "give 1 to 1000"
check_exit "--gate-on without --fail-above" 1 fgb --compare HEAD --gate-on share
check_contains "--gate-on alone: what to add" err "add --fail-above PCT"
check_exit "--gate-on bad" 1 fgb --compare HEAD --fail-above 5 --gate-on speed
check_contains "--gate-on bad: the choices" err "--gate-on: 'speed' is not one of"
