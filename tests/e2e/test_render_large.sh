# 10 million distinct stacks rendered straight from a generator through a
# pipe: the renderer must finish and stay within 2 GB of peak RSS. Prints
# the time, the peak RSS and the SVG size (figures, not assertions on
# speed).
# The memory bound is the plain build's; a sanitizer build doubles memory
# and adds minutes, and its runtime is checked on the smaller tests.
# ctest: LABELS large
# (2 GB of memory traffic disturbs the tests that measure shares)
# ctest: RESOURCE_LOCK cpu
if grep -q __asan_init "$(command -v flamegraph-render)"; then
	echo "skipped: sanitizer build (the 2 GB bound applies to the plain build)"
	exit 77
fi
command -v /usr/bin/time >/dev/null || { fail "/usr/bin/time is missing (Debian package 'time')"; exit 1; }
start=$(date +%s.%N)
awk 'BEGIN { for (i = 0; i < 10000000; i++)
	printf "main;worker_%d;module_%d::handler;leaf_%d 1\n", i % 97, i % 10007, i }' |
	/usr/bin/time -f %M -o rss.txt flamegraph-render -o large.svg
rc=${PIPESTATUS[1]}
end=$(date +%s.%N)
check_eq "10M stacks: exit status" 0 "$rc"
rss_kb=$(tail -1 rss.txt)
size=$(stat -c %s large.svg)
awk -v a="$start" -v b="$end" -v r="$rss_kb" -v s="$size" 'BEGIN {
	printf "10M distinct stacks (~507 MB folded, generated through a pipe): %.1f s, peak RSS %.0f MB, SVG %d bytes\n",
		b - a, r / 1024, s }'
[ "$rss_kb" -lt 2097152 ] && pass || fail "peak RSS ${rss_kb} KB is 2 GB or more"
xmllint --noout large.svg && pass || fail "large.svg is not well-formed"
# every one of the 97 workers holds 1/97 of the samples: wide enough to draw
check_eq "all 97 workers drawn" 97 "$(grep -c '<title>worker_[0-9]* (' large.svg)"
check_contains "the total is every sample" large.svg '<title>all \(10,000,000 samples, 100.00%\)'
