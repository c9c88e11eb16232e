# The README's test command from a fresh clone with nothing beside it: the
# committed HEAD is cloned into an empty folder (no ../shared there) and
# scripts/test runs in it. Everything passes; the conformance suite says
# it is skipped. The inner run leaves out this label, so it cannot recurse.
git -C "$FG_SRC" rev-parse --verify -q HEAD >/dev/null || { echo "not a git checkout"; exit 77; }
mkdir empty
git clone -q "$FG_SRC" empty/flamegraph-build
cd empty/flamegraph-build
check_exit "scripts/test in a fresh clone" 0 scripts/test -j2 -LE clone
if grep -q "tests FAILED" out; then
	grep -E '^FAIL: ' out >&2 || true
	sed -n '/tests FAILED/,$p' out >&2
fi
check_contains "the conformance suite is skipped" out "conformance/test_collapse .*Skipped"
check_contains "everything else passed" out "tests passed, 0 tests failed"
check_not_contains "no test failed" out '\*\*\*Failed|Not Run'
cd ../..
rm -rf empty
