# flamegraph's graph options, each checked by its effect on the SVG (not
# just by --help): --subtitle, --notes, --deterministic, -i/--inverted,
# --reverse, --flamechart, --min-width, --image-width, --palette.
# One recording is kept with --perfdata-out and re-rendered per option.
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
require_perf
cc -O2 -g -fno-omit-frame-pointer -o callgraph "$FG_SRC/examples/callgraph/callgraph.c"

# NAME<TAB>Y<TAB>FILL for each frame of an SVG, in file order
frames() {
	sed -n 's/^<[ga][^>]*><title>\(.*\) ([^()]*)<\/title><rect x="[^"]*" y="\([0-9.-]*\)".* fill="\([^"]*\)".*/\1\t\2\t\3/p' "$1"
}
# the y of the first frame named $2
y_of() { frames "$1" | awk -F'\t' -v n="$2" '$1 == n { print $2; exit }'; }
# the fill of the first frame named $2
fill_of() { frames "$1" | awk -F'\t' -v n="$2" '$1 == n { print $3; exit }'; }
# the names of the frames one level above the root "all" (flame graphs grow
# upwards: y = all's y - frame height), sorted and unique
above_root() {
	frames "$1" | awk -F'\t' '$1 == "all" { ry = $2 } { n[NR] = $1; y[NR] = $2 }
		END { for (i = 1; i <= NR; i++) if (y[i] == ry - 16) print n[i] }' | sort -u
}

# (397 Hz: a period that is no multiple of callgraph's 1 ms round of a and b,
# whose samples would otherwise land in the same phase for long stretches)
check_exit "record once" 0 flamegraph --perfdata-out kept.data --folded kept.folded -o default.svg -F 397 -- ./callgraph 500
[ -s kept.data ] && pass || fail "--perfdata-out did not keep kept.data"
check_contains "recording has main;outer;a" kept.folded "main;outer;a [0-9]+$"
check_contains "recording has main;outer;b" kept.folded "main;outer;b [0-9]+$"
"$FG_SRC/tests/tools/svg-frames" default.svg > default.frames
check_eq "default: one frame per function on the path" "1" "$(grep -c "^outer	" default.frames)"
above_root default.svg > default.above
check_contains "default: the process is above the root" default.above "^callgraph$"
check_not_contains "default: no leaf above the root" default.above "^(a|b)$"

# --subtitle: a text element of its own under the title
check_exit "--subtitle" 0 flamegraph --perfdata kept.data --subtitle "Sub <line> & more" -o subtitle.svg
check_contains "--subtitle: the text, escaped" subtitle.svg '<text id="subtitle"[^>]*>Sub &lt;line&gt; &amp; more</text>'
check_not_contains "default: no subtitle" default.svg 'id="subtitle"'

# --notes: in the <desc id="notes"> element, escaped
check_exit "--notes" 0 flamegraph --perfdata kept.data --notes 'run 42: "fast" <path> & co' -o notes.svg
check_contains "--notes in desc" notes.svg '<desc id="notes">run 42: &quot;fast&quot; &lt;path&gt; &amp; co</desc>'
check_not_contains "default: no notes" default.svg '<desc id="notes">'

# --deterministic: the same function gets the same fill in two renders, and
# in one render every frame of a name has one colour (--reverse repeats
# main once per stack; random colours would differ)
check_exit "--deterministic 1" 0 flamegraph --perfdata kept.data --deterministic -o det1.svg
sleep 1.1 # a new second: a time-seeded colour would change
check_exit "--deterministic 2" 0 flamegraph --perfdata kept.data --deterministic -o det2.svg
c1=$(fill_of det1.svg outer)
c2=$(fill_of det2.svg outer)
[ -n "$c1" ] && pass || fail "--deterministic: no fill found for outer in det1.svg"
check_eq "--deterministic: outer has the same fill in both renders" "$c1" "$c2"
check_eq "--deterministic: every frame's fill is the same in both renders" \
	"$(frames det1.svg | cut -f1,3 | sort)" "$(frames det2.svg | cut -f1,3 | sort)"
