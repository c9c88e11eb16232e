# SVG injection suite: frame names and label options carrying markup,
# CDATA terminators, entities, quotes, every control byte and invalid
# UTF-8 must give a well-formed SVG (python's parser and xmllint) with
# exactly one <script> (ours), only the renderer's own elements and
# attributes, and the names back intact (invalid bytes and control
# characters become U+FFFD). Also through flamegraph-diff-folded.

cat >hostile.py <<'EOT'
import sys
names = [
    b"<script>alert(1)</script>", b"]]>", b"x]]>y<![CDATA[z", b"&amp;&lt;&#x41;&",
    b"say \"hi\" it's", b"</title><g onload=\"alert(2)\">", b"</text></g><script>",
    b"javascript:alert(3)", b"<!-- a -- b -->", b"<?xml version='1.0'?>",
    b"<a xlink:href=\"javascript:alert(4)\">x</a>", b"fill=\"red\" onclick=\"x()\"",
    b"\xc0\xaf overlong /", b"\xe0\x80\xaf overlong 3", b"\xf0\x80\x80\xaf overlong 4",
    b"\xed\xa0\x80 surrogate", b"\xed\xbf\xbf low surrogate", b"\xe2\x82 truncated",
    b"\xf0\x9f\x98 truncated 4", b"\x80 lone continuation", b"\xf5\x80\x80\x80 past U+10FFFF",
    b"\xff\xfe bom-ish", b"\xef\xbf\xbe U+FFFE", b"ok \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
]
# every control byte but the line break (which ends a folded line)
names += [b"ctl" + bytes([c]) + b"end" for c in range(0x20) if c != 0x0a]
names += [b"del\x7fend"]
out = open(sys.argv[1], "wb")
for i, n in enumerate(names):
    # ';' separates frames: keep each hostile name one frame
    out.write(b"main;" + n.replace(b";", b",") + b";leaf%d %d\n" % (i, i + 1))
EOT
python3 hostile.py hostile.folded

cat >check.py <<'EOT'
import re, sys
import xml.etree.ElementTree as ET
SVG = "{http://www.w3.org/2000/svg}"
ALLOWED_TAGS = {"svg", "desc", "defs", "linearGradient", "stop", "style", "script",
                "rect", "text", "g", "title"}
ALLOWED_ATTRS = {"version", "width", "height", "onload", "viewBox", "id", "y1", "y2",
                 "x1", "x2", "stop-color", "offset", "type", "x", "y", "fill", "class",
                 "total_samples", "{http://github.com/jonhoo/inferno}x",
                 "{http://github.com/jonhoo/inferno}w"}

def expect(raw):
    """What a name must read back as: invalid UTF-8 and XML-illegal
    characters replaced with U+FFFD, runs of them counted as one."""
    s = raw.decode("utf-8", "replace")
    s = "".join("\ufffd" if (ord(c) < 0x20 and c != "\t") or c in "\x7f\ufffe\uffff" else c
                for c in s)
    return re.sub("\ufffd+", "\ufffd", s)

def norm(s):
    return re.sub("\ufffd+", "\ufffd", s)

svg, names_file = sys.argv[1], sys.argv[2]
root = ET.parse(svg).getroot()
tags = {e.tag.replace(SVG, "") for e in root.iter()}
print("tags ok" if tags <= ALLOWED_TAGS else "BAD TAGS %r" % (tags - ALLOWED_TAGS))
attrs = {a for e in root.iter() for a in e.attrib}
print("attrs ok" if attrs <= ALLOWED_ATTRS else "BAD ATTRS %r" % (attrs - ALLOWED_ATTRS))
print("scripts", len(list(root.iter(SVG + "script"))))
print("onload", sum("onload" in e.attrib for e in root.iter()))
titles = {norm(t.text[:t.text.rfind(" (")]) for t in root.iter(SVG + "title")}
missing = 0
for line in open(names_file, "rb").read().split(b"\n"):
    if not line:
        continue
    # one count, or "before after" for the differential file
    frames = line.rsplit(b" ", 2 if len(sys.argv) > 3 else 1)[0].split(b";")
    name = expect(frames[1])
    if name not in titles:
        missing += 1
        print("MISSING", repr(name))
