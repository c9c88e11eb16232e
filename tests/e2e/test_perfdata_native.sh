# flamegraph-collapse-perf reads perf.data itself: for frame-pointer
# recordings (perf record -g) of examples/callgraph, of a multi-threaded
# program of ours (tests/e2e/perfdata/threads.c: renamed threads, libc,
# system calls) and of a C++ one (tests/e2e/perfdata/templates.cpp:
# demangled template instances, clones, a lambda), the folded stacks of the native reader are those of
# `perf script | flamegraph-collapse-perf` on the same file, under the
# collapse options (--pid and --tid against `perf script -F +pid`, which
# prints the PID the native reader knows; --no-inline against `perf
# script --no-inline`). The share of sample weight with identical stacks
# is printed; it must be at least 99%, and every difference is listed.
# Recordings the reader does not support (dwarf call graphs) go through
# perf script with a note; --perf-script forces that path.
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
cc -O2 -g -fno-omit-frame-pointer -o callgraph "$FG_SRC/examples/callgraph/callgraph.c"
cc -O2 -g -fno-omit-frame-pointer -pthread -o threads "$FG_SRC/tests/e2e/perfdata/threads.c"
if ! perf record -q -F 1999 -g -o cg.data -- ./callgraph 600 >/dev/null 2>record.err; then
	echo "perf cannot record here:"; cat record.err; exit 77
fi
check_exit "record threads" 0 perf record -q -F 1999 -g -o threads.data -- ./threads 600 3
recordings="cg threads"
if command -v c++ >/dev/null; then
	c++ -O2 -g -fno-omit-frame-pointer -o templates "$FG_SRC/tests/e2e/perfdata/templates.cpp"
	check_exit "record templates" 0 perf record -q -F 1999 -g -o cxx.data -- ./templates 400
	recordings="$recordings cxx"
fi

# share PERCENT-OUT EXPECTED ACTUAL: prints the share of EXPECTED's weight
# whose stacks ACTUAL has with the same weight (min of the two per stack)
share() {
	awk 'NR == FNR { w = $NF; sub(/ [^ ]+$/, ""); want[$0] = w; total += w; next }
	     { w = $NF; sub(/ [^ ]+$/, ""); got[$0] = w }
	     END { for (s in want) { g = (s in got) ? got[s] : 0; same += (g < want[s] ? g : want[s]) }
		   printf "%.2f", total ? 100 * same / total : 0 }' "$1" "$2"
}

compare() { # compare NAME RECORDING TEXT-FLAGS -- COLLAPSE-OPTIONS...
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
		"($(perf script -F tid -i "$rec" 2>/dev/null | wc -l) samples," \
		"$(wc -l <"$name.text") stacks)"
	if ! cmp -s "$name.text" "$name.native"; then
		echo "$name: differences (< perf script, > native):"
		diff "$name.text" "$name.native" >"$name.diff" || true
		sed -n 's/^\([<>]\)/    \1/p' "$name.diff" | head -20 || true
	fi
	awk -v p="$pct" 'BEGIN { exit !(p >= 99) }' && pass ||
		fail "$name: only $pct% identical (at least 99% expected)"
}

for rec in $recordings; do
	compare "$rec" "$rec.data" "" --
	compare "$rec-all-addrs" "$rec.data" "" -- --all --addrs
	compare "$rec-pid" "$rec.data" "-F +pid" -- --pid
	compare "$rec-tid-kernel" "$rec.data" "-F +pid" -- --tid --kernel
	compare "$rec-no-inline" "$rec.data" "--no-inline" -- --no-inline
done
check_contains "callgraph: main calls a" cg.native "^callgraph;.*main;a [0-9]+$"
check_contains "threads: renamed threads" threads-tid-kernel.native "^worker-[0-9]-[0-9]+/[0-9]+;"
check_contains "threads: libc frames" threads.native ";start_thread;"
if [ -e cxx.native ]; then
	check_contains "C++: demangled, no return type" cxx.native ";main;work::churn<long>[; ]"
fi

# --perf-script: the text path, whatever the input
check_exit "--perf-script" 0 flamegraph-collapse-perf --perf-script cg.data
check_same_file "--perf-script: perf script's stacks" cg.text out

# dwarf call graphs are not read yet: perf script does it, with a note
check_exit "record dwarf" 0 perf record -q -F 499 --call-graph dwarf,16384 -o dwarf.data -- \
	./callgraph 200
perf script -i dwarf.data 2>/dev/null | flamegraph-collapse-perf >dwarf.text
check_exit "dwarf: falls back" 0 flamegraph-collapse-perf dwarf.data
check_contains "dwarf: a note says why" err "note: .*dwarf call graphs.*perf script"
check_same_file "dwarf: perf script's stacks" dwarf.text out
check_exit "dwarf: -q drops the note" 0 flamegraph-collapse-perf -q dwarf.data
check_not_contains "dwarf: -q" err "note"

# a truncated recording: a clear error, with the offset
head -c 5000 threads.data >cut.data
check_exit "truncated" 1 flamegraph-collapse-perf cut.data
check_contains "truncated: where" err "cut.data: offset [0-9]+: "
rm -f ./*.data
