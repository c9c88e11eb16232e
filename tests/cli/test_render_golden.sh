# flamegraph-render against frame listings (tests/tools/svg-frames: name,
# fg:x, fg:w) checked by hand once and kept in tests/data/expected/, for
# the options whose meaning came from inferno: --flamechart (time order,
# titled "Flame Chart") and --minwidth in percent of the width.
data=$FG_SRC/tests/data/expected
frames=$FG_SRC/tests/tools/svg-frames

# --flamechart: the stacks in input order, not merged across; the title
check_exit "flamechart" 0 flamegraph-render --flamechart -o fc.svg "$data/fp.folded"
"$frames" fc.svg > fc.frames
check_same_file "flamechart frames" "$data/fp-flamechart.frames" fc.frames
check_contains "flamechart title" fc.svg '<text id="title" x="50%" y="[0-9.]+">Flame Chart</text>'
check_exit "flamechart --title" 0 flamegraph-render --flamechart --title Mine -o fct.svg "$data/fp.folded"
check_contains "flamechart --title wins" fct.svg '<text id="title" [^>]*>Mine</text>'
check_exit "flame graph" 0 flamegraph-render -o fg.svg "$data/fp.folded"
check_contains "default title" fg.svg '<text id="title" [^>]*>Flame Graph</text>'
check_exit "inverted title" 0 flamegraph-render -i -o ic.svg "$data/fp.folded"
check_contains "inverted title" ic.svg '<text id="title" [^>]*>Icicle Graph</text>'

# --minwidth 0.5 (inferno: percent of the width) = --min-width 0.5%
check_exit "minwidth" 0 flamegraph-render --minwidth 0.5 -o mw.svg "$data/threads.folded"
"$frames" mw.svg > mw.frames
check_same_file "minwidth 0.5% frames" "$data/threads-minwidth-0.5pct.frames" mw.frames
check_exit "min-width 0.5%" 0 flamegraph-render --min-width 0.5% -o mw2.svg "$data/threads.folded"
"$frames" mw2.svg > mw2.frames
check_same_file "--min-width 0.5% = --minwidth 0.5" mw.frames mw2.frames
# the same, worked out from the whole graph: every frame of at least 0.5%
# of the root's width, and no other
check_exit "min-width 0" 0 flamegraph-render --min-width 0 -o all.svg "$data/threads.folded"
"$frames" all.svg > all.frames
awk -F'\t' '$1 == "all" { t = $3 } { w[NR] = $3; l[NR] = $0 }
	END { for (i = 1; i <= NR; i++) if (w[i] >= t * 0.005) print l[i] }' all.frames > want.frames
check_same_file "minwidth 0.5%: the frames of at least 0.5%" want.frames mw.frames
[ "$(wc -l < mw.frames)" -lt "$(wc -l < all.frames)" ] && pass ||
	fail "--minwidth 0.5 left out no frame"
# pixels stay pixels: 0.5 px of 1180 px is about 0.042%
check_exit "min-width 0.5 px" 0 flamegraph-render --min-width 0.5 -o px.svg "$data/threads.folded"
"$frames" px.svg > px.frames
[ "$(wc -l < px.frames)" -gt "$(wc -l < mw.frames)" ] && pass ||
	fail "--min-width 0.5 (pixels) left out as many frames as 0.5%"
