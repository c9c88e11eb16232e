# flamegraph-render and flamegraph-diff-folded as a user meets them: help,
# usage errors, stdin, hostile names, empty input, malformed lines, and
# never clobbering an existing file on failure.
check_exit "render --help" 0 flamegraph-render --help
check_contains "help lists --flamechart" out "--flamechart"
check_contains "help lists palettes" out "hot \(default\), mem, io"
check_exit "diff --help" 0 flamegraph-diff-folded --help
check_contains "diff help lists --strip-hex" out "--strip-hex"
check_exit "bad flag" 1 flamegraph-render --no-such-flag
check_contains "bad flag message" err "error: .*no-such-flag"
check_exit "bad palette" 1 flamegraph-render --palette rainbow
check_contains "bad palette names choices" err "hot\|mem"
check_exit "one file to diff" 1 flamegraph-diff-folded only-one.folded
check_contains "diff usage message" err "expected two folded files"

# Hostile names: escaped, intact after parsing, nothing injected.
cat >names.folded <<'EOT'
main;operator<<;a&b 3
main;say "hi";it's 2
main;x]]>y;</script><script>alert(1)</script> 4
main;</title><g onload="alert(2)"> 1
EOT
check_exit "render hostile names" 0 flamegraph-render --title '<T&"x">' -o names.svg names.folded
xmllint --noout names.svg && pass || fail "names.svg is not well-formed"
python3 - names.svg >names.check <<'EOT'
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
names = {t[:t.rfind(" (")] for t in titles}
for want in ["operator<<", "a&b", 'say "hi"', "it's", "x]]>y",
             "</script><script>alert(1)</script>", '</title><g onload="alert(2)">']:
    print("name ok" if want in names else "MISSING " + want)
scripts = list(root.iter("{http://www.w3.org/2000/svg}script"))
print("scripts", len(scripts))
onload = [e for e in root.iter() if "onload" in e.attrib]
print("onload", len(onload))
title = root.find(".//s:text[@id='title']", ns).text
print("title ok" if title == '<T&"x">' else "BAD TITLE " + repr(title))
EOT
check_eq "names intact" 7 "$(grep -c 'name ok' names.check)"
check_contains "one script element only" names.check "^scripts 1$"
check_contains "only the root's onload" names.check "^onload 1$"
check_contains "title intact" names.check "^title ok$"
# No network references: only the namespace URIs may name http(s).
grep -o 'https\?://[^"]*' names.svg | sort -u >urls
check_eq "no network references" "http://github.com/jonhoo/inferno http://www.w3.org/1999/xlink http://www.w3.org/2000/svg" "$(tr '\n' ' ' <urls | sed 's/ $//')"
check_contains "frames carry fg:x/fg:w" names.svg 'fg:x="[0-9]+" fg:w="[0-9]+"'

# stdin, and the same profile split over two files, give the same frames.
head -2 names.folded >part1.folded
tail -2 names.folded >part2.folded
flamegraph-render <names.folded >stdin.svg && pass || fail "render from stdin"
flamegraph-render -o parts.svg part1.folded part2.folded && pass || fail "render two files"
"$FG_SRC/tests/tools/svg-frames" stdin.svg >stdin.frames
"$FG_SRC/tests/tools/svg-frames" parts.svg >parts.frames
check_same_file "two inputs merge like one" stdin.frames parts.frames

# Empty input: an SVG that says so, a clear error, a non-zero exit.
: >empty.folded
check_exit "empty input" 4 flamegraph-render -o empty.svg empty.folded
check_contains "empty message" err "error: no stack samples in the input — "
check_contains "empty SVG written" empty.svg "No valid input"
xmllint --noout empty.svg && pass || fail "empty.svg is not well-formed"

# Malformed lines: skipped, one warning per kind, the graph still drawn.
printf 'a;b 1\nno count\nalso none\n5\na;c 2\n' >bad.folded
check_exit "malformed lines" 0 flamegraph-render -o bad.svg bad.folded
check_eq "one warning per kind" 2 "$(grep -c 'warning: skipped' err)"
check_contains "warning names the place" err "skipped 2 lines without a sample count .*bad.folded:2"
check_contains "good lines drawn" bad.svg "<title>c \(2 samples"

