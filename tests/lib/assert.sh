# Assertions for the shell tests. Each failing check prints what was expected
# and what came; `finish` (called by run-test.sh) exits 1 if any check failed.
fg_failures=0
fg_checks=0

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
	if [ "${fg_script_checks:-$fg_checks}" -eq 0 ]; then
		fail "the test made no check"
	fi
	if [ "$fg_failures" -gt 0 ]; then
		echo "$fg_failures of $((fg_checks + fg_failures)) checks failed" >&2
		exit 1
	fi
	echo "$fg_checks checks passed"
}
