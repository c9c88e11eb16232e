#!/usr/bin/env bash
# The recorders side by side, at 997 Hz, on lz4's benchmark (lz4 -b1
# -i1, Debian's lz4 source built with frame pointers as
# bench-hybrid.sh builds it) and on sqlite3's shell running
# bench/workloads/sqlite.sql in memory with 60000 rows instead of 300000
# (built as bench-targets.sh builds it, with frame pointers): one row per recorder, the native one
# (hybrid samples: the frame-pointer walk, a small copy and a rare
# whole one), perf record --call-graph dwarf,65528 and
# perf record --call-graph fp:
#   bytes/sample  the recording's size over its samples
#   same samples  the native recorder only: the share of the samples'
#                 weight whose stacks are those of the 64 KB copies on
#                 the very same samples, emulated from the dwarf
#                 recording (bench-hybrid --whole 10,250 with the
#                 recorder's default copy: the kernel's frame-pointer walk
#                 done over the copy, the copy cut, the rare whole
#                 samples); the overlap below also differs by sampling
#   overlap       recorded at once, in the same run, by the recorder
#                 and by perf record --call-graph dwarf,65528 (started
#                 around it): the share of the samples' weight their
#                 folded stacks of the program have in common (the sum
#                 over stacks of the smaller of their two shares); the
#                 dwarf row, two dwarf recordings at once, is how close
#                 sampling itself comes
#   known         of the recorder's weight, the share whose stacks the
#                 dwarf recording also has (a stack with frames missing
#                 or wrong is not there)
#   slowdown      the workload's CPU time (user + system, of the
#                 workload alone, /usr/bin/time) recorded, over that of
#                 a run without a recorder; for lz4's benchmark, which
#                 runs for a set time, its time per byte instead (from
#                 the compression and decompression speeds it prints):
#                 medians of RUNS (default 5) alternating runs
# The folded stacks are those of the native reader (flamegraph
# --perfdata). Builds are kept in BUILD_DIR/bench-recorder; recordings
# go to a scratch folder removed at the end. sqlite3's same-sample share
# is also given for its whole workload (300000 rows), from one more dwarf
# recording. About 4 minutes on an idle
# 2-core machine.
# Usage: bench-recorder.sh BUILD_DIR [SHARED_DIR]
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
runs=${RUNS:-5}
command -v perf >/dev/null || { echo "bench-recorder: perf not installed, skipped"; exit 0; }
[ -x /usr/bin/time ] || { echo "bench-recorder: /usr/bin/time not installed, skipped"; exit 0; }
[ "$(uname -m)" = x86_64 ] || { echo "bench-recorder: the native recorder records x86_64 only"; exit 0; }

