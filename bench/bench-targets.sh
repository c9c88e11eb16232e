#!/usr/bin/env bash
# The four performance figures the project tracks, each against its
# reference measured in the same run:
#   collapse  ~157 MB of perf script text, 1 thread       vs inferno-collapse-perf
#   render    ~32 MB folded, few distinct stacks          vs inferno-flamegraph
#   render    200 000 distinct stacks 5-40 deep, ~90 MB    vs inferno-flamegraph
#   reader    a dwarf recording of zstd -b (Debian source) vs perf script
#   reader    a dwarf recording of sqlite3's shell (Debian source: one
#             amalgamated unit, 1.3 MB of inlined text) vs perf script
# Each figure is the median CPU time (user + system of the program and
# all its children, from perf stat's task-clock; /usr/bin/time without
# perf) of RUNS (default 5) runs, the programs taking turns, plus the peak
# RSS of the largest process. With BASELINE=DIR (a folder holding another
# build's flamegraph-* programs, e.g. main's) that build is measured in the
# same turns and shown as "before". A reference that is not available is
# printed as skipped, never estimated: inferno is taken from PATH, or
# built with cargo from INFERNO_SRC (a source tree of inferno) when set.
# The zstd recording (zstd -b1e2 -i1: about 4 s of samples, 200-300 MB)
# and the sqlite3 one (bench/workloads/sqlite.sql in memory: about 3.5 s,
# 250 MB, 1 000 distinct stacks) are made in the build folder and
# removed once measured; sqlite3's amalgamation is made with tclsh.
# Usage: bench-targets.sh BUILD_DIR [SHARED_DIR]
set -euo pipefail
build=$(cd "$1" && pwd)
shared=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-5}
baseline=${BASELINE:-}
[ -x /usr/bin/time ] || { echo "bench-targets: /usr/bin/time not installed, skipped"; exit 0; }

