# The documentation agrees with the programs and the code
# (tests/tools/check-docs): every program has a man page whose option
# entries are exactly the options its --help lists (short forms and
# stated defaults the same), whose EXIT STATUS lists exactly the statuses
# of its --help, each the value of an FG_EXIT_* constant; and the relative
# links of README.md, CONTRIBUTING.md and docs/ name files that exist and
# anchors that a heading makes. Also: --version works, every flag --help
# names appears in the man page, and the programs with completions produce
# scripts that bash, zsh and fish accept (bash -n, zsh -n, fish --no-execute).
docs=$FG_SRC/tests/tools/check-docs

# check_docs WHAT ROOT BIN: check-docs passes on ROOT and BIN; each of its
# violations is a failure of its own
check_docs() {
	local rc=0 line
	bash "$docs" "$2" "$3" >out 2>err || rc=$?
	if [ $rc = 0 ]; then
		check_contains "$1: check-docs says what it checked" out '^no violation \(programs: [1-9][0-9]*, documents: [1-9][0-9]*, relative links: [0-9]+\)$'
		return 0
	fi
	while IFS= read -r line; do fail "$1: $line"; done <out
	[ ! -s err ] || fail "$1: check-docs (exit $rc): $(head -3 err)"
	[ -s out ] || [ -s err ] || fail "$1: check-docs exit $rc and said nothing"
}
check_docs "the documentation" "$FG_SRC" "$FG_BIN"

programs=$(cd "$FG_BIN" && ls flamegraph flamegraph-* 2>/dev/null | grep -v '\.' || true)
[ -n "$programs" ] || fail "no programs found in $FG_BIN"
for prog in $programs; do
	page="$FG_SRC/man/$prog.1"
	[ -f "$page" ] || continue # check-docs said so
	check_exit "$prog --version" 0 "$prog" --version
	check_contains "$prog --version" out "^$prog [0-9]+\.[0-9]+"
	check_exit "$prog --help" 0 "$prog" --help
	# any flag the text of --help names (its own, or another tool's it
	# speaks of) is in the page; man pages write dashes as \-
	sed 's/\\-/-/g; s/\\f[BIRP]//g' "$page" > page.txt
	grep -oE -- '--[a-z][a-z0-9-]+' out | sort -u > named.txt
	grep -oF -f named.txt page.txt | sort -u > found.txt || true
	for opt in $(comm -23 named.txt found.txt); do
		fail "$prog: $opt is in --help but not in man/$prog.1"
	done
	pass
	if grep -q -- '--completions' out; then
		check_exit "$prog --completions bash" 0 "$prog" --completions bash
		bash -n out && pass || fail "$prog: bash completion script does not parse"
		check_exit "$prog --completions zsh" 0 "$prog" --completions zsh
		check_contains "$prog zsh completions" out "^#compdef $prog"
		if command -v zsh >/dev/null; then
			zsh -n out 2>zsh.err && pass || fail "$prog: zsh completion script does not parse: $(head -3 zsh.err)"
		else
			fail "zsh not found: install it (scripts/setup) to check the zsh completions"
		fi
		check_exit "$prog --completions fish" 0 "$prog" --completions fish
		check_contains "$prog fish completions" out "complete -c $prog -l output"
		if command -v fish >/dev/null; then
			fish --no-execute out 2>fish.err && pass || fail "$prog: fish completion script does not parse: $(head -3 fish.err)"
		else
			fail "fish not found: install it (scripts/setup) to check the fish completions"
		fi
	fi
done

