# Assertions for the shell tests. Each failing check prints what was expected
# and what came; `finish` (called by run-test.sh) exits 1 if any check failed.
# (Tests run `perf record --no-bpf-event`: without it perf waits about a
# second at its end for BPF side-band events, which no test program has.)
fg_failures=0
fg_checks=0
fg_skipped=0

# Skips the test (exit 77) where perf cannot record: no perf, or
# perf_event_paranoid too high for this user.
require_perf() {
	if ! perf record -q --no-bpf-event -o perf.probe -- true 2>/dev/null; then
		echo "perf cannot record here (perf_event_paranoid?)" >&2
		exit 77
	fi
	rm -f perf.probe
}

# skip_part WHAT WHY: a part of the test cannot run here for a reason
# outside the project; the rest runs, and the test reports itself skipped
# (77) unless a check failed.
skip_part() {
	echo "skipped: $1: $2"
	fg_skipped=$((fg_skipped + 1))
}

# fetch_source PACKAGE: sets source_dir to the folder of PACKAGE's Debian
# source (tests/lib/fetch-source.sh). When the archive serves none of its
# versions, that part is skipped (skip_part); any other failure fails.
# Returns 1 when there is no source. (Not in a $(...): the skip and the
# failure must be counted in the test's own shell.)
fetch_source() {
	local rc=0
	source_dir=$(bash "$FG_SRC/tests/lib/fetch-source.sh" "$1" 2>"fetch-$1.err") || rc=$?
	case $rc in
	0) return 0 ;;
	3) skip_part "$1" "the archive serves no source of it ($(tail -1 "fetch-$1.err"))" ;;
	*) fail "apt-get source $1 failed: $(tail -3 "fetch-$1.err")" ;;
	esac
	return 1
}

fail() {
	echo "FAIL: $*" >&2
	fg_failures=$((fg_failures + 1))
}

pass() {
	fg_checks=$((fg_checks + 1))
}

# check_eq WHAT EXPECTED ACTUAL
check_eq() {
	if [ "$2" == "$3" ]; then pass; else fail "$1: expected '$2', got '$3'"; fi
}

# check_gate_runs WHAT RUNS: the runs of a gate with its defaults (RUNS:
# how many times the program ran): 5 a side, or 10 a side when the first
# 5 could not tell a change from noise and stderr (err) said so
check_gate_runs() {
	if [ "$2" = 10 ]; then
		pass
	elif [ "$2" = 20 ] && grep -Eq "note: 5 runs a side cannot tell .+ from noise yet: 5 more a side$" err; then
		pass
	else
		fail "$1: expected 10 runs (20 after a second look's note), got $2"
	fi
}

# check_contains WHAT FILE PATTERN  (grep -E)
check_contains() {
	if grep -Eq -- "$3" "$2"; then pass; else
		fail "$1: '$3' not found in $2"; sed 's/^/    | /' "$2" | head -20 >&2 || true
	fi
}

# check_not_contains WHAT FILE PATTERN
check_not_contains() {
	if grep -Eq -- "$3" "$2"; then
		fail "$1: '$3' unexpectedly found in $2"; grep -E -- "$3" "$2" | head -5 >&2 || true
	else pass; fi
}

# check_exit WHAT EXPECTED_CODE CMD...  (stdout -> out, stderr -> err)
check_exit() {
	local what=$1 want=$2 got=0
	shift 2
	"$@" >out 2>err || got=$?
	if [ "$got" == "$want" ]; then pass; else
		fail "$what: exit $got, expected $want ($*)"; sed 's/^/    err| /' err | head -20 >&2 || true
	fi
}

# check_same_file WHAT EXPECTED ACTUAL
check_same_file() {
	if cmp -s "$2" "$3"; then pass; else
		# (diff's status 1 must not end the test under set -e: the
		# checks after this one still run)
		fail "$1: $3 differs from $2"; diff "$2" "$3" | head -20 >&2 || true
	fi
}

# Every SVG a test left in its folder (that is one: some tests put other
# text in a .svg on purpose) must be well-formed XML. Files over 64 MB are
# left to the tests that make them.
check_svgs_wellformed() {
	local f
	fg_script_checks=$fg_checks
	if ! command -v xmllint >/dev/null; then
		fail "xmllint not found: install libxml2-utils (scripts/setup) to check the SVGs"
		return 0
	fi
	while IFS= read -r -d '' f; do
		[ "$(head -c 5 "$f")" == "<?xml" ] || continue
		[ "$(stat -c %s "$f")" -le $((64 << 20)) ] || continue
		if xmllint --noout "$f" 2>/dev/null; then pass; else fail "$f is not well-formed XML"; fi
	done < <(find . -name '*.svg' -type f -print0)
}