work=$(mktemp -d "$build/bench-targets.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache TMPDIR=$work

# --- the references ----------------------------------------------------
inferno_bin=""
if command -v inferno-collapse-perf >/dev/null && command -v inferno-flamegraph >/dev/null; then
	inferno_bin=$(dirname "$(command -v inferno-flamegraph)")
elif [ -n "${INFERNO_SRC:-}" ] && command -v cargo >/dev/null; then
	if cargo build -q --release --manifest-path "$INFERNO_SRC/Cargo.toml" \
		--target-dir "$work/inferno" >"$work/cargo.log" 2>&1; then
		inferno_bin=$work/inferno/release
	else
		echo "bench-targets: inferno did not build from $INFERNO_SRC (see cargo's output):"
		tail -n 3 "$work/cargo.log"
	fi
fi

# --- measuring ---------------------------------------------------------
# measure KEY CMD...: one run; appends "CPU KB" to $work/KEY.times and
# keeps stdout in $work/KEY.out (a command writing a file names it itself)
measure() {
	local key=$1 cpu kb u s
	shift
	if command -v perf >/dev/null; then
		/usr/bin/time -f '%M' -o "$work/rss" perf stat -x, -e task-clock -o "$work/stat" -- \
			"$@" >"$work/$key.out" 2>/dev/null
		cpu=$(awk -F, '$3 ~ /^task-clock/ { printf "%.4f", $1 / 1000 }' "$work/stat")
		kb=$(cat "$work/rss")
	else
		/usr/bin/time -f '%U %S %M' -o "$work/rss" "$@" >"$work/$key.out" 2>/dev/null
		read -r u s kb <"$work/rss"
		cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
	fi
	echo "$cpu $kb" >>"$work/$key.times"
}

# median KEY: "CPU KB" (median CPU seconds, the largest peak RSS in KB)
median() {
	sort -n "$work/$1.times" | awk '{ c[NR] = $1; if ($2 > k) k = $2 }
		END { printf "%.3f %d\n", c[int((NR + 1) / 2)], k }'
}

# row WORK TARGET REF_NAME REF_KEY: a table row; ours is key "new", the
# baseline "old"
row() {
	local what=$1 target=$2 refname=$3 ref=$4 rc rk nc nk oc ok ratio before=""
	read -r nc nk < <(median "$ref-new")
	if [ -s "$work/$ref-ref.times" ]; then
		read -r rc rk < <(median "$ref-ref")
		ratio=$(awk -v a="$rc" -v b="$nc" 'BEGIN { printf "%.1fx", (b > 0 ? a / b : 0) }')
		refcol=$(printf '%s %.3f s, %d MB' "$refname" "$rc" $((rk / 1024)))
	else
		ratio="skipped"
		refcol="$refname: skipped"
	fi
	if [ -s "$work/$ref-old.times" ]; then
		read -r oc ok < <(median "$ref-old")
		before=$(printf '%.3f s, %d MB' "$oc" $((ok / 1024)))
		[ -s "$work/$ref-ref.times" ] &&
			before="$before ($(awk -v a="$rc" -v b="$oc" 'BEGIN { printf "%.1fx", (b > 0 ? a / b : 0) }'))"
	fi
	printf '%-44s | %-28s | %-26s | %-22s | %-8s | %s\n' "$what" "$refcol" "$before" \
		"$(printf '%.3f s, %d MB' "$nc" $((nk / 1024)))" "$ratio" "$target"
}

# same KEY_A KEY_B NAME: the outputs must agree (a benchmark of wrong output
# is no benchmark)
same() {
	cmp -s "$work/$1" "$work/$2" || { echo "bench-targets: $3: outputs differ"; exit 1; }
}

# --- inputs --------------------------------------------------------------
if [ -n "$shared" ]; then
	stacks="$shared/conformance/flamegraph-pl/example-perf-stacks.txt.gz"
	folded="$shared/conformance/inferno/collapse-perf/results/example-perf-stacks-collapsed.txt"
else
	stacks="$here/../tests/data/perf-threads.txt.gz"
	folded="$here/../tests/data/expected/threads.folded"
fi
zcat "$stacks" >"$work/one.txt"
one=$(stat -c %s "$work/one.txt")
for _ in $(seq $(((157000000 + one - 1) / one))); do cat "$work/one.txt"; done >"$work/perf.txt"
rm "$work/one.txt"
for _ in $(seq 50); do cat "$folded"; done >"$work/few.folded"
"$build/bench/bench-folded_gen" 200000 >"$work/distinct.folded"
mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.0f MB", b / 1e6 }'; }
echo "inputs: perf script text $(mb "$work/perf.txt"), folded $(mb "$work/few.folded") (few" \
	"stacks), $(mb "$work/distinct.folded") (200 000 distinct stacks); $runs runs each"

# --- collapse and render --------------------------------------------------
for ((i = 0; i < runs; i++)); do
	for v in new old ref; do
		case $v in
		new) dir=$build ;;
		old) [ -n "$baseline" ] || continue; dir=$baseline ;;
		ref) [ -n "$inferno_bin" ] || continue ;;
		esac
		if [ "$v" = ref ]; then
			measure "collapse-$v" "$inferno_bin/inferno-collapse-perf" --nthreads 1 "$work/perf.txt"
			measure "few-$v" "$inferno_bin/inferno-flamegraph" "$work/few.folded"
			measure "distinct-$v" "$inferno_bin/inferno-flamegraph" "$work/distinct.folded"
		else
			measure "collapse-$v" "$dir/flamegraph-collapse-perf" -n 1 "$work/perf.txt"
			measure "few-$v" "$dir/flamegraph-render" -o "$work/few-$v.svg" "$work/few.folded"
			measure "distinct-$v" "$dir/flamegraph-render" -o "$work/distinct-$v.svg" \
				"$work/distinct.folded"
		fi
	done