# Failures never clobber an existing output file.
echo precious >keep.svg
check_exit "missing input" 1 flamegraph-render -o keep.svg does-not-exist.folded
check_contains "missing input named" err "does-not-exist.folded"
check_eq "output untouched" precious "$(cat keep.svg)"

# Every option is accepted and the result stays well-formed.
printf 'main;work_[k] 5\nmain;java/lang/Thread.run 3 4\n' >opts.folded
printf 'work\tclass=hot\thref=https://example.invalid/x\ttitle=see docs\n' >attrs.txt
check_exit "all options" 0 flamegraph-render --title T --subtitle S --notes 'n<o>tes' \
	--palette java --hash --bgcolors '#ffeedd' --inverted --reverse --min-width 0 \
	--image-width 800 --frame-height 20 --font-type 'Courier New' --font-size 10 \
	--font-width 0.6 --count-name bytes --name-type 'Fn:' --factor 2 --total 20 \
	--base main --nameattr attrs.txt --negate --palette-map pal.map -o opts.svg opts.folded
xmllint --noout opts.svg && pass || fail "opts.svg is not well-formed"
check_exit "palette map" 0 flamegraph-render --palette-map pal.map -o pal.svg names.folded
check_contains "palette map written" pal.map '^operator<<->rgb\([0-9]+,[0-9]+,[0-9]+\)$'
# a second graph reuses the colours of the first
sed -i 's/^operator<<->.*/operator<<->rgb(1,2,3)/' pal.map
check_exit "palette map reused" 0 flamegraph-render --palette-map pal.map -o pal2.svg names.folded
check_contains "colour from the map" pal2.svg 'operator&lt;&lt; \(3 samples[^<]*</title><rect[^>]*fill="rgb\(1,2,3\)"' 
check_contains "nameattr link" opts.svg '<a class="hot" xlink:href="https://example.invalid/x"'

