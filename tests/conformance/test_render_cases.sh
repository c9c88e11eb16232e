# Renders every case of render-cases.tsv with flamegraph-render and compares
# the frames (name, x and width in samples, via svg-frames) with inferno's
# expected SVG; checks the exit code and that every SVG is well-formed.
cases=$FG_SHARED/conformance/render-cases.tsv
conf=$FG_SHARED/conformance
frames=$FG_SHARED/tools/svg-frames
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
done <"$cases"
echo "render cases: $same of $total identical"
[ "$total" -ge 21 ] && pass || fail "only $total render cases found"