done
[ -z "$baseline" ] || same collapse-new.out collapse-old.out "collapse (before and after)"
[ -z "$inferno_bin" ] || same collapse-new.out collapse-ref.out "collapse (inferno)"
rm -f "$work/perf.txt" "$work/few.folded" "$work/distinct.folded" "$work"/*.svg

# --- the reader ------------------------------------------------------------
# reader_bench KEY DATA NAME: the native reader against perf script on a
# recording (keys KEY-ref, KEY-new, KEY-old), which must fold the same;
# the recording is removed
reader_bench() {
	local key=$1 data=$2 i
	"$build/flamegraph-collapse-perf" "$data" >/dev/null 2>&1 # fills the debug cache
	for ((i = 0; i < runs; i++)); do
		measure "$key-ref" perf script -i "$data"
		measure "$key-new" "$build/flamegraph-collapse-perf" "$data"
		[ -z "$baseline" ] || measure "$key-old" "$baseline/flamegraph-collapse-perf" "$data"
	done
	"$build/flamegraph-collapse-perf" "$work/$key-ref.out" >"$work/$key-text.folded"
	same "$key-text.folded" "$key-new.out" "$3 (perf script | collapse and native)"
	rm -f "$data" "$work/$key-ref.out"
}

reader=yes
if ! command -v perf >/dev/null; then
	reader="perf not installed"
elif ! zsrc=$(bash "$here/../tests/lib/fetch-source.sh" libzstd 2>"$work/fetch.log"); then
	reader="the Debian source of zstd could not be fetched ($(tail -n 1 "$work/fetch.log"))"
fi
if [ "$reader" = yes ]; then
	cp -r "$zsrc" "$work/zstd"
	# no assembly loop: its symbols have no size and no CFI, which the
	# equivalence with perf script does not cover yet
	make -s -j"$(nproc)" -C "$work/zstd/programs" zstd CFLAGS="-O2 -g -DZSTD_DISABLE_ASM" \
		>"$work/zstd.log" 2>&1 || reader="zstd did not build ($(tail -n 1 "$work/zstd.log"))"
fi
if [ "$reader" = yes ]; then
	perf record -q --no-bpf-event -F 997 --call-graph dwarf,65528 -o "$work/zstd.data" -- \
		"$work/zstd/programs/zstd" -b1e2 -i1 >/dev/null 2>&1
	echo "reader input: zstd -b1e2 -i1, dwarf call graphs at 997 Hz, $(mb "$work/zstd.data")," \
		"$(perf script -F tid -i "$work/zstd.data" 2>/dev/null | wc -l) samples"
	reader_bench reader "$work/zstd.data" "reader, zstd"
	rm -rf "$work/zstd"
fi

# sqlite3's shell: the amalgamation (sqlite3.c, made by the source's
# configure and make with tclsh) and shell.c built as one program with
# FTS5 and R*Tree, running bench/workloads/sqlite.sql on a database in
# memory
sqlite=yes
if ! command -v perf >/dev/null; then
	sqlite="perf not installed"
elif ! command -v tclsh >/dev/null; then
	sqlite="tclsh not installed (sqlite3's amalgamation is made with it: apt-get install tcl)"
elif ! ssrc=$(bash "$here/../tests/lib/fetch-source.sh" sqlite3 2>"$work/fetch.log"); then
	sqlite="the Debian source of sqlite3 could not be fetched ($(tail -n 1 "$work/fetch.log"))"
fi
if [ "$sqlite" = yes ]; then
	cp -r "$ssrc" "$work/sqlite"
	if ! (cd "$work/sqlite" && ./configure --disable-tcl --disable-readline &&
		make sqlite3.c shell.c) >"$work/sqlite.log" 2>&1 ||
		! "${CC:-cc}" -O2 -g -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION \
			-DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_MATH_FUNCTIONS \
			-o "$work/sqlite/sqlite3-bench" "$work/sqlite/sqlite3.c" "$work/sqlite/shell.c" \
			-lm >>"$work/sqlite.log" 2>&1; then
		sqlite="sqlite3 did not build ($(tail -n 1 "$work/sqlite.log"))"
	fi
fi
if [ "$sqlite" = yes ]; then
	perf record -q --no-bpf-event -F 997 --call-graph dwarf,65528 -o "$work/sqlite.data" -- \
		"$work/sqlite/sqlite3-bench" :memory: <"$here/workloads/sqlite.sql" >/dev/null 2>&1
	echo "reader input: sqlite3 running bench/workloads/sqlite.sql, dwarf call graphs at 997 Hz," \
		"$(mb "$work/sqlite.data"), $(perf script -F tid -i "$work/sqlite.data" 2>/dev/null |
			wc -l) samples"
	reader_bench sqlite "$work/sqlite.data" "reader, sqlite3"
	rm -rf "$work/sqlite"
fi

# --- the table ---------------------------------------------------------------
echo
printf '%-44s | %-28s | %-26s | %-22s | %-8s | %s\n' "work (median CPU, peak RSS)" "reference" \
	"before${baseline:+ ($baseline)}" "now" "ratio" "target"
row "collapse 157 MB perf script text, 1 thread" "≥ 4x" inferno collapse
row "render 32 MB folded, few distinct stacks" "≥ 10x" inferno few
row "render 200k distinct stacks, 90 MB" "≥ 6x" inferno distinct
if [ "$reader" = yes ]; then
	row "reader, zstd dwarf recording" "≥ 10x" "perf script" reader
else
	echo "reader: skipped: $reader"
fi
if [ "$sqlite" = yes ]; then
	row "reader, sqlite3 dwarf recording" "≥ 10x" "perf script" sqlite
else
	echo "reader (sqlite3): skipped: $sqlite"
fi
[ -n "$inferno_bin" ] ||
	echo "inferno: skipped, not installed (put inferno-flamegraph on PATH, or INFERNO_SRC=a source tree)"
