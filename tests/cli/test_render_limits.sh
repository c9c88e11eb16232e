# Hostile sizes: a 100 000-frame-deep stack, a 1 MB frame name, and -o
# naming a directory or an input. `timeout` only guards against a hang;
# a deep stack must never recurse.

# 100 000 frames deep, drawn in full; a second deep branch too narrow for
# --min-width (1 sample in 100 001 at 1200 px) is pruned with its children.
python3 - <<'EOT'
deep = ";".join("f%d" % i for i in range(100000))
narrow = ";".join(["f0"] + ["narrow%d" % i for i in range(50000)])
open("deep.folded", "w").write(deep + " 100000\n" + narrow + " 1\n")
EOT
check_exit "deep stack renders" 0 timeout 120 flamegraph-render -o deep.svg deep.folded
xmllint --noout --huge deep.svg && pass || fail "deep.svg is not well-formed"
check_eq "every deep frame drawn, all included" 100001 "$(grep -c '<g><title>' deep.svg)"
check_contains "the leaf is drawn" deep.svg "<title>f99999 \(100,000 samples"
check_not_contains "narrow frames pruned" deep.svg "narrow"
check_exit "deep stack, inverted and reversed" 0 timeout 120 flamegraph-render -i --reverse -o deep-r.svg deep.folded
xmllint --noout --huge deep-r.svg && pass || fail "deep-r.svg is not well-formed"
check_exit "deep stack through diff-folded" 0 timeout 120 flamegraph-diff-folded -o deep.diff deep.folded deep.folded
check_eq "diff keeps both deep stacks" 2 "$(wc -l <deep.diff)"

# A 1 MB frame name: cut to 64 KiB with a marker, one warning, the SVG
# well-formed and the rest of the line (its leaf, its count) kept.
python3 - <<'EOT'
open("name.folded", "w").write("main;" + "N" * (1 << 20) + ";leaf 5\nmain;other 3\n")
EOT
check_exit "1 MB name renders" 0 flamegraph-render -o name.svg name.folded
check_contains "warned once" err "1 frame names longer than 64 KiB, cut to 64 KiB and marked \[\.\.\.\] \(first at name.folded:1\)"
xmllint --noout --huge name.svg && pass || fail "name.svg is not well-formed"
python3 - >name.check <<'EOT'
import xml.etree.ElementTree as ET
root = ET.parse("name.svg").getroot()
titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
cut = [t for t in titles if t.startswith("NNN")]
print("cut", len(cut), len(cut[0].split(" (")[0]) if cut else 0)
print("leaf", any(t.startswith("leaf (5 ") for t in titles))
EOT
check_contains "name cut to 64 KiB plus the marker" name.check "^cut 1 65541$"
check_contains "leaf and count kept" name.check "^leaf True$"

# A 17 MB line: skipped with a warning, the lines around it kept.
{ echo "before 2"; head -c 17825792 /dev/zero | tr '\0' 'x'; echo " 4"; echo "after 1"; } >long.folded
check_exit "17 MB line skipped" 0 flamegraph-render -o long.svg long.folded
check_contains "long line warned" err "skipped 1 lines longer than 16 MiB \(first at long.folded:2\)"
"$FG_SRC/tests/tools/svg-frames" long.svg >long.frames
check_contains "line before kept" long.frames "^before	"
check_contains "line after kept" long.frames "^after	"

# -o naming a directory or one of the inputs: an error that says so, and
# the input left as it was.
printf 'a;b 3\na;c 4\n' >in.folded
cp in.folded in.orig
mkdir outdir
check_exit "-o a directory" 1 flamegraph-render -o outdir in.folded
check_contains "-o a directory: says so" err "outdir is a directory"
check_exit "-o the input" 1 flamegraph-render -o in.folded in.folded
check_contains "-o the input: says so" err "-o in.folded is also an input \(in.folded\)"
check_same_file "-o the input: input untouched" in.orig in.folded
ln -s in.folded link.folded
check_exit "-o a link to the input" 1 flamegraph-render -o link.folded other.folded in.folded
check_same_file "-o a link: input untouched" in.orig in.folded
check_exit "diff -o the input" 1 flamegraph-diff-folded -o in.folded in.orig in.folded
check_contains "diff -o the input: says so" err "is also an input"
check_same_file "diff -o the input: input untouched" in.orig in.folded
check_exit "diff -o a directory" 1 flamegraph-diff-folded -o outdir in.orig in.folded
check_contains "diff -o a directory: says so" err "outdir is a directory"
ls -A outdir >outdir.list
check_eq "nothing left in the directory" "" "$(cat outdir.list)"

# --total and --factor at their extremes: valid XML, no overflow; inf refused.
check_exit "--total 1e300" 0 flamegraph-render --total 1e300 -o total.svg in.folded
xmllint --noout total.svg && pass || fail "total.svg is not well-formed"
check_exit "--factor 1e300" 0 flamegraph-render --factor 1e300 -o factor.svg in.folded
xmllint --noout factor.svg && pass || fail "factor.svg is not well-formed"
check_exit "--total inf refused" 1 flamegraph-render --total inf -o inf.svg in.folded
check_contains "--total inf: says why" err "must be finite"
check_exit "--factor inf refused" 1 flamegraph-render --factor inf -o inf.svg in.folded