keep=$build/bench-recorder
mkdir -p "$keep"
work=$(mktemp -d "$keep/run.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work XDG_CACHE_HOME=$work/cache
cd "$work"
fp=(-O2 -g -fno-omit-frame-pointer)

# lz4 and its 8 MB of text, as bench-hybrid.sh makes them
if [ ! -x "$keep/lz4" ] && lz4_src=$("$src/tests/lib/fetch-source.sh" lz4 2>/dev/null); then
	cc "${fp[@]}" -I"$lz4_src/lib" "$lz4_src"/lib/{lz4,lz4hc,lz4frame,xxhash}.c \
		"$lz4_src"/programs/*.c -o "$keep/lz4.tmp" -pthread && mv "$keep/lz4.tmp" "$keep/lz4"
fi
if [ ! -f "$keep/data.txt" ]; then
	for i in $(seq 40); do cat "$src"/README.md "$src"/src/lib/*/*.c; done > "$keep/data.tmp"
	truncate -s 8000000 "$keep/data.tmp" && mv "$keep/data.tmp" "$keep/data.txt"
fi
# sqlite3's shell, as bench-targets.sh builds it (with frame pointers)
if [ ! -x "$keep/sqlite3" ] && command -v tclsh >/dev/null &&
	ssrc=$(bash "$src/tests/lib/fetch-source.sh" sqlite3 2>/dev/null); then
	rm -rf "$work/sqlite" && cp -r "$ssrc" "$work/sqlite"
	if (cd "$work/sqlite" && ./configure --disable-tcl --disable-readline &&
		make sqlite3.c shell.c) >"$work/sqlite.log" 2>&1; then
		"${CC:-cc}" "${fp[@]}" -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION \
			-DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_MATH_FUNCTIONS \
			-o "$keep/sqlite3.tmp" "$work/sqlite/sqlite3.c" "$work/sqlite/shell.c" -lm &&
			mv "$keep/sqlite3.tmp" "$keep/sqlite3"
	fi
	rm -rf "$work/sqlite"
fi

# cpu FILE: user + system seconds /usr/bin/time wrote
cpu() { awk '{ printf "%.3f\n", $1 + $2 }' "$1"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# folded DATA OUT: the native reader's folded stacks; prints the samples
folded() {
	flamegraph_out=$("$build/flamegraph" --perfdata "$1" --format folded -o "$2" 2>&1 >/dev/null) || true
	sed -n 's/.*(\([0-9]*\) samples.*/\1/p' <<<"$flamegraph_out" | tail -n 1
}
# overlap A B: "overlap known" of A's folded stacks against B's, in %
overlap() {
	awk 'function add(f, line,   n, k) {
		n = line; sub(/.* /, "", n); k = line; sub(/ [0-9]+$/, "", k)
		w[f, k] += n; t[f] += n; keys[k] = 1
	}
	FNR == 1 { f++ }
	{ add(f, $0) }
	END {
		if (!t[1] || !t[2]) { print "- -"; exit }
		for (k in keys) {
			a = w[1, k] / t[1]; b = w[2, k] / t[2]
			s += a < b ? a : b
			if (b > 0) known += a
		}
		printf "%.1f %.1f\n", 100 * s, 100 * known
	}' "$1" "$2"
}

# lz4_cost FILE: seconds per MB compressed and decompressed, from the
# speeds lz4's benchmark printed last ("..., C MB/s , D MB/s")
lz4_cost() {
	tr '\r' '\n' <"$1" | sed -n 's/.*, *\([0-9.]*\) MB\/s *, *\([0-9.]*\) MB\/s.*/\1 \2/p' |
		tail -n 1 | awk '$1 > 0 && $2 > 0 { printf "%.6f\n", 1 / $1 + 1 / $2 }'
}

# record KIND NAME RUN CMD...: run RUN (from 0) of CMD under recorder
# KIND (none, native, dwarf, fp): its cost (CPU time, or lz4's time per
# byte for NAME lz4) appended to NAME.KIND.cpu, the recording of the
# first run kept as NAME.KIND.data
record() {
	local kind=$1 name=$2 run=$3 data=$work/scratch.data
	shift 3
	[ "$run" = 0 ] && data=$name.$kind.data
	local timed=(/usr/bin/time -f '%U %S' -o t.txt "$@")
	rm -f t.txt
	case $kind in
	none) "${timed[@]}" >/dev/null 2>run.err ;;
	*) recorded "$kind" "$data" "${timed[@]}" >/dev/null 2>run.err ;;
	esac
	if [ "$name" = lz4 ]; then
		lz4_cost run.err >>"$name.$kind.cpu"
	elif [ -s t.txt ]; then
		cpu t.txt >>"$name.$kind.cpu"
	fi
	rm -f "$work/scratch.data" run.err
}

# emulated DATA: "equal bytes" of the native recorder's samples emulated
# from the dwarf recording DATA with its default copy
emulated() {
	local size
	size=$(sed -n 's/^#define FG_RECORDER_DEFAULT_STACK \([0-9]*\).*/\1/p' \
		"$src/include/flamegraph/recorder.h")
	"$build/bench/bench-hybrid" --whole 10,250 "$1" "$size" 2>/dev/null |
		awk -v s="$size" '$1 == s { printf "%.2f %.0f\n", $2, $3; found = 1 }
			END { if (!found) print "- -" }'
}

# recorded KIND DATA CMD...: CMD recorded by KIND into DATA
recorded() {
	local kind=$1 data=$2
	shift 2
	case $kind in
	native) "$build/flamegraph" --recorder native -F 997 --format folded -o /dev/null \
			--perfdata-out "$data" -- "$@" ;;
	dwarf) perf record -q --no-bpf-event -F 997 --call-graph dwarf,65528 -o "$data" -- "$@" ;;
	fp) perf record -q --no-bpf-event -F 997 --call-graph fp -o "$data" -- "$@" ;;
	esac
}

# samples KIND DATA: the samples of a recording, as the graph counts them
samples() {
	if [ "$1" = native ]; then
		"$build/flamegraph" --perfdata "$2" --format folded -o /dev/null 2>&1 >/dev/null |
			sed -n 's/.*(\([0-9]*\) samples.*/\1/p' | tail -n 1
	else
		perf report --stats -i "$2" 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }'
	fi
}

