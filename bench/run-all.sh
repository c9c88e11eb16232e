#!/usr/bin/env bash
# Runs every bench/bench-*.sh with the build folder and the shared data
# (without it, each uses the project's own recordings in tests/data),
# then bench-targets.sh: the table of the four tracked figures against
# inferno and perf script measured in the same run (BASELINE=DIR adds
# another build's programs as "before"; see bench-targets.sh).
# bench-viewer.sh times the graphs in headless Chromium and says it is
# skipped where chromium or node is missing.
# Usage: run-all.sh BUILD_DIR [SHARED_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for b in "$here"/bench-*.sh; do
	[ -e "$b" ] || continue
	[ "$(basename "$b")" != bench-targets.sh ] || continue
	echo "== $(basename "$b" .sh)"
	bash "$b" "$1" "${2:-}"
done
echo "== bench-targets"
bash "$here/bench-targets.sh" "$1" "${2:-}"
