# The README's commands from a fresh clone with nothing beside it: the
# committed HEAD is cloned into an empty folder (no ../shared there), and
# scripts/test --quick and scripts/demo run in it. Everything passes; the
# conformance suite says it is skipped. Selected by name (label "clone",
# `scripts/test -L clone`); scripts/test leaves it out, so it cannot
# recurse.
# The Debian sources the e2e tests fetch come from this build's cache.
# ctest: RUN_SERIAL
git -C "$FG_SRC" rev-parse --verify -q HEAD >/dev/null || { echo "not a git checkout"; exit 77; }
mkdir empty
git clone -q "$FG_SRC" empty/flamegraph-build
cd empty/flamegraph-build
check_exit "scripts/test --quick in a fresh clone" 0 \
	env FG_CMAKE_ARGS="-DFG_TEST_SOURCE_CACHE=$FG_SOURCE_CACHE" scripts/test --quick
if grep -q "tests FAILED" out; then
	grep -E '^FAIL: ' out >&2 || true
	sed -n '/tests FAILED/,$p' out >&2
fi
check_contains "the conformance suite is skipped" out "conformance/test_collapse .*Skipped"
check_contains "everything else passed" out "tests passed, 0 tests failed"
check_not_contains "no test failed" out '\*\*\*Failed|Not Run'
check_contains "the ten slowest tests are listed" out "^slowest tests:"
sed -n '/^slowest tests:/,$p' out
mkdir ../demo
(cd ../demo && ../flamegraph-build/scripts/demo) >demo.out 2>&1 && pass ||
	{ fail "scripts/demo in a fresh clone failed"; tail -20 demo.out >&2; }
xmllint --noout ../demo/flamegraph.svg && pass || fail "scripts/demo: flamegraph.svg is not well-formed"
check_contains "scripts/demo: the example's functions" ../demo/flamegraph.svg "fill_table"
cd ../..
rm -rf empty