# same KIND COMM CMD...: "overlap known" of KIND against a dwarf
# recording of the same run (perf record around KIND's recorder), over
# the stacks of the processes named COMM
same() {
	local kind=$1 comm=$2
	shift 2
	perf record -q -B --no-bpf-event -F 997 --call-graph dwarf,65528 -o outer.data -- \
		bash -c "$(declare -f recorded); build=$build; recorded $kind inner.data \"\$@\"" \
		same "$@" >/dev/null 2>&1 || true
	"$build/flamegraph" --perfdata outer.data --format folded -o outer.all >/dev/null 2>&1 || true
	"$build/flamegraph" --perfdata inner.data --format folded -o inner.all >/dev/null 2>&1 || true
	grep "^$comm;" outer.all >outer.folded || true
	grep "^$comm;" inner.all >inner.folded || true
	overlap inner.folded outer.folded
	rm -f outer.data inner.data outer.all inner.all
}

bench() { # bench TITLE NAME COMM CMD...
	local title=$1 name=$2 comm=$3 kind base n bytes ov known slow i eq eqb
	shift 3
	for ((i = 0; i < runs; i++)); do
		for kind in none native dwarf fp; do
			record "$kind" "$name" "$i" "$@"
		done
	done
	base=$(median <"$name.none.cpu")
	if [ "$name" = lz4 ]; then
		echo "-- $title: ${base} s per MB compressed and decompressed without a recorder (median of $runs runs)"
	else
		echo "-- $title: ${base} s of CPU time without a recorder (median of $runs runs)"
	fi
	read -r eq eqb < <(emulated "$name.dwarf.data")
	printf '  %-20s %14s %9s %9s %9s %10s\n' recorder bytes/sample "same smp" overlap known slowdown
	for kind in native dwarf fp; do
		n=$(samples "$kind" "$name.$kind.data")
		bytes=$(stat -c %s "$name.$kind.data")
		read -r ov known < <(same "$kind" "$comm" "$@")
		slow=$(median <"$name.$kind.cpu")
		printf '  %-20s %14s %9s %8s%% %8s%% %9sx\n' \
			"$(case $kind in native) echo "native (hybrid)" ;; dwarf) echo "perf dwarf,65528" ;;
				fp) echo "perf fp" ;; esac)" \
			"$(awk -v b="$bytes" -v n="${n:-0}" 'BEGIN { if (n > 0) printf "%.0f", b / n; else print "-" }')" \
			"$([ "$kind" = native ] && [ "$eq" != - ] && echo "$eq%" || echo -)" \
			"$ov" "$known" "$(awk -v a="$slow" -v b="$base" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')"
	done
	rm -f "$name".*.data
	echo "  (same smp: on the dwarf recording's own samples, emulated ($eqb bytes a sample"
	echo "   there); overlap, known: against perf record --call-graph dwarf,65528 recording"
	echo "   the same run; slowdown: $([ "$name" = lz4 ] && echo "time per byte" || echo "user + system time"))"
}

if [ -x "$keep/lz4" ]; then
	bench "lz4 -b1" lz4 lz4 "$keep/lz4" -b1 -i1 "$keep/data.txt"
else
	echo "bench-recorder: lz4: the Debian source could not be fetched, left out"
fi
if [ -x "$keep/sqlite3" ]; then
	# the workload with a fifth of its rows (SQLITE_ROWS), so that the
	# twenty runs stay short
	sed "s/i < 300000/i < ${SQLITE_ROWS:-60000}/" "$here/workloads/sqlite.sql" >"$work/sqlite.sql"
	bench "sqlite3 bench/workloads/sqlite.sql, ${SQLITE_ROWS:-60000} rows" sqlite sqlite3 \
		"$keep/sqlite3" :memory: ".read $work/sqlite.sql"
	# the same samples on the whole workload, once: a dwarf recording of
	# all its rows (some 0.5 GB, removed at once)
	if perf record -q --no-bpf-event -F 997 --call-graph dwarf,65528 -o full.data -- \
		"$keep/sqlite3" :memory: ".read $here/workloads/sqlite.sql" >/dev/null 2>&1; then
		read -r eq eqb < <(emulated full.data)
		echo "  the whole workload (300000 rows): the native recorder's stacks on the same samples,"
		echo "  emulated: $eq% as dwarf's ($eqb bytes a sample)"
	fi
	rm -f full.data
else
	echo "bench-recorder: sqlite3: not built (tclsh or the Debian source missing), left out"
fi
