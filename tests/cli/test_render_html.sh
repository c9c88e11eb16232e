# flamegraph-render --format html: the page, its failures as the SVG's, a
# usage error for an unknown format, the size against the SVG, and the
# note an SVG of many frames prints.
check_exit "--help names the format" 0 flamegraph-render --help
check_contains "--help: --format svg|html" out "--format FMT"
check_exit "unknown format" 1 flamegraph-render --format png
check_contains "unknown format: the choices" err "svg.*html"

printf '%s\n' "main;parse;read_line 30" "main;x<&\"'</script> 3" "idle 10" >p.folded
check_exit "html" 0 flamegraph-render --format html --hash -o p.html p.folded
check_contains "a page" p.html '^<!DOCTYPE html>$'
check_contains "its viewer" p.html 'window, "flamegraph"'
check_eq "names cannot end an element" 5 "$(grep -o '</script>' p.html | wc -l)"
check_contains "escaped name" p.html 'x\\u003c\\u0026\\u0022\\u0027\\u003c/script\\u003e'
check_not_contains "nothing fetched" p.html ' src=|https?://'
check_exit "html to stdout" 0 flamegraph-render --format html --hash p.folded
cmp -s out p.html && pass || fail "stdout and -o differ"

# no samples: the same status and message as the SVG, a page saying so
: >empty.folded
check_exit "empty svg" 4 flamegraph-render -o empty.svg empty.folded
mv err err.svg
check_exit "empty html" 4 flamegraph-render --format html -o empty.html empty.folded
cmp -s err err.svg && pass || fail "the empty input's message differs: $(cat err) / $(cat err.svg)"
check_contains "the empty page says so" empty.html "no samples"

# 6000 distinct chains ten frames deep: 60 002 frames, each wide enough
awk 'BEGIN { for (i = 0; i < 6000; i++) {
	printf "main"; for (d = 0; d < 10; d++) printf ";f%d_%d", d, i; print " 1" } }' >big.folded
check_exit "big svg" 0 flamegraph-render -o big.svg big.folded
check_contains "many frames: the note" err "note: the SVG holds 60002 frames .*--format html"
check_exit "big html" 0 flamegraph-render --format html -o big.html big.folded
check_not_contains "no note for the page" err "note:"
svg=$(stat -c %s big.svg) html=$(stat -c %s big.html)
echo "60 002 frames: SVG $svg bytes, HTML $html bytes"
[ "$html" -lt $((svg / 5)) ] && pass || fail "the page ($html bytes) is not far smaller than the SVG ($svg)"
check_exit "quiet: no note" 0 flamegraph-render -q -o big.svg big.folded
check_not_contains "quiet: no note" err "note:"

# flamegraph says the same, in its words, of perf script text of those stacks
awk 'BEGIN { for (i = 0; i < 6000; i++) {
	printf "prog 1234 [000] %d.000000: 1 cpu-clock:\n", i + 1
	for (d = 9; d >= 0; d--) printf "\t%x f%d_%d (/bin/prog)\n", 4096 + d, d, i
	printf "\t1000 main (/bin/prog)\n\n" } }' >big.perf.txt
check_exit "flamegraph: big svg" 0 flamegraph --perfdata big.perf.txt -o run.svg
check_contains "flamegraph: the note" err "note: the SVG holds 60003 frames .*--format html"
check_exit "flamegraph --format html" 0 flamegraph --perfdata big.perf.txt --format html
check_contains "flamegraph: the default name" err "wrote flamegraph\.html"
check_not_contains "flamegraph: no note for the page" err "SVG holds"
[ -s flamegraph.html ] && pass || fail "no flamegraph.html"
