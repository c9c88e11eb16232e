# Allocation graphs of a program that dies: by abort() and by a segfault
# (the interposer writes its recording from the signal), and by SIGKILL
# (no code runs then: the graph comes from the snapshot the interposer
# writes each second while the program allocates). The graph shows what
# was recorded up to the death, and says so; its leaked view is what was
# live at the death. tests/e2e/alloc/dying.c keeps every block it makes.
cc -O2 -g -fno-omit-frame-pointer -o dying "$FG_SRC/tests/e2e/alloc/dying.c"

for how in abort segv; do
	sig=6; [ $how = segv ] && sig=11
	check_exit "$how: the graph written, the program's failure reported" 5 \
		flamegraph --alloc=leaked --format folded -o $how.folded -- ./dying $how 300
	check_contains "$how: every block it made, live at its death" $how.folded "^dying;.*main;grow 300000$"
	check_contains "$how: the note says how it died" err "dying died by signal $sig: the graph shows what it recorded up to then; its leaked view is what was live at its death"
	check_exit "$how: SVG" 5 flamegraph --alloc=leaked -o $how.svg -- ./dying $how 300
	check_contains "$how: the subtitle says it" $how.svg "the program died by signal $sig: what it recorded up to then; leaked is what was live at its death"
done

# SIGKILL: the program is killed by the test, after a few snapshots
rm -f dying.pid dying.count
flamegraph --alloc=count --perfdata-out kept --format folded -o killed.count -- ./dying wait >out 2>err &
fgpid=$!
for _ in $(seq 100); do [ -s dying.pid ] && break; sleep 0.1; done
[ -s dying.pid ] && pass || fail "SIGKILL: the program did not start"
sleep 3
pid=$(cat dying.pid)
kill -KILL "$pid"
made=$(cat dying.count)
rc=0
wait $fgpid || rc=$?
check_eq "SIGKILL: the program's failure reported, the graph written" "5" "$rc"
check_contains "SIGKILL: the note" err "dying died by signal 9: the graph shows what it recorded up to its last snapshot"
got=$(awk '$1 ~ /;grow$/ { s += $NF } END { print s + 0 }' killed.count)
# a snapshot at most a second (some 200 allocations) before the kill, and
# nothing the program did not make
# (m + 1: a snapshot inside the allocation the kill cut off before the
# program wrote its count)
awk -v g="$got" -v m="$made" 'BEGIN { exit !(g > 0 && g <= m + 1 && m - g <= 260) }' && pass ||
	fail "SIGKILL: the graph has $got calls of grow, the program had made $made (a snapshot each second)"
check_exit "SIGKILL: the leaked view of the same run" 0 flamegraph --alloc=leaked --perfdata kept --format folded -o killed.leaked
check_eq "SIGKILL: leaked is what was live then (every block)" "$((got * 1000))" \
	"$(awk '$1 ~ /;grow$/ { s += $NF } END { print s + 0 }' killed.leaked)"
check_contains "SIGKILL, read again: the snapshot said" err "1 process died without writing its last recording"
[ -z "$(ls kept | grep -v '^alloc\.[0-9]*\.[0-9]*$')" ] && pass || fail "SIGKILL: a half-written snapshot was left: $(ls kept)"
