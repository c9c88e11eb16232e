#!/usr/bin/env bash
# Runs one shell test with a private scratch folder and the helpers of
# tests/lib/assert.sh loaded. Usage: run-test.sh TEST.sh
set -euo pipefail
script=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/fgtest.XXXXXX")
export TMPDIR
# every process the test starts inherits this: the test may leave none
# behind (tests run in parallel, so only its own are looked for)
export FG_TEST_ID=$TMPDIR
trap 'rc=$?; kill -9 $(test_processes 2>/dev/null) 2>/dev/null || true; rm -rf "$TMPDIR"; exit $rc' EXIT
# only the conformance suite reads the reference data beside the checkout;
# without it those tests are skipped (77), everything else runs
case $script in
*/conformance/*)
	if [ ! -d "$FG_SHARED/conformance" ]; then
		echo "skipped: no reference data at $FG_SHARED/conformance (configure with -DFG_SHARED_DIR=...)"
		exit 77
	fi
	;;
esac
export PATH="$FG_BIN:$PATH"
# the native reader's cache of uncompressed debug files stays in the test
export XDG_CACHE_HOME=$TMPDIR/cache
# repositories the tests make get the branch name they expect and no
# signing, whatever the machine's git configuration says
export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=init.defaultBranch GIT_CONFIG_VALUE_0=main \
	GIT_CONFIG_KEY_1=commit.gpgsign GIT_CONFIG_VALUE_1=false
mkdir -p "$FG_ARTIFACTS"
cd "$TMPDIR"
# shellcheck source=assert.sh
. "$here/assert.sh"
. "$script"
# a test that set an EXIT trap of its own without keeping this one would
# leave its folder and processes behind
# (not a check of the test's own: a test must still make one)
case $(trap -p EXIT) in
*'rm -rf "$TMPDIR"'*) ;;
*) fail "the test replaced run-test.sh's EXIT trap: chain it (see e2e/test_perfdata_jit)" ;;
esac
check_svgs_wellformed
check_no_processes_left
check_dev_null
finish
