# A suite's index.html in a real browser: Debian's headless Chromium,
# driven through playwright-core (tests/browser/index.js), opens the page
# a sample suite's folder holds (written by the helper
# suite-index-sample) from disk, sorts it by numeric columns, follows its
# links and opens a graph; the page may load nothing from outside its
# folder.
# ctest: LABELS browser
# ctest: RUN_SERIAL
. "$FG_SRC/tests/lib/browser.sh"
require_browser || return
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
