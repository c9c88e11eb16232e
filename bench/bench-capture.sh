#!/usr/bin/env bash
# Capture: records a compressor-style workload (bench/workloads/lzpack.c,
# one busy thread for LZPACK_SECONDS, default 7) with dwarf call graphs at
# the default rate, with perf (`flamegraph --recorder perf`, whose ring
# buffer it sizes): once through `flamegraph` into a file (--perfdata-out),
# once with the same `perf record` command without -m (perf's default ring
# buffer), and once with --stream (the recording read as perf writes it,
# nothing on disk), and prints: samples, lost samples, recording size and MB/s, and the time
# from the workload's end to the finished graph. The native reader's
# debug cache starts empty for each flamegraph run (a first run).
# Usage: bench-capture.sh BUILD_DIR [SHARED_DIR]
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
secs=${LZPACK_SECONDS:-7}
command -v perf >/dev/null || { echo "bench-capture: perf not installed, skipped"; exit 0; }

# recordings go to a folder of the benchmark's own, removed at the end
work=$(mktemp -d "$build/bench-capture.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work
cd "$work"
cc -O2 -g -o lzpack "$here/workloads/lzpack.c"

now() { date +%s.%N; }
mb() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1048576 }'; }
# "417 MB", "2.5 GB", "980 KB", "12 bytes" (the summary's sizes) in bytes
to_bytes() {
	awk -v n="$1" -v u="$2" 'BEGIN { m = u == "GB" ? 1073741824 : u == "MB" ? 1048576 : u == "KB" ? 1024 : 1
		printf "%.0f", n * m }'
}

# --- flamegraph to a file (--perfdata-out), default settings otherwise ------
t0=$(now)
XDG_CACHE_HOME=$work/cache-file "$build/flamegraph" --recorder perf -v -o lz.svg --perfdata-out ours.data -- \
	./lzpack "$secs" > /dev/null 2> ours.err
t1=$(now)
summary=$(grep 'note: wrote lz.svg' ours.err)
samples=$(sed -n 's/.*(\([0-9]*\) samples.*/\1/p' <<< "$summary")
lost=$(sed -n 's/.*samples, \([0-9]*\) lost.*/\1/p' <<< "$summary")
rec_s=$(sed -n 's/.*timing: record took \([0-9.]*\) s.*/\1/p' ours.err)
bytes=$(stat -c %s ours.data)
post=$(awk -v a="$t0" -v b="$t1" -v r="$rec_s" 'BEGIN { printf "%.2f", b - a - r }')
ring=$(sed -n 's/.* -m \([0-9]*K\) .*/\1/p' ours.err)

# --- flamegraph --stream: read as perf writes it, nothing on disk ------------
t4=$(now)
XDG_CACHE_HOME=$work/cache-stream "$build/flamegraph" --recorder perf -v --stream -o lz-stream.svg -- ./lzpack "$secs" \
	> /dev/null 2> stream.err
t5=$(now)
summary=$(grep 'note: wrote lz-stream.svg' stream.err)
s_samples=$(sed -n 's/.*(\([0-9]*\) samples.*/\1/p' <<< "$summary")
s_lost=$(sed -n 's/.*samples, \([0-9]*\) lost.*/\1/p' <<< "$summary")
s_rec=$(sed -n 's/.*timing: record took \([0-9.]*\) s.*/\1/p' stream.err)
s_bytes=$(to_bytes $(sed -nE 's/.* recorded, ([0-9.]+) (bytes|KB|MB|GB)\).*/\1 \2/p' <<< "$summary"))
[ -n "$s_bytes" ] || { echo "bench-capture: no size in: $summary" >&2; exit 1; }
s_post=$(awk -v a="$t4" -v b="$t5" -v r="$s_rec" 'BEGIN { printf "%.2f", b - a - r }')

# --- the same recording in perf's default ring buffer, then perf script |
# collapse | render as separate steps --------------------------------------
t6=$(now)
perf record -F 997 --call-graph dwarf,65528 -g -o base.data -- ./lzpack "$secs" > /dev/null 2> base.err
t7=$(now)
# perf's time, as "record took" is flamegraph's: from its start to its end
base_rec=$(awk -v a="$t6" -v b="$t7" 'BEGIN { printf "%.3f", b - a }')
base_lost=$(perf report -i base.data --stats 2>/dev/null |
	    awk '/LOST_SAMPLES events:/ { n = $3 } END { print n + 0 }')
base_samples=$(perf report -i base.data --stats 2>/dev/null |
	       awk '/^ *SAMPLE events:/ { n = $3 } END { print n + 0 }')
base_bytes=$(stat -c %s base.data)
t2=$(now)
perf script -i base.data 2>/dev/null | "$build/flamegraph-collapse-perf" > base.folded
"$build/flamegraph-render" -o base.svg base.folded 2>/dev/null
t3=$(now)
base_post=$(awk -v a="$t2" -v b="$t3" 'BEGIN { printf "%.2f", b - a }')

printf 'workload: lzpack %s s, dwarf call graphs at 997 Hz, %s CPUs\n' "$secs" "$(nproc)"
printf '%-28s %8s %8s %9s %8s %10s\n' "" samples lost "size MB" "MB/s" "post s"
printf '%-28s %8s %8s %9s %8.1f %10s\n' "flamegraph, file (${ring:-?})" "$samples" "$lost" "$(mb "$bytes")" \
	"$(awk -v b="$bytes" -v s="$rec_s" 'BEGIN { print b / 1048576 / s }')" "$post"
printf '%-28s %8s %8s %9s %8.1f %10s\n' "flamegraph --stream" "$s_samples" "$s_lost" "$(mb "$s_bytes")" \
	"$(awk -v b="$s_bytes" -v s="$s_rec" 'BEGIN { print b / 1048576 / s }')" "$s_post"
printf '%-28s %8s %8s %9s %8.1f %10s\n' "perf's default ring buffer" "$base_samples" "$base_lost" "$(mb "$base_bytes")" \
	"$(awk -v b="$base_bytes" -v s="$base_rec" 'BEGIN { print b / 1048576 / s }')" "$base_post"
printf 'lost samples: %s with flamegraph (target 0), %s with --stream, %s with perf'"'"'s default ring buffer\n' \
	"$lost" "$s_lost" "$base_lost"
