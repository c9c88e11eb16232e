# The SVG's interactivity in a real browser: Debian's headless Chromium,
# driven through playwright-core (tests/browser), opens a rendered graph,
# hovers, clicks to zoom, searches a regex (Ctrl-F), resets. The screenshot
# of the zoomed, searched graph is kept in $FG_ARTIFACTS.
# ctest: LABELS browser
# ctest: RUN_SERIAL
. "$FG_SRC/tests/lib/browser.sh"
require_browser || return
printf '%s\n' "main;parse;read_line 30" "main;parse;tokenize 20" "main;render;draw;b 25" \
	"main;render;layout 15" "idle 10" >profile.folded
check_exit "render" 0 flamegraph-render --hash --title "Browser test" -o graph.svg profile.folded
xmllint --noout graph.svg && pass || fail "graph.svg is not well-formed"
rm -f "$FG_ARTIFACTS/browser-zoom-search.png" # a screenshot of this run only
if node "$browser/interact.js" "$PWD/graph.svg" "$FG_ARTIFACTS/browser-zoom-search.png" \
	"$PWD/chromium-profile" >browser.log 2>&1; then
	pass
else
	fail "browser checks failed"
fi
cat browser.log
check_not_contains "every browser check passed" browser.log "^FAIL"
[ -s "$FG_ARTIFACTS/browser-zoom-search.png" ] && pass || fail "no screenshot"
