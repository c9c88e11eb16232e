#!/usr/bin/env bash
# Runs one shell test with a private scratch folder and the helpers of
# tests/lib/assert.sh loaded. Usage: run-test.sh TEST.sh
set -euo pipefail
script=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/fgtest.XXXXXX")
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
if [ ! -d "$FG_SHARED/conformance" ]; then
	echo "shared data not found at $FG_SHARED (configure with -DFG_SHARED_DIR=...)" >&2
	exit 1
fi
export PATH="$FG_BIN:$PATH"
mkdir -p "$FG_ARTIFACTS"
cd "$TMPDIR"
# shellcheck source=assert.sh
. "$here/assert.sh"
. "$script"
finish