# --- the checker on a small tree: each kind of disagreement fails, named --------
t=$TMPDIR/fixture
# fixture: a program (its --help a file beside it), its man page, the exit
# codes of the code, a README with links and a document with headings
fixture() {
	rm -rf "$t"
	mkdir -p "$t"/bin "$t"/man "$t"/src/cli "$t"/docs
	printf '#!/bin/sh\n[ "$1" = --help ] && exec cat "$0.help"\nexit 1\n' >"$t"/bin/flamegraph-demo
	chmod +x "$t"/bin/flamegraph-demo
	{
		printf 'Usage: flamegraph-demo [OPTIONS] [FILE...]\n\nOptions:\n'
		printf '%-30s%s\n' '  -o, --output FILE' 'write to FILE (default: stdout)' \
			'  -F, --freq HZ' 'sampling frequency (default 997)' \
			'      --palette NAME' 'colour palette: hot (default), mem or io' \
			'      --fail-above-total PCT' 'exit 6 when the total grew by PCT (default: twice --fail-above)'
		printf '\n%-30s%s\n' '  -h, --help' 'print this help and exit'
		printf '%-30s%s\n' '  -V, --version' 'print the version and exit'
		printf '\nExit status:\n  0 written, 1 usage, unreadable input or out of memory, 4 no\n'
		printf '  samples, 128+N interrupted by signal N\n\nExample:\n  flamegraph-demo -o x.svg\n'
	} >"$t"/bin/flamegraph-demo.help
	cat >"$t"/man/flamegraph-demo.1 <<'MAN'
.TH FLAMEGRAPH-DEMO 1
.SH OPTIONS
.TP
.BR \-o ", " \-\-output " \fIFILE\fR"
Write to \fIFILE\fR instead of standard output.
.TP
\fB\-F\fR, \fB\-\-freq\fR \fIHZ\fR
Sampling frequency (default 997).
.TP
.BI \-\-palette " NAME"
\fBhot\fR (the default), \fBmem\fR or \fBio\fR.
.TP
.BI \-\-fail\-above\-total " PCT"
Fail on the total too. Default: twice \fB\-\-fail\-above\fR.
.TP
.BR \-h ", " \-\-help
.TQ
.BR \-V ", " \-\-version
Print the options, or the version, and exit.
.SH "EXIT STATUS"
0 on success; 1 for a usage error, unreadable input or out of memory
(nothing written); 4 when the input held no samples;
128 + \fIN\fR interrupted by signal \fIN\fR.
MAN
	cat >"$t"/src/cli/diag.h <<'C'
enum { FG_EXIT_OK = 0, FG_EXIT_USAGE = 1, FG_EXIT_NODATA = 4, FG_EXIT_WORKLOAD = 5, FG_EXIT_SIGNAL_BASE = 128 };
C
	cat >"$t"/README.md <<'MD'
# Demo

![a graph](docs/images/graph.png) and [the guide](docs/guide.md#the-first-run--step-by-step),
[options](#options-and-flags), [a folder](docs/) and [the web](https://example.com/x.md#y).

```sh
see [not a link](missing.md)
```

Options and flags
-----------------
MD
	mkdir -p "$t"/docs/images
	: >"$t"/docs/images/graph.png
	printf '# Guide\n\n## The first run — step by step\n\n[back](../README.md#demo)\n' >"$t"/docs/guide.md
}
fixture
check_exit "a clean fixture passes" 0 bash "$docs" "$t" "$t"/bin
check_contains "the clean fixture: what was checked" out '^no violation \(programs: 1, documents: 2, relative links: 5\)$'

# every kind of disagreement at once: each is named, and nothing else
m=$t/man/flamegraph-demo.1
sed -i 's/^\.SH "EXIT STATUS"$/.TP\n.B \\-\\-frobnicate\nFrobnicate.\n&/' "$m"
sed -i 's/^\.BR \\-o ", " \\-\\-output/.BR \\-o ", " \\-\\-outfile/' "$m"
sed -i 's/^\.BR \\-h ", " \\-\\-help/.B \\-\\-help/' "$m"
sed -i 's/(default 997)/(default 99)/' "$m"
sed -i 's/^\\fBhot\\fR (the default), \\fBmem\\fR/\\fBhot\\fR, \\fBmem\\fR (the default)/' "$m"
sed -i 's/ Default: twice \\fB\\-\\-fail\\-above\\fR\.//' "$m"
sed -i 's/ 4 when the input held no samples;/ 5 when the program failed;/' "$m"
sed -i 's/^  samples, 128+N/  samples, 9 odd, 128+N/' "$t"/bin/flamegraph-demo.help
sed -i 's/graph\.png/graf.png/; s/#the-first-run--step-by-step/#the-first-run-step-by-step/; s/(#options-and-flags)/(#Options-and-flags)/' "$t"/README.md
sed -i 's/#demo)/#intro)/' "$t"/docs/guide.md
check_exit "a fixture with every kind of disagreement fails" 1 bash "$docs" "$t" "$t"/bin
man='^man/flamegraph-demo.1:[0-9]+: flamegraph-demo:'
for want in \
	"$man --frobnicate has an entry here, but flamegraph-demo --help does not list it\$" \
	"$man --outfile has an entry here, but flamegraph-demo --help does not list it\$" \
	'^man/flamegraph-demo.1: flamegraph-demo: --help lists --output, which has no entry in the page' \
	"$man --help is -h, --help in --help but long only here\$" \
	"$man the default of --freq is \"99\" here but \"997\" in --help \\(sampling frequency \\(default 997\\)\\)\$" \
	"$man the default of --palette is \"mem\" here but \"hot\" in --help" \
	"$man the entry of --fail-above-total states no default; --help says \"twice\"" \
	"$man exit status 4 is in --help but not in the EXIT STATUS section\$" \
	"$man exit status 5 is in the EXIT STATUS section but not in --help\$" \
	"$man exit status 9 is in --help but not in the EXIT STATUS section\$" \
	'^flamegraph-demo --help: exit status 9 is the value of no FG_EXIT_\* constant \(include/, src/: 0 1 4 5 128\)$' \
	'^README.md:3: the link docs/images/graf.png: there is no docs/images/graf.png$' \
	'^README.md:3: the link docs/guide.md#the-first-run-step-by-step: no heading of docs/guide.md makes the anchor #the-first-run-step-by-step$' \
	'^README.md:4: the link #Options-and-flags: GitHub.s anchors are lowercase: #options-and-flags$' \
	'^docs/guide.md:5: the link ../README.md#intro: no heading of README.md makes the anchor #intro$'; do
	check_contains "the disagreement is named" out "$want"
done
check_eq "one line per disagreement" 15 "$(wc -l <out)"

# no exit list on either side; no man page
fixture
sed -i '/^Exit status:/,/^$/d' "$t"/bin/flamegraph-demo.help
sed -i '/^\.SH "EXIT STATUS"/,$d' "$m"
check_exit "no exit lists fail" 1 bash "$docs" "$t" "$t"/bin
check_contains "no exit list in --help is named" out '^flamegraph-demo --help: no "Exit status:" list$'
check_contains "no EXIT STATUS in the man page is named" out '^man/flamegraph-demo.1: flamegraph-demo: no EXIT STATUS section$'
rm "$m"
check_exit "a program without a man page fails" 1 bash "$docs" "$t" "$t"/bin
check_contains "the missing man page is named" out '^man/flamegraph-demo.1: flamegraph-demo has no man page$'
