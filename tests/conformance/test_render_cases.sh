# Renders every case of render-cases.tsv with flamegraph-render and compares
# the frames (name, x and width in samples, via svg-frames) with inferno's
# expected SVG, then what each case's options are about (background,
# frame attributes, colour families, stable colours: tests/tools/svg-attrs);
# checks the exit code and that every SVG is well-formed.
cases=$FG_SHARED/conformance/render-cases.tsv
conf=$FG_SHARED/conformance
frames=$FG_SHARED/tools/svg-frames
attrs=$FG_SRC/tests/tools/svg-attrs
total=0 same=0 n=0
while IFS=$'\t' read -r inputs flags expected want; do
	case $inputs in '#'*|'') continue ;; esac
	n=$((n + 1))
	total=$((total + 1))
	args=()
	IFS=',' read -r -a files <<<"$inputs"
	for f in "${files[@]}"; do args+=("$conf/$f"); done
	if [ "$flags" != "-" ]; then
		read -r -a fl <<<"$flags"
		for ((k = 0; k < ${#fl[@]}; k++)); do
			case ${fl[k]} in
			--palette-map)
				# the map is written back: work on a copy, never the shared file
				k=$((k + 1)); cp "$conf/${fl[k]}" "case$n.map"
				args+=(--palette-map "case$n.map") ;;
			--nameattr)
				k=$((k + 1)); args+=(--nameattr "$conf/${fl[k]}") ;;
			*) args+=("${fl[k]}") ;;
			esac
		done
	fi
	got=0
	flamegraph-render -o "case$n.svg" "${args[@]}" 2>"case$n.err" || got=$?
	if [ "$want" = 0 ]; then
		check_eq "case $n ($flags) exit" 0 "$got"
	else
		[ "$got" -ne 0 ] && pass || fail "case $n: exit 0, expected an error"
		check_contains "case $n error message" "case$n.err" "error: .*no stack samples"
		check_contains "case $n SVG says so" "case$n.svg" "No valid input"
	fi
	if ! xmllint --noout "case$n.svg" 2>"case$n.xml"; then
		fail "case $n: case$n.svg is not well-formed: $(head -3 "case$n.xml")"
		continue
	fi
	"$frames" "$conf/$expected" >"case$n.want" 2>/dev/null || true
	if [ -s "case$n.want" ] || grep -q '<g' "case$n.svg"; then
		"$frames" "case$n.svg" >"case$n.got" || { fail "case $n: svg-frames failed"; continue; }
	else
		: >"case$n.got"
	fi
	if cmp -s "case$n.want" "case$n.got"; then
		same=$((same + 1)); pass
	else
		fail "case $n ($inputs $flags): frames differ from $expected"
		diff "case$n.want" "case$n.got" | head -10 >&2
	fi
	[ "$want" = 0 ] || continue
	# differential titles: each frame's count, share and change as inferno
	# words them, a change below one percent with its sign (the root's
	# share is worded "100%" there, "100.00%" here, as in flamegraph.pl)
	if grep -q '%; ' "$conf/$expected"; then
		check_same_file "case $n ($flags): titles" \
			<(grep -o '<title>[^<]*</title>' "$conf/$expected" | grep -v '^<title>all ' | sort) \
			<(grep -o '<title>[^<]*</title>' "case$n.svg" | grep -v '^<title>all ' | sort)
	fi
	# what the options are about: the background (--bgcolors), each
	# frame's attributes (--nameattr) and colour family (--negate swaps
	# red and blue, --palette picks the hues; frames the reference leaves
	# grey or near white are shaded differently by each renderer)
	"$attrs" --family "$conf/$expected" >"case$n.awant"
	"$attrs" --family "case$n.svg" >"case$n.agot"
	check_eq "case $n ($flags): background" "$(grep '^background' "case$n.awant")" "$(grep '^background' "case$n.agot")"
	check_same_file "case $n ($flags): frame attributes" <(cut -f1,2,4 "case$n.awant") <(cut -f1,2,4 "case$n.agot")
	paste "case$n.awant" "case$n.agot" | awk -F'\t' '$1 != "background" && $3 != "grey" && ($1 != $5 || $2 != $6 || $3 != $7) { print; bad++ } END { exit bad > 0 }' \
		>"case$n.afam" && pass || { fail "case $n ($flags): colour families differ from $expected"; head -5 "case$n.afam" >&2; }
	# --hash, --deterministic: one colour per name, the same in every run
	case " $flags " in *" --hash "*|*" --deterministic "*)
		flamegraph-render -o "case$n.again.svg" "${args[@]}" 2>/dev/null || true
		"$attrs" "case$n.svg" >"case$n.fills"
		check_same_file "case $n ($flags): the same colours again" "case$n.fills" <("$attrs" "case$n.again.svg")
		check_eq "case $n ($flags): one colour per name" "" \
			"$(grep -v '^background' "case$n.fills" | cut -f1,3 | sort -u | cut -f1 | uniq -d | head -3)"
		;;
	esac
done <"$cases"
echo "render cases: $same of $total identical"
[ "$total" -ge 21 ] && pass || fail "only $total render cases found"
