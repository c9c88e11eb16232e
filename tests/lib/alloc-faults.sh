#!/usr/bin/env bash
# The allocation-failure sweep: runs a program once to count the
# allocations our code makes (failalloc.so, built beside the test
# helpers), then again failing each one in turn, and accepts only
#   - exit 0 with stdout byte-identical to the normal run's, or
#   - a non-zero exit with a message on stderr.
# A crash (signal), a hang (over the timeout), exit 0 with other output
# or a silent failure is reported with the point, the program and the
# stack of the failed allocation.
#
# Usage: alloc-faults.sh [-s STEP] [-f FIRST] [-i STDIN] [-t SECONDS] NAME -- CMD [ARG...]
#   -s STEP   try every STEP-th point only (default 1: all)
#   -f FIRST  start at this point (default 1)
#   -i FILE   the command's stdin (default /dev/null)
#   -t SEC    a run longer than this is a hang (default 20)
# FG_FAULT_SHIM: the shim (default $FG_TEST_BIN/failalloc.so).
# Prints one line: NAME points N tried M crash C hang H wrong W silent S
# (and "other-message O": runs that failed with a message that does not
# say "memory", for information); exits 1 if any run ended badly.
set -uo pipefail
step=1 first=1 input=/dev/null limit=20
while getopts s:f:i:t: o; do
	case $o in
	s) step=$OPTARG ;;
	f) first=$OPTARG ;;
	i) input=$OPTARG ;;
	t) limit=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
name=$1
shift
[ "${1:-}" = -- ] && shift
prog=$(command -v "$1")
shim=${FG_FAULT_SHIM:-$FG_TEST_BIN/failalloc.so}
[ -f "$shim" ] || {
	echo "alloc-faults: no shim at $shim" >&2
	exit 2
}
work=$(mktemp -d "${TMPDIR:-/tmp}/faults.XXXXXX")
trap 'rm -rf "$work"' EXIT

# run AT: runs the command failing point AT; sets rc
run() {
	local at=$1
	shift
	rm -f "$work/where" "$work/count"
	FG_FAULT_AT=$at FG_FAULT_COUNT=$work/count FG_FAULT_WHERE=$work/where \
		LD_PRELOAD=$shim timeout -k 5 "$limit" "$@" <"$input" >"$work/out" 2>"$work/err"
}

# where: the failed allocation's stack, our frames symbolized
where() {
	[ -s "$work/where" ] || return 0
	sed -n '3,12p' "$work/where" | while IFS= read -r f; do
		mod=${f%%(*} off=${f#*(+} off=${off%%)*}
		# the main program's frames carry whatever its argv[0] became
		case $mod in *.so*) ;; *) mod=$prog ;; esac
		case $f in
		*'(+0x'*) off=$(printf '0x%x' $((off - 1))) # the call, not the return
			addr2line -f -i -p -C -e "$mod" "$off" 2>/dev/null | sed 's/^/      /' ;;
		*) echo "      $f" ;;
		esac
	done | grep -v '??' | head -n 8
}

rc=0
FG_FAULT_AT=0 FG_FAULT_COUNT=$work/count LD_PRELOAD=$shim timeout -k 5 "$limit" "$@" \
	<"$input" >"$work/ref" 2>"$work/referr" || rc=$?
if [ "$rc" -ne 0 ] || [ ! -s "$work/count" ]; then
	echo "alloc-faults: $name: the normal run failed (exit $rc) or counted nothing:" >&2
	cat "$work/referr" >&2
	exit 2
fi
points=$(cat "$work/count")
tried=0 crash=0 hang=0 wrong=0 silent=0 other=0
for ((at = first; at <= points; at += step)); do
	tried=$((tried + 1))
	rc=0
	run "$at" "$@" 2>/dev/null || rc=$? # not bash's "Segmentation fault"
	bad=
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		hang=$((hang + 1)) bad="hang (over ${limit} s)"
	elif [ "$rc" -gt 128 ]; then
		crash=$((crash + 1)) bad="crash (signal $((rc - 128)))"
	elif [ "$rc" -eq 0 ]; then
		if ! cmp -s "$work/out" "$work/ref"; then
			wrong=$((wrong + 1)) bad="exit 0 with different output"
		fi
	elif [ ! -s "$work/err" ]; then
		silent=$((silent + 1)) bad="exit $rc with no message"
	elif ! grep -qi 'memory' "$work/err"; then
		other=$((other + 1))
	fi
	if [ -n "$bad" ]; then
		echo "alloc-faults: $name: point $at: $bad" >&2
		where >&2
		if [ "$bad" = "exit 0 with different output" ]; then
			diff "$work/ref" "$work/out" | head -n 4 | sed 's/^/      /' >&2
		else
			head -c 300 "$work/err" | sed 's/^/      stderr: /' >&2
		fi
	fi
done
echo "$name points $points tried $tried crash $crash hang $hang wrong $wrong silent $silent other-message $other"
[ $((crash + hang + wrong + silent)) -eq 0 ]
