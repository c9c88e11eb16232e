# The HTML viewer (flamegraph-render --format html) in a real browser:
# Debian's headless Chromium, driven through playwright-core
# (tests/browser/viewer.js), searches, zooms and goes back, switches to
# the icicle, the table and the sandwich, reloads from the URL fragment,
# opens a differential graph and a flame chart, and makes no network
# request. Its state is read from window.flamegraph.
# ctest: LABELS browser
# ctest: RUN_SERIAL
. "$FG_SRC/tests/lib/browser.sh"
require_browser || return
printf '%s\n' "main;parse;read_line 30" "main;parse;tokenize;util 20" "main;render;draw;util;b 25" \
	"main;render;layout 15" "idle 10" >profile.folded
check_exit "render html" 0 flamegraph-render --format html --hash --title "Viewer test" -o graph.html profile.folded
printf '%s\n' "a;rec;rec;rec 6" "a;x 4" >rec.folded
check_exit "render recursive" 0 flamegraph-render --format html -o rec.html rec.folded
printf '%s\n' "main;parse;read_line 10" "main;render;layout 30" "idle 10" >before.folded
printf '%s\n' "main;parse;read_line 30" "main;render;layout 15" "idle 10" >after.folded
check_exit "diff" 0 flamegraph-diff-folded before.folded after.folded
mv out diff.folded
check_exit "render differential" 0 flamegraph-render --format html -o diff.html diff.folded
printf '%s\n' "main;a 10" "main;b 10" "main;a 10" >chart.folded
check_exit "render chart" 0 flamegraph-render --format html --flamechart -o chart.html chart.folded
if node "$browser/viewer.js" "$PWD" "$PWD/chromium-profile" >browser.log 2>&1; then
	pass
else
	fail "viewer checks failed"
fi
cat browser.log
check_not_contains "every viewer check passed" browser.log "^FAIL"
check_contains "the checks ran" browser.log "^ok   no request but the pages themselves"
