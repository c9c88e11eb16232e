# Sourced by the browser tests. require_browser: skips the test (77)
# without Debian's chromium, node and npm; sets browser to tests/browser
# with playwright-core installed there (npm ci; a network hiccup gets two
# more tries); 1 when that failed (a failed check).
require_browser() {
	local attempt
	if [ ! -x /usr/bin/chromium ] || ! command -v node >/dev/null || ! command -v npm >/dev/null; then
		echo "chromium, node or npm missing (scripts/setup installs them on Debian, Fedora and Arch; Ubuntu's chromium is a snap, which this test cannot drive)" >&2
		exit 77
	fi
	browser=$FG_SRC/tests/browser
	for attempt in 1 2 3; do
		[ -d "$browser/node_modules/playwright-core" ] && return 0
		(cd "$browser" && npm ci --no-audit --no-fund >&2) && return 0
		[ "$attempt" -lt 3 ] || { fail "npm ci in tests/browser failed 3 times"; return 1; }
		sleep $((attempt * 5))
	done
}
