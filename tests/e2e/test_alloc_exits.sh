# Allocation graphs keep what a program recorded however it ends
# (tests/e2e/alloc/exits.c: 1111 bytes leaked in keep() before it ends):
# the recordings' folder given relative (--perfdata-out, TMPDIR) to a
# program that changes folder; every exec function (what the program
# allocated before the exec, and what it allocates after, 222 bytes);
# signals whose default action ends the process (SIGPIPE, also under
# `| head`, SIGALRM, SIGUSR1/2, a real-time signal); quick_exit.
cc -O1 -g -fno-omit-frame-pointer -o exits "$FG_SRC/tests/e2e/alloc/exits.c"

# the bytes leaked in keep()
kept_bytes() {
	awk '$1 ~ /;keep$/ { s += $NF } END { print s + 0 }' "$1"
}

# a relative folder, a program that leaves it
check_exit "relative --perfdata-out, chdir" 0 flamegraph --alloc=leaked --perfdata-out kept --format folded -o chdir.folded -- ./exits chdir
check_eq "relative --perfdata-out, chdir: both blocks" "4444" "$(kept_bytes chdir.folded)"
ls kept | grep -Eq '^alloc\.[0-9]+\.0$' && pass || fail "relative --perfdata-out: no recording kept"
mkdir rel
check_exit "relative TMPDIR, chdir" 0 env TMPDIR=rel flamegraph --alloc=leaked --format folded -o chdir2.folded -- ./exits chdir
check_eq "relative TMPDIR, chdir: both blocks" "4444" "$(kept_bytes chdir2.folded)"
check_eq "relative TMPDIR: the folder of recordings removed" "" "$(ls -A rel)"

# every exec function: two processes, the same PID
for how in execl execlp execle fexecve execveat; do
	check_exit "$how" 0 flamegraph --alloc=leaked --format folded -o $how.folded -- ./exits $how
	check_contains "$how: both images' recordings" err "; 1 stacks, 2 processes"
	check_eq "$how: what it allocated before the exec and after" "1333" "$(kept_bytes $how.folded)"
done

# signals whose default action ends the process
for how in pipe:13:SIGPIPE alarm:14:SIGALRM usr1:10:SIGUSR1 usr2:12:SIGUSR2 rt:$(($(kill -l RTMIN) + 3)):; do
	IFS=: read -r what num name <<<"$how"
	check_exit "$what: the program's failure reported, the graph written" 5 \
		flamegraph --alloc=leaked --format folded -o $what.folded -- ./exits $what
	check_contains "$what: how it died" err "was killed by a signal \\(signal $num"
	check_contains "$what: the note" err "exits died by signal $num: the graph shows what it recorded up to then"
	check_eq "$what: its block" "1111" "$(kept_bytes $what.folded)"
done
# a program whose reader goes away: SIGPIPE under | head
rc=0
flamegraph --alloc=leaked --format folded -o head.folded -- ./exits stdout 2>err | head -1 >head.out || rc=$?
check_eq "| head: the program's failure reported" "5" "$rc"
check_eq "| head: the program's line" "a line" "$(cat head.out)"
check_contains "| head: SIGPIPE" err "was killed by a signal \\(signal 13"
check_eq "| head: its block" "1111" "$(kept_bytes head.folded)"

# quick_exit runs no destructor: the recording is written after the
# program's at_quick_exit handlers (whose block is freed: not leaked)
check_exit "quick_exit" 0 flamegraph --alloc=leaked --format folded -o quick.folded -- ./exits quick_exit
check_eq "quick_exit: its leaked block" "1111" "$(kept_bytes quick.folded)"
check_exit "quick_exit, bytes" 0 flamegraph --alloc --format folded -o quickb.folded -- ./exits quick_exit
check_eq "quick_exit: its handler's allocation counted" "5555" "$(kept_bytes quickb.folded)"
