# The spellings of inferno-flamegraph and flamegraph.pl: each alias, run
# through flamegraph-render, draws the same frames (name, fg:x, fg:w: the
# svg-frames listing) as the same graph asked for with our own spelling;
# where an alias changes something besides the frames, that effect is
# checked too. Input: real recordings (tests/data/expected, checked by hand).
frames=$FG_SRC/tests/tools/svg-frames
data=$FG_SRC/tests/data/expected
cat "$data/threads-addrs-kernel.folded" "$data/fp.folded" > in.folded
n=0
# same_frames "ALIAS ARGS" "OUR ARGS"
same_frames() {
	local alias=$1 ours=$2
	n=$((n + 1))
	# shellcheck disable=SC2086
	check_exit "alias $alias" 0 flamegraph-render -o "a$n.svg" $alias in.folded
	# shellcheck disable=SC2086
	check_exit "ours for $alias" 0 flamegraph-render -o "b$n.svg" $ours in.folded
	"$frames" "a$n.svg" > "a$n.frames" || fail "$alias: svg-frames failed"
	"$frames" "b$n.svg" > "b$n.frames" || fail "$ours: svg-frames failed"
	[ -s "a$n.frames" ] || fail "$alias: no frames"
	check_same_file "$alias = $ours: frames" "b$n.frames" "a$n.frames"
}
same_frames "-c java" "--palette java"
same_frames "--colors python" "--palette python"
same_frames "--colors chain" "--palette chain"
same_frames "--width 600" "--image-width 600"
same_frames "--height 20" "--frame-height 20"
same_frames "--minwidth 0.5" "--min-width 0.5%"
same_frames "--minwidth 0.5%" "--min-width 0.5%"
same_frames "--countname bytes" "--count-name bytes"
same_frames "--nametype Func:" "--name-type Func:"
same_frames "--fonttype monospace" "--font-type monospace"
same_frames "--fontsize 14" "--font-size 14"
same_frames "--fontwidth 0.7" "--font-width 0.7"
same_frames "--cp" "--palette-map ours.map"
same_frames "--search-color rgb(125,125,125)" ""
same_frames "--stroke-color #7d7d7d" ""
same_frames "--uicolor red" ""
same_frames "--colordiffusion" ""
same_frames "--no-javascript" ""
same_frames "--encoding ISO-8859-1" ""
same_frames "--no-sort" ""
same_frames "--truncate-text-right" ""
same_frames "--pretty-xml" ""
same_frames "--random" ""
same_frames "-q" ""
same_frames "-v" ""
# inferno's own command line from the report, at once
same_frames "--colors java --width 800 --minwidth 0.5 --countname bytes" \
	"--palette java --image-width 800 --min-width 0.5% --count-name bytes"

# what the aliases do besides the frames
flamegraph-render in.folded > plain.svg
"$frames" plain.svg > plain.frames
cmp -s plain.frames a6.frames && fail "--minwidth 0.5 changed no frame" || pass
check_contains "--width: the image width" a4.svg '<svg version="1.1" width="600"'
check_contains "--countname: the tooltips" a8.svg '<title>[^<]* \([0-9,]+ bytes, '
check_contains "--nametype: the details prefix" a9.svg 'var fg_nametype = "Func:"'
check_contains "--fontsize" a11.svg 'font-size: 14.00px'
[ -s palette.map ] && pass || fail "--cp wrote no palette.map in the current folder"
check_same_file "--cp: the colours of --palette-map" <(cut -d'>' -f1 ours.map) <(cut -d'>' -f1 palette.map)
check_contains "--search-color" a14.svg 'var fg_searchcolor = "rgb\(125,125,125\)"'
check_contains "--stroke-color" a15.svg 'stroke: #7d7d7d; stroke-width: 1'
check_contains "--uicolor" a16.svg '^text \{ fill: red; \}'
check_contains "--colordiffusion: the widest frame deepest" a17.svg 'fill="rgb\(255,100,100\)" fg:x="0" fg:w="'
check_not_contains "--colordiffusion: only reds" a17.svg 'fill="rgb\(([0-9]|[0-9][0-9]|1[0-9][0-9]|2[0-4][0-9]),'
check_not_contains "--no-javascript: no script" a18.svg '<script|onload='
check_contains "--encoding" a19.svg '^<\?xml version="1.0" encoding="ISO-8859-1" standalone="no"\?>'

# -q silences the warning about skipped lines
printf 'main;a 3\nnot a stack\n' > bad.folded
check_exit "bad line warned" 0 flamegraph-render -o w.svg bad.folded
check_contains "bad line warned" err "warning: skipped 1"
check_exit "-q" 0 flamegraph-render -q -o q.svg bad.folded
check_eq "-q: nothing on stderr" "" "$(cat err)"

# bad values get a clear error, no SVG
check_exit "--minwidth abc" 1 flamegraph-render --minwidth abc -o x.svg in.folded
check_contains "--minwidth abc" err "error: --minwidth wants a percentage"
check_exit "--min-width 200%" 1 flamegraph-render --min-width 200% -o x.svg in.folded
check_contains "--min-width 200%" err "error: .*0 to 100"
for bad in 'red;}' 'rgb(300,0,0)' '"x' '#12345'; do
	check_exit "--stroke-color $bad" 1 flamegraph-render --stroke-color "$bad" -o x.svg in.folded
	check_contains "--stroke-color $bad" err "error: unknown colour"
done
check_exit "--encoding bad" 1 flamegraph-render --encoding 'a"b' -o x.svg in.folded
check_contains "--encoding bad" err "error: unknown encoding"
[ -e x.svg ] && fail "an SVG was written for bad options" || pass

# --help lists them apart; the completions offer them
check_exit "--help" 0 flamegraph-render --help
check_contains "--help: aliases section" out "^Aliases \(the spellings of inferno-flamegraph and flamegraph.pl\):"
check_contains "--help: --minwidth" out "--minwidth N += --min-width N%"
check_exit "completions" 0 flamegraph-render --completions bash
check_contains "completions offer --colors" out "--colors"
# flamegraph and flamegraph-build take the shared ones
for prog in flamegraph flamegraph-build; do
	check_exit "$prog --help" 0 $prog --help
	for a in --colors --width --minwidth; do
		check_contains "$prog $a" out "^ +$a "
	done
done
