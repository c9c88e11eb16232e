# Every program has a man page, and every option its --help lists appears
# in that page, so the two cannot drift apart. Also: --version works, and
# the programs with completions produce scripts that bash, zsh and fish
# accept (bash -n, zsh -n, fish --no-execute).
programs=$(cd "$FG_BIN" && ls flamegraph flamegraph-* 2>/dev/null | grep -v '\.' || true)
[ -n "$programs" ] || fail "no programs found in $FG_BIN"
for prog in $programs; do
	page="$FG_SRC/man/$prog.1"
	if [ ! -f "$page" ]; then
		fail "$prog has no man page (man/$prog.1)"
		continue
	fi
	check_exit "$prog --version" 0 "$prog" --version
	check_contains "$prog --version" out "^$prog [0-9]+\.[0-9]+"
	check_exit "$prog --help" 0 "$prog" --help
	# man pages write dashes as \- ; compare without them
	sed 's/\\-/-/g; s/\\f[BIRP]//g' "$page" > page.txt
	for opt in $(grep -oE -- '--[a-z][a-z0-9-]+' out | sort -u); do
		case $opt in --help|--version|--completions) continue ;; esac
		if grep -q -- "$opt" page.txt; then pass; else
			fail "$prog: $opt is in --help but not in man/$prog.1"
		fi
	done
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