finish() {
	# a test that checked nothing (a typo in a loop, an early return) must
	# not pass; the SVG checks run for every test and do not count
	if [ "${fg_script_checks:-$fg_checks}" -eq 0 ] && [ "$fg_skipped" -eq 0 ]; then
		fail "the test made no check"
	fi
	if [ "$fg_failures" -gt 0 ]; then
		echo "$fg_failures of $((fg_checks + fg_failures)) checks failed" >&2
		exit 1
	fi
	echo "$fg_checks checks passed"
	if [ "$fg_skipped" -gt 0 ]; then
		echo "$fg_skipped parts skipped (above): the test reports itself skipped"
		exit 77
	fi
}

# test_processes: the PIDs, one a line, of the processes this test started
# that still run (they carry the FG_TEST_ID run-test.sh exports), but the
# test's own shell and the caller's subshell. Other tests' processes are
# never listed, whatever their command lines.
test_processes() {
	local f pid
	# (grep finds itself too, in the subshell it was started from: gone
	# by the time it is looked at)
	for f in $(grep -lsxzF "FG_TEST_ID=$FG_TEST_ID" /proc/[0-9]*/environ); do
		pid=${f#/proc/}
		pid=${pid%/environ}
		[ "$pid" != "$$" ] && [ "$pid" != "$BASHPID" ] && [ -e "/proc/$pid" ] && echo "$pid"
	done
	return 0
}

# check_no_processes_left [WHAT]: every process the test started has
# ended (within 3 s); any left is named, fails the test and is killed.
# Returns 1 when one was left.
check_no_processes_left() {
	local left="" pid i
	for ((i = 0; i < 30; i++)); do
		left=$(test_processes)
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	for pid in $left; do
		fail "${1:+$1: }process left behind: $pid $(tr '\0' ' ' </proc/"$pid"/cmdline 2>/dev/null)"
	done
	# shellcheck disable=SC2086
	kill -9 $left 2>/dev/null || true
	return 1
}

# check_dev_null: /dev/null is still the character device 1,3 with mode
# 0666. A test whose program replaced it (a temporary file renamed over
# it, a chmod) fails; as root it is put back at once, so that the tests
# after it are not failed too.
check_dev_null() {
	local now
	now=$(stat -c '%F %t,%T %a' /dev/null 2>&1)
	[ "$now" = "character special file 1,3 666" ] && return 0
	fail "/dev/null was changed: now $now (expected the character device 1,3, mode 0666)"
	if [ "$(id -u)" = 0 ]; then
		{ rm -f /dev/null && mknod -m 666 /dev/null c 1 3; } 2>&1 || true
	fi
	return 0
}

# wait_for_process PATTERN [SECONDS]: waits until a process of this test
# whose command line matches PATTERN (grep -E) runs; 1 after SECONDS
# (default 30) without one. For signal tests that must not signal before
# the program runs, however slow the machine is today.
wait_for_process() {
	local pattern=$1 limit=${2:-30} pid i
	for ((i = 0; i < limit * 20; i++)); do
		for pid in $(test_processes); do
			tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -Eq -- "$pattern" && return 0
		done
		sleep 0.05
	done
	return 1
}

# check_lossy_run WHAT CMD...: runs a recording meant to lose samples
# (stdout -> out, stderr -> err). Beside other work the recorder may lose
# every sample, which is said and exits 4; on an idle machine, with the
# recorder and our reader ahead of the workload, it may keep up and lose
# none: either way it is tried again, up to five times. Returns 0 when a graph with some loss
# was written (exit 0 checked: the caller checks the rest), 1 when every
# attempt lost everything (the all-lost error checked instead) or the
# command failed otherwise.
check_lossy_run() {
	local what=$1 attempt rc
	shift
	for attempt in 1 2 3 4 5; do
		rc=0
		"$@" >out 2>err || rc=$?
		if [ $rc = 4 ] && grep -q "no samples were recorded — all [0-9]* were lost" err; then
			echo "$what: every sample lost (attempt $attempt)"
		elif [ $rc = 0 ] && ! grep -q "samples were lost" err; then
			echo "$what: the recorder kept up, nothing lost (attempt $attempt)"
		else
			break
		fi
	done
	if [ $rc = 4 ]; then
		echo "$what: every sample lost in 5 attempts: the all-lost error checked instead"
		check_contains "$what, all lost: says so and what to do" err \
			"no samples were recorded — all [0-9]+ were lost because perf's ring buffer was full; give it a bigger buffer"
		return 1
	fi
	check_eq "$what" 0 $rc
	[ $rc = 0 ]
}