check_exit "--deterministic --reverse" 0 flamegraph --perfdata kept.data --deterministic --reverse -o detrev.svg
check_exit "--reverse (random colours)" 0 flamegraph --perfdata kept.data --reverse -o rev.svg
n_main=$(frames detrev.svg | awk -F'\t' '$1 == "main"' | wc -l)
[ "$n_main" -ge 2 ] && pass || fail "--reverse: main should appear once per stack, got $n_main frames"
check_eq "--deterministic: one fill for all main frames" "1" \
	"$(frames detrev.svg | awk -F'\t' '$1 == "main" { print $3 }' | sort -u | wc -l)"
check_eq "--deterministic: main's fill is the same as in the unreversed graph" \
	"$(fill_of det1.svg main)" "$(fill_of detrev.svg main)"
# the control: without --deterministic the main frames are coloured at random
[ "$(frames rev.svg | awk -F'\t' '$1 == "main" { print $3 }' | sort -u | wc -l)" -gt 1 ] && pass ||
	fail "without --deterministic the main frames of rev.svg all have one colour: the control cannot tell"

# -i/--inverted: an icicle graph: the root at the top (smallest y, every
# other frame below it), the script told so, the default title says so
check_exit "-i" 0 flamegraph --perfdata kept.data -i -o icicle.svg
check_exit "--inverted" 0 flamegraph --perfdata kept.data --inverted -o icicle2.svg
check_same_file "-i and --inverted: same frames" <("$FG_SRC/tests/tools/svg-frames" icicle.svg) <("$FG_SRC/tests/tools/svg-frames" icicle2.svg)
check_contains "-i: the script knows" icicle.svg "var fg_inverted = true;"
check_contains "default: not inverted" default.svg "var fg_inverted = false;"
check_contains "-i: default title" icicle.svg '<text id="title"[^>]*>Icicle Graph</text>'
check_contains "default: flame graph title" default.svg '<text id="title"[^>]*>Flame Graph</text>'
ry=$(y_of icicle.svg all)
cy=$(y_of icicle.svg callgraph)
dy=$(y_of default.svg all)
dcy=$(y_of default.svg callgraph)
[ -n "$ry" ] && [ -n "$cy" ] && [ "$ry" -lt "$cy" ] && pass ||
	fail "-i: the root (y=$ry) should be above its child (y=$cy)"
[ -n "$dy" ] && [ -n "$dcy" ] && [ "$dy" -gt "$dcy" ] && pass ||
	fail "default: the root (y=$dy) should be below its child (y=$dcy)"
check_eq "-i: the root is the topmost frame" "$ry" \
	"$(frames icicle.svg | cut -f2 | sort -n | head -1)"
check_same_file "-i: the same frames as the default" default.frames <("$FG_SRC/tests/tools/svg-frames" icicle.svg)

# --reverse: the stacks run leaf first, so the leaves sit on the root
above_root rev.svg > rev.above
check_contains "--reverse: a is above the root" rev.above "^a$"
check_contains "--reverse: b is above the root" rev.above "^b$"
check_not_contains "--reverse: the process is not above the root" rev.above "^callgraph$"
"$FG_SRC/tests/tools/svg-frames" rev.svg > rev.frames
[ "$(grep -c "^callgraph	" rev.frames)" -ge 2 ] && pass ||
	fail "--reverse: the process frame should be a leaf once per stack"
check_eq "--reverse: the same total" "$(grep "^all	" default.frames)" "$(grep "^all	" rev.frames)"

