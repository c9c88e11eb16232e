# A suite's index.html in a real browser: Debian's headless Chromium,
# driven through playwright-core (tests/browser/index.js), opens the page
# a sample suite's folder holds (written by the helper
# suite-index-sample) from disk, sorts it by numeric columns, follows its
# links and opens a graph; the page may load nothing from outside its
# folder.
# ctest: LABELS browser
# ctest: RUN_SERIAL
if [ ! -x /usr/bin/chromium ] || ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "chromium, node or npm missing (scripts/setup installs them on Debian, Fedora and Arch; Ubuntu's chromium is a snap, which this test cannot drive)" >&2
	exit 77
fi
browser=$FG_SRC/tests/browser
# a network hiccup gets two more tries
for attempt in 1 2 3; do
	[ -d "$browser/node_modules/playwright-core" ] && break
	(cd "$browser" && npm ci --no-audit --no-fund >&2) && break
	[ "$attempt" -lt 3 ] || { fail "npm ci in tests/browser failed 3 times"; return; }
	sleep $((attempt * 5))
done
mkdir suite
check_exit "suite-index-sample" 0 "$FG_TEST_BIN/suite-index-sample" suite
for f in index.html summary.json all.svg parse_small.svg "slow #2 <big>.svg" segv.svg; do
	[ -s "suite/$f" ] && pass || fail "suite/$f was not written"
done
if node "$browser/index.js" "$PWD/suite" "$PWD/chromium-profile" >browser.log 2>&1; then
	pass
else
	fail "browser checks failed"
fi
cat browser.log
check_not_contains "every browser check passed" browser.log "^FAIL"
check_contains "the browser checks ran" browser.log "^ok   the graph loaded"