# each option's effect, against the same graph without it
attrs="$FG_SRC/tests/tools/svg-attrs"
printf 'main;work 5\nmain;java/lang/Thread.run 3\nmain;[k] 2\n' >eff.folded
check_exit "effects: the plain graph" 0 flamegraph-render --hash -o eff.svg eff.folded
check_contains "plain: frames 15 px high (16 with the gap)" eff.svg '<title>main [^<]*</title><rect x="0.0000%" y="53" width="100.0000%" height="15"'
check_exit "--frame-height 20" 0 flamegraph-render --hash --frame-height 20 -o fh.svg eff.folded
check_contains "--frame-height: frames 19 px high, 20 apart" fh.svg '<title>main [^<]*</title><rect x="0.0000%" y="57" width="100.0000%" height="19"'
check_exit "--font-*" 0 flamegraph-render --font-type 'Courier New' --font-size 10 --font-width 0.6 -o font.svg eff.folded
check_contains "--font-type and --font-size: the text style" font.svg 'text \{ font-family: Courier New, sans-serif; font-size: 10.00px; \}'
check_contains "--font-width: label fitting" font.svg 'var fg_fontwidth = 0.6000;'
check_not_contains "plain: not those fonts" eff.svg 'Courier New|font-size: 10.00px'
check_exit "--total 20" 0 flamegraph-render --total 20 -o total.svg eff.folded
check_contains "--total: the scale" total.svg 'total_samples="20"'
check_contains "--total: 10 samples are half the width" total.svg '<title>main \(10 samples[^<]*</title><rect x="0.0000%" y="53" width="50.0000%"'
printf 'main;less 5 1\nmain;more 1 5\n' >diff.folded
check_exit "differential" 0 flamegraph-render -o diff.svg diff.folded
check_exit "--negate" 0 flamegraph-render --negate -o neg.svg diff.folded
check_eq "differential: less blue, more red" "less blue more warm" "$("$attrs" --family diff.svg | awk -F'\t' '$1 == "less" || $1 == "more" { printf "%s%s %s", sep, $1, $3; sep = " " }')"
check_eq "--negate: the colours swapped" "less warm more blue" "$("$attrs" --family neg.svg | awk -F'\t' '$1 == "less" || $1 == "more" { printf "%s%s %s", sep, $1, $3; sep = " " }')"
check_exit "--bgcolors #ffeedd" 0 flamegraph-render --bgcolors '#ffeedd' -o bg.svg eff.folded
check_eq "--bgcolors: the gradient" "background	#ffeedd@5% #ffeedd@95%" "$("$attrs" bg.svg | grep "^background")"
check_exit "--bgcolors blue" 0 flamegraph-render --bgcolors blue -o bgb.svg eff.folded
check_eq "--bgcolors blue" "background	#eeeeee@5% #e0e0ff@95%" "$("$attrs" bgb.svg | grep "^background")"
check_exit "--hash again" 0 flamegraph-render --hash -o eff2.svg eff.folded
check_same_file "--hash: the same colours in every run" <("$attrs" eff.svg) <("$attrs" eff2.svg)
# the palettes: each frame's hue within the palette's, and not hot's colours
hues() { "$attrs" "$1" | python3 -c '
import colorsys, re, sys
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    m = re.fullmatch(r"rgb\((\d+),(\d+),(\d+)\)", f[2]) if len(f) > 2 else None
    if m:
        r, g, b = (int(v) / 255 for v in m.groups())
        print(f[0], round(colorsys.rgb_to_hls(r, g, b)[0] * 360))'; }
for pal in red:345-20 orange:10-45 yellow:40-70 green:75-165 aqua:165-200 blue:200-265 purple:265-330 mem:75-165 io:200-265 wakeup:165-265; do
	name=${pal%%:*} lo=${pal#*:} lo=${lo%-*} hi=${pal##*-}
	check_exit "--palette $name" 0 flamegraph-render --hash --palette "$name" -o "pal-$name.svg" eff.folded
	hues "pal-$name.svg" | awk -v lo="$lo" -v hi="$hi" '{ in_ = lo < hi ? ($2 >= lo && $2 <= hi) : ($2 >= lo || $2 <= hi) } !in_ { print; bad++ } END { exit bad > 0 }' \
		>"pal-$name.bad" && pass || fail "--palette $name: hues outside $lo-$hi: $(head -2 "pal-$name.bad" | tr '\n' ' ')"
done
for name in java js perl rust; do
	check_exit "--palette $name" 0 flamegraph-render --hash --palette "$name" -o "pal-$name.svg" eff.folded
	[ "$("$attrs" "pal-$name.svg")" != "$("$attrs" eff.svg)" ] && pass || fail "--palette $name: the colours of hot"
done
check_eq "--palette java: Java frames green" "green" "$("$attrs" --family pal-java.svg | awk -F'\t' '$1 == "java/lang/Thread.run" { print $3 }')"

check_exit "flamechart" 0 flamegraph-render --flamechart --deterministic -o chart.svg opts.folded
xmllint --noout chart.svg && pass || fail "chart.svg is not well-formed"

# counts of 2^64 and more are rejected with a warning, never wrapped or cut
printf 'a;b 18446744073709551616\na;c 5\nd 99999999999999999999 3\n' > huge.txt
check_exit "huge counts: still renders the rest" 0 flamegraph-render huge.txt -o huge.svg
check_contains "huge counts: warned" err "skipped 2 lines whose count is 2\^64 or more \(first at huge.txt:1\)"
"$FG_SRC/tests/tools/svg-frames" huge.svg > huge.frames
check_contains "huge counts: good stack kept" huge.frames "^c	0	5$"
check_not_contains "huge counts: bad stack dropped" huge.frames "^b	"
# Near 2^64: a 20-digit count below 2^64 is kept exactly; one that takes
# the total to 2^64 is skipped, so the frame widths never wrap around.
printf 'a;b 18446744073709549568\na;c 2048\nd 5\n' > near.txt
check_exit "near 2^64: renders" 0 flamegraph-render near.txt -o near.svg
check_contains "near 2^64: total overflow warned" err "skipped 1 lines whose count takes the total to 2\^64 samples or more \(first at near.txt:2\)"
"$FG_SRC/tests/tools/svg-frames" near.svg > near.frames
check_contains "near 2^64: the big stack is kept" near.frames "^b	0	18446744073709549568$"
check_not_contains "near 2^64: the overflowing stack is dropped" near.frames "^c	"
xmllint --noout near.svg && pass || fail "near.svg is not well-formed"
printf 'a;b 18446744073709549568 18446744073709549568\na;c 0 1\n' > near-diff.txt
check_exit "near 2^64, differential: renders" 0 flamegraph-render near-diff.txt -o near-diff.svg
xmllint --noout near-diff.svg && pass || fail "near-diff.svg is not well-formed"
check_exit "near 2^64: diff-folded" 0 flamegraph-diff-folded -o near.diff near.txt near.txt
check_contains "near 2^64: diff keeps the count" near.diff "^a;b 18446744073709549568 18446744073709549568$"
check_exit "near 2^64: diff-folded --normalize" 0 flamegraph-diff-folded --normalize -o near-n.diff near.txt huge.txt
check_contains "near 2^64: normalised counts stay integers" near-n.diff "^a;c 0 5$"
# Counts are exact end to end: the largest count alone, and sums past 2^53
# (where a double would round 9007199254740993 down).
printf 'a;b 18446744073709551615\n' > max.txt
check_exit "2^64 - 1: renders" 0 flamegraph-render max.txt -o max.svg
check_not_contains "2^64 - 1: no warning" err "skipped"
check_contains "2^64 - 1: the whole count" max.svg "<title>all \(18,446,744,073,709,551,615 samples, 100.00%\)"
check_contains "2^64 - 1: total_samples exact" max.svg 'total_samples="18446744073709551615"'
"$FG_SRC/tests/tools/svg-frames" max.svg > max.frames
check_contains "2^64 - 1: frame width exact" max.frames "^b	0	18446744073709551615$"
printf 'a;b 9007199254740993\na;c 1\n' > past53.txt
check_exit "past 2^53: renders" 0 flamegraph-render past53.txt -o past53.svg
check_contains "past 2^53: total exact" past53.svg "<title>all \(9,007,199,254,740,994 samples"
check_contains "past 2^53: stack exact" past53.svg "<title>b \(9,007,199,254,740,993 samples"
check_exit "past 2^53: diff-folded" 0 flamegraph-diff-folded -o past53.diff past53.txt past53.txt
check_contains "past 2^53: diff exact" past53.diff "^a;b 9007199254740993 9007199254740993$"
# fractional counts still add up (0.5 twice is one sample)
printf 'a;b 0.5\na;b 0.5\na;c 2.25\n' > frac.txt
check_exit "fractions: renders" 0 flamegraph-render frac.txt -o frac.svg
check_contains "fractions: merged then cut to whole samples" frac.svg "<title>all \(3 samples"
# --factor past a double's range, and totals of 2^64 or more: the number,
# with its thousands separators
printf 'a;b 3\na;c 4\n' > small.folded
check_exit "--factor 1e308" 0 flamegraph-render --factor 1e308 -o f308.svg small.folded
check_not_contains "--factor 1e308: not 0 samples" f308.svg "\(0 samples"
check_contains "--factor 1e308: 7e308, grouped" f308.svg "<title>all \(700,000,000,000,000,00[0-9,]* samples"
check_exit "--factor 2 past 2^64" 0 flamegraph-render --factor 2 -o f2.svg max.txt
check_contains "--factor 2 past 2^64: grouped" f2.svg "<title>all \(36,893,488,147,419,103,230 samples"
# write errors say why
check_exit "-o /dev/full" 1 flamegraph-render -o /dev/full small.folded
check_contains "-o /dev/full: says why" err "No space left on device"
check_exit "> /dev/full" 1 sh -c 'flamegraph-render small.folded > /dev/full'
check_contains "> /dev/full: says why" err "No space left on device"
check_exit "diff-folded > /dev/full" 1 sh -c 'flamegraph-diff-folded small.folded small.folded > /dev/full'
check_contains "diff-folded > /dev/full: says why" err "No space left on device"

# A stack that is not drawn (differential, nothing after) between two that
# are: what the drawn ones share is the least of what each sorted stack
# shares with the one before it, so a;x;z parts from a;b;c after "a;".
printf 'a;b;c 1 1\na;x 2 0\na;x;z 0 1\n' >skip.folded
check_exit "render a stack between that is not drawn" 0 flamegraph-render -o skip.svg skip.folded
"$FG_SRC/tests/tools/svg-frames" skip.svg >skip.frames || fail "svg-frames failed on skip.svg"
printf 'a\t0\t2\nall\t0\t2\nb\t0\t1\nc\t0\t1\nx\t1\t1\nz\t1\t1\n' >skip.expected
diff skip.expected skip.frames && pass || fail "frames of skip.svg differ (above)"