print("missing", missing)
for key in ("title", "subtitle"):
    el = root.find(".//%stext[@id='%s']" % (SVG, key))
    if el is not None:
        print(key, repr(norm(el.text)))
desc = root.find(SVG + "desc")
if desc is not None:
    print("notes", repr(norm(desc.text)))
EOT

check_exit "render hostile names" 0 flamegraph-render -o hostile.svg hostile.folded
xmllint --noout hostile.svg && pass || fail "hostile.svg: xmllint says not well-formed"
python3 check.py hostile.svg hostile.folded >hostile.check 2>&1 || fail "hostile.svg: python cannot parse it"
check_contains "only our elements" hostile.check "^tags ok$"
check_contains "no attribute from the input" hostile.check "^attrs ok$"
check_contains "exactly one script element" hostile.check "^scripts 1$"
check_contains "only the root's onload" hostile.check "^onload 1$"
check_contains "every name round-trips" hostile.check "^missing 0$"
# the raw markup never appears unescaped
check_not_contains "no raw injected script" hostile.svg "<script>alert"
check_not_contains "no raw injected g" hostile.svg "<g onload"

# The same names as options: titles, notes, count name, name type.
evil='</title><script>alert(5)</script> ]]> & "q" '"'"'s'
ctl=$(printf 'c\001\002\033[31m\177x')
bad=$(printf 'u\300\257\355\240\200\342\202v')
check_exit "hostile options" 0 flamegraph-render -o opts.svg --title "$evil$ctl" \
	--subtitle "$bad$evil" --notes "--> $evil <!-- $ctl" --count-name "$evil" \
	--name-type "$evil</script>$ctl" hostile.folded
xmllint --noout opts.svg && pass || fail "opts.svg: xmllint says not well-formed"
python3 check.py opts.svg hostile.folded >opts.check 2>&1 || fail "opts.svg: python cannot parse it"
check_contains "options: only our elements" opts.check "^tags ok$"
check_contains "options: no attribute from the input" opts.check "^attrs ok$"
check_contains "options: exactly one script element" opts.check "^scripts 1$"
check_contains "options: names still round-trip" opts.check "^missing 0$"
python3 - "$evil" "$ctl" "$bad" >opts.want <<'EOT'
import re, sys
def expect(s):
    s = s.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    s = "".join("\ufffd" if (ord(c) < 0x20 and c != "\t") or c == "\x7f" else c for c in s)
    return re.sub("\ufffd+", "\ufffd", s)
evil, ctl, bad = sys.argv[1:4]
print("title", repr(expect(evil + ctl)))
print("subtitle", repr(expect(bad + evil)))
print("notes", repr(expect("--> " + evil + " <!-- " + ctl)))
EOT
while read -r line; do
	check_contains "options round-trip: ${line%% *}" opts.check "^$(printf '%s' "$line" | sed 's/[][\\.*^$+?(){}|]/\\&/g')\$"
done <opts.want
check_contains "count name escaped in every tooltip" opts.svg "leaf0 \(1 &lt;/title&gt;&lt;script&gt;alert\(5\)"

# Through flamegraph-diff-folded: both profiles hostile, then rendered.
python3 - <<'EOT'
data = open("hostile.folded", "rb").read().split(b"\n")
open("after.folded", "wb").write(b"\n".join(data[::-1]))
EOT
check_exit "diff hostile profiles" 0 flamegraph-diff-folded -o hostile.diff hostile.folded after.folded
check_exit "render the hostile diff" 0 flamegraph-render -o diff.svg hostile.diff
xmllint --noout diff.svg && pass || fail "diff.svg: xmllint says not well-formed"
python3 check.py diff.svg hostile.diff diff >diff.check 2>&1 || fail "diff.svg: python cannot parse it"
check_contains "diff: only our elements" diff.check "^tags ok$"
check_contains "diff: no attribute from the input" diff.check "^attrs ok$"
check_contains "diff: exactly one script element" diff.check "^scripts 1$"
check_contains "diff: every name round-trips" diff.check "^missing 0$"
