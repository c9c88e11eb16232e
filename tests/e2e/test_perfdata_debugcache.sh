# The native reader's cache of compressed DWARF: a program built with
# compressed debug sections (-gz=zlib, as distributions ship their debug
# files) and recorded with dwarf call graphs gets its inlined frames from
# an uncompressed copy written on the first run into
# $XDG_CACHE_HOME/flamegraph-build/debug/BUILD_ID.debug and only read by
# later runs. Every run gives the same stacks as perf script's: with the
# copy written, with it read, without a writable cache folder, and with a
# damaged copy (which is written again); no temporary file stays behind.
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
cc -O2 -g -gz=zlib -pthread -o threads-z "$FG_SRC/tests/e2e/perfdata/threads.c" ||
	{ echo "cc cannot compress debug sections here"; exit 77; }
if ! perf record -q --no-bpf-event -F 997 --call-graph dwarf,16384 -o z.data -- ./threads-z 400 2 \
	>/dev/null 2>record.err; then
	echo "perf cannot record here:"; cat record.err; exit 77
fi
readelf -SW threads-z | grep -E '\.debug_info' > sections.txt
check_contains "the program's DWARF is compressed" sections.txt " [A-Z]*C[A-Z]* "
id=$(readelf -n threads-z | awk '/Build ID/ { print $3 }')
check_eq "the program has a build id" yes "$([ -n "$id" ] && echo yes)"
copy=cache/flamegraph-build/debug/$id.debug

perf script -i z.data 2>/dev/null | flamegraph-collapse-perf > script.folded
check_contains "perf script lists the inlined frames" script.folded ";hash_step;churn;mix [0-9]+$"

. "$FG_SRC/tests/lib/stacks.sh" # share

XDG_CACHE_HOME=$PWD/cache check_exit "first run: the copy is written" 0 flamegraph-collapse-perf z.data
mv out first.folded
check_eq "first run: nothing on stderr" "" "$(cat err)"
check_eq "the copy is in the cache" yes "$([ -s "$copy" ] && echo yes)"
readelf -SW "$copy" | grep -E '\.debug_info' > copy-sections.txt
check_contains "the copy holds .debug_info" copy-sections.txt "\.debug_info"
check_not_contains "the copy is not compressed" copy-sections.txt " [A-Z]*C[A-Z]* +[0-9]+ +[0-9]+ +[0-9]+$"
check_contains "first run: inlined frames" first.folded ";hash_step;churn;mix [0-9]+$"
pct=$(share script.folded first.folded)
echo "first run: identical stacks for $pct% of perf script's sample weight"
awk -v p="$pct" 'BEGIN { exit !(p >= 99) }' && pass || fail "first run: only $pct% identical"

inode=$(stat -c %i "$copy")
XDG_CACHE_HOME=$PWD/cache check_exit "second run: the copy is read" 0 flamegraph-collapse-perf z.data
check_same_file "second run: the same stacks" first.folded out
check_eq "second run: the copy was not written again" "$inode" "$(stat -c %i "$copy")"

XDG_CACHE_HOME=/proc/self/no-such-folder check_exit "no writable cache folder" 0 \
	flamegraph-collapse-perf z.data
check_same_file "no writable cache folder: the same stacks" first.folded out
check_eq "no writable cache folder: nothing on stderr" "" "$(cat err)"

head -c 64 "$copy" > damaged && cat damaged > "$copy"
XDG_CACHE_HOME=$PWD/cache check_exit "damaged copy" 0 flamegraph-collapse-perf z.data
check_same_file "damaged copy: the same stacks" first.folded out
check_eq "damaged copy: written again" yes "$([ "$(stat -c %s "$copy")" -gt 64 ] && echo yes)"
check_eq "no temporary file in the cache" "" "$(ls -A cache/flamegraph-build/debug | grep '^\.')"

# flamegraph reads its recording with the same cache
XDG_CACHE_HOME=$PWD/cache check_exit "flamegraph --perfdata" 0 flamegraph --perfdata z.data \
	--format folded -o fg.folded
check_same_file "flamegraph: the same stacks" first.folded fg.folded
rm -f z.data