# --flamechart: x is time and stacks are not merged, so a and b (which
# alternate in time) each get many frames where the graph has one
check_exit "--flamechart" 0 flamegraph --perfdata kept.data --flamechart -o chart.svg
"$FG_SRC/tests/tools/svg-frames" chart.svg > chart.frames
n_a=$(grep -c "^a	" chart.frames || true)
[ "$n_a" -gt 1 ] && pass || fail "--flamechart: a should have several frames (time order), got $n_a"
check_eq "--flamechart: the same total" "$(grep "^all	" default.frames)" "$(grep "^all	" chart.frames)"
# the folded stacks come in time order too: a and b alternate
check_exit "--flamechart --folded" 0 flamegraph --perfdata kept.data --flamechart -o chart2.svg --folded chart.folded
[ "$(grep -c ';a ' chart.folded)" -gt 1 ] && [ "$(grep -c ';b ' chart.folded)" -gt 1 ] && pass ||
	fail "--flamechart --folded: stacks merged ($(wc -l < chart.folded) lines)"

# --min-width: a value between the widths of b and a (a does twice b's
# work, but at these few samples their shares move, even past each other:
# measured in this recording) drops the narrower and everything narrower,
# keeps the wider
read -r narrow wide minw < <(awk -F'\t' '$1 == "a" && $3 > a { a = $3 } $1 == "b" && $3 > b { b = $3 } $3 > t { t = $3 }
	END { printf "%s %s %d\n", a < b ? "a" : "b", a < b ? "b" : "a", t ? (a + b) / 2 / t * 1180 : 500 }' default.frames)
echo "--min-width $minw (between the widths of $narrow and $wide in pixels)"
check_exit "--min-width between b and a" 0 flamegraph --perfdata kept.data --min-width "$minw" -o minw.svg
"$FG_SRC/tests/tools/svg-frames" minw.svg > minw.frames
check_contains "default: b drawn" default.frames "^b	"
check_not_contains "--min-width: $narrow dropped" minw.frames "^$narrow	"
check_contains "--min-width: $wide kept" minw.frames "^$wide	"
[ "$(wc -l < minw.frames)" -lt "$(wc -l < default.frames)" ] && pass ||
	fail "--min-width $minw: $(wc -l < minw.frames) frames, not fewer than the default's $(wc -l < default.frames)"

# --image-width: the svg's width and viewBox, the frames' area inside
check_exit "--image-width 800" 0 flamegraph --perfdata kept.data --image-width 800 -o w800.svg
check_contains "--image-width: svg width" w800.svg '^<svg version="1.1" width="800" height="[0-9]+" onload="init\(evt\)" viewBox="0 0 800 '
check_contains "--image-width: frames area" w800.svg '<svg id="frames" x="10" width="780"'
check_contains "default: width 1200" default.svg '^<svg version="1.1" width="1200" '
check_not_contains "default: not 800 wide" default.svg 'width="800"'

# --palette blue: every frame is blue (r = g in 80..140, b in 205..255);
# the default hot palette has none of those
check_exit "--palette blue" 0 flamegraph --perfdata kept.data --palette blue -o blue.svg
is_blue='{ split($3, c, /[(),]/); if (!(c[2] == c[3] && c[2] >= 80 && c[2] <= 140 && c[4] >= 205 && c[4] <= 255)) bad++; n++ }
	END { print (n > 0 && bad == 0) ? "all blue" : (bad == n ? "none blue" : "mixed " bad "/" n) }'
check_eq "--palette blue: all frames blue" "all blue" "$(frames blue.svg | awk -F'\t' "$is_blue")"
check_eq "default palette: no frame blue" "none blue" "$(frames default.svg | awk -F'\t' "$is_blue")"
check_exit "--palette unknown" 1 flamegraph --perfdata kept.data --palette nosuch -o bad.svg
check_contains "--palette unknown: names the option and the choices" err "error: --palette: 'nosuch' is not one of hot\\|.*blue"
[ ! -e bad.svg ] && pass || fail "--palette unknown still wrote bad.svg"

# every SVG written is well-formed XML
if command -v xmllint >/dev/null; then
	for svg in *.svg; do
		xmllint --noout "$svg" 2> xmllint.err && pass || { fail "$svg is not well-formed"; head -5 xmllint.err >&2; }
	done
else
	echo "xmllint not installed: well-formedness not checked" >&2
fi
