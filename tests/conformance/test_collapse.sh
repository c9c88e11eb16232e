# Runs every collapse case of $FG_SHARED/conformance/cases.tsv and
# cases-more.tsv through the programs: kind (collapse-perf|dtrace|guess|
# sample|vtune|vsprof|ghcprof|xctrace|recursive), input, option ("-" for
# none), expected, comparison rule (exact, or strip-quotes: drop ' and "
# from our lines first, as stackcollapse-perf.pl does). An expected of
# ERROR: the program must exit non-zero with an error on stderr; WARN: exit
# 0 with a warning on stderr. An expected file without a final newline, or
# with CRLF line ends (inferno's Windows-made files), is compared as if it
# had one, with LF.
# Each case also runs with -n 1 and -n 4, which must give the same bytes.
conf="$FG_SHARED/conformance"
total=0
passed=0
run_cases() { # FILE
	local kind input opt expected rule name
	while IFS=$'\t' read -r kind input opt expected rule; do
		case $kind in collapse-*) ;; *) continue ;; esac
		total=$((total + 1))
		args=()
		[ "$opt" != "-" ] && args+=("--$opt")
		name="$kind $input ${opt}"
		got=0
		"flamegraph-$kind" -n 1 "${args[@]}" "$conf/$input" > got1 2> err1 || got=$?
		case $expected in
		ERROR)
			if [ "$got" -ne 0 ] && grep -q "error: " err1; then
				passed=$((passed + 1)); pass
			else
				fail "$name: expected an error, got exit $got: $(head -3 err1)"
			fi
			continue ;;
		WARN)
			if [ "$got" -eq 0 ] && grep -q "warning: " err1; then
				passed=$((passed + 1)); pass
			else
				fail "$name: expected exit 0 and a warning, got exit $got: $(head -3 err1)"
			fi
			continue ;;
		esac
		if [ "$got" -ne 0 ]; then
			fail "$name: exit $got — $(head -3 err1)"
			continue
		fi
		"flamegraph-$kind" -n 4 "${args[@]}" "$conf/$input" > got4 2> err4 ||
			fail "$name -n 4: exit $?"
		cmp -s got1 got4 || fail "$name: -n 1 and -n 4 outputs differ"
		case $rule in
		strip-quotes) tr -d "'\"" < got1 > cmp.txt ;;
		exact) cp got1 cmp.txt ;;
		*) fail "$name: unknown comparison rule '$rule'"; continue ;;
		esac
		tr -d '\r' < "$conf/$expected" > want.txt
		[ -s want.txt ] && [ "$(tail -c1 want.txt | od -An -c | tr -d ' ')" != '\n' ] && echo >> want.txt
		if cmp -s want.txt cmp.txt; then
			passed=$((passed + 1))
			pass
		else
			fail "$name: output differs from $expected"
			diff want.txt cmp.txt | head -6 | cut -c1-200 >&2 || true
		fi
	done < "$1"
}
run_cases "$conf/cases.tsv"
check_eq "cases.tsv: collapse cases found" 102 "$total"
first=$total
run_cases "$conf/cases-more.tsv"
echo "collapse conformance: $passed of $total cases passed"
check_eq "cases-more.tsv: cases found" 37 "$((total - first))"
