#!/usr/bin/env bash
# The graphs in a browser: for 1k, 20k and 200k distinct stacks (and 1M
# with BENCH_VIEWER_1M=1: minutes more) from bench-folded_gen, our SVG,
# our HTML viewer (--format html) and inferno's SVG (when
# inferno-flamegraph is on PATH) are opened in headless Chromium
# (bench/viewer-timing.js). Printed, as one table, medians of
# BENCH_VIEWER_RUNS (5) fresh page loads each: the time from the
# navigation's start until the page is usable (the SVG's load event, the
# viewer's data-ready="1", each followed by the frame painted after it),
# the time from a click on a frame near the middle (depth 2) until the end
# of the first frame that shows the zoom, and the file sizes. Times are
# performance.now() readings in the page.
# Without Debian's chromium or node it prints why and does nothing.
# Usage: bench-viewer.sh BUILD_DIR [SHARED_DIR]
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
runs=${BENCH_VIEWER_RUNS:-5}
sizes=(1000 20000 200000)
[ "${BENCH_VIEWER_1M:-0}" = 0 ] || sizes+=(1000000)

if [ ! -x /usr/bin/chromium ] || ! command -v node >/dev/null; then
	echo "skipped: Debian's /usr/bin/chromium and node are needed"
	exit 0
fi
browser=$here/../tests/browser
if [ ! -d "$browser/node_modules/playwright-core" ]; then
	(cd "$browser" && npm ci --no-audit --no-fund >&2) ||
		{ echo "skipped: npm ci in tests/browser failed (playwright-core)"; exit 0; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/fgbench-viewer.XXXXXX")
export TMPDIR=$work
timer=
cleanup() {
	# the timer leads its own process group: chromium is in it
	[ -z "$timer" ] || kill -TERM -- "-$timer" 2>/dev/null || true
	[ -z "$timer" ] || { sleep 1; kill -KILL -- "-$timer" 2>/dev/null || true; }
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

inferno=
if command -v inferno-flamegraph >/dev/null; then
	inferno=inferno-flamegraph
else
	echo "inferno: not installed"
fi

files=()
for n in "${sizes[@]}"; do
	"$build/bench/bench-folded_gen" "$n" >"$work/$n.folded"
	"$build/flamegraph-render" -o "$work/$n.svg" "$work/$n.folded" 2>/dev/null
	"$build/flamegraph-render" --format html -o "$work/$n.html" "$work/$n.folded"
	files+=("$work/$n.svg" "$work/$n.html")
	if [ -n "$inferno" ]; then
		"$inferno" "$work/$n.folded" >"$work/$n.inferno.svg"
		files+=("$work/$n.inferno.svg")
	fi
	rm -f "$work/$n.folded"
done

echo "medians of $runs page loads (a fresh tab each) in headless Chromium $(/usr/bin/chromium --version 2>/dev/null | awk '{print $2}'), times in ms:"
echo "  ready: navigation start to usable (SVG: load event; HTML: data-ready=\"1\"; then the frame painted after)"
echo "  click: a frame at depth 2 near the middle (the same in both formats, named below) clicked, to the end of the first frame that shows the zoom"
setsid node "$here/viewer-timing.js" "$runs" "$work/profile" "${files[@]}" >"$work/times.jsonl" &
timer=$!
wait "$timer"
timer=
{
	cat "$work/times.jsonl"
	echo sizes
	for f in "${files[@]}"; do echo "$(basename "$f") $(stat -c %s "$f")"; done
} | node "$here/viewer-timing.js" table
