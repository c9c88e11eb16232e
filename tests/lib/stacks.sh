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

# perf_names_differ: true when this perf's `perf script` names frames
# otherwise than the native reader, which follows perf up to 6.1: from
# 6.12 on (versions between were not tried; taken as newer) a frame
# without a symbol gets its absolute address instead of its offset in the
# file (--addrs), and a C++ template function keeps its return type
# ("long work::churn<long>").
perf_names_differ() {
	local v
	v=$(perf version 2>/dev/null | sed -n 's/^perf version \([0-9]*\.[0-9]*\).*/\1/p')
	[ -n "$v" ] && awk -v v="$v" 'BEGIN { split(v, p, "."); exit !(p[1] > 6 || (p[1] == 6 && p[2] > 1)) }'
}

# as_reader_names [--addrs] < FOLDED: the stacks with those two
# differences taken out: the return type of a template function dropped
# (the name after the last space outside <> and ()), and with --addrs,
# the address of a frame without a symbol ("[libc.so.6 <29ca8>]"
# becomes "[libc.so.6]"). Applied to both sides of a comparison.
as_reader_names() {
	local addrs=0
	[ "${1:-}" = --addrs ] && addrs=1
	awk -v addrs=$addrs '
	function plain(f,   core, suffix, i, c, depth, cut) {
		if (f ~ /^\[/) {
			if (addrs) sub(/ <[0-9a-f]+>\]/, "]", f)
			return f
		}
		core = f; suffix = ""
		if (match(core, /_\[[a-z]\]$/)) { suffix = substr(core, RSTART); core = substr(core, 1, RSTART - 1) }
		if (core !~ />$/) return f
		depth = 0; cut = 0
		for (i = 1; i <= length(core); i++) {
			c = substr(core, i, 1)
			if (c == "<" || c == "(") depth++
			else if ((c == ">" || c == ")") && depth > 0) depth--
			else if (c == " " && depth == 0) cut = i
		}
		return cut ? substr(core, cut + 1) suffix : f
	}
	{
		w = $NF; stack = $0; sub(/ [^ ]+$/, "", stack)
		n = split(stack, fr, ";"); out = ""
		for (k = 1; k <= n; k++) out = out (k > 1 ? ";" : "") plain(fr[k])
		sum[out] += w
	}
	END { for (s in sum) print s, sum[s] }'
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
	if perf_names_differ; then
		local opt addrs=""
		for opt in "$@"; do [ "$opt" = --addrs ] && addrs=--addrs; done
		as_reader_names $addrs <"$name.text" | LC_ALL=C sort >"$name.text.n" && mv "$name.text.n" "$name.text"
		as_reader_names $addrs <"$name.native" | LC_ALL=C sort >"$name.native.n" && mv "$name.native.n" "$name.native"
	fi
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
