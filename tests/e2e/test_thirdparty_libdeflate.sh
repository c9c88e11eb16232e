# flamegraph-build on a plain-Make project whose test and benchmark
# programs only `make test_programs` builds: Debian's libdeflate up to
# 1.14 (its Makefile; later releases build with CMake, and this test then
# reports itself skipped). --list shows them beside gzip (benchmark by its
# name a bench, the others of the test goals tests); --bench benchmark
# builds it, with the programs/config.h its Makefile generates made again
# in our folder, and profiles it compressing a small file, the graph
# holding libdeflate's compressor rooted in main; the tree stays as it was.
# ctest: LABELS thirdparty
require_perf
snapshot() { find "$1" -mindepth 1 -path "$1/build" -prune -o -printf '%p %T@ %s %m\n' | LC_ALL=C sort; }

if ! fetch_source libdeflate; then
	:
elif ! grep -q '^test_programs:' "$source_dir/Makefile" 2>/dev/null; then
	skip_part "libdeflate" "$(basename "$source_dir") builds with CMake, not its Makefile's test_programs goal (Debian serves libdeflate 1.14 only in bookworm)"
else
	cp -a "$source_dir" ld
	snapshot ld > before.txt
	awk 'BEGIN { srand(7); for (i = 0; i < 40000; i++)
		printf "%d %x a line of text to compress %d\n", i, int(rand() * 65536), int(rand() * 100) }' > input.txt
	check_exit "libdeflate: --list" 0 sh -c "cd ld && flamegraph-build --list"
	check_contains "--list: the default goal's program" out "^bin +gzip"
	check_contains "--list: benchmark (make test_programs), a bench by its name" out "^bench +benchmark$"
	check_contains "--list: the test goal's programs" out "^test +.*checksum.*test_checksums"
	check_exit "libdeflate: --bench benchmark" 0 sh -c "cd ld && flamegraph-build --bench benchmark -F 999 -o ../ld.svg --folded ../ld.folded -- -6 -s 65536 ../input.txt"
	check_contains "benchmark: config.h generated in our folder" err "generating config.h"
	check_contains "benchmark ran" out "Compressed "
	check_contains "benchmark: the compressor, rooted in main" ld.folded "^benchmark;.*main;do_benchmark;do_compress;libdeflate_deflate_compress;deflate_compress"
	check_exit "libdeflate: --bin benchmark (kinds are guesses)" 0 sh -c "cd ld && flamegraph-build --bin benchmark -F 999 -o ../again.svg -- -1 ../input.txt"
	check_contains "again: up to date" err "benchmark is up to date"
	snapshot ld > after.txt
	check_same_file "libdeflate: the user's tree is unchanged" before.txt after.txt
	cp ld.svg "$FG_ARTIFACTS/thirdparty-libdeflate.svg" 2>/dev/null || true
fi
