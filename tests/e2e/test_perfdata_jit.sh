# flamegraph-collapse-perf reading perf.data itself names JIT-compiled
# code from perf's JIT map files (/tmp/perf-PID.map) as perf script does:
# a program of ours (tests/e2e/perfdata/jit.c) writes x86-64 code into
# anonymous executable memory, names it in /tmp/perf-PID.map (a plain
# name, one with spaces, and a piece of code named again and again by
# overlapping entries) and runs it; recorded with perf record -g, the
# folded stacks of the native reader must be those of `perf script |
# flamegraph-collapse-perf` on the same file, with the JIT names on both
# sides: for code mapped writable and executable ("//anon") and for code
# made executable by mprotect, under --jit, --addrs and --pid; with a
# map file of odd lines (0x prefixes, padding, separators that are not
# spaces, names too short, an unterminated last line); and without the
# map file (frames named after it, "[perf-PID.map]"). perf reads the map
# file when it reports, so the program leaves it behind; the test
# removes it, also when it stops early.
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "the JIT program writes x86-64 code"; exit 77; }
cc -O2 -g -fno-omit-frame-pointer -o jit "$FG_SRC/tests/e2e/perfdata/jit.c"

# the map files go with the test's folder, whatever ends the test
jit_maps=()
if trap -p EXIT | grep -q .; then
	eval "$(trap -p EXIT | sed "s/^trap -- '/trap -- 'rm -f \"\${jit_maps[@]}\"; /")"
else
	trap 'rm -f "${jit_maps[@]}"' EXIT
fi

# record NAME MODE: NAME.data; $pid gets the program's PID
record() {
	rm -f jit.pid
	if ! perf record -q --no-bpf-event -F 1999 -g -o "$1.data" -- ./jit 500 "$2" >/dev/null 2>record.err; then
		[ -s jit.pid ] && jit_maps+=("/tmp/perf-$(cat jit.pid).map")
		return 1
	fi
	pid=$(cat jit.pid)
	jit_maps+=("/tmp/perf-$pid.map")
}
if ! record rwx rwx; then
	echo "perf cannot record here:"; cat record.err; exit 77
fi
rwx_pid=$pid
check_exit "record, W^X" 0 record wx mprotect
wx_pid=$pid

. "$FG_SRC/tests/lib/stacks.sh" # share, compare

# compare_jit NAME ...: compare, and the code named by overlapping
# entries named the same in every stack through it
compare_jit() {
	local name=$1
	compare "$@"
	grep ';run_sled;' "$name.text" >"$name.sled.text" || true
	grep ';run_sled;' "$name.native" >"$name.sled.native" || true
	check_same_file "$name: overlapping entries named as perf names them" \
		"$name.sled.text" "$name.sled.native"
}

# both_contain WHAT NAME PATTERN: perf script's and the native stacks
both_contain() {
	check_contains "$1 (perf script)" "$2.text" "$3"
	check_contains "$1 (native)" "$2.native" "$3"
}

for rec in rwx wx; do
	compare_jit "$rec" "$rec.data" "" --
	both_contain "$rec: a JIT frame" "$rec" "^jit;.*;main;run_hot;jit_hot_loop [0-9]+$"
	both_contain "$rec: a name with spaces" "$rec" ";run_spaces;jit loop with spaces [0-9]+$"
	both_contain "$rec: overlapping entries" "$rec" ";run_sled;jit_sled_[0-9]+ [0-9]+$"
done
compare_jit rwx-jit rwx.data "" -- --jit
both_contain "--jit: JIT frames marked" rwx-jit ";run_hot;jit_hot_loop_\[j\] [0-9]+$"
compare_jit rwx-addrs rwx.data "" -- --all --addrs
compare_jit rwx-pid rwx.data "-F +pid" -- --pid
both_contain "--pid" rwx-pid "^jit-$rwx_pid;.*;run_hot;jit_hot_loop [0-9]+$"

# a map file of odd lines, as perf reads them: the hot loop's entry with
# 0x prefixes, the one with spaces padded and separated by commas (its
# trailing space kept), names of two bytes dropped, garbage, an
# unterminated last line (which loses its last byte, as every line does)
# whose name ends like a symbol offset
map=/tmp/perf-$rwx_pid.map
hot=$(sed -n 's/ .* jit_hot_loop$//p' "$map")
spaces=$(sed -n 's/ .* jit loop with spaces$//p' "$map")
sled=$(sed -n 's/ .* jit_sled$//p' "$map")
{
	printf 'garbage\n\n%s e ab\n' "$hot"
	printf '0x%s 0xe HOT loop\n' "$hot"
	printf '  %s,e,  padded name \n' "$spaces"
	printf '%s 810 sled+0x1fz' "$sled"
} >"$map"
compare_jit rwx-odd rwx.data "" --
both_contain "odd map lines: 0x prefixes" rwx-odd ";run_hot;HOT loop [0-9]+$"
both_contain "odd map lines: other separators, padding" rwx-odd ";run_spaces;padded name  [0-9]+$"
both_contain "odd map lines: last byte of the file dropped" rwx-odd \
	";run_sled;sled\+0x1f [0-9]+$"

# no map file: the frames are named after it, on both sides
rm -f "$map"
compare_jit rwx-nomap rwx.data "" --
both_contain "no map file" rwx-nomap ";run_hot;\[perf-$rwx_pid\.map\] [0-9]+$"
compare_jit rwx-nomap-addrs rwx.data "" -- --addrs
both_contain "no map file, --addrs: absolute addresses" rwx-nomap-addrs \
	";run_hot;\[perf-$rwx_pid.map <7f[0-9a-f]+>\] [0-9]+$"

rm -f "/tmp/perf-$wx_pid.map" ./*.data
