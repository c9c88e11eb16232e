# Runs every case of diff-cases.tsv through flamegraph-diff-folded and
# compares the output with inferno-diff-folded's, as sorted lines.
cases=$FG_SHARED/conformance/diff-cases.tsv
conf=$FG_SHARED/conformance
total=0 same=0
while IFS=$'\t' read -r before after flags expected; do
	case $before in '#'*|'') continue ;; esac
	total=$((total + 1))
	fl=()
	[ "$flags" != "-" ] && read -r -a fl <<<"$flags"
	check_exit "diff case $total ($flags) exit" 0 \
		flamegraph-diff-folded "${fl[@]}" "$conf/$before" "$conf/$after"
	sort out >"got$total"
	sort "$conf/$expected" >"want$total"
	if cmp -s "want$total" "got$total"; then
		same=$((same + 1)); pass
	else
		fail "diff case $total ($before $after $flags) differs from $expected"
		diff "want$total" "got$total" | head -10 >&2
	fi
done <"$cases"
echo "diff cases: $same of $total identical"
[ "$total" -ge 4 ] && pass || fail "only $total diff cases found"

# A malformed line is skipped with one warning naming where it is.
check_exit "bad line exit" 0 flamegraph-diff-folded \
	"$conf/inferno/diff-folded/bad_before.txt" "$conf/inferno/diff-folded/after.txt"
check_contains "bad line warning" err "warning: skipped 1 lines without a sample count .*bad_before.txt:3"
check_eq "one warning per kind" 1 "$(grep -c warning err)"
