#!/usr/bin/env bash
# Runs every bench/bench-*.sh with the build folder and the shared data
# (without it, each uses the project's own recordings in tests/data).
# Usage: run-all.sh BUILD_DIR [SHARED_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for b in "$here"/bench-*.sh; do
	[ -e "$b" ] || continue
	echo "== $(basename "$b" .sh)"
	bash "$b" "$1" "${2:-}"
done
