# Runs every collapse case of $FG_SHARED/conformance/cases.tsv through the
# programs: kind (collapse-perf|dtrace|guess), input, option ("-" for
# none), expected output, comparison rule (exact, or strip-quotes: drop '
# and " from our lines first, as stackcollapse-perf.pl does).
# Each case also runs with -n 1 and -n 4, which must give the same bytes.
cases="$FG_SHARED/conformance/cases.tsv"
conf="$FG_SHARED/conformance"
total=0
passed=0
while IFS=$'\t' read -r kind input opt expected rule; do
	case $kind in collapse-*) ;; *) continue ;; esac
	total=$((total + 1))
	args=()
	[ "$opt" != "-" ] && args+=("--$opt")
	name="$kind $input ${opt}"
	if ! "flamegraph-$kind" -n 1 "${args[@]}" "$conf/$input" > got1 2> err1; then
		fail "$name: exit $? — $(head -3 err1)"
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
	if cmp -s "$conf/$expected" cmp.txt; then
		passed=$((passed + 1))
		pass
	else
		fail "$name: output differs from $expected"
		diff "$conf/$expected" cmp.txt | head -6 | cut -c1-200 >&2 || true
	fi
done < "$cases"
echo "collapse conformance: $passed of $total cases passed"
check_eq "collapse cases found" 102 "$total"
