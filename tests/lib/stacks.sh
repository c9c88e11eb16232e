# Helpers of the tests that compare folded stacks (sourced).

# share EXPECTED ACTUAL: prints the share (percent, two decimals) of
# EXPECTED's sample weight that ACTUAL has in the same stacks: per stack
# the smaller of the two weights, summed, over EXPECTED's total.
share() {
	awk 'NR == FNR { w = $NF; sub(/ [^ ]+$/, ""); want[$0] += w; total += w; next }
	     { w = $NF; sub(/ [^ ]+$/, ""); got[$0] += w }
	     END { for (s in want) { g = (s in got) ? got[s] : 0; same += (g < want[s] ? g : want[s]) }
		   printf "%.2f", total ? 100 * same / total : 0 }' "$1" "$2"
}

# compare NAME RECORDING TEXT-FLAGS -- COLLAPSE-OPTIONS...: the native
# reader against `perf script TEXT-FLAGS | flamegraph-collapse-perf` on
# the same RECORDING, both with COLLAPSE-OPTIONS (NAME.text, NAME.native).
# Prints the share of identical sample weight and the differences (through
# show_differences TEXT NATIVE when the test defines one), and asks for at
# least 99%; on failure both sides go to the test artifacts.
compare() {
	local name=$1 rec=$2 script_flags=$3 pct
	shift 4
	# shellcheck disable=SC2086
	perf script $script_flags -i "$rec" 2>/dev/null | flamegraph-collapse-perf "$@" >"$name.text" ||
		{ fail "$name: perf script | flamegraph-collapse-perf failed"; return; }
	check_exit "$name: native" 0 flamegraph-collapse-perf "$@" "$rec"
	mv out "$name.native"
	check_not_contains "$name: read natively (no note)" err "perf script"
	[ -s "$name.text" ] && pass || fail "$name: no stacks from perf script"
	pct=$(share "$name.text" "$name.native")
	echo "$name: identical stacks for $pct% of the sample weight" \
		"($(perf script -F tid -G -i "$rec" 2>/dev/null | wc -l) samples," \
		"$(wc -l <"$name.text") stacks from perf script, $(wc -l <"$name.native") native)"
	if ! cmp -s "$name.text" "$name.native"; then
		echo "$name: differences (< perf script, > native):"
		if declare -F show_differences >/dev/null; then
			show_differences "$name.text" "$name.native"
		else
			diff "$name.text" "$name.native" >"$name.diff" || true
			sed -n 's/^\([<>]\)/    \1/p' "$name.diff" | head -20 || true
		fi
	fi
	if awk -v p="$pct" 'BEGIN { exit !(p >= 99) }'; then
		pass
	else
		fail "$name: only $pct% identical (at least 99% expected)"
		mkdir -p "$FG_ARTIFACTS/perfdata-compare"
		cp "$name.text" "$name.native" "$FG_ARTIFACTS/perfdata-compare/" 2>/dev/null || true
	fi
}

# thread_start_frame: the frame a thread's stack starts with in libc, as a
# regular expression: start_thread where the C library's symbols name it
# (its own symbol table, or a separate debug file such as libc6-dbg's);
# else the library itself, as for any frame without a symbol ("[libc.so.6]":
# Debian 13's libc keeps only its exported symbols).
thread_start_frame() {
	local libc id debug syms
	libc=$(ldd /bin/sh | awk '/libc\.so/ { print $3; exit }')
	# (whole outputs read: grep -q would end the pipe early, a failure
	# under pipefail)
	syms=$(readelf -sW "$libc" 2>/dev/null || true)
	id=$(readelf -nW "$libc" 2>/dev/null | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1)
	debug=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	if [ -n "$id" ] && [ -r "$debug" ]; then
		syms="$syms
$(readelf -sW "$debug" 2>/dev/null || true)"
	fi
	case "$syms"$'\n' in
	*" start_thread"$'\n'*) echo start_thread ;;
	*) echo "\\[${libc##*/}\\]" ;;
	esac
}
